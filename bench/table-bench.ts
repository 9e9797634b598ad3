/**
 * Benchmark: the generated quickstart server against a hand-written Fastify + better-sqlite3
 * server doing the same work, in one run, alternating, for list (filter + limit 100), get by id,
 * insert and patch. Prints req/s and p99 of both and their ratio (Portico / hand-written).
 *
 *   npm run bench -- [--duration 5] [--rounds 3] [--connections 10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' } },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);

/** Starts a server script with tsx and resolves with its base URL once it prints its address. */
function start(script: string, env: Record<string, string>, cwd = root): Promise<{ child: ChildProcess; url: string; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

// A private copy of the quickstart inside the repo (so `portico/runtime` resolves), fresh data.
const work = path.join(root, '.bench-tmp');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work);
for (const entry of ['platform.yaml', 'seed', 'server']) fs.cpSync(path.join(root, 'examples/quickstart', entry), path.join(work, entry), { recursive: true });

const password = 'bench-password-0123456789';
const portico = await start(path.join(work, 'server/main.ts'), { PORT: '0', PORTICO_ADMIN_EMAIL: 'bench@portico.local', PORTICO_ADMIN_PASSWORD: password });
const apiKey = /admin app API key: ([0-9a-f]{64})/.exec(portico.output)![1];
const login = await fetch(`${portico.url}/api/v2/system/admin/session`, {
  method: 'POST', headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
  body: JSON.stringify({ email: 'bench@portico.local', password, duration: 600 }),
});
const { session_token: token } = (await login.json()) as { session_token: string };

// The db service opens (and seeds its database) on first use.
await fetch(`${portico.url}/api/v2/db/_table/contact/1`, { headers: { 'x-service-api-key': apiKey, 'x-service-session-token': token } });

const systemDb = new Database(path.join(work, 'data/system.sqlite'), { readonly: true });
const jwtSecret = (systemDb.prepare(`SELECT value FROM system_setting WHERE name = 'jwt_secret'`).get() as { value: string }).value;
systemDb.close();
fs.copyFileSync(path.join(work, 'data/addressbook.sqlite'), path.join(work, 'hand.sqlite'));
const hand = await start(path.join(root, 'bench/hand-written-server.ts'), { PORT: '0', DATABASE: path.join(work, 'hand.sqlite'), API_KEY: apiKey, JWT_SECRET: jwtSecret });

const headers = { 'content-type': 'application/json', 'x-service-api-key': apiKey, 'x-service-session-token': token };
const scenarios = [
  { name: 'list (filter + limit 100)', method: 'GET', path: `/api/v2/db/_table/contact_info?filter=${encodeURIComponent("info_type = 'work'")}&limit=100` },
  { name: 'get by id', method: 'GET', path: '/api/v2/db/_table/contact/42' },
  { name: 'insert', method: 'POST', path: '/api/v2/db/_table/contact', body: JSON.stringify({ resource: [{ first_name: 'Ada', last_name: 'Lovelace', notes: 'bench' }] }) },
  { name: 'patch', method: 'PATCH', path: '/api/v2/db/_table/contact/42', body: JSON.stringify({ notes: 'patched by the benchmark' }) },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows: string[][] = [];
for (const scenario of scenarios) {
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
  rows.push([scenario.name, p.rps.toFixed(0), String(p.p99), h.rps.toFixed(0), String(h.p99), (p.rps / h.rps).toFixed(2)]);
}

portico.child.kill();
hand.child.kill();
fs.rmSync(work, { recursive: true, force: true });

const table = [['request', 'portico req/s', 'portico p99 ms', 'hand req/s', 'hand p99 ms', 'ratio'], ...rows];
const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
console.log(`SQLite, ${connections} connections, ${duration}s x ${rounds} rounds alternating (medians)`);
for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
