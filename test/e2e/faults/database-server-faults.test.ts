/**
 * Faults a database server causes itself while a service serves (no relay: the server acts): a
 * session ended by an operator (pg_terminate_backend, KILL CONNECTION) in the midst of a batch or
 * while other requests wait for its connection; no connection to be had, every one the service's
 * database user may open taken by another client, or every one of its own pool busy with slow
 * statements for longer than its connection_timeout. The ended statement answers the spec's 503 in
 * the error envelope and stores nothing of it; the other records of a batch and the requests
 * waiting for the connection are served on a new one, never on the ended session; with no
 * connection to be had the service answers 503 (resource exhaustion: "connections all busy" when
 * its own pool's are, "unavailable" when the database refuses more), and serves once one is free;
 * a database that takes no changes (read-only: a standby after a failover, maintenance) answers
 * writes 503 while reads go on, and takes them again once it is writable.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type ExternalDatabase, requireService, serverUrl } from '#test/helpers/require-service.js';
import { type ApiClient, type ApiResponse, startApi } from '../database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from '../database-api/database-targets.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const UNAVAILABLE = { error: { code: 503, message: 'The database is unavailable; try again later.' } };
/** Every connection of the pool busy with other requests: the database is up, and nothing was sent. */
const CONNECTIONS_BUSY = {
  error: {
    code: 503,
    message:
      'Every connection of the service to the database stayed busy with other requests for its connection_timeout; nothing was sent to the database, so trying again later is safe.',
  },
};
const OUTCOME_UNKNOWN = {
  error: {
    code: 503,
    message:
      'The connection to the database was lost while it stored the change: it may or may not have been stored. Read it back before trying again.',
  },
};

/** A service over a fresh database whose table's inserts of a name starting with `slow` sleep two seconds, or `seconds` (a trigger). */
async function slowTable(
  kind: ExternalDatabase,
  config: Record<string, unknown> = {},
  seconds = 2,
): Promise<{ api: ApiClient; target: DatabaseTarget }> {
  const target = await openDatabaseTarget(kind);
  await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
  if (kind === 'postgres')
    await target.exec(`create function slow() returns trigger language plpgsql as $$
        begin if new.name like 'slow%' then perform pg_sleep(${seconds}); end if; return new; end $$
      ;;
      create trigger item_slow before insert on item for each row execute function slow()`);
  else
    await target.exec(
      `create trigger item_slow before insert on item for each row begin if new.name like 'slow%' then do sleep(${seconds}); end if; end`,
    );
  const api = await startApi(target, { connection_timeout: 2, ...config });
  cleanups.push(async () => {
    await api.close();
    await target.close();
  });
  return { api, target };
}

/** Waits for a slow insert to be sleeping; returns the server's id of its session. */
async function sleepingSession(target: DatabaseTarget): Promise<number> {
  const sleeping =
    target.kind === 'postgres'
      ? "select pid as id from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'"
      : "select id from information_schema.processlist where db = database() and state = 'User sleep'";
  for (;;) {
    const rows = await target.query(sleeping);
    if (rows.length > 0) return Number(rows[0].id);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Ends a session from another one, as an operator or a failover tool does. */
async function endSession(target: DatabaseTarget, id: number): Promise<void> {
  if (target.kind === 'postgres') await target.query(`select pg_terminate_backend(${id})`);
  else await target.exec(`kill connection ${id}`);
}

const endSleepingSession = async (target: DatabaseTarget) => endSession(target, await sleepingSession(target));

const stored = async (target: DatabaseTarget) => (await target.query('select id from item order by id')).map((row) => Number(row.id));
const ids = (response: ApiResponse) => (response.body.resource as Array<{ id: number }>).map((record) => record.id).sort((a, b) => a - b);
const BATCH = [
  { id: 1, name: 'first' },
  { id: 2, name: 'slow' },
  { id: 3, name: 'third' },
];

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} service whose session the server ends`, () => {
    it('in a rollback batch: 503, nothing of the batch stored, and the next write is served', { timeout: 20_000 }, async () => {
      const { api, target } = await slowTable(kind);
      const batch = api.call('POST', '_table/item?rollback=true', { resource: BATCH });
      await endSleepingSession(target);
      expect(await batch).toEqual({ status: 503, body: UNAVAILABLE });
      expect(await stored(target)).toEqual([]);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'fourth' }] })).status).toBe(200);
      expect(await stored(target)).toEqual([4]);
    });

    it('in a batch without rollback: the record before it stays, the ended one says 503 in the batch error', {
      timeout: 20_000,
    }, async () => {
      const { api, target } = await slowTable(kind);
      const answer = await Promise.all([api.call('POST', '_table/item', { resource: BATCH }), endSleepingSession(target)]).then(
        ([batch]) => batch,
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.context.errors).toHaveLength(1);
      expect(answer.body.error.context.errors[0]).toMatchObject({ index: 1, code: 503 });
      expect([UNAVAILABLE.error.message, OUTCOME_UNKNOWN.error.message]).toContain(answer.body.error.context.errors[0].message);
      expect(answer.body.error.context.resource[0]).toEqual({ id: 1 });
      // The server rolled the ended statement back.
      expect(await stored(target)).toEqual([1]);
    });

    it('in a batch with continue: the records after it are stored on a new connection', { timeout: 20_000 }, async () => {
      const { api, target } = await slowTable(kind);
      const answer = await Promise.all([
        api.call('POST', '_table/item?continue=true', { resource: BATCH }),
        endSleepingSession(target),
      ]).then(([batch]) => batch);
      expect(answer.status).toBe(400);
      expect(answer.body.error.context.errors.map((error: { index: number }) => error.index)).toEqual([1]);
      expect(answer.body.error.context.resource[0]).toEqual({ id: 1 });
      expect(answer.body.error.context.resource[2]).toEqual({ id: 3 });
      expect(await stored(target)).toEqual([1, 3]);
    });

    it('while other requests wait for its only connection: they are served on a new one', { timeout: 20_000 }, async () => {
      const { api, target } = await slowTable(kind, { max_connections: 1 });
      expect((await api.get('_table/item')).status).toBe(200);
      const insert = api.call('POST', '_table/item', { resource: [{ id: 1, name: 'slow' }] });
      const session = await sleepingSession(target);
      // Queued behind the slow insert, for the service's only connection.
      const queued = [api.call('POST', '_table/item', { resource: [{ id: 5, name: 'five' }] }), api.get('_table/item')];
      await new Promise((resolve) => setTimeout(resolve, 100));
      await endSession(target, session);
      const ended = await insert;
      expect(ended.status).toBe(503);
      expect([UNAVAILABLE, OUTCOME_UNKNOWN]).toContainEqual(ended.body);
      const [write, read] = await Promise.all(queued);
      expect(write).toEqual({ status: 200, body: { resource: [{ id: 5 }] } });
      expect(read.status).toBe(200);
      expect(ids(await api.get('_table/item'))).toEqual([5]);
      expect(await stored(target)).toEqual([5]);
    });
  });
}

/**
 * A database user of its own that may open one connection, with the rights on `target`'s table
 * (PostgreSQL's CONNECTION LIMIT, MariaDB's MAX_USER_CONNECTIONS: the server's global limit would
 * take every other client of the shared server with it). Returns its name and a connection of
 * another client as that user, taking that one connection.
 */
async function oneConnectionUser(target: DatabaseTarget): Promise<{ user: string; release(): Promise<void> }> {
  const user = `portico_one_${Math.random().toString(16).slice(2, 10)}`;
  const database = target.config.database as string;
  if (target.kind === 'postgres') {
    // Dropped after the database (which holds its grants), also when a step below fails.
    cleanups.push(async () => {
      const admin = new pg.Client({ connectionString: serverUrl('postgres') });
      await admin.connect();
      await admin.query(`drop role if exists ${user}`);
      await admin.end();
    });
    await target.exec(`create role ${user} login password 'one-pass' connection limit 1`);
    await target.exec(`grant all on item to ${user}`);
    const other = new pg.Client({ host: '127.0.0.1', port: Number(target.config.port), user, password: 'one-pass', database });
    await other.connect();
    return { user, release: () => other.end() };
  }
  cleanups.push(async () => {
    const admin = await mysql.createConnection({ uri: serverUrl('mysql') });
    for (const host of ['%', 'localhost']) await admin.query(`drop user if exists '${user}'@'${host}'`);
    await admin.end();
  });
  for (const host of ['%', 'localhost']) {
    await target.exec(`create user '${user}'@'${host}' identified by 'one-pass' with max_user_connections 1`);
    await target.exec(`grant all on \`${database}\`.* to '${user}'@'${host}'`);
  }
  const other = await mysql.createConnection({ host: '127.0.0.1', port: Number(target.config.port), user, password: 'one-pass', database });
  return { user, release: () => other.end() };
}

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} service that can have no connection`, () => {
    it('answers 503 in the error shape saying its connections are all busy (not that the database is down) once every connection of its pool stayed busy for connection_timeout, and serves once one is free', {
      timeout: 30_000,
    }, async () => {
      // One connection, held by an insert that sleeps ten seconds; a wait for a connection lasts one.
      const { api, target } = await slowTable(kind, { max_connections: 1, connection_timeout: 1 }, 10);
      expect((await api.get('_table/item')).status).toBe(200);
      const insert = api.call('POST', '_table/item', { resource: [{ id: 1, name: 'slow' }] });
      const session = await sleepingSession(target);
      // MySQL's pool queued them until the insert was done (for up to its statement timeout).
      const [read, batch] = await Promise.all([
        api.get('_table/item'),
        api.call('POST', '_table/item?rollback=true', {
          resource: [
            { id: 2, name: 'b' },
            { id: 3, name: 'c' },
          ],
        }),
      ]);
      expect(read).toEqual({ status: 503, body: CONNECTIONS_BUSY });
      expect(batch).toEqual({ status: 503, body: CONNECTIONS_BUSY });
      await endSession(target, session);
      expect((await insert).status).toBe(503);
      expect(await stored(target)).toEqual([]);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'd' }] })).status).toBe(200);
      expect(ids(await api.get('_table/item'))).toEqual([4]);
    });

    it('answers 503 in the error shape saying the database is unavailable (not busy) while every connection its user may open is taken, and serves once one is free', {
      timeout: 20_000,
    }, async () => {
      const target = await openDatabaseTarget(kind);
      await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
      const { user, release } = await oneConnectionUser(target);
      const api = await startApi(target, { username: user, password: 'one-pass', connection_timeout: 2 });
      cleanups.push(async () => {
        await api.close();
        await target.close();
      });
      for (const answer of [
        await api.get('_table/item'),
        await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] }),
        await api.get('_table/item/1'),
      ])
        expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      await release();
      expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
      expect(ids(await api.get('_table/item'))).toEqual([2]);
    });
  });
}

describe.skipIf(!(await requireService('postgres')))(
  'a postgres service whose database turns read-only (a standby after a failover)',
  () => {
    it('answers writes 503 in the error shape while reads go on, and writes again once it is writable', { timeout: 20_000 }, async () => {
      const target = await openDatabaseTarget('postgres');
      await target.exec("create table item (id integer primary key, name varchar(40) not null unique); insert into item values (1, 'a')");
      const api = await startApi(target, { connection_timeout: 2 });
      cleanups.push(async () => {
        await api.close();
        await target.close();
      });
      const database = target.config.database as string;
      await target.exec(`alter database "${database}" set default_transaction_read_only = on`);
      // The setting reaches new sessions: the service's connections end (as they do in a failover).
      await target.exec(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      await vi.waitFor(async () => expect((await api.get('_table/item')).status).toBe(200), { timeout: 10_000 });
      const READ_ONLY = {
        error: {
          code: 503,
          message: 'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.',
        },
      };
      expect(await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).toEqual({ status: 503, body: READ_ONLY });
      expect(await api.call('PATCH', '_table/item/1', { name: 'changed' })).toEqual({ status: 503, body: READ_ONLY });
      expect(await api.call('DELETE', '_table/item/1')).toEqual({ status: 503, body: READ_ONLY });
      const batch = await api.call('POST', '_table/item?rollback=true', {
        resource: [
          { id: 2, name: 'b' },
          { id: 3, name: 'c' },
        ],
      });
      expect(batch.status).toBe(400);
      expect(batch.body.error.context.errors).toEqual([{ index: 0, message: READ_ONLY.error.message, code: 503 }]);
      expect(ids(await api.get('_table/item'))).toEqual([1]);
      await target.exec(`alter database "${database}" reset default_transaction_read_only`);
      await target.exec(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      await vi.waitFor(async () => expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200), {
        timeout: 10_000,
      });
      expect(ids(await api.get('_table/item'))).toEqual([1, 2]);
    });
  },
);
