/**
 * `gen init`: a commented starter platform.yaml from an existing SQLite file, PostgreSQL or MariaDB
 * database or WSDL, which `gen build` then builds as it is; secrets stay references; an existing
 * file is kept unless --force.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { createTestDatabase, requireService, type ExternalDatabase } from '#test/helpers/require-service.js';
import { documentWsdl } from '../unit/runtime/services/soap/soap-test-helpers.js';
import { captureIo } from './cli-fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-init-'));
  dirs.push(dir);
  return dir;
}

async function gen(dir: string, args: string[], env: Record<string, string> = {}) {
  const { io, out } = captureIo(dir);
  Object.assign(io.env, env);
  const code = await runCli(args, io);
  return { code, ...out };
}

describe('gen init', () => {
  it('starts from a SQLite file: lists its tables, grants a reader role, and builds as written', async () => {
    const dir = tempProject();
    fs.mkdirSync(path.join(dir, 'data'));
    const db = new Database(path.join(dir, 'data', 'shop.sqlite'));
    db.exec(
      'CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE TABLE "order" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id))',
    );
    db.close();
    const init = await gen(dir, ['init', '--from', 'data/shop.sqlite']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const yaml = fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8');
    expect(yaml).toContain('# 2 tables found:');
    expect(yaml).toContain('#   customer, order');
    expect(yaml).toMatch(/type: sqlite\n {4}config:\n {6}database: data\/shop\.sqlite/);
    expect(yaml).toContain('component: "_table/*", verbs: [GET]');
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).toContain('.portico/');
    const build = await gen(dir, ['build', 'platform.yaml']);
    expect(build.stderr).toBe('');
    expect(build.code).toBe(0);
    expect(fs.existsSync(path.join(dir, 'server', 'services', 'db', 'types.ts'))).toBe(true);
  });

  it('keeps an existing platform.yaml unless --force, and appends to .gitignore only what it lacks', async () => {
    const dir = tempProject();
    fs.writeFileSync(path.join(dir, 'platform.yaml'), 'mine\n');
    fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n.portico/\n');
    const refused = await gen(dir, ['init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/platform\.yaml exists; pass --force.*PCO602/);
    expect(fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8')).toBe('mine\n');
    expect((await gen(dir, ['init', '--force'])).code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8')).toContain('type: sqlite');
    const ignore = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
    expect(ignore.match(/\.portico\//g)).toHaveLength(1);
    expect(ignore).toContain('server/prisma/client/');
  });

  it.each([
    ['_site', 'site'],
    ['.hidden', 'hidden'],
    ['-dash', 'dash'],
    ['My Café Shop', 'my-cafe-shop'],
    ['日本', 'platform'],
    [`a${'b'.repeat(80)}`, `a${'b'.repeat(63)}`],
  ])('names the platform after its directory %j as %j, a name gen build accepts', async (directory, name) => {
    const dir = path.join(tempProject(), directory);
    const init = await gen(path.dirname(dir), ['init', '-o', path.join(directory, 'platform.yaml')]);
    expect([init.code, init.stderr]).toEqual([0, '']);
    expect(fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8')).toContain(`platform:\n  name: ${name}\n`);
    const build = await gen(dir, ['build', 'platform.yaml']);
    expect([build.code, build.stderr]).toEqual([0, '']);
  });

  it('starts from a WSDL file: lists its operations', async () => {
    const dir = tempProject();
    const wsdl = path.join(import.meta.dirname, '..', 'golden', 'scenarios', 'soap-calculator', 'calculator.wsdl');
    fs.copyFileSync(wsdl, path.join(dir, 'calculator.wsdl'));
    const init = await gen(dir, ['init', '--wsdl', 'calculator.wsdl']);
    expect(init.stderr).toBe('');
    const yaml = fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8');
    expect(yaml).toContain('#   Add, Divide, Multiply, Subtract');
    expect(yaml).toMatch(/name: calculator\n {4}label: calculator\n {4}type: soap\n {4}config:\n {6}wsdl: calculator\.wsdl/);
    expect((await gen(dir, ['build', 'platform.yaml'])).code).toBe(0);
  });

  it('counts one operation in the singular ("1 operations" before)', async () => {
    const dir = tempProject();
    const schema = '<xs:element name="Ping"><xs:complexType><xs:sequence/></xs:complexType></xs:element>';
    fs.writeFileSync(path.join(dir, 'ping.wsdl'), documentWsdl(schema, [{ name: 'Ping', input: 'Ping' }]));
    const init = await gen(dir, ['init', '--wsdl', 'ping.wsdl']);
    expect(init.stderr).toBe('');
    expect(init.stdout).toContain("(soap service 'ping', 1 operation)");
  });

  it('says which source it cannot read, with no password in the message', async () => {
    const dir = tempProject();
    const result = await gen(dir, ['init', '--from', 'postgres://someone:s3cret@127.0.0.1:1/nowhere']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Cannot read the pgsql source.*PCO601/s);
    expect(result.stderr).not.toContain('s3cret');
    expect(fs.existsSync(path.join(dir, 'platform.yaml'))).toBe(false);
  });

  it('says why a database refused it (no such database, no such user), as gen build does', async () => {
    if (!(await requireService('postgres'))) return;
    const dir = tempProject();
    const result = await gen(dir, ['init', '--from', 'postgres://postgres@127.0.0.1:5432/portico_no_such_database']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(database "portico_no_such_database" does not exist) [PCO601]');
  });

  it('refuses a --from file that does not exist or a URL of another kind, rather than writing a platform of no tables', async () => {
    const dir = tempProject();
    const missing = await gen(dir, ['init', '--from', 'data/shpo.sqlite']);
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([
      1,
      'Cannot read the sqlite source: data/shpo.sqlite does not exist. [PCO601]',
    ]);
    const url = await gen(dir, ['init', '--from', 'postgress://someone@127.0.0.1/shop']);
    expect([url.code, url.stderr.split('\n')[0]]).toEqual([
      1,
      '--from takes a postgres://, postgresql://, mysql:// or mariadb:// URL or a SQLite file, not a postgress:// URL. [PCO601]',
    ]);
    expect(fs.readdirSync(dir)).toEqual([]);
    // Without --from the default file need not exist: the service creates it.
    expect((await gen(dir, ['init'])).code).toBe(0);
  });

  it('names a directory given as --out, and quotes a path with spaces in the next command', async () => {
    const dir = tempProject();
    const refused = await gen(dir, ['init', '--out', '.']);
    expect([refused.code, refused.stderr.split('\n')[0]]).toEqual([
      1,
      '. is a directory; name the file to write (--out platform.yaml). [PCO602]',
    ]);
    const spaced = await gen(dir, ['init', '--out', "my shop/it's.yaml"]);
    expect(spaced.code).toBe(0);
    expect(spaced.stdout).toContain("Next: npx gen build 'my shop/it'\\''s.yaml'\n");
    expect(fs.existsSync(path.join(dir, 'my shop', "it's.yaml"))).toBe(true);
  });

  describe.each<[ExternalDatabase, string]>([
    ['postgres', 'pgsql'],
    ['mysql', 'mysql'],
  ])('from %s', async (kind, type) => {
    const available = await requireService(kind);
    it.skipIf(!available)('refers to the URL through the environment and builds with it set', async () => {
      const database = await createTestDatabase(kind);
      try {
        const ddl = 'CREATE TABLE invoice (id integer PRIMARY KEY, total decimal(10,2) NOT NULL)';
        if (kind === 'postgres') {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          await client.query(ddl);
          await client.end();
        } else {
          const connection = await mysql.createConnection({ uri: database.url });
          await connection.query(ddl);
          await connection.end();
        }
        const dir = tempProject();
        const init = await gen(dir, ['init', '--from', database.url]);
        expect(init.code).toBe(0);
        const yaml = fs.readFileSync(path.join(dir, 'platform.yaml'), 'utf8');
        const variable = `${database.name.toUpperCase()}_DATABASE_URL`;
        expect(yaml).toContain(`type: ${type}`);
        expect(yaml).toContain(`url: \${env:${variable}}`);
        expect(yaml).toContain('#   invoice');
        expect(yaml).not.toContain(database.url);
        expect(init.stdout).toContain(`Set ${variable}`);
        const build = await gen(dir, ['build', 'platform.yaml'], { [variable]: database.url });
        expect(build.stderr).toBe('');
        expect(build.code).toBe(0);
      } finally {
        await database.drop();
      }
    });
  });
});
