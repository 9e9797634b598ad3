/**
 * Faults that end or change what the service's open sessions rely on between requests: its pooled
 * sessions ended by an operator (pg_terminate_backend, KILL CONNECTION) or by the server's
 * wait_timeout; a column dropped by another process; a table another session holds under LOCK
 * TABLES ... WRITE; a SQLite file replaced by another. The answer is the spec's error shape within
 * the service's timeouts (never a 500), nothing of a refused write is stored, and the next
 * requests are served without a restart.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type ExternalDatabase, requireService } from '#test/helpers/require-service.js';
import { type ApiClient, type ApiResponse, startApi } from '../database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from '../database-api/database-targets.js';

const UNAVAILABLE = { error: { code: 503, message: 'The database is unavailable; try again later.' } };

const CHANGED_ELSEWHERE = {
  error: { code: 409, message: 'The table was changed by another client while the request ran; nothing was stored. Try again.' },
};

const STATEMENT_TIMEOUT = {
  error: { code: 503, message: "The database did not finish the statement within the service's statement_timeout; try again later." },
};

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function itemTable(
  kind: 'sqlite' | ExternalDatabase,
  config: Record<string, unknown> = {},
): Promise<{ api: ApiClient; target: DatabaseTarget }> {
  const target = await openDatabaseTarget(kind);
  await target.exec('create table item (id integer primary key, name varchar(40) not null, note varchar(40))');
  const api = await startApi(target, { connection_timeout: 2, ...config });
  cleanups.push(async () => {
    await api.close();
    await target.close();
  });
  return { api, target };
}

/** The ids of the sessions other than the target's own on its database. */
async function serviceSessions(target: DatabaseTarget): Promise<number[]> {
  const rows =
    target.kind === 'postgres'
      ? await target.query('select pid as id from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')
      : await target.query('select id from information_schema.processlist where db = database() and id <> connection_id()');
  return rows.map((row) => Number(row.id));
}

async function endSessions(target: DatabaseTarget, ids: number[]): Promise<void> {
  for (const id of ids)
    if (target.kind === 'postgres') await target.query(`select pg_terminate_backend(${id})`);
    else await target.exec(`kill connection ${id}`);
}

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} service`, () => {
    it('whose idle sessions the server ended answers 503 (unavailable, try again) at most once per ended session, then serves on new ones', {
      timeout: 20_000,
    }, async () => {
      const { api, target } = await itemTable(kind);
      // Several sessions open in its pool.
      await Promise.all([1, 2, 3].map((id) => api.call('POST', '_table/item', { resource: [{ id, name: `n${id}` }] })));
      const sessions = await serviceSessions(target);
      expect(sessions.length).toBeGreaterThan(0);
      await endSessions(target, sessions);
      // A request may take a pooled session before the driver has read that it ended: it was not run, and says to try again.
      const answers: ApiResponse[] = [];
      for (let i = 0; i < sessions.length + 4; i++) answers.push(await api.call('GET', '_table/item'));
      const failed = answers.map((answer) => answer.status).lastIndexOf(503);
      for (const answer of answers.slice(0, failed + 1)) expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
      expect(failed).toBeLessThan(sessions.length);
      for (const answer of answers.slice(failed + 1)) expect(answer).toMatchObject({ status: 200, body: { resource: { length: 3 } } });
      expect((await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'n4' }] })).status).toBe(200);
    });
  });
}

for (const kind of ['sqlite', 'postgres', 'mysql'] as const) {
  describe.skipIf(kind !== 'sqlite' && !(await requireService(kind)))(`a ${kind} table whose column another process dropped`, () => {
    it('answers a read 409 (changed elsewhere, try again), then serves the table without it', { timeout: 20_000 }, async () => {
      const { api, target } = await itemTable(kind);
      await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a', note: 'x' }] });
      expect((await api.call('GET', '_table/item')).status).toBe(200);
      await target.exec('alter table item drop column note');
      expect(await api.call('GET', '_table/item')).toEqual({ status: 409, body: CHANGED_ELSEWHERE });
      expect(await api.call('GET', '_table/item')).toEqual({ status: 200, body: { resource: [{ id: 1, name: 'a' }] } });
      expect((await api.call('GET', '_schema/item')).body.field.map((field: { name: string }) => field.name)).toEqual(['id', 'name']);
    });

    it('answers a write naming it 409 storing nothing, and takes a write without it', { timeout: 20_000 }, async () => {
      const { api, target } = await itemTable(kind);
      expect((await api.call('GET', '_table/item')).status).toBe(200);
      await target.exec('alter table item drop column note');
      const write = await api.call('POST', '_table/item?rollback=true', { resource: [{ id: 1, name: 'a', note: 'x' }] });
      expect(write).toEqual({ status: 409, body: CHANGED_ELSEWHERE });
      expect(await target.query('select id from item')).toEqual([]);
      expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
      expect((await target.query('select id from item')).map((row) => Number(row.id))).toEqual([2]);
    });
  });
}

describe.skipIf(!(await requireService('mysql')))('a mysql service', () => {
  it('answers 503 at its statement_timeout to reads and writes of a table another session holds under LOCK TABLES ... WRITE, and serves once it is unlocked', {
    timeout: 30_000,
  }, async () => {
    const { api, target } = await itemTable('mysql', { statement_timeout: 1 });
    expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
    await target.exec('lock tables item write');
    try {
      expect(await api.call('GET', '_table/item')).toEqual({ status: 503, body: STATEMENT_TIMEOUT });
      expect(await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).toEqual({ status: 503, body: STATEMENT_TIMEOUT });
    } finally {
      await target.exec('unlock tables');
    }
    expect((await target.query('select id from item')).map((row) => Number(row.id))).toEqual([1]);
    expect((await api.call('GET', '_table/item')).status).toBe(200);
    expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
  });

  it('whose idle sessions the server closed at its wait_timeout serves the next requests on new ones', { timeout: 30_000 }, async () => {
    const target = await openDatabaseTarget('mysql');
    const [{ timeout }] = await target.query('select @@global.wait_timeout as timeout');
    // The service's sessions take the global value when they open; it is put back at once.
    await target.exec('set global wait_timeout = 2');
    let api: ApiClient;
    try {
      await target.exec('create table item (id integer primary key, name varchar(40) not null, note varchar(40))');
      api = await startApi(target, { connection_timeout: 2 });
      await Promise.all([1, 2, 3].map((id) => api.call('POST', '_table/item', { resource: [{ id, name: `n${id}` }] })));
    } finally {
      await target.exec(`set global wait_timeout = ${Number(timeout)}`);
    }
    cleanups.push(async () => {
      await api.close();
      await target.close();
    });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(await serviceSessions(target)).toEqual([]);
    for (let i = 0; i < 4; i++) expect((await api.call('GET', '_table/item')).status).toBe(200);
    expect((await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'n4' }] })).status).toBe(200);
  });
});

describe('a sqlite service whose file another process replaced (a backup restored with mv)', () => {
  it('serves the new file for reads and writes, without a restart', { timeout: 20_000 }, async () => {
    const { api, target } = await itemTable('sqlite');
    const file = target.config.database as string;
    expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'old' }] })).status).toBe(200);
    const other = new Database(`${file}.new`);
    other.exec(
      "create table item (id integer primary key, name varchar(40) not null, note varchar(40)); insert into item values (7, 'new', null)",
    );
    other.close();
    // The old file's write-ahead log goes with it: SQLite would read its pages over the new file's (a mispaired -wal).
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    fs.renameSync(`${file}.new`, file);
    await vi.waitFor(
      async () => expect((await api.call('GET', '_table/item')).body).toEqual({ resource: [{ id: 7, name: 'new', note: null }] }),
      {
        timeout: 3_000,
      },
    );
    expect((await api.call('POST', '_table/item', { resource: [{ id: 8, name: 'b' }] })).status).toBe(200);
    const now = new Database(file, { readonly: true });
    expect(now.prepare('select id from item order by id').all()).toEqual([{ id: 7 }, { id: 8 }]);
    now.close();
  });
});
