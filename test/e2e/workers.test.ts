/**
 * `PORTICO_WORKERS` (and `gen serve --workers`): the generated server runs that many worker
 * processes on one port; they share the system database, and a worker that dies is replaced.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';

const ADMIN = { email: 'admin@workers.local', password: 'admin-password-12345' };

/** The worker processes of a primary: its node children (tsx also runs an esbuild helper). */
/** The primary's child processes running Node.js (by executable: Node.js 24 names its main thread 'MainThread'). */
function workerPids(primary: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary)]).stdout.toString();
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, executable]) => executable !== undefined && path.basename(executable) === path.basename(process.execPath))
    .map(([pid]) => Number(pid));
}

/**
 * A change acknowledged by one worker is in force on the other at once, without Redis (the workers
 * hear of it through their primary before the write answers; the change token alone takes seconds):
 * a service created is served, a user deactivated or logged out is refused, by every worker; and a
 * rate limit counts the requests of every worker together, whatever its period.
 */
async function changesOnEveryWorker(root: string, adminToken: string) {
  const call = async (path: string, method = 'GET', token?: string, body?: unknown) => {
    const response = await fetch(`${root}/api/v2${path}`, {
      method,
      headers: {
        connection: 'close',
        ...(token ? { 'x-service-session-token': token } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  // Fresh connections land on either worker, round robin: twelve reach both.
  const everywhere = async (path: string, token?: string) =>
    (await Promise.all(Array.from({ length: 12 }, () => call(path, 'GET', token)))).map((r) => r.status);
  const created = await call('/system/service', 'POST', adminToken, {
    resource: [{ name: 'workers_mail', label: 'Mail', type: 'local_email', config: {} }],
  });
  expect(created.status).toBe(201);
  expect((await everywhere('/workers_mail', adminToken)).filter((status) => status === 404)).toEqual([]);
  const password = 'user-password-123456';
  for (const end of ['logout', 'deactivation'] as const) {
    const email = `${end}@workers.local`;
    const user = await call('/system/user', 'POST', adminToken, { resource: [{ name: end, email, password }] });
    const token = (await call('/user/session', 'POST', undefined, { email, password })).body.session_token;
    expect(await everywhere('/user/profile', token)).toEqual(Array(12).fill(200));
    const ended =
      end === 'logout'
        ? await call('/user/session', 'DELETE', token)
        : await call(`/system/user/${user.body.resource[0].id}`, 'PATCH', adminToken, { is_active: false });
    expect(ended.status).toBe(200);
    expect(await everywhere('/user/profile', token)).toEqual(Array(12).fill(401));
  }
  // Without Redis the workers count rate limits in process together: 5 a minute is 5 in all, not 5 per worker.
  const limit = await call('/system/limit', 'POST', adminToken, { resource: [{ name: 'five', type: 'instance.each_user', rate: 5 }] });
  expect(limit.status).toBe(201);
  await call('/system/user', 'POST', adminToken, { resource: [{ name: 'limited', email: 'limited@workers.local', password }] });
  const token = (await call('/user/session', 'POST', undefined, { email: 'limited@workers.local', password })).body.session_token;
  const statuses = await everywhere('/user/profile', token);
  expect(statuses.filter((status) => status === 200)).toHaveLength(5);
  expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  // A period no Node.js timer can wait ('30-day', the reference's 30 weeks) counts in the primary too:
  // of 4 requests on fresh connections, which the primary hands to the workers in turn, the 4th is refused.
  await call('/system/user', 'POST', adminToken, { resource: [{ name: 'monthly', email: 'monthly@workers.local', password }] });
  const monthly = (await call('/user/session', 'POST', undefined, { email: 'monthly@workers.local', password })).body;
  const long = await call('/system/limit', 'POST', adminToken, {
    resource: [{ name: 'three a month', type: 'instance.user', user_id: monthly.id, rate: 3, period: '30-day' }],
  });
  expect(long.status).toBe(201);
  const monthlyStatuses: number[] = [];
  for (let i = 0; i < 4; i++) monthlyStatuses.push((await call('/user/profile', 'GET', monthly.session_token)).status);
  expect(monthlyStatuses).toEqual([200, 200, 200, 429]);
}

describe('two workers on one port', () => {
  let dir: string;
  let server: RunningQuickstart;
  beforeAll(async () => {
    dir = copyQuickstart();
    server = await startQuickstart(dir, { PORTICO_WORKERS: '2', PORTICO_ADMIN_EMAIL: ADMIN.email, PORTICO_ADMIN_PASSWORD: ADMIN.password });
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves from two processes, accepts a token issued by either, applies a change made on one on both at once, and replaces a worker that dies', async () => {
    expect(server.output).toContain('workers: 2');
    expect(server.url).not.toMatch(/:0$/);
    await vi.waitFor(() => expect(workerPids(server.pid)).toHaveLength(2), { timeout: 10_000 });
    const login = await fetch(`${server.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = (await login.json()).session_token as string;
    // Connections land on either worker: every one accepts the token.
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${server.url}/api/v2/system/admin/session`, {
        headers: { 'x-service-session-token': token, connection: 'close' },
      });
      expect(response.status).toBe(200);
    }
    await changesOnEveryWorker(server.url, token);
    const [first] = workerPids(server.pid);
    process.kill(first, 'SIGKILL');
    await vi.waitFor(
      () => {
        const pids = workerPids(server.pid);
        expect(pids).toHaveLength(2);
        expect(pids).not.toContain(first);
      },
      { timeout: 20_000, interval: 200 },
    );
    await vi.waitFor(
      async () => expect((await fetch(`${server.url}/api/v2/system/environment`, { headers: { connection: 'close' } })).status).toBe(200),
      { timeout: 20_000 },
    );
  });
});
