/**
 * `gen build` on PostgreSQL and MariaDB schemas whose names collide once lower-cased (`"Contact"`
 * beside `contact`; columns `name`, `"Name"`, `"NAME"`) or are JavaScript keywords: the build warns
 * at the service's entry about what it leaves out, the generated TypeScript compiles under the
 * user's strict tsc (nodenext), the OpenAPI documents and Prisma schemas validate, and the server
 * serves the table and column written as their API name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { createServer } from '#runtime/http/create-server.js';
import { loadModel } from '#runtime/http/run-server.js';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
import { createTestDatabase, requireService, type ExternalDatabase } from '#test/helpers/require-service.js';
import { openApiErrors, prismaSchemaError, unresolvedRefs } from '../golden/validators.js';
import { captureIo, linkRuntime, REPO_ROOT } from './cli-fixtures.js';

const KEY = 'ef'.repeat(32);
/** Every build's folder, under one root: the last test type-checks them all in one tsc run. */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-awkward-'));
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});
/** The servers built by the tests, by test name, for the last test's tsc. */
const builtServers: Array<{ test: string; dir: string }> = [];

const DDL: Record<ExternalDatabase, string[]> = {
  postgres: [
    'create table "Contact" (id integer primary key, "Name" text)',
    'create table contact (id integer primary key, name text, "Name" text, "NAME" text)',
    'create table note (id integer primary key, contact_id integer references contact (id), other_id integer references "Contact" (id))',
    'create table "class" ("function" integer primary key, "delete" text, "constructor" text, "__proto__" text, "toString" text)',
    `insert into contact values (1, 'lower', 'Mixed', 'UPPER')`,
    `insert into "Contact" values (7, 'the other table')`,
  ],
  // Column names are case-insensitive in MySQL; table names are not on Linux.
  mysql: [
    'create table `Contact` (id integer primary key, `Name` text)',
    'create table contact (id integer primary key, name text)',
    'create table note (id integer primary key, contact_id integer references contact (id), other_id integer references `Contact` (id))',
    'create table `class` (`function` integer primary key, `delete` text, `constructor` text, `__proto__` text, `toString` text)',
    `insert into contact values (1, 'lower')`,
    `insert into \`Contact\` values (7, 'the other table')`,
  ],
};

const WARNINGS: Record<ExternalDatabase, string[]> = {
  postgres: [
    `platform.yaml:3:5: warning: service 'crm': tables "contact" and "Contact" have one API name 'contact': only "contact" is served.`,
    `platform.yaml:3:5: warning: service 'crm': columns "name", "Name" and "NAME" of table "contact" have one API name 'name': only "name" is served.`,
  ],
  mysql: [
    `platform.yaml:3:5: warning: service 'crm': tables "contact" and "Contact" have one API name 'contact': only "contact" is served.`,
  ],
};

async function run(kind: ExternalDatabase, url: string, statements: string[]): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const statement of statements) await client.query(statement);
    await client.end();
  } else {
    const connection = await mysql.createConnection({ uri: url });
    for (const statement of statements) await connection.query(statement);
    await connection.end();
  }
}

interface Built {
  dir: string;
  stderr: string;
  model: ReturnType<typeof loadModel>;
}

/**
 * gen build over a database holding `statements`, with the checks every awkward schema must pass:
 * the OpenAPI documents and the Prisma schema validate; the user's tsc (strict, nodenext) over
 * every generated TypeScript file is the last test's, in one run for all the builds (each run
 * type-checked the runtime's sources anew, most of the file's time).
 */
async function buildChecked(kind: ExternalDatabase, type: string, url: string, statements: string[]): Promise<Built> {
  await run(kind, url, statements);
  const dir = fs.mkdtempSync(path.join(root, 'build-'));
  fs.writeFileSync(
    path.join(dir, 'platform.yaml'),
    [
      'platform: { name: awkward }',
      'services:',
      '  - name: crm',
      `    type: ${type}`,
      `    config: { url: "${url}" }`,
      'roles:',
      '  - name: all',
      '    grants: [{ service: crm, component: "*" }]',
      'apps:',
      '  - name: web',
      '    role: all',
      `    api_key: ${KEY}`,
      'system: { database: data/system.sqlite }',
      '',
    ].join('\n'),
  );
  const { io, out } = captureIo(dir);
  expect(await runCli(['build'], io), out.stderr).toBe(0);

  const server = path.join(dir, 'server');
  for (const file of fs.readdirSync(path.join(server, 'openapi'))) {
    const document = JSON.parse(fs.readFileSync(path.join(server, 'openapi', file), 'utf8')) as unknown;
    expect({ file, errors: await openApiErrors(document), unresolved: unresolvedRefs(document) }).toEqual({
      file,
      errors: null,
      unresolved: [],
    });
  }
  const prisma = fs.readFileSync(path.join(server, 'prisma', 'crm.prisma'), 'utf8');
  expect(prismaSchemaError(prisma)).toBeNull();

  linkRuntime(dir);
  builtServers.push({ test: expect.getState().currentTestName ?? dir, dir });
  return { dir, stderr: out.stderr, model: loadModel(new URL(`file://${path.join(server, 'model.json')}`)) };
}

describe.each<[ExternalDatabase, string]>([
  ['postgres', 'pgsql'],
  ['mysql', 'mysql'],
])('gen build on an awkward %s schema', async (kind, type) => {
  const available = await requireService(kind);
  it.skipIf(!available)(
    'warns about names that collide, and gives a server that validates and serves (the last test compiles it)',
    { timeout: 400_000 },
    async () => {
      const database = await createTestDatabase(kind);
      try {
        const { dir, stderr, model } = await buildChecked(kind, type, database.url, DDL[kind]);
        expect(stderr.trim().split('\n')).toEqual(WARNINGS[kind]);

        const crm = model.services.find((service) => service.name === 'crm') as SqlServiceModel;
        const note = crm.schema.tables.find((table) => table.name === 'note')!;
        // The key to the table left out is left out too, rather than pointing at the served `contact`.
        expect(note.foreignKeys.map((fk) => [fk.fields, fk.refTable])).toEqual([[['contact_id'], 'contact']]);

        const app = await createServer(model, { baseDir: dir, env: { ...process.env } });
        try {
          const rows = await app.inject({ method: 'GET', url: '/api/v2/crm/_table/contact', headers: { 'x-dreamfactory-api-key': KEY } });
          expect(rows.statusCode, rows.body).toBe(200);
          expect(rows.json()).toEqual({ resource: [{ id: 1, name: 'lower' }] });
        } finally {
          await app.close();
        }
      } finally {
        await database.drop();
      }
    },
  );
});

/** Generated (computed) columns, virtual and stored, and PostgreSQL's identity GENERATED ALWAYS. */
const GENERATED: Record<ExternalDatabase, string[]> = {
  postgres: [
    'create table reading (id integer generated always as identity primary key, celsius numeric(5,1) not null, fahrenheit numeric(6,2) generated always as (celsius * 9 / 5 + 32) stored)',
    'insert into reading (celsius) values (20)',
  ],
  mysql: [
    'create table reading (id integer auto_increment primary key, celsius decimal(5,1) not null, fahrenheit decimal(6,2) as (celsius * 9 / 5 + 32) virtual, kelvin decimal(6,2) as (celsius + 273) stored)',
    'insert into reading (celsius) values (20)',
  ],
};

describe.each<[ExternalDatabase, string]>([
  ['postgres', 'pgsql'],
  ['mysql', 'mysql'],
])('generated columns on %s', async (kind, type) => {
  const available = await requireService(kind);
  it.skipIf(!available)(
    'are read, left out of writes (a record read writes back) and typed as read-only',
    { timeout: 400_000 },
    async () => {
      const database = await createTestDatabase(kind);
      try {
        const { dir, model } = await buildChecked(kind, type, database.url, GENERATED[kind]);
        const computed = kind === 'postgres' ? ['fahrenheit'] : ['fahrenheit', 'kelvin'];
        const crm = model.services.find((service) => service.name === 'crm') as SqlServiceModel;
        const reading = crm.schema.tables.find((table) => table.name === 'reading')!;
        expect(reading.fields.filter((field) => field.computed).map((field) => field.name)).toEqual(computed);
        const types = fs.readFileSync(path.join(dir, 'server', 'services', 'crm', 'types.ts'), 'utf8');
        const insert = /export interface ReadingInsert \{[^}]*\}/.exec(types)?.[0] ?? '';
        expect(insert).toContain('celsius');
        for (const name of computed) expect(insert).not.toContain(name);

        const app = await createServer(model, { baseDir: dir, env: { ...process.env } });
        const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
          app.inject({ method, url: `/api/v2/crm/_table/${url}`, headers: { 'x-dreamfactory-api-key': KEY }, payload: payload as object });
        const expected = (id: number, celsius: number) => ({
          id,
          celsius,
          fahrenheit: (celsius * 9) / 5 + 32,
          ...(kind === 'mysql' ? { kelvin: celsius + 273 } : {}),
        });
        try {
          const read = await call('GET', 'reading');
          expect(read.statusCode, read.body).toBe(200);
          const [record] = read.json().resource as Record<string, unknown>[];
          expect(record).toEqual(expected(1, 20));
          // The record as read, changed and written back: the computed values sent are ignored.
          const patched = await call('PATCH', 'reading?fields=*', { resource: [{ ...record, celsius: 30 }] });
          expect(patched.statusCode, patched.body).toBe(200);
          expect(patched.json()).toEqual({ resource: [expected(1, 30)] });
          const created = await call('POST', 'reading?fields=*', { resource: [{ celsius: 10, fahrenheit: 1, kelvin: 2 }] });
          expect(created.statusCode, created.body).toBe(200);
          expect(created.json()).toEqual({ resource: [expected(2, 10)] });
          if (kind === 'postgres') {
            // GENERATED ALWAYS: PostgreSQL refuses a value for the key, which names it.
            const given = await call('POST', 'reading', { resource: [{ id: 9, celsius: 1 }] });
            expect(given.statusCode, given.body).toBe(400);
            expect(given.json()).toEqual({
              error: { code: 400, message: "Field 'id' can not be set: the database generates its value.", context: { field: 'id' } },
            });
          }
        } finally {
          await app.close();
        }
      } finally {
        await database.drop();
      }
    },
  );
});

/** Table names Kysely would read as `schema.table` or with an alias if given as text. */
const DOTTED: Record<ExternalDatabase, string[]> = {
  postgres: [
    'create table "order.lines" (id integer primary key, "item.name" text)',
    'create table "Stock as Of" (id integer primary key, qty integer)',
    `insert into "order.lines" values (1, 'pen')`,
    'insert into "Stock as Of" values (1, 5)',
  ],
  mysql: [
    'create table `order.lines` (id integer primary key, `item.name` text)',
    'create table `Stock as Of` (id integer primary key, qty integer)',
    `insert into \`order.lines\` values (1, 'pen')`,
    'insert into `Stock as Of` values (1, 5)',
  ],
};

describe.each<[ExternalDatabase, string]>([
  ['postgres', 'pgsql'],
  ['mysql', 'mysql'],
])('tables named with a dot or " as " on %s', async (kind, type) => {
  const available = await requireService(kind);
  it.skipIf(!available)('are read and written as themselves', { timeout: 400_000 }, async () => {
    const database = await createTestDatabase(kind);
    try {
      const { dir, model } = await buildChecked(kind, type, database.url, DOTTED[kind]);
      const app = await createServer(model, { baseDir: dir, env: { ...process.env } });
      const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
        const response = await app.inject({
          method,
          url: `/api/v2/crm/_table/${url}`,
          headers: { 'x-dreamfactory-api-key': KEY },
          payload: payload as object,
        });
        expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200);
        return response.json() as unknown;
      };
      try {
        expect(await call('GET', 'order.lines')).toEqual({ resource: [{ id: 1, 'item.name': 'pen' }] });
        expect(await call('POST', 'order.lines?fields=*', { resource: [{ id: 2, 'item.name': 'ink' }] })).toEqual({
          resource: [{ id: 2, 'item.name': 'ink' }],
        });
        expect(await call('PATCH', 'order.lines/2?fields=*', { 'item.name': 'nib' })).toEqual({ id: 2, 'item.name': 'nib' });
        expect(await call('GET', `order.lines?filter=${encodeURIComponent('id > 1')}&include_count=true`)).toEqual({
          resource: [{ id: 2, 'item.name': 'nib' }],
          meta: { count: 1 },
        });
        expect(await call('DELETE', 'order.lines/2')).toEqual({ id: 2 });
        const stock = encodeURIComponent('stock as of');
        expect(await call('GET', stock)).toEqual({ resource: [{ id: 1, qty: 5 }] });
        expect(await call('PATCH', `${stock}/1?fields=*`, { qty: 6 })).toEqual({ id: 1, qty: 6 });
      } finally {
        await app.close();
      }
    } finally {
      await database.drop();
    }
  });
});

const anyDatabase = (await requireService('postgres')) || (await requireService('mysql'));

it.skipIf(!anyDatabase)(
  "gives servers whose TypeScript the user's tsc accepts (strict, nodenext): every build above, in one run",
  { timeout: 400_000 },
  async () => {
    expect(builtServers.length, 'no test above built a server').toBeGreaterThan(0);
    fs.writeFileSync(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          target: 'es2022',
          skipLibCheck: true,
          customConditions: ['portico-source'],
        },
        include: builtServers.map(({ dir }) => `${path.basename(dir)}/server/**/*.ts`),
      }),
    );
    const tsc = await execa(path.join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-p', root], { reject: false });
    const output = tsc.stdout + tsc.stderr;
    // Each build's errors under its test's name first, then nothing at all (the runtime included).
    expect(
      builtServers.map(({ test, dir }) => ({ test, errors: output.split('\n').filter((line) => line.includes(`${path.basename(dir)}/`)) })),
    ).toEqual(builtServers.map(({ test }) => ({ test, errors: [] })));
    expect(output).toBe('');
  },
);
