/**
 * Portico's own write path in process, without HTTP: CPU per call of a SQLite (or PostgreSQL)
 * service handler's PATCH `_table/orders/{id}` and POST `_table/orders` (one record), the two
 * writes table-bench.ts sends, on the same data, ten calls under way at a time. It leaves out
 * what every request pays (Fastify, the request log, dispatch, credentials) and includes the
 * database's own work, the same for every build. `TMPDIR=/dev/shm` keeps fsync out of SQLite's
 * figures. On a loaded machine its medians move by about 5 %; under `perf record` (node
 * `--perf-basic-prof`), the samples whose stack holds sql-handler.ts but not better-sqlite3's
 * `Statement::JS_run` are the handler's own work per call, a steadier figure.
 *
 *   npx tsx --conditions=portico-source bench/write-path-bench.ts [--database sqlite|postgres] [--only patch,insert]
 *     [--calls 20000] [--rounds 7]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminContext } from '#runtime/auth/auth-context.js';
import type { ServiceHandler } from '#runtime/services/service-kind.js';
import { sqlServiceKinds } from '#runtime/services/sql/sql-service-kinds.js';
import { createSqliteData, createPostgresData } from './bench-data.js';
import pg from 'pg';
import crypto from 'node:crypto';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    calls: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '7' },
    only: { type: 'string', default: 'patch,insert' },
  },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);

async function open(): Promise<{ handler: ServiceHandler; cleanup: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-write-bench-'));
  const ctx = { baseDir: dir, resolveEnv: <T>(value: T) => value };
  if (args.database === 'sqlite') {
    createSqliteData(path.join(dir, 'bench.sqlite'));
    const kind = sqlServiceKinds.find((k) => k.type === 'sqlite')!;
    const service = {
      id: 5,
      name: 'db',
      label: 'db',
      type: 'sqlite',
      description: '',
      is_active: true,
      config: { database: 'bench.sqlite' },
      origin: 'platform',
      kind: 'plain',
    } as const;
    const handler = await kind.open(await kind.introspect!(service as never, ctx), ctx);
    return {
      handler,
      cleanup: async () => {
        await handler.close?.();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const name = `write_bench_${crypto.randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  await client.query(`create database "${name}"`);
  const url = Object.assign(new URL(admin), { pathname: `/${name}` }).href;
  await createPostgresData(url, name);
  const kind = sqlServiceKinds.find((k) => k.type === 'pgsql')!;
  const service = {
    id: 5,
    name: 'db',
    label: 'db',
    type: 'pgsql',
    description: '',
    is_active: true,
    config: { url },
    origin: 'platform',
    kind: 'plain',
  } as const;
  const handler = await kind.open(await kind.introspect!(service as never, ctx), ctx);
  return {
    handler,
    cleanup: async () => {
      await handler.close?.();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const auth = adminContext();
const headers = { 'content-type': 'application/json' };
const ORDERS = 100_000;
const CUSTOMERS = 10_000;
let seed = 1;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return 1 + (seed % n);
};

const requests = {
  patch: (handler: ServiceHandler) =>
    handler.handle({
      verb: 'PATCH',
      resource: ['_table', 'orders', String(random(ORDERS))],
      trailingSlash: false,
      query: {},
      body: JSON.parse('{"status":"paid","note":"patched by the benchmark"}'),
      headers,
      auth,
    }),
  insert: (handler: ServiceHandler) =>
    handler.handle({
      verb: 'POST',
      resource: ['_table', 'orders'],
      trailingSlash: false,
      query: {},
      body: JSON.parse(`{"resource":[{"customer_id":${random(CUSTOMERS)},"status":"new","total":12.5,"note":"bench"}]}`),
      headers,
      auth,
    }),
};

const { handler, cleanup } = await open();
try {
  for (const [name, request] of Object.entries(requests).filter(([name]) => args.only.split(',').includes(name))) {
    // Ten concurrent callers, as a server under load has several requests under way.
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next++ < n) await request(handler);
        }),
      );
    };
    await run(calls);
    const figures: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const cpu = process.cpuUsage();
      await run(calls);
      const used = process.cpuUsage(cpu);
      figures.push((used.user + used.system) / calls);
    }
    figures.sort((a, b) => a - b);
    console.log(
      `${args.database} ${name}: ${figures[Math.floor(rounds / 2)].toFixed(2)} us CPU per call (median of ${rounds} x ${calls}; min ${figures[0].toFixed(2)}, max ${figures[rounds - 1].toFixed(2)})`,
    );
  }
} finally {
  await cleanup();
}
