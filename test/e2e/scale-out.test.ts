/**
 * Two instances of the generated quickstart server, each its own process, on one PostgreSQL
 * system database and one Redis, behind HAProxy (installed by .ci/setup-proxy.sh): accounts,
 * sessions, services and rate limits hold across both, and a `kill -9` of one under a write load
 * loses no acknowledged write while the other keeps serving. The README's compose example runs
 * the same parts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';
import { freePort } from '#test/helpers/free-port.js';

const REDIS_URL = brokerUrl('redis');
const ADMIN = { email: 'admin@scale.local', password: 'admin-password-12345' };
const PASSWORD = 'user-password-123456';

function haproxyInstalled(): boolean {
  const found = spawnSync('haproxy', ['-v']).status === 0;
  if (!found && process.env.CI === 'true') throw new Error('haproxy is missing: .ci/setup-proxy.sh installs it; CI needs it.');
  if (!found)
    process.stderr.write('\n[skipped] haproxy is not installed (run .ci/setup-proxy.sh as root): the scale-out test is skipped.\n');
  return found;
}

const ready = haproxyInstalled() && (await requireService('postgres')) && (await requireBroker('redis'));

describe.skipIf(!ready)('two instances behind HAProxy on one PostgreSQL system database and one Redis', () => {
  let database: TestDatabase;
  let dir: string;
  let one: RunningQuickstart;
  let two: RunningQuickstart;
  let proxy: ChildProcess;
  let proxyUrl: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-proxy-'));

  const call = async (base: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/api/v2${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const login = async (base: string, kind: 'admin' | 'user', email: string, password: string) =>
    (await call(base, 'POST', kind === 'admin' ? '/system/admin/session' : '/user/session', { email, password })).body
      .session_token as string;
  const soon = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 1000, interval: 50 });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    dir = copyQuickstart();
    const env = {
      PORTICO_SYSTEM_DATABASE_URL: database.url,
      PORTICO_REDIS_URL: REDIS_URL,
      PORTICO_ADMIN_EMAIL: ADMIN.email,
      PORTICO_ADMIN_PASSWORD: ADMIN.password,
    };
    [one, two] = await Promise.all([startQuickstart(dir, env), startQuickstart(dir, env)]);
    const port = await freePort();
    const config = path.join(tmp, 'haproxy.cfg');
    fs.writeFileSync(
      config,
      [
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 30s',
        '  timeout server 30s',
        // A request that could not reach an instance goes to the other one.
        '  retries 3',
        '  option redispatch',
        '  retry-on conn-failure empty-response',
        'frontend api',
        `  bind 127.0.0.1:${port}`,
        '  default_backend portico',
        'backend portico',
        '  balance roundrobin',
        `  server one ${new URL(one.url).host} check inter 300 fall 1 rise 2`,
        `  server two ${new URL(two.url).host} check inter 300 fall 1 rise 2`,
        '',
      ].join('\n'),
    );
    proxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' });
    proxyUrl = `http://127.0.0.1:${port}`;
    await vi.waitFor(async () => expect((await fetch(`${proxyUrl}/api/v2/system/environment`)).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
  });
  afterAll(async () => {
    proxy?.kill('SIGTERM');
    await Promise.all([one?.stop(), two?.stop()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
    await database?.drop();
  });

  it('a user created through one logs in through the other; a token logged out on one is refused on the other', async () => {
    const admin = { 'x-service-session-token': await login(one.url, 'admin', ADMIN.email, ADMIN.password) };
    expect(
      (await call(one.url, 'POST', '/system/user', { resource: [{ name: 'Pat', email: 'pat@x.io', password: PASSWORD }] }, admin)).status,
    ).toBe(201);
    const token = await login(two.url, 'user', 'pat@x.io', PASSWORD);
    expect(token).toEqual(expect.any(String));
    const session = { 'x-service-session-token': token };
    expect((await call(one.url, 'GET', '/user/session', undefined, session)).status).toBe(200);
    expect((await call(one.url, 'DELETE', '/user/session', undefined, session)).status).toBe(200);
    await soon(async () => expect((await call(two.url, 'GET', '/user/session', undefined, session)).status).toBe(401));
  });

  it('a service created on one is served by the other', async () => {
    const admin = { 'x-service-session-token': await login(two.url, 'admin', ADMIN.email, ADMIN.password) };
    const created = await call(
      one.url,
      'POST',
      '/system/service',
      { resource: [{ name: 'scale_mail', label: 'Mail', type: 'local_email', config: {} }] },
      admin,
    );
    expect(created.status).toBe(201);
    await soon(async () =>
      expect((await call(two.url, 'GET', '/system/service?filter=name=scale_mail&fields=name', undefined, admin)).body.resource).toEqual([
        { name: 'scale_mail' },
      ]),
    );
    await soon(async () => expect((await call(two.url, 'GET', '/scale_mail', undefined, admin)).status).not.toBe(404));
  });

  it('a per-user limit of 5 a minute holds across both: request 6 is 429 whichever instance gets it', async () => {
    const admin = { 'x-service-session-token': await login(one.url, 'admin', ADMIN.email, ADMIN.password) };
    await call(one.url, 'POST', '/system/user', { resource: [{ name: 'Lee', email: 'lee@x.io', password: PASSWORD }] }, admin);
    const limit = await call(
      one.url,
      'POST',
      '/system/limit',
      { resource: [{ name: 'five a minute', type: 'instance.each_user.service', service_id: 7, rate: 5 }] },
      admin,
    );
    expect(limit.status).toBe(201);
    const token = await login(proxyUrl, 'user', 'lee@x.io', PASSWORD);
    // The limit reaches the other instance through Redis within a second.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await call(proxyUrl, 'GET', '/user/session', undefined, { 'x-service-session-token': token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Both instances refuse from now on.
    for (const base of [one.url, two.url])
      expect((await call(base, 'GET', '/user/session', undefined, { 'x-service-session-token': token })).status).toBe(429);
  });

  it('kill -9 of one instance under a write load through the proxy loses no acknowledged write; the other keeps serving', async () => {
    const admin = { 'x-service-session-token': await login(two.url, 'admin', ADMIN.email, ADMIN.password) };
    const acknowledged: string[] = [];
    let failed = 0;
    let n = 0;
    let running = true;
    const writer = async () => {
      while (running) {
        const name = `load_${n++}`;
        const response = await call(proxyUrl, 'POST', '/system/lookup', { resource: [{ name, value: name }] }, admin).catch(() => ({
          status: 0,
        }));
        if (response.status === 201) acknowledged.push(name);
        else failed++;
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await new Promise((resolve) => setTimeout(resolve, 800));
    process.kill(one.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const beforeStop = acknowledged.length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    running = false;
    await Promise.all(writers);
    // The other instance kept acknowledging writes after the kill.
    expect(acknowledged.length).toBeGreaterThan(beforeStop);
    const stored = await call(
      two.url,
      'GET',
      `/system/lookup?fields=name&filter=${encodeURIComponent('name like "load_%"')}`,
      undefined,
      admin,
    );
    const names = new Set((stored.body.resource as Array<{ name: string }>).map((r) => r.name));
    expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(20);
    process.stderr.write(`scale-out: ${acknowledged.length} writes acknowledged, ${failed} refused or cut off by the kill, none lost\n`);
  });
});
