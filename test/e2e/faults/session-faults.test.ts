/**
 * Faults that end or change what the service's open sessions rely on while it is idle between
 * requests: its pooled sessions ended by an operator (pg_terminate_backend, KILL CONNECTION) or
 * by the server's wait_timeout; a column dropped by another process between two requests; a table
 * another session holds under LOCK TABLES ... WRITE. The next request is served (no restart), or
 * answers the spec's error shape within its timeout, never a 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type ExternalDatabase, requireService } from '#test/helpers/require-service.js';
import { type ApiClient, startApi } from '../database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from '../database-api/database-targets.js';

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
    it('whose idle sessions the server ended serves the next requests on new ones', { timeout: 20_000 }, async () => {
      const { api, target } = await itemTable(kind);
      // Several sessions open in its pool.
      await Promise.all([1, 2, 3].map((id) => api.call('POST', '_table/item', { resource: [{ id, name: `n${id}` }] })));
      const sessions = await serviceSessions(target);
      expect(sessions.length).toBeGreaterThan(0);
      await endSessions(target, sessions);
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let i = 0; i < 4; i++) {
        const read = await api.call('GET', '_table/item');
        expect(read.status, JSON.stringify(read.body)).toBe(200);
        expect(read.body.resource).toHaveLength(3);
      }
      const write = await api.call('POST', '_table/item', { resource: [{ id: 4, name: 'n4' }] });
      expect(write.status, JSON.stringify(write.body)).toBe(200);
    });
  });
}

const CHANGED_ELSEWHERE = {
  error: { code: 409, message: 'The table was changed by another client while the request ran; nothing was stored. Try again.' },
};

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
