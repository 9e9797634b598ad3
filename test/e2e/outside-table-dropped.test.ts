/**
 * A table dropped (or renamed) by another process while the server runs: a request to it is the
 * spec's "not found" for an unknown table (404), not a 500, for every verb, on all three
 * databases; the service reads its catalog again, so `_table` and `_schema` stop listing it (and
 * list a renamed table under its new name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';
import { requireService } from '#test/helpers/require-service.js';

const CREATE: Record<TargetKind, string> = {
  sqlite: 'create table item (id integer primary key autoincrement, label text not null)',
  postgres: 'create table item (id serial primary key, label text not null)',
  mysql: 'create table item (id int auto_increment primary key, label varchar(40) not null)',
};

const REQUESTS: Array<[string, string, unknown?]> = [
  ['GET', '_table/item'],
  ['GET', '_table/item/1'],
  ['GET', '_table/item?ids=1,2'],
  ['POST', '_table/item', { resource: [{ label: 'new' }] }],
  ['POST', '_table/item?rollback=true', { resource: [{ label: 'a' }, { label: 'b' }] }],
  ['PATCH', '_table/item', { resource: [{ id: 1, label: 'changed' }] }],
  ['PATCH', '_table/item/1', { label: 'changed' }],
  ['PATCH', `_table/item?filter=${encodeURIComponent("label = 'one'")}`, { resource: [{ label: 'changed' }] }],
  ['DELETE', '_table/item/1'],
  ['DELETE', `_table/item?filter=${encodeURIComponent("label = 'one'")}`],
];

const names = (body: { resource: Array<{ name: string }> }) => body.resource.map((r) => r.name).sort();

function droppedTableTests(kind: TargetKind): void {
  let target: DatabaseTarget;
  let api: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec('create table keep (id int primary key)');
    api = await startApi(target);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  const ok = async (method: string, path: string) => {
    const answer = await api.call(method, path);
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  };

  /** `item` created outside and known to the service (read once, so its statements are prepared). */
  const itemServed = async () => {
    await target.exec(CREATE[kind]);
    await target.exec("insert into item (label) values ('one'), ('two')");
    expect(names(await ok('GET', '_table?refresh=true'))).toEqual(['item', 'keep']);
    await ok('GET', '_table/item');
    await ok('GET', '_table/item/1');
  };

  it(`${kind}: a request to a table dropped outside is a 404, and the listings drop it`, async () => {
    for (const [method, path, body] of REQUESTS) {
      await itemServed();
      await target.exec('drop table item');
      const answer = await api.call(method, path, body);
      expect({ status: answer.status, body: answer.body }, `${method} ${path}`).toEqual({
        status: 404,
        body: { error: { code: 404, message: 'Table "item" does not exist in the database.' } },
      });
      expect(names(await ok('GET', '_table')), `${method} ${path}`).toEqual(['keep']);
      expect(names(await ok('GET', '_schema')), `${method} ${path}`).toEqual(['keep']);
      expect((await api.call('GET', '_schema/item')).status).toBe(404);
    }
  });

  it(`${kind}: a table renamed outside is a 404 under its old name, and served under its new one`, async () => {
    await itemServed();
    await target.exec('alter table item rename to moved');
    expect((await api.call('GET', '_table/item')).status).toBe(404);
    expect(names(await ok('GET', '_table'))).toEqual(['keep', 'moved']);
    expect((await ok('GET', '_table/moved?order=id')).resource.map((r: { label: string }) => r.label)).toEqual(['one', 'two']);
    await target.exec('drop table moved');
  });

  it(`${kind}: with the data retrieval cache on, the catalog read again after a drop forgets the cached answers`, async () => {
    const cached = await startApi(target, { cache_enabled: true, cache_ttl: 600 });
    try {
      await target.exec(CREATE[kind]);
      await target.exec("insert into item (label) values ('one'), ('two')");
      expect(names((await cached.call('GET', '_table?refresh=true')).body)).toEqual(['item', 'keep']);
      expect((await cached.call('GET', '_table/item')).status).toBe(200);
      await target.exec('drop table item');
      // Another request finds the table gone: the service reads its catalog again.
      expect((await cached.call('GET', '_table/item?fields=id')).status).toBe(404);
      expect(await cached.call('GET', '_table/item')).toEqual({
        status: 404,
        body: { error: { code: 404, message: 'Table "item" does not exist in the database.' } },
      });
    } finally {
      await cached.close();
    }
  });
}

describe('a SQLite table dropped outside the service', () => droppedTableTests('sqlite'));
describe.skipIf(!(await requireService('postgres')))('a PostgreSQL table dropped outside the service', () => droppedTableTests('postgres'));
describe.skipIf(!(await requireService('mysql')))('a MariaDB table dropped outside the service', () => droppedTableTests('mysql'));

const VIEW_SOURCE_MISSING: Partial<Record<TargetKind, string>> = {
  sqlite: 'View "shown" reads table "base", which does not exist in the database.',
  // MariaDB's error does not name the table.
  mysql: 'View "shown" reads a table or column that does not exist in the database.',
};

/** A view over a table dropped outside: SQLite and MariaDB keep the view (PostgreSQL refuses the drop). */
function droppedViewBaseTests(kind: TargetKind): void {
  let target: DatabaseTarget;
  let api: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec(CREATE[kind].replace('item', 'base'));
    await target.exec("insert into base (label) values ('one')");
    await target.exec('create view shown as select id, label from base');
    api = await startApi(target);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  it(`${kind}: reading the view is a 404 naming the view (and its missing table where the database says it), then the view is no longer served`, async () => {
    expect((await api.call('GET', '_table/shown')).body).toEqual({ resource: [{ id: 1, label: 'one' }] });
    await target.exec('drop table base');
    expect(await api.call('GET', '_table/shown')).toEqual({
      status: 404,
      body: { error: { code: 404, message: VIEW_SOURCE_MISSING[kind] } },
    });
    // The catalog read again leaves out the view it can not describe: from now on it is an unknown table.
    for (const path of ['_table/shown', '_table/shown?fields=id', '_table/shown/1', '_schema/shown']) {
      const answer = await api.call('GET', path);
      expect({ status: answer.status, body: answer.body }, path).toEqual({
        status: 404,
        body: { error: { code: 404, message: 'Table "shown" does not exist in the database.' } },
      });
    }
    expect(names((await api.call('GET', '_table')).body)).toEqual([]);
  });
}

describe('a SQLite view over a table dropped outside the service', () => droppedViewBaseTests('sqlite'));
describe.skipIf(!(await requireService('mysql')))('a MariaDB view over a table dropped outside the service', () =>
  droppedViewBaseTests('mysql'),
);
