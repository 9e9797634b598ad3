/**
 * What one insert or patch asks of PostgreSQL: the statement a hand-written server would send, and
 * nothing around it (no transaction block, no read-back of the record, no session settings), so
 * the database does no more work per request than it must (issue 10: PostgreSQL CPU per request).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireService } from '#test/helpers/require-service.js';
import { startApi, type ApiClient, type ApiResponse } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget } from './database-api/database-targets.js';

describe.skipIf(!(await requireService('postgres')))('statements per write on PostgreSQL', () => {
  let target: DatabaseTarget;
  let api: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget('postgres');
    await target.exec(`create table customers (id serial primary key, name varchar(100) not null);
      insert into customers (name) values ('one'), ('two');
      create table orders (id serial primary key, customer_id integer not null references customers(id),
        status varchar(20) not null, total double precision not null, note text, created_at timestamp not null default current_timestamp)`);
    api = await startApi(target);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  /** The statements the service's connections sent while `request` ran. */
  async function statementsOf(request: () => Promise<ApiResponse>): Promise<{ response: ApiResponse; sent: string[] }> {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const [first] = args as [string | { text: string }];
      sent.push(typeof first === 'string' ? first : first.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never;
    });
    try {
      return { response: await request(), sent };
    } finally {
      spy.mockRestore();
    }
  }

  const insert = 'insert into "orders" ("customer_id", "status", "total", "note", "created_at") values ($1, $2, $3, $4, CURRENT_TIMESTAMP)';
  const update = 'update "orders" set "status" = $1, "note" = $2 where "id" = $3';
  const all =
    'returning "id" as "id", "customer_id" as "customer_id", "status" as "status", "total" as "total", "note" as "note", "created_at" as "created_at"';
  const record = { customer_id: 2, status: 'new', total: 12.5, note: 'bench' };

  it('an insert is one INSERT returning the key, or the fields asked for: no transaction block, no read-back', async () => {
    await api.call('POST', '_table/orders', { resource: [record] }); // a connection's first statement
    const ids = await statementsOf(() => api.call('POST', '_table/orders', { resource: [record] }));
    expect(ids.response).toEqual({ status: 200, body: { resource: [{ id: expect.any(Number) }] } });
    expect(ids.sent).toEqual([`${insert} returning "id" as "id"`]);
    const fields = await statementsOf(() => api.call('POST', '_table/orders?fields=*', { resource: [record] }));
    expect(fields.response.body.resource).toEqual([{ id: expect.any(Number), ...record, created_at: expect.any(String) }]);
    expect(fields.sent).toEqual([`${insert} ${all}`]);
    // Records of a batch without rollback stand alone: one statement each, as a hand-written loop sends them.
    const two = await statementsOf(() => api.call('POST', '_table/orders', { resource: [record, record] }));
    expect(two.response.body.resource).toHaveLength(2);
    expect(two.sent).toEqual([`${insert} returning "id" as "id"`, `${insert} returning "id" as "id"`]);
  });

  it('a patch by id is one UPDATE (returning the fields only when asked for)', async () => {
    const id = (await api.call('POST', '_table/orders', { resource: [record] })).body.resource[0].id as number;
    const plain = await statementsOf(() => api.call('PATCH', `_table/orders/${id}`, { status: 'paid', note: 'x' }));
    expect(plain.response).toEqual({ status: 200, body: { id } });
    expect(plain.sent).toEqual([update]);
    const fields = await statementsOf(() => api.call('PATCH', `_table/orders/${id}?fields=*`, { status: 'paid', note: 'y' }));
    expect(fields.response.body).toEqual({ id, ...record, status: 'paid', note: 'y', created_at: expect.any(String) });
    expect(fields.sent).toEqual([`${update} ${all}`]);
  });
});
