/**
 * Rate-limit counters in Redis (PORTICO_REDIS_URL): two instances on one system database count
 * together; Redis lost while running degrades to per-instance counting with a warning and no
 * errors, and sharing resumes when the connection returns; unreachable at start is one line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPlatform } from '#runtime/http/platform-context.js';
import { StartupError } from '#runtime/system/store/system-db.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';

const REDIS_URL = brokerUrl('redis');
const PASSWORD = 'user-password-123456';

describe.skipIf(!(await requireBroker('redis')))('rate limits counted in Redis', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-redis-'));
  const systemDatabase = path.join(dir, 'system.sqlite');
  let a: TestServer;
  let b: TestServer;
  let adminA: Api;
  let adminTokenB: string;
  let token: string;
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);

  beforeAll(async () => {
    const options = { systemDatabase, env: { PORTICO_REDIS_URL: REDIS_URL } };
    a = await startTestServer(minimalModel(), options);
    b = await startTestServer(minimalModel(), options);
    const adminToken = await a.adminToken();
    adminTokenB = await b.adminToken();
    adminA = apiClient(a.app, () => ({ key: a.apiKey, token: adminToken }));
    await adminA('POST', '/system/user', { resource: [{ name: 'Red', email: 'red@x.io', password: PASSWORD }] });
    token = (await adminA('POST', '/user/session', { email: 'red@x.io', password: PASSWORD }, null)).body.session_token;
  });
  afterAll(async () => {
    warn.mockRestore();
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const asUser = (server: TestServer) => apiClient(server.app, () => ({ token }))('GET', '/user/session');

  it('counts the requests of both instances against one limit', async () => {
    const limit = (await adminA('POST', '/system/limit', { resource: [{ name: 'shared', type: 'instance.each_user', rate: 4 }] })).body
      .resource[0];
    // B reads limits at start and after its own changes: the limit made on A reaches it here.
    await b.app.portico.limits.reload();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await asUser(i % 2 === 0 ? a : b)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await asUser(b)).status).toBe(429);
    // A reset through one instance lifts the lock-out on both.
    expect((await adminA('DELETE', `/system/limit_cache/${limit.id}`)).body).toEqual({ success: true });
    expect((await asUser(b)).status).toBe(200);
    await adminA('DELETE', '/system/limit_cache?force=true');
  });

  it("lists each user's counter of an each_user limit from either instance, and resets one user's through either", async () => {
    const other = (await adminA('POST', '/system/user', { resource: [{ name: 'Blue', email: 'blue@x.io', password: PASSWORD }] })).body
      .resource[0].id;
    const otherToken = (await adminA('POST', '/user/session', { email: 'blue@x.io', password: PASSWORD }, null)).body.session_token;
    const limit = (
      await adminA('POST', '/system/limit', {
        resource: [{ name: 'per user shared', type: 'instance.each_user', rate: 2, period: 'hour' }],
      })
    ).body.resource[0];
    await b.app.portico.limits.reload();
    const adminB = apiClient(b.app, () => ({ key: b.apiKey, token: adminTokenB }));
    const asOther = (server: TestServer) => apiClient(server.app, () => ({ token: otherToken }))('GET', '/user/session');
    // Red counts once on each instance, Blue twice on B: both counters are listed by A.
    await asUser(a);
    await asUser(b);
    await asOther(b);
    await asOther(b);
    const counters = (await adminA('GET', `/system/limit_cache/${limit.id}`)).body.resource;
    expect(counters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: other, attempts: 2, remaining: 0 }),
        expect.objectContaining({ attempts: 2, remaining: 0, key: expect.stringMatching(/^instance\.each_user:\d+\.hour$/) }),
      ]),
    );
    expect(counters).toHaveLength(2);
    expect((await asUser(a)).status).toBe(429);
    expect((await asOther(a)).status).toBe(429);
    // Blue's counter reset through B lifts Blue's lock-out on A; Red stays locked out.
    expect((await adminB('DELETE', `/system/limit_cache/${limit.id}?user_id=${other}`)).body).toEqual({ success: true });
    expect((await asOther(a)).status).toBe(200);
    expect((await asUser(a)).status).toBe(429);
    await adminA('DELETE', `/system/limit/${limit.id}`);
    await b.app.portico.limits.reload();
    await adminA('DELETE', '/system/limit_cache?force=true');
  });

  it('counts per instance while Redis is away (a warning, no errors) and shares again when it returns', async () => {
    const link = a.app.portico.redis!;
    link.client.disconnect();
    await vi.waitFor(() =>
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/^Portico: lost Redis at redis:\/\/.*; rate limits are counted per instance/),
      ),
    );
    // A counts on its own: 4 allowed on A alone, whatever B has counted.
    const alone: number[] = [];
    for (let i = 0; i < 5; i++) alone.push((await asUser(a)).status);
    expect(alone).toEqual([200, 200, 200, 200, 429]);
    expect((await asUser(b)).status).toBe(200);

    await link.client.connect();
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringMatching(/is back; shared state resumed\.$/)));
    await adminA('DELETE', '/system/limit_cache?force=true');
    const shared: number[] = [];
    for (let i = 0; i < 5; i++) shared.push((await asUser(i % 2 === 0 ? b : a)).status);
    expect(shared).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('an unreachable Redis at start', () => {
  it('fails the start with one line naming it', async () => {
    // Nothing else is printed (ioredis reports an 'error' event nobody listens to on the console).
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const error = await openPlatform(minimalModel(), {
      baseDir: os.tmpdir(),
      systemDatabase: ':memory:',
      env: { PORTICO_REDIS_URL: 'redis://:pw@127.0.0.1:1' },
    }).catch((e: unknown) => e);
    const calls = [...printed.mock.calls];
    printed.mockRestore();
    expect(calls).toEqual([]);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/^Portico: cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1: /);
    expect((error as Error).message).not.toContain('\n');
  });
});
