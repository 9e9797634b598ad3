/**
 * A table created at run time through `_schema` is served at once by a server started from the
 * generated model; `gen check` then reports the drift, and the next `gen build` picks it up.
 * On SQLite and PostgreSQL (a `pgsql` service configured with `${env:...}` references).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlatform, checkPlatform } from '#generator/pipeline.js';
import { createServer } from '#runtime/http/create-server.js';
import type { PlatformModel, SqlServiceModel } from '#runtime/model/platform-model.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

interface Platform {
  dir: string;
  env: Record<string, string>;
}

function platformYaml(service: string[]): string {
  return ['platform:', '  name: drift', '  title: Drift', 'services:', ...service, 'system:', '  database: data/system.sqlite', ''].join(
    '\n',
  );
}

function driftTests(kind: string, setUp: () => Promise<Platform>, tearDown: () => Promise<void>): void {
  let platform: Platform;
  beforeAll(async () => {
    platform = await setUp();
  });
  afterAll(tearDown);

  it(`${kind}: serves a table created at run time at once; gen check reports it; gen build picks it up`, async () => {
    const options = { configPath: 'platform.yaml', cwd: platform.dir, env: platform.env };
    const first = await buildPlatform(options);
    expect(first.plan.added).toContain('model.json');
    const model = JSON.parse(fs.readFileSync(path.join(first.outDir, 'model.json'), 'utf8')) as PlatformModel;
    const service = model.services.find((s) => s.name === 'shop') as SqlServiceModel;
    expect(service.schema.tables.map((t) => t.name)).toEqual(['item']);

    const app = await createServer(model, {
      baseDir: platform.dir,
      systemDatabase: ':memory:',
      env: { ...platform.env, PORTICO_ADMIN_PASSWORD: 'drift-password-0123456789' },
    });
    try {
      const { api_key: apiKey } = await app.portico.db
        .selectFrom('app')
        .select('api_key')
        .where('name', '=', 'admin')
        .executeTakeFirstOrThrow();
      const admin = model.admins[0] ?? { email: 'admin@portico.local' };
      const login = await app.inject({
        method: 'POST',
        url: '/api/v2/system/admin/session',
        headers: { 'x-service-api-key': apiKey },
        payload: { email: admin.email, password: 'drift-password-0123456789' },
      });
      const headers = { 'x-service-api-key': apiKey, 'x-service-session-token': (login.json() as { session_token: string }).session_token };
      const created = await app.inject({
        method: 'POST',
        url: '/api/v2/shop/_schema',
        headers,
        payload: {
          resource: [
            {
              name: 'added',
              field: [
                { name: 'id', type: 'id' },
                { name: 'label', type: 'string' },
              ],
            },
          ],
        },
      });
      expect(created.json()).toEqual({ resource: [{ name: 'added' }] });
      const written = await app.inject({
        method: 'POST',
        url: '/api/v2/shop/_table/added?fields=label',
        headers,
        payload: { resource: [{ label: 'new' }] },
      });
      expect(written.json()).toEqual({ resource: [{ label: 'new' }] });
      expect((await app.inject({ method: 'GET', url: '/api/v2/shop/_table/added', headers })).json()).toMatchObject({
        resource: [{ label: 'new' }],
      });
    } finally {
      await app.close();
    }

    const drift = await checkPlatform(options);
    expect(drift.drift.upToDate).toBe(false);
    expect(drift.drift.changed).toEqual(expect.arrayContaining(['model.json', 'prisma/shop.prisma', 'services/shop/types.ts']));
    expect(drift.drift.diff).toContain('model Added {');
    await buildPlatform(options);
    expect((await checkPlatform(options)).drift.upToDate).toBe(true);
  });
}

describe('runtime tables and drift on SQLite', () => {
  let dir: string;
  driftTests(
    'sqlite',
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-drift-'));
      fs.mkdirSync(path.join(dir, 'data'));
      const raw = new Database(path.join(dir, 'data', 'shop.sqlite'));
      raw.exec('create table item (id integer primary key autoincrement, name varchar(40) not null)');
      raw.close();
      fs.writeFileSync(
        path.join(dir, 'platform.yaml'),
        platformYaml(['  - name: shop', '    type: sqlite', '    config:', '      database: data/shop.sqlite']),
      );
      return { dir, env: {} };
    },
    async () => fs.rmSync(dir, { recursive: true, force: true }),
  );
});

describe.skipIf(!(await requireService('postgres')))('runtime tables and drift on PostgreSQL', () => {
  let dir: string;
  let database: TestDatabase;
  driftTests(
    'pgsql',
    async () => {
      database = await createTestDatabase('postgres');
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query('create table item (id serial primary key, name varchar(40) not null)');
      await client.end();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-drift-'));
      fs.mkdirSync(path.join(dir, 'data'));
      fs.writeFileSync(
        path.join(dir, 'platform.yaml'),
        platformYaml([
          '  - name: shop',
          '    type: pgsql',
          '    config:',
          '      host: ${env:SHOP_HOST}',
          '      port: ${env:SHOP_PORT}',
          '      database: ${env:SHOP_DB}',
          '      username: ${env:SHOP_USER}',
          '      password: ${env:SHOP_PASSWORD:-}',
        ]),
      );
      const { host, port, database: name, username, password } = database.config;
      return { dir, env: { SHOP_HOST: host, SHOP_PORT: String(port), SHOP_DB: name, SHOP_USER: username, SHOP_PASSWORD: password } };
    },
    async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      await database?.drop();
    },
  );
});
