/**
 * Requests per second of the generated quickstart server with 1 and with 2 worker processes
 * (PORTICO_WORKERS) on this machine: wrk (one thread, its own process, 32 connections) reads
 * ten contacts per request as the administrator. Run: npx tsx bench/workers-bench.ts [seconds]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { copyQuickstart, startQuickstart } from '#test/helpers/quickstart-copy.js';

const seconds = Number(process.argv[2] ?? 10);
const ADMIN = { email: 'admin@bench.local', password: 'admin-password-12345' };
const results: Array<{ workers: number; rps: number; p99: string }> = [];

for (const workers of [1, 2]) {
  const dir = copyQuickstart();
  const server = await startQuickstart(dir, {
    PORTICO_WORKERS: String(workers),
    PORTICO_ADMIN_EMAIL: ADMIN.email,
    PORTICO_ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    const login = await fetch(`${server.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { session_token: string }).session_token;
    const url = `${server.url}/api/v2/db/_table/contact?limit=10`;
    const wrk = (duration: number) =>
      execFileSync('wrk', [
        '-t1',
        '-c32',
        `-d${duration}s`,
        '--latency',
        '-H',
        `X-DreamFactory-Session-Token: ${token}`,
        '-H',
        `X-DreamFactory-API-Key: ${server.apiKey}`,
        url,
      ]).toString();
    wrk(2); // warm-up: every worker's statements prepared, JIT warm
    const out = wrk(seconds);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
    if (/Non-2xx/.test(out)) throw new Error(`non-2xx responses:\n${out}`);
    results.push({ workers, rps: Math.round(rps), p99: /99%\s+(\S+)/.exec(out)?.[1] ?? '?' });
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`GET /api/v2/db/_table/contact?limit=10, ${seconds} s, 32 connections`);
for (const r of results) console.log(`  ${r.workers} worker${r.workers > 1 ? 's' : ' '}: ${r.rps} req/s (p99 ${r.p99})`);
console.log(`  ratio 2/1: ${(results[1].rps / results[0].rps).toFixed(2)}`);
