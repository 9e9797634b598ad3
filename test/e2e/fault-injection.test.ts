/**
 * Faults injected into a running server's back-ends: a database server's connections killed or
 * cut mid-load (through a real TCP relay, test/helpers/tcp-relay.ts, since the machine's servers
 * are shared), a server that accepts and never answers, a statement cancelled, a SQLite file
 * removed or replaced on disk, the platform's Redis frozen. The failing service answers the spec's
 * 503 in the error envelope (no driver text), nothing half-written is stored, and the service
 * recovers by itself when its back-end comes back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import type { ExternalDatabase } from '#test/helpers/require-service.js';
import { minimalModel, startTestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase, requireService, serverUrl } from '#test/helpers/require-service.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';
import { type ApiClient, type ApiResponse, startApi } from './database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from './database-api/database-targets.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PORTS: Record<ExternalDatabase, number> = { postgres: 5432, mysql: 3306 };
const UNAVAILABLE = { error: { code: 503, message: 'The database is unavailable; try again later.' } };
const OUTCOME_UNKNOWN = {
  error: {
    code: 503,
    message:
      'The connection to the database was lost while it stored the change: it may or may not have been stored. Read it back before trying again.',
  },
};
const MISSING = {
  error: {
    code: 503,
    message: "The service's database does not exist on its server (dropped, or not created yet); try again once it is there.",
  },
};
const STATEMENT_TIMEOUT = {
  error: { code: 503, message: "The database did not finish the statement within the service's statement_timeout; try again later." },
};

/** A database service `db` over a fresh database with one table, reached through a relay. */
async function relayedDatabase(kind: ExternalDatabase): Promise<{ api: ApiClient; relay: TcpRelay; target: DatabaseTarget }> {
  const target = await openDatabaseTarget(kind);
  await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
  const relay = await startTcpRelay(PORTS[kind]);
  const api = await startApi(target, { host: '127.0.0.1', port: relay.port, connection_timeout: 2 });
  cleanups.push(async () => {
    await api.close();
    await relay.close();
    await target.close();
  });
  return { api, relay, target };
}

const ids = (response: ApiResponse) => (response.body.resource as Array<{ id: number }>).map((record) => record.id).sort((a, b) => a - b);

/** A record named slow… takes two seconds to insert (a trigger sleeps): a statement or a batch is midway while it runs. */
async function slowInserts(target: DatabaseTarget): Promise<void> {
  if (target.kind === 'postgres')
    await target.exec(`create function slow() returns trigger language plpgsql as $$
        begin if new.name like 'slow%' then perform pg_sleep(2); end if; return new; end $$
      ;;
      create trigger item_slow before insert on item for each row execute function slow()`);
  else
    await target.exec(
      "create trigger item_slow before insert on item for each row begin if new.name like 'slow%' then do sleep(2); end if; end",
    );
}

/** Runs one statement on the database server at `url` (its admin URL, or one database's), on a connection of its own. */
async function runOn(kind: ExternalDatabase, url: string, statement: string): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  } else {
    const connection = await mysql.createConnection({ uri: url });
    await connection.query(statement).finally(() => connection.end());
  }
}

/** Waits for a slow insert to be sleeping; returns the server's ids of the sessions running it. */
async function sleepingStatement(target: DatabaseTarget): Promise<number[]> {
  const sleeping =
    target.kind === 'postgres'
      ? "select pid as id from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'"
      : "select id from information_schema.processlist where db = database() and state = 'User sleep'";
  for (;;) {
    const rows = await target.query(sleeping);
    if (rows.length > 0) return rows.map((row) => Number(row.id));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} database service`, () => {
    it('answers 503 while its connections are cut and refused, and recovers by itself', { timeout: 20_000 }, async () => {
      const { api, relay } = await relayedDatabase(kind);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
      // Every open connection ends at once (a network blip), then the server refuses new ones.
      relay.reset();
      const blip = await api.get('_table/item');
      expect([200, 503]).toContain(blip.status);
      if (blip.status === 503) expect(blip.body).toEqual(UNAVAILABLE);
      await relay.cut();
      for (const answer of [
        await api.get('_table/item'),
        await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] }),
        await api.get('_table/item/1'),
      ])
        expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      await relay.restore();
      const after = await api.get('_table/item');
      expect(after.status).toBe(200);
      expect(ids(after)).toEqual([1]);
    });

    it('unreachable when the server starts answers 503, makes /ready name it, and is served once its database is back', {
      timeout: 20_000,
    }, async () => {
      const target = await openDatabaseTarget(kind);
      await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
      const relay = await startTcpRelay(PORTS[kind]);
      await relay.cut();
      // As a stored service whose database could not be read at start: served from its plain model.
      const api = await startApi(target, { host: '127.0.0.1', port: relay.port, connection_timeout: 2 });
      cleanups.push(async () => {
        await api.close();
        await relay.close();
        await target.close();
      });
      const ready = async () => {
        const response = await api.server.app.inject({ method: 'GET', url: '/ready' });
        return { status: response.statusCode, body: response.json() };
      };
      expect(await api.get('_table/item')).toEqual({ status: 503, body: UNAVAILABLE });
      expect(await ready()).toEqual({ status: 503, body: { status: 'not ready', failing: ['db'] } });
      await relay.restore();
      expect(await ready()).toEqual({ status: 200, body: { status: 'ready' } });
      expect(await api.get('_table/item')).toEqual({ status: 200, body: { resource: [] } });
    });

    /** A service `db` over a database that was created and dropped again (its name free), and how to create it anew. */
    async function droppedDatabase() {
      const database = await createTestDatabase(kind);
      await database.drop();
      const quoted = kind === 'postgres' ? `"${database.name}"` : `\`${database.name}\``;
      const target = { kind, type: kind === 'postgres' ? 'pgsql' : 'mysql', config: database.config } as unknown as DatabaseTarget;
      const api = await startApi(target, { connection_timeout: 2 });
      cleanups.push(async () => {
        await api.close();
        await database.drop();
      });
      const create = async () => {
        await runOn(kind, serverUrl(kind), `create database ${quoted}`);
        await runOn(kind, database.url, 'create table item (id integer primary key, name varchar(40) not null unique)');
      };
      return { api, database, create };
    }

    it('answers 503 (not a configuration 500) while its database is not on its server, makes /ready name it, and serves it once it is there', {
      timeout: 20_000,
    }, async () => {
      // As a stored service whose database was dropped before the server started: served from its plain model.
      const { api, create } = await droppedDatabase();
      const ready = async () => (await api.server.app.inject({ method: 'GET', url: '/ready' })).json();
      expect(await api.get('_table/item')).toEqual({ status: 503, body: MISSING });
      expect(await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).toEqual({ status: 503, body: MISSING });
      expect(await ready()).toEqual({ status: 'not ready', failing: ['db'] });
      // Created (restored): served without a restart.
      await create();
      expect(await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).toMatchObject({ status: 200 });
      expect(await ready()).toEqual({ status: 'ready' });
    });

    // MySQL's open connections stay on a dropped database and find none of its tables (1146, the 500 of a table dropped
    // outside) until the pool opens new ones: only PostgreSQL ends them with it.
    it.skipIf(kind !== 'postgres')(
      'answers 503 once its database is dropped while it serves, and serves it once it is there again',
      {
        timeout: 20_000,
      },
      async () => {
        const { api, database, create } = await droppedDatabase();
        await create();
        expect(await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).toMatchObject({ status: 200 });
        // Its connections end with it (FORCE); the first request may find one not yet known to be gone (the generic 503).
        await database.drop();
        const answers = [await api.get('_table/item'), await api.get('_table/item/1'), await api.get('_table/item')];
        for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answers.at(-1)).toEqual({ status: 503, body: MISSING });
        await create();
        expect(await api.get('_table/item')).toEqual({ status: 200, body: { resource: [] } });
      },
    );

    it('answers 503 after its connection_timeout when the server accepts and never answers, and recovers', {
      timeout: 20_000,
    }, async () => {
      const { api, relay } = await relayedDatabase(kind);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
      relay.silence();
      // The first call may still find the pool's connection ended; the next ones wait for a new one.
      await api.get('_table/item');
      const started = Date.now();
      const answers = await Promise.all([api.get('_table/item'), api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })]);
      expect(answers).toEqual([
        { status: 503, body: UNAVAILABLE },
        { status: 503, body: UNAVAILABLE },
      ]);
      expect(Date.now() - started).toBeLessThan(10_000);
      await relay.restore();
      const after = await api.get('_table/item');
      expect(after.status).toBe(200);
      expect(ids(after)).toEqual([1]);
    });

    it('first used while its server accepts and never answers: 503 (not 500) after its connection_timeout, and serves once it answers', {
      timeout: 20_000,
    }, async () => {
      // The service opens on its first request: its first connection times out, and the pool it
      // closes again reports that connection's failure (which answered 500, the driver's error).
      const { api, relay } = await relayedDatabase(kind);
      relay.silence();
      for (const answer of [await api.get('_table/item'), await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })])
        expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      await relay.restore();
      expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
      expect(ids(await api.get('_table/item'))).toEqual([1]);
    });

    it('answers 503 rather than hang when its open connections freeze (a frozen server, a partitioned network), and recovers', {
      timeout: 60_000,
    }, async () => {
      const target = await openDatabaseTarget(kind);
      await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
      const relay = await startTcpRelay(PORTS[kind]);
      const api = await startApi(target, { host: '127.0.0.1', port: relay.port, connection_timeout: 2, statement_timeout: 1 });
      cleanups.push(async () => {
        await api.close();
        await relay.close();
        await target.close();
      });
      expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
      relay.freeze();
      const started = Date.now();
      const [read, write] = await Promise.all([
        api.get('_table/item'),
        api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] }),
      ]);
      expect(read).toEqual({ status: 503, body: UNAVAILABLE });
      // The write was sent: whether the frozen server stored it is unknown.
      expect(write.status).toBe(503);
      expect([UNAVAILABLE, OUTCOME_UNKNOWN]).toContainEqual(write.body);
      // The statement timeout is 1 s: far less than this, however loaded the machine.
      expect(Date.now() - started).toBeLessThan(45_000);
      await relay.restore();
      await vi.waitFor(async () => expect((await api.get('_table/item')).status).toBe(200), { timeout: 10_000 });
      expect((await api.call('POST', '_table/item', { resource: [{ id: 3, name: 'c' }] })).status).toBe(200);
    });

    it('answers 503 to a rollback batch whose connection dies midway, and stores none of it', { timeout: 20_000 }, async () => {
      const { api, relay, target } = await relayedDatabase(kind);
      await slowInserts(target);
      const batch = api.call('POST', '_table/item?rollback=true', {
        resource: [
          { id: 1, name: 'first' },
          { id: 2, name: 'slow' },
          { id: 3, name: 'third' },
        ],
      });
      await sleepingStatement(target);
      relay.reset();
      expect(await batch).toEqual({ status: 503, body: UNAVAILABLE });
      expect(await target.query('select id from item')).toEqual([]);
      // The service goes on with new connections.
      expect((await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'fourth' }] })).status).toBe(200);
      expect(ids(await api.get('_table/item'))).toEqual([4]);
    });

    it('answers 503 to a statement the database cancels (an operator, a statement timeout), and stores nothing of it', {
      timeout: 20_000,
    }, async () => {
      const { api, target } = await relayedDatabase(kind);
      await slowInserts(target);
      const insert = api.call('POST', '_table/item', { resource: [{ id: 1, name: 'slow' }] });
      const sessions = await sleepingStatement(target);
      if (kind === 'postgres') await target.query(`select pg_cancel_backend(${sessions[0]})`);
      else await target.exec(`kill query ${sessions[0]}`);
      expect(await insert).toEqual({ status: 503, body: { error: { code: 503, message: 'The database is busy; try again.' } } });
      expect(await target.query('select id from item')).toEqual([]);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'second' }] })).status).toBe(200);
    });

    it('says that a write whose connection was lost while the database ran it may have been stored (here it was)', {
      timeout: 20_000,
    }, async () => {
      const { api, relay, target } = await relayedDatabase(kind);
      await slowInserts(target);
      const insert = api.call('POST', '_table/item', { resource: [{ id: 1, name: 'slow' }] });
      await sleepingStatement(target);
      relay.reset();
      expect(await insert).toEqual({ status: 503, body: OUTCOME_UNKNOWN });
      // The database went on with the statement: the record is there once its trigger has slept.
      await vi.waitFor(async () => expect(await target.query('select id from item')).toEqual([{ id: 1 }]), { timeout: 5_000 });
    });

    it('says the same of a function or procedure called with GET whose connection was lost while it ran (they may write)', {
      timeout: 30_000,
    }, async () => {
      const { api, relay, target } = await relayedDatabase(kind);
      await slowInserts(target);
      if (kind === 'postgres')
        await target.exec(`create function add_item(item_id integer, item_name text) returns integer language plpgsql as $$
            begin insert into item values (item_id, item_name); return item_id; end $$
          ;;
          create procedure put_item(item_id integer, item_name text) language plpgsql as $$
            begin insert into item values (item_id, item_name); end $$`);
      else
        await target.exec(`create function add_item(item_id integer, item_name varchar(40)) returns integer modifies sql data
            begin insert into item values (item_id, item_name); return item_id; end
          ;;
          create procedure put_item(item_id integer, item_name varchar(40))
            begin insert into item values (item_id, item_name); end`);
      // Functions run as `select add_item(...)`, which was taken for a read: "unavailable", though stored.
      for (const [path, id] of [
        ['_func/add_item?item_id=1&item_name=slow-func', 1],
        ['_proc/put_item?item_id=2&item_name=slow-proc', 2],
      ] as const) {
        const called = api.call('GET', path);
        await sleepingStatement(target);
        relay.reset();
        expect(await called, path).toEqual({ status: 503, body: OUTCOME_UNKNOWN });
        await vi.waitFor(async () => expect(await target.query(`select id from item where id = ${id}`)).toEqual([{ id }]), {
          timeout: 5_000,
        });
      }
    });

    it.skipIf(kind !== 'postgres')(
      'says that a transaction whose connection was lost during its commit may have been stored (here it was)',
      {
        timeout: 20_000,
      },
      async () => {
        const { api, relay, target } = await relayedDatabase(kind);
        // A deferred constraint trigger runs at commit: the commit is under way while it sleeps.
        await target.exec(`create function slow_commit() returns trigger language plpgsql as $$
          begin if new.name like 'slow%' then perform pg_sleep(2); end if; return null; end $$
        ;;
        create constraint trigger item_slow_commit after insert on item deferrable initially deferred
          for each row execute function slow_commit()`);
        const batch = api.call('POST', '_table/item?rollback=true', {
          resource: [
            { id: 1, name: 'first' },
            { id: 2, name: 'slow' },
          ],
        });
        await sleepingStatement(target);
        relay.reset();
        expect(await batch).toEqual({ status: 503, body: OUTCOME_UNKNOWN });
        await vi.waitFor(async () => expect(await target.query('select id from item order by id')).toEqual([{ id: 1 }, { id: 2 }]), {
          timeout: 5_000,
        });
      },
    );

    it('stops a write waiting on a row another session holds at its statement_timeout with a 503, and serves the next request', {
      timeout: 20_000,
    }, async () => {
      const target = await openDatabaseTarget(kind);
      await target.exec("create table item (id integer primary key, name varchar(40) not null); insert into item values (1, 'a')");
      // One connection: while the write waits, every other request of the service waits for it.
      const api = await startApi(target, { statement_timeout: 1, max_connections: 1, connection_timeout: 10 });
      cleanups.push(async () => {
        await api.close();
        await target.close();
      });
      // Another session holds the row.
      await target.exec("begin; update item set name = 'held' where id = 1");
      const started = Date.now();
      const [write, read] = await Promise.all([
        api.call('PATCH', '_table/item/1', { name: 'b' }),
        new Promise<ApiResponse>((resolve) => setTimeout(() => resolve(api.get('_table/item')), 100)),
      ]);
      expect(write).toEqual({ status: 503, body: STATEMENT_TIMEOUT });
      expect(read.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      await target.exec('rollback');
      expect(await target.query('select name from item')).toEqual([{ name: 'a' }]);
      expect(await api.call('PATCH', '_table/item/1', { name: 'b' })).toMatchObject({ status: 200 });
    });
  });
}

describe('a sqlite database service', () => {
  /** A served SQLite file holding item 1 ('a'). */
  async function itemService() {
    const target = await openDatabaseTarget('sqlite');
    await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
    const api = await startApi(target);
    cleanups.push(async () => {
      await api.close();
      await target.close();
    });
    expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
    return { api, file: target.config.database as string };
  }

  it('answers 503 while its file is removed from disk, writing nothing to the lost file, and serves a file restored in its place', {
    timeout: 20_000,
  }, async () => {
    const { api, file } = await itemService();
    // A backup of the file as it is now, then the file removed (with its write-ahead log).
    const source = new Database(file);
    await source.backup(`${file}.backup`);
    source.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    // A write looks at the file first; a read learns of the removal from the file's watch, within a turn of the event loop.
    expect(await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).toEqual({ status: 503, body: UNAVAILABLE });
    await vi.waitFor(async () => expect(await api.get('_table/item')).toEqual({ status: 503, body: UNAVAILABLE }), { timeout: 2_000 });
    const ready = () => api.server.app.inject({ method: 'GET', url: '/ready' }).then((response) => response.json());
    expect(await ready()).toEqual({ status: 'not ready', failing: ['db'] });
    // The backup restored: the service reads and writes it, without a restart.
    fs.copyFileSync(`${file}.backup`, file);
    expect(ids(await api.get('_table/item'))).toEqual([1]);
    expect(await ready()).toEqual({ status: 'ready' });
    expect((await api.call('POST', '_table/item', { resource: [{ id: 3, name: 'c' }] })).status).toBe(200);
    const restored = new Database(file, { readonly: true });
    expect(restored.prepare('select id from item order by id').all()).toEqual([{ id: 1 }, { id: 3 }]);
    restored.close();
  });

  it('answers 503 once its file was moved away, writing nothing to it there, and serves it again once moved back', {
    timeout: 20_000,
  }, async () => {
    const { api, file } = await itemService();
    // A move keeps the file's link count: the service learns of it from the file's watch, within a turn of the event loop.
    fs.renameSync(file, `${file}.moved`);
    await vi.waitFor(async () => expect(await api.get('_table/item')).toEqual({ status: 503, body: UNAVAILABLE }), { timeout: 2_000 });
    expect(await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).toEqual({ status: 503, body: UNAVAILABLE });
    fs.renameSync(`${file}.moved`, file);
    expect(ids(await api.get('_table/item'))).toEqual([1]);
    expect((await api.call('POST', '_table/item', { resource: [{ id: 3, name: 'c' }] })).status).toBe(200);
    expect(ids(await api.get('_table/item'))).toEqual([1, 3]);
  });
});

describe('a sqlite database service whose file another connection has locked for writing', () => {
  /** A service over a fresh file with one table, and a second connection to the file (another process, say). */
  async function lockedDatabase() {
    const target = await openDatabaseTarget('sqlite');
    await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
    const api = await startApi(target);
    // The service opens its file (switching it to write-ahead logging) before the other connection takes the lock.
    expect((await api.get('_table/item')).status).toBe(200);
    const other = new Database(target.config.database as string);
    cleanups.push(async () => {
      other.close();
      await api.close();
      await target.close();
    });
    return { api, other, target };
  }

  const plainGet = (api: ApiClient, url: string) =>
    api.server.app.inject({ method: 'GET', url }).then((response) => ({ status: response.statusCode }));
  /** The call's status, and how long after `since` it came. */
  const timed = async (since: number, call: Promise<{ status: number }>) => ({ status: (await call).status, after: Date.now() - since });

  it('waits for the lock without holding up other requests, and writes once it is free', { timeout: 20_000 }, async () => {
    const { api, other, target } = await lockedDatabase();
    other.exec('begin immediate');
    const started = Date.now();
    let written: number | null = null;
    const write = api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] }).then((answer) => {
      written = Date.now() - started;
      return answer;
    });
    // A transaction (a batch in rollback mode) waits for the lock as well.
    const batch = api.call('POST', '_table/item?rollback=true', {
      resource: [
        { id: 2, name: 'b' },
        { id: 3, name: 'c' },
      ],
    });
    // Unrelated requests, and a read of the same file, answer while the writes wait (the other connection commits after 1.5 s).
    const release = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('commit');
        resolve();
      }, 1_500),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const others = await Promise.all([
      timed(started, plainGet(api, '/health')),
      timed(started, plainGet(api, '/api/v2')),
      timed(started, api.get('_table/item')),
    ]);
    expect(written).toBeNull();
    for (const answer of others) {
      expect(answer.status).toBe(200);
      expect(answer.after).toBeLessThan(1_500);
    }
    await release;
    expect((await write).status).toBe(200);
    expect((await batch).status).toBe(200);
    expect(await target.query('select id, name from item order by id')).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
      { id: 3, name: 'c' },
    ]);
  });

  it('answers 503 once the lock is still held after five seconds, storing nothing', { timeout: 20_000 }, async () => {
    const { api, other, target } = await lockedDatabase();
    await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] });
    other.exec('begin immediate');
    const started = Date.now();
    const answers = await Promise.all([
      api.call('POST', '_table/item?rollback=true', {
        resource: [
          { id: 2, name: 'b' },
          { id: 3, name: 'c' },
        ],
      }),
      api.call('PATCH', '_table/item/1', { name: 'changed' }),
      timed(Date.now(), api.get('_table/item/1')),
    ]);
    const BUSY = { status: 503, body: { error: { code: 503, message: 'The database is busy; try again.' } } };
    expect(answers[0]).toEqual(BUSY);
    expect(answers[1]).toEqual(BUSY);
    expect(answers[2].status).toBe(200);
    expect(answers[2].after).toBeLessThan(1_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    other.exec('rollback');
    expect(await target.query('select id, name from item')).toEqual([{ id: 1, name: 'a' }]);
    // Free again, the service writes.
    expect((await api.call('PATCH', '_table/item/1', { name: 'changed' })).status).toBe(200);
  });
});

describe('the SQLite system database locked by another connection (another worker, say)', () => {
  it('makes a system write wait for the lock without holding up other requests', { timeout: 20_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-system-lock-'));
    const file = path.join(dir, 'system.sqlite');
    const server = await startTestServer(minimalModel(), { systemDatabase: file });
    const other = new Database(file);
    cleanups.push(async () => {
      other.close();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
    other.exec('begin immediate');
    const started = Date.now();
    let created: number | null = null;
    const create = server.app
      .inject({ method: 'POST', url: '/api/v2/system/role', headers, payload: { resource: [{ name: 'clerk' }] } })
      .then((response) => {
        created = Date.now() - started;
        return response.statusCode;
      });
    const release = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('commit');
        resolve();
      }, 1_500),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const health = await server.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(created).toBeNull();
    await release;
    expect(await create).toBe(201);
    expect(other.prepare("select name from role where name = 'clerk'").all()).toEqual([{ name: 'clerk' }]);
  });
});

describe.skipIf(!(await requireBroker('redis')))("the platform's Redis", () => {
  it('that stops answering on its open connection makes requests that use it go on without it, not hang', { timeout: 20_000 }, async () => {
    const target = await openDatabaseTarget('sqlite');
    await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
    const redis = new URL(brokerUrl('redis'));
    const relay = await startTcpRelay(Number(redis.port || 6379), redis.hostname);
    redis.port = String(relay.port);
    // The database service keeps its cached answers in the platform's Redis.
    const api = await startApi(target, { cache_enabled: true, cache_ttl: 60 }, { env: { PORTICO_REDIS_URL: redis.href } });
    cleanups.push(async () => {
      await api.close();
      await relay.close();
      await target.close();
    });
    expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
    expect(ids(await api.get('_table/item'))).toEqual([1]);
    relay.freeze();
    const started = Date.now();
    const [read, write] = await Promise.all([
      api.get('_table/item'),
      api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] }),
    ]);
    expect(read.status).toBe(200);
    expect(write.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await target.query('select id from item order by id')).map((row) => row.id)).toEqual([1, 2]);
  });
});
