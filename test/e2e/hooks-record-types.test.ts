/**
 * A pre_process hook of a table write sees the records' values as the generated types promise
 * them, on SQLite, PostgreSQL and MariaDB/MySQL: `"5"` for an integer column is 5 (a typed hook's
 * `quantity + 1` is 6, not "51"), `"true"` and `0` for a boolean are true and false, 7 for a text
 * column is "7", `"12.50"` for a decimal 12.5. A value that cannot be of its column's type is the
 * write's 400 naming the field before any hook runs; a value a hook sets is checked as before;
 * post_process hooks see the answer as before.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineHooks } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { requireService } from '#test/helpers/require-service.js';
import { modelWithDatabase, openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

/** As the generator writes `StockInsert` and `StockUpdate` (services/db/types.ts). */
interface StockInsert {
  id?: number;
  quantity: number;
  active?: boolean | null;
  label?: string | null;
  price?: number | string | null;
  made?: string | null;
}
type StockUpdate = Partial<StockInsert>;

const TABLE: Record<TargetKind, string> = {
  sqlite:
    'create table stock (id integer primary key autoincrement, quantity integer not null, active boolean, label varchar(40), price decimal(10,2), made date)',
  postgres:
    'create table stock (id serial primary key, quantity integer not null, active boolean, label varchar(40), price numeric(10,2), made date)',
  mysql:
    'create table stock (id int auto_increment primary key, quantity int not null, active boolean, label varchar(40), price decimal(10,2), made date)',
};

/** What the hooks were given, in order. */
const seen: unknown[] = [];
const answered: unknown[] = [];

const hooks = defineHooks<{
  'db._table.stock.post.pre_process': StockInsert[];
  'db._table.stock.{id}.patch.pre_process': StockUpdate[];
  'db._table.stock.delete.pre_process': StockUpdate[];
  'db._table.stock.post.post_process': StockUpdate[];
}>({
  'db._table.stock.post.pre_process': (records) => {
    seen.push(...records.map((record) => ({ ...record })));
    return records.map((record) => ({
      ...record,
      // Relies on the types: arithmetic, a boolean test, a date parsed.
      quantity: record.label === 'hook sets garbage' ? ('lots' as unknown as number) : record.quantity + 1,
      label: `${record.label ?? ''}:${record.active === true ? 'on' : 'off'}`,
      made: record.made == null ? null : new Date(`${record.made}T00:00:00Z`).toISOString().slice(0, 10),
    }));
  },
  'db._table.stock.{id}.patch.pre_process': (records) => {
    seen.push(...records.map((record) => ({ ...record })));
    if (records[0].active === false) return records.map((record) => ({ ...record, label: 'switched off' }));
  },
  'db._table.stock.delete.pre_process': (records) => {
    seen.push(...records.map((record) => ({ ...record })));
  },
  'db._table.stock.post.post_process': (records) => {
    answered.push(...records);
  },
});

function defineSuite(kind: TargetKind): void {
  let target: DatabaseTarget;
  let server: TestServer;
  let api: Api;
  const stored = async () =>
    (await target.query('select id, quantity, label from stock order by id')).map((row) => ({
      id: Number(row.id),
      quantity: Number(row.quantity),
      label: row.label,
    }));

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec(TABLE[kind]);
    server = await startTestServer(modelWithDatabase(target), {
      hooks: [{ file: 'hooks/stock.ts', hooks }],
    });
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => {
    await server?.close();
    await target?.close();
  });
  beforeEach(() => {
    seen.length = 0;
    answered.length = 0;
  });

  it('gives a pre_process hook the values of a batch as the types promise them', async () => {
    const written = await api('POST', '/db/_table/stock', {
      resource: [
        { quantity: '5', active: 'true', label: 7, price: '12.50', made: '2024-01-31' },
        { quantity: 2, active: 0, label: 'plain', price: 3 },
      ],
    });
    expect(written.status).toBe(200);
    expect(seen).toEqual([
      { quantity: 5, active: true, label: '7', price: 12.5, made: '2024-01-31' },
      { quantity: 2, active: false, label: 'plain', price: 3 },
    ]);
    expect(await stored()).toEqual([
      { id: expect.any(Number), quantity: 6, label: '7:on' },
      { id: expect.any(Number), quantity: 3, label: 'plain:off' },
    ]);
    // post_process sees the answer as before: the identifiers.
    expect(answered).toEqual([{ id: expect.any(Number) }, { id: expect.any(Number) }]);
  });

  it('refuses a value that cannot be of its column type before any hook runs', async () => {
    const one = await api('POST', '/db/_table/stock', { resource: [{ quantity: 'five' }] });
    expect(one).toMatchObject({ status: 400, body: { error: { code: 400, message: "Field 'quantity' must be a valid integer." } } });
    const bool = await api('POST', '/db/_table/stock', { resource: [{ quantity: 1, active: 'maybe' }] });
    expect(bool).toMatchObject({ status: 400, body: { error: { message: "Field 'active' must be a valid boolean." } } });
    const date = await api('POST', '/db/_table/stock', { resource: [{ quantity: 1, made: 'someday' }] });
    expect(date).toMatchObject({ status: 400, body: { error: { code: 400, context: { field: 'made' } } } });
    // Of a batch, each failing record by its index, and nothing written.
    const batch = await api('POST', '/db/_table/stock', {
      resource: [{ quantity: 1 }, { quantity: 'x' }, { quantity: 3, active: 'perhaps' }],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.context.errors).toEqual([
      { index: 1, code: 400, message: "Field 'quantity' must be a valid integer." },
      { index: 2, code: 400, message: "Field 'active' must be a valid boolean." },
    ]);
    expect(seen).toEqual([]);
    expect(await stored()).toHaveLength(2);
  });

  it('still checks the values a hook sets', async () => {
    const refused = await api('POST', '/db/_table/stock', { resource: [{ quantity: '1', label: 'hook sets garbage' }] });
    expect(refused).toMatchObject({ status: 400, body: { error: { message: "Field 'quantity' must be a valid integer." } } });
    expect(seen).toEqual([{ quantity: 1, label: 'hook sets garbage' }]);
    expect(await stored()).toHaveLength(2);
  });

  it('gives a PATCH hook the fields sent only, typed, and a DELETE hook typed keys', async () => {
    const [first] = await stored();
    const patched = await api('PATCH', `/db/_table/stock/${first.id}`, { active: '0' });
    expect(patched.status).toBe(200);
    expect(seen).toEqual([{ active: false }]);
    expect((await stored())[0]).toEqual({ id: first.id, quantity: 6, label: 'switched off' });
    seen.length = 0;
    const deleted = await api('DELETE', '/db/_table/stock', { resource: [{ id: String(first.id) }] });
    expect(deleted.status).toBe(200);
    expect(seen).toEqual([{ id: first.id }]);
    expect(await stored()).toHaveLength(1);
  });
}

describe('on SQLite', () => defineSuite('sqlite'));
describe.skipIf(!(await requireService('postgres')))('on PostgreSQL', () => defineSuite('postgres'));
describe.skipIf(!(await requireService('mysql')))('on MariaDB/MySQL', () => defineSuite('mysql'));
