/**
 * Benchmark: Portico's generated server against a hand-written Fastify server doing the same
 * work, in one run, alternating, for list (filter + limit 100), get by id, insert and patch.
 * Prints req/s and p99 of both and their ratio (Portico / hand-written), per database:
 *
 * - SQLite: the generated quickstart server vs hand-written-server.ts (better-sqlite3, WAL on both);
 * - PostgreSQL: a server generated for a `pgsql` platform (built into a temp dir inside the repo)
 *   vs hand-written-pg-server.ts (node-postgres), each on its own copy of the address book.
 *
 *   npm run bench -- [--database sqlite|postgres|both] [--duration 3] [--rounds 5] [--connections 10] [--only list|get|insert|patch]
 *
 * PostgreSQL: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) names a
 * database on the server where the benchmark may create and drop its own databases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { buildPlatform } from '../generator/pipeline.js';
import { openPostgresDatabase, postgresDialect } from '../runtime/services/sql/dialects/postgres/postgres-dialect.js';
import { readSeedDirectory, seedTables } from '../runtime/services/sql/schema/seed-tables.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'both' },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const PASSWORD = 'bench-password-0123456789';
const ADMIN = 'bench@portico.local';

interface Server { child: ChildProcess; url: string; output: string }

/** Starts a server script with tsx and resolves with its base URL once it prints its address. */
function start(script: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('\n')) resolve({ child, url: match[1], output });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
}

/**
 * A fresh directory for a platform inside the repo (so `portico/runtime` resolves by
 * self-reference), named after this process so that runs at the same time do not collide.
 */
function workDir(name: string): string {
  const dir = path.join(root, `${name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  return dir;
}

/** Starts the Portico server of `work` and logs the administrator in. */
async function startPortico(work: string): Promise<{ server: Server; apiKey: string; token: string; jwtSecret: string }> {
  const server = await start(path.join(work, 'server/main.ts'), { PORT: '0', PORTICO_ADMIN_EMAIL: ADMIN, PORTICO_ADMIN_PASSWORD: PASSWORD });
  const apiKey = /admin app API key: ([0-9a-f]{64})/.exec(server.output)![1];
  const login = await fetch(`${server.url}/api/v2/system/admin/session`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
    body: JSON.stringify({ email: ADMIN, password: PASSWORD, duration: 600 }),
  });
  const { session_token: token } = (await login.json()) as { session_token: string };
  const systemDb = new Database(path.join(work, 'data/system.sqlite'), { readonly: true });
  const jwtSecret = (systemDb.prepare(`SELECT value FROM system_setting WHERE name = 'jwt_secret'`).get() as { value: string }).value;
  systemDb.close();
  return { server, apiKey, token, jwtSecret };
}

interface Contestants { portico: Server; hand: Server; headers: Record<string, string>; cleanup(): Promise<void> }

async function sqliteContestants(): Promise<Contestants> {
  const work = workDir('.bench-tmp');
  for (const entry of ['platform.yaml', 'seed', 'server']) fs.cpSync(path.join(root, 'examples/quickstart', entry), path.join(work, entry), { recursive: true });
  const portico = await startPortico(work);
  // The service opens (and seeds its database file) on its first request; the hand-written server gets a copy.
  const headers = { 'content-type': 'application/json', 'x-service-api-key': portico.apiKey, 'x-service-session-token': portico.token };
  await (await fetch(`${portico.server.url}/api/v2/db/_table/contact/1`, { headers })).text();
  fs.copyFileSync(path.join(work, 'data/addressbook.sqlite'), path.join(work, 'hand.sqlite'));
  const hand = await start(path.join(root, 'bench/hand-written-server.ts'), { PORT: '0', DATABASE: path.join(work, 'hand.sqlite'), API_KEY: portico.apiKey, JWT_SECRET: portico.jwtSecret });
  return { portico: portico.server, hand, headers, async cleanup() { fs.rmSync(work, { recursive: true, force: true }); } };
}

async function postgresContestants(): Promise<Contestants> {
  const admin = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const suffix = crypto.randomBytes(4).toString('hex');
  const names = [`portico_bench_${suffix}`, `hand_bench_${suffix}`];
  const urlOf = (name: string) => Object.assign(new URL(admin), { pathname: `/${name}` }).href;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  for (const name of names) await client.query(`create database "${name}"`);
  await client.end();
  // Both databases hold the address book, loaded through Portico's own seeding.
  const seed = readSeedDirectory(path.join(root, 'examples/quickstart/seed'));
  for (const name of names) {
    const url = new URL(urlOf(name));
    const connection = await openPostgresDatabase({
      host: url.hostname, port: Number(url.port || 5432), database: name, username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password), maxConnections: 2,
    }, 'public');
    await seedTables(connection.db, postgresDialect, seed);
    await connection.close();
  }
  const work = workDir('.bench-tmp-pg');
  fs.writeFileSync(path.join(work, 'platform.yaml'), [
    'platform:', '  name: bench-pg', '  title: Benchmark on PostgreSQL',
    'services:', '  - name: db', '    type: pgsql', '    config:', `      url: ${urlOf(names[0])}`,
    'system:', '  database: data/system.sqlite', '',
  ].join('\n'));
  await buildPlatform({ configPath: 'platform.yaml', cwd: work });
  const portico = await startPortico(work);
  const hand = await start(path.join(root, 'bench/hand-written-pg-server.ts'), { PORT: '0', DATABASE_URL: urlOf(names[1]), API_KEY: portico.apiKey, JWT_SECRET: portico.jwtSecret });
  return {
    portico: portico.server, hand,
    headers: { 'content-type': 'application/json', 'x-service-api-key': portico.apiKey, 'x-service-session-token': portico.token },
    async cleanup() {
      fs.rmSync(work, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: admin.href });
      await c.connect();
      for (const name of names) await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

const scenarios = [
  { name: 'list (filter + limit 100)', method: 'GET', path: `/api/v2/db/_table/contact_info?filter=${encodeURIComponent("info_type = 'work'")}&limit=100` },
  { name: 'get by id', method: 'GET', path: '/api/v2/db/_table/contact/42' },
  { name: 'insert', method: 'POST', path: '/api/v2/db/_table/contact', body: JSON.stringify({ resource: [{ first_name: 'Ada', last_name: 'Lovelace', notes: 'bench' }] }) },
  { name: 'patch', method: 'PATCH', path: '/api/v2/db/_table/contact/42', body: JSON.stringify({ notes: 'patched by the benchmark' }) },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function run(label: string, contestants: Contestants): Promise<void> {
  const { portico, hand, headers } = contestants;
  const rows: string[][] = [];
  try {
    for (const scenario of scenarios.filter((s) => args.only === undefined || s.name.startsWith(args.only))) {
      const figures = { portico: { rps: [] as number[], p99: [] as number[] }, hand: { rps: [] as number[], p99: [] as number[] } };
      for (let round = 0; round < rounds; round++) {
        for (const [name, server] of [['portico', portico], ['hand', hand]] as const) {
          const result = await autocannon({ url: server.url + scenario.path, method: scenario.method, headers, body: scenario.body, connections, duration });
          if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name} on ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          figures[name].rps.push(result.requests.average);
          figures[name].p99.push(result.latency.p99);
        }
      }
      const p = { rps: median(figures.portico.rps), p99: median(figures.portico.p99) };
      const h = { rps: median(figures.hand.rps), p99: median(figures.hand.p99) };
      // The machine's speed drifts between rounds: each round's two runs are compared with each other.
      const ratio = median(figures.portico.rps.map((rps, i) => rps / figures.hand.rps[i]));
      rows.push([scenario.name, p.rps.toFixed(0), String(p.p99), h.rps.toFixed(0), String(h.p99), ratio.toFixed(2)]);
    }
  } finally {
    portico.child.kill();
    hand.child.kill();
    await contestants.cleanup();
  }
  const table = [['request', 'portico req/s', 'portico p99 ms', 'hand req/s', 'hand p99 ms', 'ratio (median of rounds)'], ...rows];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  console.log(`${label}, ${connections} connections, ${duration}s x ${rounds} rounds alternating (medians)`);
  for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
}

// Servers still running when the benchmark fails are stopped with it.
const started: ChildProcess[] = [];
process.once('exit', () => { for (const child of started) child.kill(); });

const databases = args.database === 'both' ? ['sqlite', 'postgres'] : [args.database];
for (const database of databases) {
  if (database === 'sqlite') await run('SQLite', await sqliteContestants());
  else if (database === 'postgres') await run('PostgreSQL', await postgresContestants());
  else throw new Error(`Unknown --database '${database}': use sqlite, postgres or both.`);
}
