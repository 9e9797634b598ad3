/**
 * What operators rely on, on the generated quickstart server as `node main.mjs` runs it: /health
 * and /ready outside /api/v2, JSON request logs with a request id and no secrets, memory given
 * back once a load is over, and a SIGTERM that lets a request in flight finish before the process
 * exits.
 */
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMemoryReturnedAfterLoad } from '#test/helpers/memory-returned.js';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';
import { createTestDatabase, requireService } from '#test/helpers/require-service.js';

const ADMIN = { email: 'ops@portico.local', password: 'ops-password-0123456789' };
let server: RunningQuickstart;

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown, base = server.url) {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

/** The administrator's credentials on a running quickstart (the shared one by default). */
async function adminAuth(target: RunningQuickstart = server): Promise<Record<string, string>> {
  const login = await call('POST', '/api/v2/system/admin/session', { 'X-Service-API-Key': target.apiKey }, ADMIN, target.url);
  return { 'X-Service-API-Key': target.apiKey, 'X-Service-Session-Token': login.body.session_token };
}

/** The JSON log lines the server has written so far. */
function logLines(): Array<Record<string, any>> {
  return server
    .printed()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  server = await startQuickstart(copyQuickstart(), {
    PORTICO_ADMIN_EMAIL: ADMIN.email,
    PORTICO_ADMIN_PASSWORD: ADMIN.password,
    PORTICO_LOG_LEVEL: 'info',
  });
});

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

describe('operations endpoints', () => {
  it('GET /health answers without credentials', async () => {
    expect(await call('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('GET /ready is 200 while the databases answer', async () => {
    expect(await call('GET', '/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });
});

describe.skipIf(!(await requireService('postgres')))('GET /ready with a database gone', () => {
  it('is 503 naming the service whose database stopped answering, and 200 again once it is removed', async () => {
    const database = await createTestDatabase('postgres');
    const auth = await adminAuth();
    const created = await call('POST', '/api/v2/system/service', auth, {
      resource: [{ name: 'orders', label: 'Orders', type: 'pgsql', config: database.config }],
    });
    expect(created.body).toMatchObject({ resource: [{ id: expect.any(Number) }] });
    expect(await call('GET', '/ready')).toMatchObject({ status: 200 });
    await database.drop();
    expect(await call('GET', '/ready')).toMatchObject({ status: 503, body: { status: 'not ready', failing: ['orders'] } });
    await call('DELETE', `/api/v2/system/service/${created.body.resource[0].id}`, auth);
    expect(await call('GET', '/ready')).toMatchObject({ status: 200 });
  });
});

describe('request logs', () => {
  it('writes one JSON line per request with its id, and no API key, session token or password', async () => {
    const token = (await adminAuth())['X-Service-Session-Token'];
    await call('GET', '/api/v2/db/_table/contact?limit=1', { 'X-Service-API-Key': server.apiKey, 'X-Service-Session-Token': token });
    await call('GET', `/api/v2/db/_table/contact?limit=1&api_key=${server.apiKey}&session_token=${token}`);
    await call('GET', '/api/v2/db/_table/contact', { 'X-Request-Id': 'trace-me-42', Authorization: `Bearer ${token}` });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logLines();
    const requests = lines.filter((line) => line.msg === 'request completed');
    expect(requests.length).toBeGreaterThanOrEqual(4);
    for (const line of requests)
      expect(line).toMatchObject({
        level: 30,
        reqId: expect.anything(),
        req: { method: expect.any(String), url: expect.any(String) },
        res: { statusCode: expect.any(Number) },
      });
    expect(requests.map((line) => line.req.url)).toContain('/api/v2/db/_table/contact?limit=1&api_key=***&session_token=***');
    expect(requests.find((line) => line.reqId === 'trace-me-42')).toBeDefined();
    const logged = lines.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of [server.apiKey, token, ADMIN.password]) expect(logged).not.toContain(secret);
  });
});

describe('request logs nobody reads', () => {
  it('keep the server answering: lines past the waiting limit are dropped, and the next line says how many', async () => {
    const stalled = await startQuickstart(copyQuickstart(), { PORTICO_LOG_LEVEL: 'info' });
    try {
      // Nothing reads the server's stdout from here on: the pipe fills after 64 KiB.
      stalled.stdout.pause();
      const url = `${stalled.url}/health?pad=${'x'.repeat(400)}`;
      // 8,000 lines of ~550 bytes: past the pipe and the 1 MiB the server lets wait. Each answer must still come.
      for (let batch = 0; batch < 160; batch++) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(url, { signal: AbortSignal.timeout(5_000) })));
        expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
      }
      stalled.stdout.resume();
      // What the server wrote once read again: the lines kept, and the notices of those dropped
      // (one per stretch of dropping: a small write may fit between two dropped ones).
      const tally = () => {
        const lines = stalled.printed().split('\n');
        const notices = lines.filter((text) => text.includes('dropped: standard output')).map((text) => JSON.parse(text));
        return {
          notices,
          dropped: notices.reduce((sum, notice) => sum + Number(/^\d+/.exec(notice.msg)?.[0] ?? 0), 0),
          kept: lines.filter((text) => text.includes('"url":"/health?pad=')).length,
        };
      };
      let seen = tally();
      // Each further request makes the server write again, with a notice when lines were dropped before.
      for (let attempt = 0; attempt < 100 && seen.kept + seen.dropped < 8_000; attempt++) {
        await fetch(`${stalled.url}/health`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = tally();
      }
      for (const notice of seen.notices)
        expect(notice).toMatchObject({
          level: 40,
          msg: expect.stringMatching(/^\d+ log lines? (was|were) dropped: standard output was not being read fast enough$/),
        });
      expect(seen.dropped).toBeGreaterThan(0);
      // Every request is either logged or counted as dropped (fetch may send a request again when
      // its kept-alive connection closed under it: the server then saw, and logged, one more).
      expect(seen.kept + seen.dropped).toBeGreaterThanOrEqual(8_000);
      expect(seen.kept + seen.dropped).toBeLessThanOrEqual(8_010);
    } finally {
      await stalled.stop();
      fs.rmSync(stalled.dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('memory after a load', () => {
  it('goes back to the system once the server is idle, and the server keeps answering', async () => {
    const busy = await startQuickstart(copyQuickstart(), {
      PORTICO_ADMIN_EMAIL: ADMIN.email,
      PORTICO_ADMIN_PASSWORD: ADMIN.password,
      PORTICO_LOG_LEVEL: 'debug',
    });
    try {
      const auth = await adminAuth(busy);
      // A load makes V8 grow the heap; once idle, the server gives the growth back and says so.
      await expectMemoryReturnedAfterLoad(busy.url, '/api/v2/db/_table/contact?related=*', auth, busy.printed);
      expect((await fetch(`${busy.url}/api/v2/db/_table/contact?limit=1`, { headers: auth })).status).toBe(200);
    } finally {
      await busy.stop();
      fs.rmSync(busy.dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('shutdown', () => {
  it('SIGTERM lets a request in flight finish, then exits 0', async () => {
    const { port } = new URL(server.url);
    const body = JSON.stringify({ resource: [{ first_name: 'Drain', last_name: 'Test' }] });
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // The request arrives, but only half of its body: it is in flight when the signal comes.
    socket.write(
      [
        'POST /api/v2/db/_table/contact HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `X-Service-API-Key: ${server.apiKey}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body.slice(0, 10),
      ].join('\r\n'),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(server.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body.slice(10));
    await closed;
    // The admin app's key alone may not create contacts: what matters is a whole answer, not a reset.
    expect(answer).toMatch(/^HTTP\/1\.1 (200|201|401|403) /);
    expect(await server.exited).toBe(0);
  });
});
