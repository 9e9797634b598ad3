/**
 * What the hook machinery costs per call, without a server or a database: HookRegistry.around
 * with an async no-op pre_process hook, with a pre_process and a post_process hook, and with
 * hooks on other events only, each against the bare target call, on a get by id and a patch as
 * the table bench sends them; `typed records` is the pre_process hook of a target that converts the
 * records to their columns' types first, as a SQL service does (query/hook-values.ts), with the
 * patch's status sent as a number for a text column. The table bench (`--hooks noop --against plain`) measures the same
 * on whole requests; this one is steadier on a busy machine. See README.md beside this file.
 *
 *   npx tsx bench/hook-overhead.ts [--calls 200000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import { HookRegistry, type HookedCall } from '#runtime/http/hooks.js';
import type { ServiceCall, ServiceResult } from '#runtime/services/service-kind.js';
import type { TableModel } from '#runtime/model/platform-model.js';
import { sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { promisedRecords } from '#runtime/services/sql/query/hook-values.js';
import { buildTablePlan } from '#runtime/services/sql/query/table-plan.js';
import { bareField } from '#runtime/services/sql/query/value-codec.js';
import { median } from './closed-loops.js';

const { values: args } = parseArgs({
  options: { calls: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);

const noop = async () => undefined;
const registries = {
  'other events only': new HookRegistry([{ 'db._table.customers.{id}.get.pre_process': noop }]),
  pre_process: new HookRegistry([{ 'db._table.orders.{id}.get.pre_process': noop, 'db._table.orders.{id}.patch.pre_process': noop }]),
  'pre_process + post_process': new HookRegistry([
    Object.fromEntries(
      ['get', 'patch'].flatMap((verb) => ['pre_process', 'post_process'].map((phase) => [`db._table.orders.{id}.${verb}.${phase}`, noop])),
    ),
  ]),
};

/** The orders table as a SQL service plans it, for the target of `typed records`. */
const ordersTable: TableModel = {
  name: 'orders',
  sourceName: 'orders',
  sourceSchema: null,
  label: 'Orders',
  description: '',
  isView: false,
  primaryKey: ['id'],
  fields: [
    { ...bareField('id', 'id'), isPrimaryKey: true, autoIncrement: true },
    bareField('customer_id', 'integer'),
    bareField('status', 'string'),
    bareField('total', 'decimal', { length: null, precision: 10, scale: 2 }),
    bareField('created_at', 'timestamp'),
  ],
  foreignKeys: [],
  uniqueKeys: [],
  relations: [],
};
const ordersPlan = buildTablePlan(ordersTable, sqliteDialect);

const order = { id: 7, customer_id: 3, status: 'shipped', total: '12.50', created_at: '2026-01-01T00:00:00Z' };
const target = { handle: async (): Promise<ServiceResult> => ({ body: order }) };
const typedTarget = {
  handle: target.handle,
  hookRecords: (call: ServiceCall, records: readonly unknown[]) =>
    promisedRecords(ordersPlan, records, call.verb === 'POST' ? 'create' : 'update'),
};
const hooked = (verb: 'GET' | 'PATCH', status: unknown = 'paid'): HookedCall => {
  const call = { verb, resource: ['_table', 'orders', '7'], query: {}, body: verb === 'PATCH' ? { status, customer_id: '3' } : undefined };
  return {
    service: 'db',
    path: ['_table', 'orders', '{id}'],
    call: call as unknown as ServiceCall,
    log: null as never,
    api: () => null as never,
  };
};

/** ns per call of `run`, yielding to the event loop now and then as a server does (the hooks' deadline sweep runs there). */
async function timed(run: () => unknown): Promise<number> {
  const began = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    await run();
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  return Number(process.hrtime.bigint() - began) / calls;
}

const typedCall = hooked('PATCH', 402);
for (const verb of ['GET', 'PATCH'] as const) {
  const call = hooked(verb);
  const costs = new Map<string, number[]>(
    [...Object.keys(registries), ...(verb === 'PATCH' ? ['typed records'] : [])].map((name) => [name, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const [name, registry] of Object.entries(registries)) {
      const bare = await timed(() => target.handle());
      const through = await timed(() => registry.around(call, target));
      costs.get(name)!.push(through - bare);
    }
    if (verb === 'PATCH') {
      const bare = await timed(() => target.handle());
      const through = await timed(() => registries.pre_process.around(typedCall, typedTarget));
      costs.get('typed records')!.push(through - bare);
    }
  }
  for (const [name, ns] of costs) {
    console.log(
      `${verb.padEnd(5)} ${name.padEnd(28)} ${(median(ns) / 1000).toFixed(2)} us per call (rounds: ${ns.map((n) => (n / 1000).toFixed(2)).join(', ')})`,
    );
  }
}
