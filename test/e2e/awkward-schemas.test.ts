/**
 * An old database as users point Portico at it, on SQLite, PostgreSQL and MariaDB: one platform
 * holds a deliberately awkward schema on each (reserved words, API parameter names, JavaScript
 * names, quotes, dots, dashes, spaces, unicode, leading digits, case-only differences; keys that
 * are text, uuids from function defaults, composite, absent, named other than id, on a unique
 * non-key column, self-referencing, cyclic, two to one table; a junction with extra columns,
 * views, generated columns, check constraints, a second PostgreSQL schema). `gen build` builds it
 * once as a user would; its OpenAPI and Prisma files validate, the user's strict tsc accepts the
 * generated TypeScript, and the generated model and route schemas serve every request below with
 * a right answer or a spec-shaped 4xx, never a 5xx.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { execa, type ResultPromise } from 'execa';
import type { FastifyInstance } from 'fastify';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import type { ServiceRoutes } from '#runtime/http/generated-routes.js';
import { createServer } from '#runtime/http/create-server.js';
import { loadModel } from '#runtime/http/run-server.js';
import { captureIo, linkRuntime, REPO_ROOT } from '#test/cli/cli-fixtures.js';
import { openApiErrors, prismaSchemaError, unresolvedRefs } from '#test/golden/validators.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

type Kind = 'sqlite' | 'postgres' | 'mysql';

const KEY = 'a6'.repeat(32);

/** The id of the row each database gets with a `__proto__` value (written in SQL: JSON bodies can not carry that key). */
const PROTO_ID: Record<Kind, string> = {
  sqlite: 'proto',
  postgres: '00000000-0000-4000-8000-000000000001',
  mysql: 'proto',
};

const USER_COLUMNS = (q: (name: string) => string) =>
  [
    'select',
    'e-mail',
    'order',
    'filter',
    'fields',
    'limit',
    'related',
    'ids',
    'resource',
    'meta',
    '_table',
    'constructor',
    '__proto__',
    'toString',
    'first name',
    'a.b',
    "it's",
    'say "hi"',
    'größe',
    '1st',
  ]
    .map((name) => `${q(name)} ${/^(order|limit|größe|1st)$/.test(name) ? 'integer' : name === 'e-mail' ? 'varchar(100) unique' : 'text'}`)
    .join(', ');

const dq = (name: string) => `"${name.replace(/"/g, '""')}"`;
const bq = (name: string) => `\`${name.replace(/`/g, '``')}\``;

const DDL: Record<Kind, string[]> = {
  sqlite: [
    `create table "user" ("id" text primary key default (lower(hex(randomblob(16)))), ${USER_COLUMNS(dq)},
      "created" text default (datetime('now')), "score" integer check ("score" >= 0),
      "double_score" integer generated always as ("score" * 2) virtual)`,
    `create table "group" ("group id" integer primary key autoincrement, "name" text not null, "parent" integer references "group" ("group id"),
      "owner" text references "user" ("id"), "deputy" text references "user" ("id"))`,
    `create table "user-group" ("user" text not null references "user" ("id"), "group" integer not null references "group" ("group id"),
      "role" text default 'member', "since" date, primary key ("user", "group"))`,
    `create table "table" ("code" text primary key, "email" varchar(100) references "user" ("e-mail"))`,
    `create table "log entries" ("at" text default (datetime('now')), "message" text)`,
    `create table "a" ("id" integer primary key, "b_id" integer references "b" ("id"))`,
    `create table "b" ("id" integer primary key, "a_id" integer references "a" ("id"))`,
    `create table "2nd café" ("ключ" integer primary key, "значение" text)`,
    `create view "active users" as select "id", "select", "score" from "user" where "score" > 0`,
    `create view "order" as select "group id", "name" from "group"`,
    `insert into "user" ("id", "__proto__", "constructor") values ('${PROTO_ID.sqlite}', 'p', 'pc')`,
    // A full-text table (its shadow tables docs_data, docs_idx... are its own), a view of a table dropped since.
    'create virtual table "docs" using fts5("title", "body")',
    'create table "gone" ("id" integer primary key)',
    'create view "stale" as select * from "gone"',
    'drop table "gone"',
  ],
  postgres: [
    `create table "user" ("id" uuid primary key default gen_random_uuid(), "Name" text, "name" text, ${USER_COLUMNS(dq)},
      "created" timestamptz default now(), "score" integer check ("score" >= 0),
      "double_score" integer generated always as ("score" * 2) stored)`,
    `create table "group" ("group id" serial primary key, "name" text not null, "parent" integer references "group" ("group id"),
      "owner" uuid references "user" ("id"), "deputy" uuid references "user" ("id"))`,
    `create table "user-group" ("user" uuid not null references "user" ("id"), "group" integer not null references "group" ("group id"),
      "role" text default 'member', "since" date, primary key ("user", "group"))`,
    `create table "table" ("code" text primary key, "email" varchar(100) references "user" ("e-mail"))`,
    `create table "log entries" ("at" timestamptz default now(), "message" text)`,
    `create table "a" ("id" integer primary key, "b_id" integer)`,
    `create table "b" ("id" integer primary key, "a_id" integer references "a" ("id"))`,
    `alter table "a" add foreign key ("b_id") references "b" ("id")`,
    `create table "2nd café" ("ключ" integer primary key, "значение" text)`,
    `create table "Tag" ("id" integer primary key, "label" text)`,
    `create view "active users" as select "id", "select", "score" from "user" where "score" > 0`,
    `create view "order" as select "group id", "name" from "group"`,
    `create schema "other schema"`,
    `create table "other schema"."thing" ("id" integer primary key, "user" uuid references public."user" ("id"), "label" text)`,
    `insert into "user" ("id", "__proto__", "constructor") values ('${PROTO_ID.postgres}', 'p', 'pc')`,
    'create table "empty" ()',
  ],
  // Foreign keys as table constraints: InnoDB ignores them written on the column.
  mysql: [
    `create table \`user\` (\`id\` char(36) primary key default (uuid()), ${USER_COLUMNS(bq)},
      \`created\` timestamp default current_timestamp, \`score\` integer check (\`score\` >= 0),
      \`double_score\` integer as (\`score\` * 2) virtual)`,
    'create table `group` (`group id` integer auto_increment primary key, `name` varchar(50) not null, `parent` integer, `owner` char(36), `deputy` char(36), foreign key (`parent`) references `group` (`group id`), foreign key (`owner`) references `user` (`id`), foreign key (`deputy`) references `user` (`id`))',
    "create table `user-group` (`user` char(36) not null, `group` integer not null, `role` varchar(20) default 'member', `since` date, primary key (`user`, `group`), foreign key (`user`) references `user` (`id`), foreign key (`group`) references `group` (`group id`))",
    'create table `table` (`code` varchar(20) primary key, `email` varchar(100), foreign key (`email`) references `user` (`e-mail`))',
    'create table `log entries` (`at` timestamp default current_timestamp, `message` text)',
    'create table `a` (`id` integer primary key, `b_id` integer)',
    'create table `b` (`id` integer primary key, `a_id` integer, foreign key (`a_id`) references `a` (`id`))',
    'alter table `a` add foreign key (`b_id`) references `b` (`id`)',
    'create table `2nd café` (`ключ` integer primary key, `значение` text)',
    'create view `active users` as select `id`, `select`, `score` from `user` where `score` > 0',
    'create view `order` as select `group id`, `name` from `group`',
    `insert into \`user\` (\`id\`, \`__proto__\`, \`constructor\`) values ('${PROTO_ID.mysql}', 'p', 'pc')`,
    // System versioning (a primary key holding the hidden row_end), a sequence (a table to information_schema), a stale view.
    'create table `history` (`id` integer primary key, `n` text) with system versioning',
    'create sequence `counter`',
    'create table `gone` (`id` integer primary key)',
    'create view `stale` as select * from `gone`',
    'drop table `gone`',
  ],
};

const TABLES = ['2nd café', 'a', 'active users', 'b', 'group', 'log entries', 'order', 'table', 'user', 'user-group'];
/** What each database serves besides TABLES. */
const OWN_TABLES: Record<Kind, string[]> = { sqlite: ['docs'], postgres: ['tag'], mysql: ['history'] };

interface Target {
  kind: Kind;
  /** The service serving the database. */
  service: string;
}

const available: Record<Kind, boolean> = {
  sqlite: true,
  postgres: await requireService('postgres'),
  mysql: await requireService('mysql'),
};
const targets: Target[] = (
  [
    { kind: 'sqlite', service: 'lite' },
    { kind: 'postgres', service: 'pg' },
    { kind: 'mysql', service: 'maria' },
  ] as const
).filter((target) => available[target.kind]);

let dir: string;
const databases: TestDatabase[] = [];
let app: FastifyInstance;
let buildOutput: { code: number; stderr: string };
let tsc: ResultPromise | undefined;

/**
 * The user's strict tsc (nodenext) over the generated TypeScript, reporting what it finds in
 * those files: what a user's `tsc` reports of them, `portico/runtime` being declarations to the
 * user (skipLibCheck). The runtime's sources (portico-source) are not checked again here, which
 * keeps the check to seconds; `npx tsc -p .` checks them.
 */
const TYPECHECK = `
import ts from 'typescript';
const dir = process.argv[1];
const options = {
  module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true,
  customConditions: ['portico-source'],
};
const parsed = ts.parseJsonConfigFileContent({ compilerOptions: options, include: ['server/**/*.ts'] }, ts.sys, dir);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const diagnostics = [...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
for (const file of parsed.fileNames) {
  const source = program.getSourceFile(file);
  diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
}
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\\n' };
process.stdout.write(parsed.fileNames.length === 0 ? 'no TypeScript files' : ts.formatDiagnostics(diagnostics, host));
`;

async function runStatements(kind: Kind, location: string, statements: string[]): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(location);
    for (const statement of statements) db.exec(statement);
    db.close();
  } else if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    for (const statement of statements) await client.query(statement);
    await client.end();
  } else {
    const connection = await mysql.createConnection({ uri: location });
    for (const statement of statements) await connection.query(statement);
    await connection.end();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-awkward-'));
  fs.mkdirSync(path.join(dir, 'data'));
  const services: string[] = [];
  for (const { kind, service } of targets) {
    if (kind === 'sqlite') {
      await runStatements(kind, path.join(dir, 'data/lite.sqlite'), DDL.sqlite);
      services.push(`  - { name: ${service}, type: sqlite, config: { database: data/lite.sqlite } }`);
      continue;
    }
    const database = await createTestDatabase(kind);
    databases.push(database);
    await runStatements(kind, database.url, DDL[kind]);
    const type = kind === 'postgres' ? 'pgsql' : 'mysql';
    services.push(`  - { name: ${service}, type: ${type}, config: { url: "${database.url}" } }`);
    if (kind === 'postgres')
      services.push(`  - { name: pg_other, type: pgsql, config: { url: "${database.url}", schema: "other schema" } }`);
  }
  fs.writeFileSync(
    path.join(dir, 'platform.yaml'),
    [
      'platform: { name: awkward }',
      'services:',
      ...services,
      'roles:',
      '  - name: all',
      '    grants:',
      ...[...targets.map((t) => t.service), ...(available.postgres ? ['pg_other'] : [])].map(
        (s) => `      - { service: ${s}, component: "*" }`,
      ),
      'apps:',
      `  - { name: web, role: all, api_key: ${KEY} }`,
      'system: { database: data/system.sqlite }',
      '',
    ].join('\n'),
  );
  const { io, out } = captureIo(dir);
  buildOutput = { code: await runCli(['build'], io), stderr: out.stderr };
  expect(buildOutput.code, out.stderr).toBe(0);

  // The user's tsc (strict, nodenext) runs beside the requests; its verdict is the last test.
  linkRuntime(dir);
  tsc = execa(process.execPath, ['--input-type=module', '-e', TYPECHECK, dir], { cwd: REPO_ROOT, reject: false });

  // Served as server/main.mjs serves it: the frozen model and the generated route schemas.
  const server = path.join(dir, 'server');
  const routes = fs
    .readdirSync(path.join(server, 'services'))
    .map((name) => path.join(server, 'services', name, 'routes.json'))
    .filter((file) => fs.existsSync(file))
    .map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as ServiceRoutes);
  app = await createServer(loadModel(new URL(`file://${path.join(server, 'model.json')}`)), {
    baseDir: dir,
    routes,
    env: { ...process.env },
  });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await tsc?.catch(() => undefined);
  for (const database of databases) await database.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
}

/** A request as the web app; every answer is below 500, and every error in the spec's shape. */
async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<Answer> {
  const response = await app.inject({
    method,
    url: `/api/v2/${url}`,
    headers: { 'x-dreamfactory-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const answer = { status: response.statusCode, body: response.body === '' ? null : JSON.parse(response.body) };
  expect(answer.status, `${method} ${url}: ${response.body}`).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.body.error, `${method} ${url}`).toMatchObject({ code: answer.status, message: expect.any(String) });
    expect(answer.body.error.message).not.toMatch(/\bat \S+:\d+|SQLITE_|ER_|syntax error/);
  }
  return answer;
}

/** The body of a 200 answer. */
async function ok(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<any> {
  const answer = await call(method, url, body);
  expect(answer.status, `${method} ${url}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

const e = encodeURIComponent;
const q = (query: Record<string, string>) =>
  Object.entries(query)
    .map(([k, v]) => `${k}=${e(v)}`)
    .join('&');

it('gen build warns, at each service, of what it leaves out, and writes OpenAPI and Prisma files that validate', async () => {
  const warnings: Record<Kind, string[]> = {
    sqlite: [`service 'lite': view "stale" can not be read (no such table: main.gone): it is not served.`],
    postgres: [
      `service 'pg': table "empty" has no columns the database describes: it is not served.`,
      `service 'pg': columns "name" and "Name" of table "user" have one API name 'name': only "name" is served.`,
    ],
    mysql: [`service 'maria': view "stale" has no columns the database describes: it is not served.`],
  };
  expect(
    buildOutput.stderr
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^platform\.yaml:\d+:\d+: warning: /, '')),
  ).toEqual(targets.flatMap((target) => warnings[target.kind]));
  const server = path.join(dir, 'server');
  for (const file of fs.readdirSync(path.join(server, 'openapi'))) {
    const document = JSON.parse(fs.readFileSync(path.join(server, 'openapi', file), 'utf8')) as unknown;
    expect({ file, errors: await openApiErrors(document), unresolved: unresolvedRefs(document) }).toEqual({
      file,
      errors: null,
      unresolved: [],
    });
  }
  for (const file of fs.readdirSync(path.join(server, 'prisma'))) {
    expect({ file, error: prismaSchemaError(fs.readFileSync(path.join(server, 'prisma', file), 'utf8')) }).toEqual({ file, error: null });
  }
});

describe.each(targets)('on $kind', ({ kind, service }) => {
  const table = (name: string) => `${service}/_table/${e(name)}`;
  /** Two users made in the first test: one with every awkward field, one bare. */
  let users: [string, string];
  let group: number;

  it('lists every table and view, describes each (_schema), and documents them in a valid _spec', async () => {
    const listed = (await ok('GET', `${service}/_schema`)).resource.map((t: { name: string }) => t.name);
    expect(listed).toEqual([...TABLES, ...OWN_TABLES[kind]].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const name of listed) {
      const described = await ok('GET', `${service}/_schema/${e(name)}`);
      expect(described.name).toBe(name);
      expect(described.is_view).toBe(name === 'active users' || name === 'order');
    }
    const user = await ok('GET', `${service}/_schema/user`);
    expect(user.primary_key).toEqual(['id']);
    expect(user.field.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining([
        '__proto__',
        'constructor',
        'tostring',
        'first name',
        'a.b',
        "it's",
        'say "hi"',
        'größe',
        '1st',
        'double_score',
      ]),
    );
    const spec = await ok('GET', `${service}/_spec`);
    expect(await openApiErrors(spec)).toBeNull();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/_table/user-group', `/_table/${e('2nd café')}`, `/_table/${e('log entries')}`]),
    );
    // A table without a primary key and a view have no typed `/{id}`: none of their records has an identifier.
    expect(Object.keys(spec.paths)).not.toContain(`/_table/${e('log entries')}/{id}`);
    expect(Object.keys(spec.paths)).not.toContain(`/_table/${e('active users')}/{id}`);
  });

  it('creates records whose fields are reserved words, API parameters, JavaScript names, quotes, dots, spaces, unicode and leading digits', async () => {
    const awkward = {
      select: 's1',
      'e-mail': 'one@example.com',
      order: 2,
      filter: 'f',
      fields: 'fi',
      limit: 3,
      related: 'r',
      ids: 'i',
      resource: 'res',
      meta: 'm',
      _table: 't',
      constructor: 'c',
      tostring: 'ts',
      'first name': 'Ann',
      'a.b': 'ab',
      "it's": 'q',
      'say "hi"': 'h',
      größe: 5,
      '1st': 1,
      score: 4,
    };
    const created = await ok('POST', `${table('user')}?fields=*`, {
      resource: [awkward, { select: 's2', 'e-mail': 'two@example.com', score: 0 }],
    });
    const [first, second] = created.resource;
    expect(first).toMatchObject({ ...awkward, double_score: 8 });
    // Keys from the database's function default: a uuid, or 32 hex digits on SQLite.
    for (const record of created.resource) expect(record.id).toMatch(kind === 'sqlite' ? /^[0-9a-f]{32}$/ : /^[0-9a-f-]{36}$/);
    users = [first.id, second.id];
    expect(await ok('GET', `${table('user')}/${users[0]}?fields=select,größe,double_score`)).toEqual({
      select: 's1',
      größe: 5,
      double_score: 8,
    });
    const both = await ok('GET', `${table('user')}?${q({ ids: users.join(','), fields: 'id,select' })}`);
    expect(both.resource).toEqual([
      { id: users[0], select: 's1' },
      { id: users[1], select: 's2' },
    ]);
    // The generated column: what a client sends for it is ignored.
    const patched = await ok('PATCH', `${table('user')}/${users[1]}?fields=score,double_score`, { score: 5, double_score: 1 });
    expect(patched).toEqual({ score: 5, double_score: 10 });
  });

  it.each([
    ['select', 's1'],
    ['order', 2],
    ['filter', 'f'],
    ['limit', 3],
    ['related', 'r'],
    ['ids', 'i'],
    ['resource', 'res'],
    ['meta', 'm'],
    ['_table', 't'],
    ['constructor', 'c'],
    ['tostring', 'ts'],
    ['größe', 5],
    ['1st', 1],
    ['e-mail', 'one@example.com'],
    ['a.b', 'ab'],
    ['double_score', 8],
  ])('filters and orders on field %j', async (name, value) => {
    const filter = `${name} = ${typeof value === 'number' ? value : `'${value}'`}`;
    const found = await ok('GET', `${table('user')}?${q({ fields: `id,${name}`, filter, order: `${name} desc` })}`);
    expect(found.resource).toEqual([{ id: users[0], [name]: value }]);
    const ordered = await ok('GET', `${table('user')}?${q({ fields: name, order: `${name} desc`, filter: `${name} is not null` })}`);
    expect(ordered.resource.length).toBeGreaterThanOrEqual(1);
  });

  it('answers a field with a space in filter and order with a clear 400', async () => {
    expect((await call('GET', `${table('user')}?${q({ filter: "first name = 'Ann'" })}`)).status).toBe(400);
    expect((await call('GET', `${table('user')}?${q({ order: 'first name' })}`)).status).toBe(400);
  });

  it('reads a column named __proto__ as itself', async () => {
    const one = await ok('GET', `${table('user')}/${PROTO_ID[kind]}?fields=__proto__,constructor`);
    expect(Object.getOwnPropertyDescriptor(one, '__proto__')?.value).toBe('p');
    const list = await ok('GET', `${table('user')}?${q({ filter: "__proto__ = 'p'", fields: 'id,__proto__' })}`);
    expect(list.resource).toHaveLength(1);
    expect(Object.getOwnPropertyDescriptor(list.resource[0], '__proto__')?.value).toBe('p');
    // A body can not carry the key (JSON parsing refuses it), clearly.
    const written = await call('PATCH', `${table('user')}/${PROTO_ID[kind]}`, JSON.parse('{"__proto__":"x"}'));
    expect(written.body.error).toEqual({
      code: 400,
      message: "Invalid JSON: a member named '__proto__', or 'constructor' holding 'prototype', is not accepted.",
    });
  });

  it('refuses what a check constraint or a unique key refuses (400, 409), storing nothing', async () => {
    const checked = await call('POST', table('user'), { resource: [{ score: -1 }] });
    expect(checked.status).toBe(400);
    expect(checked.body.error.message).toMatch(/^Check constraint '.+' failed\.$/);
    const duplicate = await call('POST', table('user'), { resource: [{ 'e-mail': 'one@example.com' }] });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.context).toEqual({ fields: ['e-mail'] });
    expect((await ok('GET', `${table('user')}?count_only=true`)).meta.count).toBe(3);
  });

  it('relates a self-referencing table, two keys to one table, a key to a unique non-key column and cyclic keys, both ways', async () => {
    const created = await ok('POST', `${table('group')}?fields=*`, { resource: [{ name: 'root', owner: users[0], deputy: users[1] }] });
    group = created.resource[0]['group id'];
    await ok('POST', table('group'), { resource: [{ name: 'child', parent: group, owner: users[1] }] });
    const related = await ok('GET', `${table('group')}/${group}?related=*`);
    expect(related).toMatchObject({
      name: 'root',
      user_by_owner: { id: users[0], select: 's1' },
      user_by_deputy: { id: users[1], select: 's2' },
      group_by_parent: null,
      'user-group_by_group': [],
    });
    const child = await ok('GET', `${table('group')}?${q({ filter: "name = 'child'", related: 'group_by_parent', fields: 'name' })}`);
    expect(child.resource).toEqual([{ name: 'child', group_by_parent: expect.objectContaining({ 'group id': group, name: 'root' }) }]);
    const owners = await ok('GET', `${table('user')}/${users[0]}?${q({ related: 'group_by_owner,group_by_deputy', fields: 'id' })}`);
    expect(owners).toEqual({ id: users[0], group_by_owner: [expect.objectContaining({ name: 'root' })], group_by_deputy: [] });

    await ok('POST', table('table'), { resource: [{ code: 'T1', email: 'one@example.com' }] });
    expect(await ok('GET', `${table('table')}/T1?related=user_by_email&fields=code`)).toEqual({
      code: 'T1',
      user_by_email: expect.objectContaining({ id: users[0], 'e-mail': 'one@example.com' }),
    });
    const byEmail = await ok('GET', `${table('user')}/${users[0]}?related=table_by_email&fields=id`);
    expect(byEmail.table_by_email).toEqual([{ code: 'T1', email: 'one@example.com' }]);

    await ok('POST', table('a'), { resource: [{ id: 1 }] });
    await ok('POST', table('b'), { resource: [{ id: 1, a_id: 1 }] });
    await ok('PATCH', `${table('a')}/1`, { b_id: 1 });
    expect(await ok('GET', `${table('a')}/1?related=*`)).toEqual({
      id: 1,
      b_id: 1,
      b_by_a_id: [{ id: 1, a_id: 1 }],
      b_by_b_id: { id: 1, a_id: 1 },
    });
  });

  it('links through a junction with extra columns and a composite key; ids= on it is a clear 400', async () => {
    const linked = await ok('POST', `${table('user-group')}?fields=*`, { resource: [{ user: users[0], group, role: 'admin' }] });
    expect(linked.resource).toEqual([{ user: users[0], group, role: 'admin', since: null }]);
    const many = await ok('GET', `${table('user')}/${users[0]}?related=group_by_user-group&fields=id`);
    expect(many['group_by_user-group']).toEqual([expect.objectContaining({ 'group id': group, name: 'root' })]);
    const back = await ok('GET', `${table('group')}/${group}?related=user_by_user-group&fields=name`);
    expect(back['user_by_user-group']).toEqual([expect.objectContaining({ id: users[0] })]);
    expect(await ok('GET', `${table('user-group')}/${users[0]},${group}?fields=role`)).toEqual({ role: 'admin' });
    const byIds = await call('GET', `${table('user-group')}?${q({ ids: `${users[0]},${group}` })}`);
    expect(byIds.status).toBe(400);
    expect(await ok('PATCH', `${table('user-group')}/${users[0]},${group}?fields=role`, { role: 'owner' })).toEqual({ role: 'owner' });
  });

  it('writes a belongs-to record nested in its parent', async () => {
    const created = await ok('POST', `${table('group')}?fields=name,owner&related=user_by_owner`, {
      resource: [{ name: 'nested', user_by_owner: { 'e-mail': 'nested@example.com', select: 'n' } }],
    });
    const [record] = created.resource;
    expect(record.user_by_owner).toMatchObject({ 'e-mail': 'nested@example.com', select: 'n' });
    expect(record.owner).toBe(record.user_by_owner.id);
  });

  it('creates, lists and deletes by filter in a table without a primary key; updates by record are a clear 400', async () => {
    const created = await ok('POST', `${table('log entries')}?fields=message`, { resource: [{ message: 'hello' }] });
    expect(created.resource).toEqual([{ message: 'hello' }]);
    expect((await ok('GET', `${table('log entries')}?fields=message`)).resource).toEqual([{ message: 'hello' }]);
    expect((await call('PATCH', table('log entries'), { resource: [{ message: 'x' }] })).status).toBe(400);
    await ok('DELETE', `${table('log entries')}?${q({ filter: "message = 'hello'" })}`);
    expect((await ok('GET', table('log entries'))).resource).toEqual([]);
  });

  it('reads views (one named order) and refuses writes to them', async () => {
    expect((await ok('GET', `${table('active users')}?${q({ filter: `id = '${users[0]}'` })}`)).resource).toEqual([
      { id: users[0], select: 's1', score: 4 },
    ]);
    expect((await ok('GET', `${table('order')}?${q({ order: 'name', fields: 'name' })}`)).resource).toEqual([
      { name: 'child' },
      { name: 'nested' },
      { name: 'root' },
    ]);
    const refused = await call('POST', table('active users'), { resource: [{ select: 'x' }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("Table 'active users' is a view; its records can not be written.");
  });

  it('serves a table named with a leading digit and unicode, keyed by a unicode column', async () => {
    expect(await ok('POST', `${table('2nd café')}?fields=*`, { resource: [{ ключ: 1, значение: 'да' }] })).toEqual({
      resource: [{ ключ: 1, значение: 'да' }],
    });
    expect(await ok('PATCH', `${table('2nd café')}/1?fields=*`, { значение: 'нет' })).toEqual({ ключ: 1, значение: 'нет' });
    expect((await ok('GET', `${table('2nd café')}?${q({ filter: "значение = 'нет'", order: 'ключ' })}`)).resource).toHaveLength(1);
    expect(await ok('DELETE', `${table('2nd café')}/1`)).toEqual({ ключ: 1 });
  });

  it('deletes records and answers a record still referenced with a 409', async () => {
    expect((await call('DELETE', `${table('user')}/${users[1]}`)).status).toBe(409);
    expect((await call('GET', `${table('user')}/no-such-user`)).status).toBe(kind === 'postgres' ? 400 : 404);
  });

  if (kind === 'sqlite') {
    it('rebuilds a table keeping its generated column and CHECK constraint, and refuses to drop what the generated column is computed from (the rebuild was refused, or dropped the CHECK)', async () => {
      const refused = await call('DELETE', `${service}/_schema/user/_field/score`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.context).toEqual({ table: 'user', field: 'score' });
      await ok('PATCH', `${service}/_schema/user/_field/${e('größe')}`, { type: 'bigint' });
      const fields = (await ok('GET', `${service}/_schema/user`)).field;
      expect(fields.find((f: { name: string }) => f.name === 'größe')).toMatchObject({ type: 'bigint' });
      expect(fields.find((f: { name: string }) => f.name === 'double_score')).toBeDefined();
      expect(await ok('GET', `${table('user')}/${users[0]}?fields=größe,double_score`)).toEqual({ größe: 5, double_score: 8 });
      expect((await call('POST', table('user'), { resource: [{ score: -2 }] })).status).toBe(400);
    });
  }

  if (kind === 'sqlite') {
    it('serves a full-text table, and not the tables it keeps its data in', async () => {
      await ok('POST', table('docs'), { resource: [{ title: 'Old', body: 'an old schema' }] });
      expect((await ok('GET', `${table('docs')}?${q({ filter: "body like '%old%'", fields: 'title' })}`)).resource).toEqual([
        { title: 'Old' },
      ]);
      expect((await call('GET', table('docs_data'))).status).toBe(404);
    });
  }

  if (kind === 'mysql') {
    it('serves a system-versioned table by its visible key, and not a sequence', async () => {
      expect((await ok('GET', `${service}/_schema/history`)).primary_key).toEqual(['id']);
      await ok('POST', table('history'), { resource: [{ id: 1, n: 'first' }] });
      expect(await ok('PATCH', `${table('history')}/1?fields=*`, { n: 'second' })).toEqual({ id: 1, n: 'second' });
      expect((await ok('GET', table('history'))).resource).toEqual([{ id: 1, n: 'second' }]);
      expect((await call('GET', table('counter'))).status).toBe(404);
    });
  }

  if (kind === 'postgres') {
    it('serves a table of another schema as a service of its own, and "Tag" as tag', async () => {
      await ok('POST', 'pg_other/_table/thing', { resource: [{ id: 1, user: users[0], label: 'x' }] });
      expect(await ok('GET', 'pg_other/_table/thing/1')).toEqual({ id: 1, user: users[0], label: 'x' });
      expect((await ok('GET', 'pg_other/_schema')).resource).toEqual([{ name: 'thing' }]);
      await ok('POST', `${table('tag')}`, { resource: [{ id: 1, label: 'Tag' }] });
      expect(await ok('GET', `${table('Tag')}/1`)).toEqual({ id: 1, label: 'Tag' });
    });
  }
});

it("the generated server compiles under the user's strict tsc", { timeout: 120_000 }, async () => {
  const result = await tsc;
  expect(`${result?.stdout ?? ''}${result?.stderr ?? ''}`).toBe('');
});
