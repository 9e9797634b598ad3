/**
 * The system database on a server database: chosen by PORTICO_SYSTEM_DATABASE_URL (over
 * platform.yaml), migrated once when instances start together, keeping one JWT secret that every
 * instance signs with; an unreachable one stops the start with one line naming it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { execa } from 'execa';
import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '#runtime/http/create-server.js';
import { openPlatform } from '#runtime/http/platform-context.js';
import { StartupError, systemStatementTimeout } from '#runtime/system/store/system-db.js';
import { systemMigrations } from '#runtime/system/store/system-migrations.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { createTestDatabase, requireService, type ExternalDatabase, type TestDatabase } from '#test/helpers/require-service.js';
import { SOURCE_NODE_ARGS } from '#test/helpers/source-node.js';
import { startTcpRelay } from '#test/helpers/tcp-relay.js';

const ADMIN = { email: 'admin@test.local', password: 'admin-password-12345' };
const UNAVAILABLE = 'The database is unavailable; try again later.';
const OUTCOME_UNKNOWN =
  'The connection to the database was lost while it stored the change: it may or may not have been stored. Read it back before trying again.';
// The JWT secret as platform.yaml declares it by default: from the environment, else kept in the system database.
const model = minimalModel();
model.settings = { ...model.settings, jwtSecret: '${env:PORTICO_JWT_SECRET:-}' };

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function login(app: FastifyInstance): Promise<{ status: number; token: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/v2/system/admin/session', payload: ADMIN });
  return { status: response.statusCode, token: response.json().session_token };
}

async function startOn(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Promise<FastifyInstance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-sysdb-'));
  const app = await createServer(model, { baseDir: dir, env: { PORTICO_SYSTEM_DATABASE_URL: database.url, ...env } });
  cleanups.push(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return app;
}

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} system database`, () => {
    it("is created by two instances starting together, migrated and seeded once, and they accept each other's tokens", async () => {
      const database = await createTestDatabase(kind);
      cleanups.push(() => database.drop());
      const [a, b] = await Promise.all([startOn(database), startOn(database)]);
      const db = a.portico.db;
      const migrations = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
      expect(migrations.rows.map((m) => m.name).sort()).toEqual(Object.keys(systemMigrations).sort());
      expect(await db.selectFrom('user').select('email').where('is_sys_admin', '=', 1).execute()).toEqual([{ email: ADMIN.email }]);
      expect((await db.selectFrom('app').select('name').execute()).map((r) => r.name).sort()).toEqual([
        'admin',
        'api_docs',
        'file_manager',
      ]);
      const secrets = await db.selectFrom('system_setting').select('value').where('name', '=', 'jwt_secret').execute();
      expect(secrets).toHaveLength(1);

      const { status, token } = await login(a);
      expect(status).toBe(200);
      const session = await b.inject({ method: 'GET', url: '/api/v2/system/admin/session', headers: { 'x-service-session-token': token } });
      expect(session.statusCode).toBe(200);
      expect(session.json().email).toBe(ADMIN.email);
      // A record created through one is read through the other.
      const created = await a.inject({
        method: 'POST',
        url: '/api/v2/system/role',
        headers: { 'x-service-session-token': token },
        payload: { resource: [{ name: 'shared-role' }] },
      });
      expect(created.statusCode).toBe(201);
      const read = await b.inject({
        method: 'GET',
        url: '/api/v2/system/role?filter=name=shared-role',
        headers: { 'x-service-session-token': token },
      });
      expect(read.json().resource).toHaveLength(1);
    });

    it('signs with PORTICO_JWT_SECRET when it is set, so a restarted instance keeps accepting tokens', async () => {
      const database = await createTestDatabase(kind);
      cleanups.push(() => database.drop());
      const env = { PORTICO_JWT_SECRET: 'a-secret-from-the-environment-0123456789' };
      const first = await startOn(database, env);
      const { token } = await login(first);
      const second = await startOn(database, env);
      expect(
        (await second.inject({ method: 'GET', url: '/api/v2/system/admin/session', headers: { 'x-service-session-token': token } }))
          .statusCode,
      ).toBe(200);
      expect(await first.portico.db.selectFrom('system_setting').select('value').where('name', '=', 'jwt_secret').execute()).toEqual([]);
    });

    it('answers 503 while it is cut off, never ending the process, and serves again once it is back', { timeout: 20_000 }, async () => {
      const database = await createTestDatabase(kind);
      cleanups.push(() => database.drop());
      const url = new URL(database.url);
      const relay = await startTcpRelay(Number(url.port || (kind === 'postgres' ? 5432 : 3306)), url.hostname);
      cleanups.push(() => relay.close());
      url.port = String(relay.port);
      const app = await startOn({ ...database, url: url.href });
      const { token } = await login(app);
      const headers = { 'x-service-session-token': token };
      const calls = () => [
        app.inject({ method: 'GET', url: '/api/v2/system/role', headers }),
        app.inject({ method: 'GET', url: '/api/v2/system/admin/session', headers }),
        app.inject({ method: 'POST', url: '/api/v2/system/admin/session', payload: ADMIN }),
      ];
      const crashes: unknown[] = [];
      const crashed = (error: unknown) => crashes.push(error);
      process.on('uncaughtException', crashed);
      try {
        // Requests that take a connection just as every connection drops, then requests while it is refused.
        const cut = relay.cut();
        const racing = await Promise.all(calls());
        await cut;
        const down = await Promise.all(calls());
        // A write (a login's) whose connection dropped while it ran may or may not have been stored, and says so.
        for (const answer of racing.filter((a) => a.statusCode !== 200)) {
          expect(answer.statusCode).toBe(503);
          expect([UNAVAILABLE, OUTCOME_UNKNOWN]).toContainEqual(answer.json().error.message);
        }
        for (const answer of down.filter((a) => a.statusCode !== 200))
          expect({ status: answer.statusCode, body: answer.json() }).toEqual({
            status: 503,
            body: { error: { code: 503, message: UNAVAILABLE } },
          });
        expect(down.map((answer) => answer.statusCode)).toEqual([503, 503, 503]);
        await relay.restore();
        expect((await Promise.all(calls())).map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
      } finally {
        process.off('uncaughtException', crashed);
      }
      expect(crashes).toEqual([]);
    });

    it('stops a statement waiting on a row another session keeps locked at PORTICO_SYSTEM_STATEMENT_TIMEOUT: a 503, then serves', async () => {
      const database = await createTestDatabase(kind);
      cleanups.push(() => database.drop());
      const app = await startOn(database, { PORTICO_SYSTEM_STATEMENT_TIMEOUT: '1' });
      const { token } = await login(app);
      const headers = { 'x-service-session-token': token };
      const role = await app.inject({ method: 'POST', url: '/api/v2/system/role', headers, payload: { resource: [{ name: 'locked' }] } });
      const roleId = role.json().resource[0].id as number;
      // Another program holds the rows of the administrator and of the role in an open transaction.
      const other = await openRawSession(kind, database.url);
      cleanups.push(() => other.close());
      await other.run('begin');
      await other.run(`select id from ${kind === 'mysql' ? '`user`' : '"user"'} where email = '${ADMIN.email}' for update`);
      await other.run(`select id from role where id = ${roleId} for update`);
      const started = Date.now();
      const answers = await Promise.all([
        login(app).then((answer) => answer.status),
        app
          .inject({ method: 'PATCH', url: `/api/v2/system/role/${roleId}`, headers, payload: { description: 'changed' } })
          .then((answer) => ({ status: answer.statusCode, body: answer.json() })),
      ]);
      // Before, both waited for as long as the other session kept its transaction open.
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(answers[0]).toBe(503);
      expect(answers[1].status).toBe(503);
      expect(answers[1].body).toEqual({
        error: {
          code: 503,
          message: 'The system database did not finish the statement within PORTICO_SYSTEM_STATEMENT_TIMEOUT; try again later.',
        },
      });
      await other.run('rollback');
      expect((await login(app)).status).toBe(200);
      const changed = await app.inject({
        method: 'PATCH',
        url: `/api/v2/system/role/${roleId}`,
        headers,
        payload: { description: 'changed' },
      });
      expect(changed.statusCode).toBe(200);
    });

    it.skipIf(kind !== 'postgres')(
      'says that an admin change whose connection was lost during its commit may have been stored (here it was)',
      { timeout: 20_000 },
      async () => {
        const database = await createTestDatabase(kind);
        cleanups.push(() => database.drop());
        const url = new URL(database.url);
        const relay = await startTcpRelay(Number(url.port || 5432), url.hostname);
        cleanups.push(() => relay.close());
        url.port = String(relay.port);
        const app = await startOn({ ...database, url: url.href });
        const { token } = await login(app);
        const headers = { 'x-service-session-token': token };
        const other = await openRawSession(kind, database.url);
        cleanups.push(() => other.close());
        const role = await app.inject({ method: 'POST', url: '/api/v2/system/role', headers, payload: { resource: [{ name: 'r' }] } });
        const roleId = role.json().resource[0].id as number;
        // A deferred constraint trigger runs at commit: the commit is under way while it sleeps.
        await other.run(`create function slow_commit() returns trigger language plpgsql as $$
          begin if new.description like 'slow%' then perform pg_sleep(2); end if; return null; end $$`);
        await other.run(`create constraint trigger role_slow_commit after update on role deferrable initially deferred
          for each row execute function slow_commit()`);
        const patch = app.inject({ method: 'PATCH', url: `/api/v2/system/role/${roleId}`, headers, payload: { description: 'slow one' } });
        const sleeping = "select pid from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'";
        while ((await other.rows(sleeping)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        relay.reset();
        const answer = await patch;
        // Before, 'The database is unavailable', which reads as 'nothing was stored'.
        expect({ status: answer.statusCode, body: answer.json() }).toEqual({
          status: 503,
          body: {
            error: {
              code: 503,
              message: OUTCOME_UNKNOWN,
            },
          },
        });
        await vi.waitFor(
          async () => expect(await other.rows(`select description from role where id = ${roleId}`)).toEqual([{ description: 'slow one' }]),
          {
            timeout: 5_000,
          },
        );
      },
    );
  });
}

/** A session of another program on the database, outside the server's pool. */
async function openRawSession(kind: ExternalDatabase, url: string): Promise<RawSession> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = async (text: string) => (await client.query(text)).rows as unknown[];
    return { rows, run: async (text) => void (await rows(text)), close: () => client.end() };
  }
  const connection = await mysql.createConnection({ uri: url });
  const rows = async (text: string) => (await connection.query(text))[0] as unknown[];
  return { rows, run: async (text) => void (await rows(text)), close: () => connection.end() };
}

interface RawSession {
  run(text: string): Promise<void>;
  rows(text: string): Promise<unknown[]>;
  close(): Promise<void>;
}

const postgresAndRedis = (await requireService('postgres')) && (await requireBroker('redis'));
describe.skipIf(!postgresAndRedis)("platform.yaml's system.database.url and system.redis.url", () => {
  it('put the system database and Redis where they say (as ${env:...} references too), and the environment wins over them', async () => {
    const declared = await createTestDatabase('postgres');
    const other = await createTestDatabase('postgres');
    cleanups.push(
      () => declared.drop(),
      () => other.drop(),
    );
    const withUrls = minimalModel();
    withUrls.settings = {
      ...withUrls.settings,
      systemDatabase: { type: 'pgsql', url: '${env:DECLARED_DB}' },
      redisUrl: '${env:DECLARED_REDIS}',
    };
    const start = async (env: NodeJS.ProcessEnv) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-sysdb-'));
      const app = await createServer(withUrls, { baseDir: dir, env });
      cleanups.push(async () => {
        await app.close();
        fs.rmSync(dir, { recursive: true, force: true });
      });
      return app;
    };
    const redis = brokerUrl('redis');
    const fromYaml = await start({ DECLARED_DB: declared.url, DECLARED_REDIS: redis });
    await fromYaml.inject({ method: 'POST', url: '/api/v2/system/admin/session', payload: ADMIN });
    expect(fromYaml.portico.redis?.ready()).toBe(true);
    const lastLogin = async (url: string) => {
      const db = await openPlatform(model, { baseDir: os.tmpdir(), systemDatabase: url, env: {} });
      try {
        return (await db.db.selectFrom('user').select('last_login_date').where('email', '=', ADMIN.email).executeTakeFirstOrThrow())
          .last_login_date;
      } finally {
        await db.close();
      }
    };
    expect(await lastLogin(declared.url)).not.toBeNull();

    const fromEnv = await start({ DECLARED_DB: declared.url, PORTICO_SYSTEM_DATABASE_URL: other.url, DECLARED_REDIS: '' });
    await fromEnv.inject({ method: 'POST', url: '/api/v2/system/admin/session', payload: ADMIN });
    expect(await lastLogin(other.url)).not.toBeNull();
    // An empty Redis URL is no Redis.
    expect(fromEnv.portico.redis).toBeNull();
  });
});

describe('an unreachable system database', () => {
  it('fails the start with one line naming it (password hidden)', async () => {
    const target = 'postgres://portico:s3cret@127.0.0.1:1/nowhere';
    const error = await openPlatform(model, { baseDir: os.tmpdir(), env: { PORTICO_SYSTEM_DATABASE_URL: target } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(
      /^Portico: cannot reach the system database postgres:\/\/portico:\*\*\*@127\.0\.0\.1:1\/nowhere: /,
    );
    expect((error as Error).message).not.toContain('s3cret');
    expect((error as Error).message).not.toContain('\n');
  });

  it('makes the generated server print that line and exit 1', async () => {
    const entry = path.resolve(import.meta.dirname, '../../examples/quickstart/server/main.mjs');
    const result = await execa(process.execPath, [...SOURCE_NODE_ARGS, entry], {
      reject: false,
      timeout: 60_000,
      env: { PORTICO_SYSTEM_DATABASE_URL: 'mysql://root@127.0.0.1:1/nowhere', PORT: '0' },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Portico: cannot reach the system database mysql:\/\/root@127\.0\.0\.1:1\/nowhere: /),
    ]);
  });
});

describe('PORTICO_SYSTEM_STATEMENT_TIMEOUT', () => {
  it('takes whole seconds (0: none, unset: 30); anything else stops the start with one line', async () => {
    expect(systemStatementTimeout({})).toBe(30);
    expect(systemStatementTimeout({ PORTICO_SYSTEM_STATEMENT_TIMEOUT: ' 5 ' })).toBe(5);
    expect(systemStatementTimeout({ PORTICO_SYSTEM_STATEMENT_TIMEOUT: '0' })).toBe(0);
    for (const bad of ['-1', '1.5', 'soon'])
      expect(() => systemStatementTimeout({ PORTICO_SYSTEM_STATEMENT_TIMEOUT: bad })).toThrow(
        new StartupError(`Portico: PORTICO_SYSTEM_STATEMENT_TIMEOUT must be a whole number of seconds (0: none), not '${bad}'.`),
      );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-sysdb-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    await expect(
      createServer(model, { baseDir: dir, systemDatabase: ':memory:', env: { PORTICO_SYSTEM_STATEMENT_TIMEOUT: 'x' } }),
    ).rejects.toBeInstanceOf(StartupError);
  });
});
