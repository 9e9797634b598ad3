/**
 * Faults of a system database on PostgreSQL or MariaDB (PORTICO_SYSTEM_DATABASE_URL), injected
 * through a real TCP relay (test/helpers/tcp-relay.ts; the machine's servers are shared): its
 * connections cut and refused, accepted and never answered, or frozen (open, and silent) while
 * requests log in, check sessions and write system records. They answer the spec's 503 in the
 * error envelope (not a 500, not a hang), a system write interrupted leaves nothing half-written
 * (a role without its grants, a user without its role map), and the server recovers by itself.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase, type ExternalDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PORTS: Record<ExternalDatabase, number> = { postgres: 5432, mysql: 3306 };
const UNAVAILABLE = { error: { code: 503, message: 'The database is unavailable; try again later.' } };
const ADMIN = { email: 'admin@test.local', password: 'admin-password-12345' };

interface Answer {
  status: number;
  body: any;
}

interface RelayedSystem {
  server: TestServer;
  relay: TcpRelay;
  database: TestDatabase;
  /** `sql` on the system database, directly (not through the relay). */
  query(sql: string): Promise<Array<Record<string, unknown>>>;
  /** A request as the logged-in administrator (`token` false: with the API key only). */
  call(method: string, url: string, payload?: unknown, token?: boolean): Promise<Answer>;
}

/** A server whose system database is a fresh database on `kind`'s server, reached through a relay; statements time out after `timeout` s. */
async function relayedSystem(kind: ExternalDatabase, timeout = 1, model = minimalModel()): Promise<RelayedSystem> {
  const database = await createTestDatabase(kind);
  const relay = await startTcpRelay(PORTS[kind]);
  const url = new URL(database.url);
  url.port = String(relay.port);
  const server = await startTestServer(model, {
    systemDatabase: url.href,
    env: { PORTICO_SYSTEM_STATEMENT_TIMEOUT: String(timeout) },
  });
  let direct: { query(sql: string): Promise<Array<Record<string, unknown>>>; close(): Promise<void> };
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    direct = { query: async (sql) => (await client.query(sql)).rows, close: () => client.end() };
  } else {
    const connection = await mysql.createConnection({ uri: database.url, multipleStatements: true });
    direct = {
      query: async (sql) => (await connection.query(sql))[0] as Array<Record<string, unknown>>,
      close: () => connection.end(),
    };
  }
  cleanups.push(async () => {
    await server.close();
    await relay.close();
    await direct.close();
    await database.drop();
  });
  const token = await server.adminToken();
  const call = async (method: string, target: string, payload?: unknown, withToken = true): Promise<Answer> => {
    const headers: Record<string, string> = { 'x-service-api-key': server.apiKey };
    if (withToken) headers['x-service-session-token'] = token;
    const response = await server.app.inject({
      method: method as 'GET',
      url: target,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.body === '' ? null : JSON.parse(response.body) };
  };
  return { server, relay, database, query: (sql) => direct.query(sql), call };
}

/** Requests that need the system database: a list, a create, the session check, a login. */
async function systemRequests(system: RelayedSystem, tag: string): Promise<Answer[]> {
  return [
    await system.call('GET', '/api/v2/system/role'),
    await system.call('POST', '/api/v2/system/role', { resource: [{ name: `role-${tag}` }] }),
    await system.call('GET', '/api/v2/system/admin/session'),
    await system.call('POST', '/api/v2/system/admin/session', ADMIN, false),
  ];
}

/** The server serves the system again: it lists, creates, logs in. */
async function recovered(system: RelayedSystem, tag: string): Promise<void> {
  await vi.waitFor(async () => expect((await system.call('GET', '/api/v2/system/role')).status).toBe(200), { timeout: 15_000 });
  expect((await system.call('POST', '/api/v2/system/role', { resource: [{ name: `after-${tag}` }] })).status).toBe(201);
  expect((await system.call('POST', '/api/v2/system/admin/session', ADMIN, false)).status).toBe(200);
}

/** Makes inserts into `table` of the system database sleep two seconds (a trigger): a system write is midway while one runs. */
async function slowInserts(system: RelayedSystem, kind: ExternalDatabase, table: string): Promise<void> {
  if (kind === 'postgres') {
    await system.query(
      'create or replace function portico_test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(2); return new; end $$',
    );
    await system.query(
      `create trigger portico_test_slow_${table} before insert on ${table} for each row execute function portico_test_slow()`,
    );
  } else await system.query(`create trigger portico_test_slow_${table} before insert on ${table} for each row begin do sleep(2); end`);
}

/** Waits until a statement of the system database sleeps in such a trigger. */
async function sleepingStatement(system: RelayedSystem, kind: ExternalDatabase): Promise<void> {
  const sleeping =
    kind === 'postgres'
      ? "select pid from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'"
      : "select id from information_schema.processlist where db = database() and state = 'User sleep'";
  await vi.waitFor(async () => expect((await system.query(sleeping)).length).toBeGreaterThan(0), { timeout: 15_000, interval: 20 });
}

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a system database on ${kind}`, () => {
    it('answers 503 to logins, session checks and system requests while its connections are cut and refused, and recovers', {
      timeout: 60_000,
    }, async () => {
      const system = await relayedSystem(kind);
      expect((await system.call('GET', '/api/v2/system/role')).status).toBe(200);
      await system.relay.cut();
      for (const answer of await systemRequests(system, 'cut')) expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      // A service's API with a session already known goes on (from memory) or says 503: never a 500.
      const files = await system.call('GET', '/api/v2/files/');
      if (files.status !== 200) expect(files).toEqual({ status: 503, body: UNAVAILABLE });
      await system.relay.restore();
      await recovered(system, 'cut');
      expect((await system.query("select name from role where name = 'role-cut'")).length).toBe(0);
    });

    it('answers 503 (not 401, invalid token) to a session whose user is not in memory while its connections are cut, and recovers', {
      timeout: 60_000,
    }, async () => {
      const system = await relayedSystem(kind);
      // A system write reloads the directory, which forgets the users it holds: the next request reads the session's user.
      expect((await system.call('POST', '/api/v2/system/role', { resource: [{ name: 'forgets-users' }] })).status).toBe(201);
      await system.relay.cut();
      // A 401 would tell the client its token is no good (it would drop it and log in again, which the outage refuses too).
      for (const [method, url] of [
        ['GET', '/api/v2/system/role'],
        ['GET', '/api/v2/system/admin/session'],
        ['GET', '/api/v2/files/'],
      ])
        expect(await system.call(method, url), url).toEqual({ status: 503, body: UNAVAILABLE });
      await system.relay.restore();
      await recovered(system, 'forgotten');
    });

    it('answers 503 to the first call of a remote web service whose stored document can not be read while its connections are cut', {
      timeout: 60_000,
    }, async () => {
      // No remote answers at this address: the service is opened (its stored document read) before any call goes out.
      const remote: ServiceModel = {
        id: 20,
        name: 'remote',
        type: 'rws',
        label: 'Remote',
        description: '',
        is_active: true,
        config: { base_url: 'http://127.0.0.1:19949/v1' },
        origin: 'builtin',
        kind: 'plain',
      };
      const base = minimalModel();
      const system = await relayedSystem(kind, 1, { ...base, services: [...base.services, remote] });
      expect((await system.call('GET', '/api/v2/system/role')).status).toBe(200);
      await system.relay.cut();
      const answer = await system.call('GET', '/api/v2/remote/anything');
      // A 503 from the remote itself would name the service; the system database's names the database.
      expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      await system.relay.restore();
      await recovered(system, 'remote');
      // The failed open is not kept: the service opens now, and its call goes out to the (absent) remote.
      const opened = await system.call('GET', '/api/v2/remote/anything');
      expect(opened.status).toBe(503);
      expect(opened.body.error.message).toMatch(/^The remote server of service 'remote' /);
    });

    it('answers 503 within its connect timeout when the server accepts and never answers, and recovers', { timeout: 90_000 }, async () => {
      const system = await relayedSystem(kind);
      expect((await system.call('GET', '/api/v2/system/role')).status).toBe(200);
      system.relay.silence();
      const started = Date.now();
      // The first may still find a pooled connection ended by the silence; the others wait for a new one.
      await system.call('GET', '/api/v2/system/role');
      for (const answer of await systemRequests(system, 'silent')) expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      expect(Date.now() - started).toBeLessThan(60_000);
      await system.relay.restore();
      await recovered(system, 'silent');
    });

    it('answers 503 rather than hang when its open connections freeze (a frozen server, a partitioned network), and recovers', {
      timeout: 120_000,
    }, async () => {
      const system = await relayedSystem(kind);
      expect((await system.call('GET', '/api/v2/system/role')).status).toBe(200);
      system.relay.freeze();
      const started = Date.now();
      const answers = await Promise.all([
        system.call('GET', '/api/v2/system/role'),
        system.call('POST', '/api/v2/system/role', { resource: [{ name: 'role-frozen' }] }),
        system.call('GET', '/api/v2/system/admin/session'),
        system.call('POST', '/api/v2/system/admin/session', ADMIN, false),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.body.error.code).toBe(503);
        expect(answer.body.error.message).toMatch(/^The (database is unavailable|connection to the database was lost)/);
      }
      // The statement timeout is 1 s: far less than this, however loaded the machine.
      expect(Date.now() - started).toBeLessThan(60_000);
      await system.relay.restore();
      await recovered(system, 'frozen');
    });

    it('stores nothing of a role with grants, or a user with a role map, whose connection is lost midway, and says so with a 503', {
      timeout: 90_000,
    }, async () => {
      const system = await relayedSystem(kind, 30);
      const role = (await system.call('POST', '/api/v2/system/role', { resource: [{ name: 'existing' }] })).body.resource[0].id;
      const app = (await system.call('GET', '/api/v2/system/app?filter=name%3Dadmin')).body.resource[0].id;
      await slowInserts(system, kind, 'role_service_access');
      await slowInserts(system, kind, 'user_to_app_to_role');
      const writes: Array<[string, unknown, string]> = [
        [
          '/api/v2/system/role',
          { resource: [{ name: 'half', role_service_access_by_role_id: [{ service_id: null, component: '*', verb_mask: 1 }] }] },
          "select id from role where name = 'half'",
        ],
        [
          '/api/v2/system/user',
          { resource: [{ name: 'half', email: 'half@test.local', user_to_app_to_role_by_user_id: [{ app_id: app, role_id: role }] }] },
          "select id from user where email = 'half@test.local'",
        ],
      ];
      for (const [url, payload, stored] of writes) {
        const write = system.call('POST', url, payload);
        await sleepingStatement(system, kind);
        system.relay.reset();
        const answer = await write;
        expect(answer.status, url).toBe(503);
        expect(answer.body.error.code, url).toBe(503);
        // The write's transaction was rolled back with its connection: neither the record nor a part of it is stored.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        expect(await system.query(kind === 'postgres' ? stored.replace(' user ', ' "user" ') : stored), url).toEqual([]);
      }
      expect(await system.query('select role_id from role_service_access')).toEqual([]);
      expect(await system.query('select user_id from user_to_app_to_role')).toEqual([]);
      await recovered(system, 'half');
    });
  });
}
