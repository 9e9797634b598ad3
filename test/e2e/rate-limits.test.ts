/**
 * Rate limits (reference 5.11, 6.8): /system/limit records with every type and period, their
 * key_text and validation messages; enforcement after authentication with 429 and the
 * X-RateLimit-* headers; /system/limit_cache to read and reset counters.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, systemDatabaseInUse, type TestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase } from '#test/helpers/require-service.js';

const PASSWORD = 'user-password-123456';
let server: TestServer;
let api: Api;
let userId: number;
let roleId: number;

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  userId = (await api('POST', '/system/user', { resource: [{ name: 'Lim', email: 'lim@x.io', password: PASSWORD }] })).body.resource[0].id;
  roleId = (await api('POST', '/system/role', { resource: [{ name: 'limited' }] })).body.resource[0].id;
});
afterAll(async () => server.close());

const createLimit = (record: Record<string, unknown>) => api('POST', '/system/limit?fields=*', { resource: [record] });

describe('/system/limit records', () => {
  it.each([
    [{ type: 'instance' }, 'instance.minute'],
    [{ type: 'instance.user', user: true, period: 'hour' }, 'instance.user:{uid}.hour'],
    [{ type: 'instance.each_user', period: 2 }, 'instance.each_user:null.day'],
    [{ type: 'instance.user.service', user: true, service_id: 7, period: '7-day' }, 'instance.user:{uid}.service:7.7-day'],
    [{ type: 'instance.each_user.service', service_id: 7, verb: 'get' }, 'instance.each_user:null.service:7.verb:GET.minute'],
    [{ type: 'instance.service', service_id: 7, period: '30-day' }, 'instance.service:7.30-day'],
    [{ type: 'instance.service.endpoint', service_id: 7, endpoint: '/session/' }, 'instance.service:7.endpoint:session.minute'],
    [
      { type: 'instance.user.service.endpoint', user: true, service_id: 7, endpoint: 'profile', verb: 'PATCH' },
      'instance.user:{uid}.service:7.endpoint:profile.verb:PATCH.minute',
    ],
    [
      { type: 'instance.each_user.service.endpoint', service_id: 7, endpoint: 'session*' },
      'instance.each_user:null.service:7.endpoint:session*.minute',
    ],
    [{ type: 'instance.role', role: true, period: 1 }, 'instance.role:{rid}.hour'],
  ])('%o: key_text %s, period shown as its label, read back, changed and deleted', async (given, expected) => {
    const { user, role, ...fields } = given as Record<string, unknown>;
    const record = {
      name: `limit ${expected}`,
      rate: 100,
      is_active: false,
      ...fields,
      ...(user ? { user_id: userId } : {}),
      ...(role ? { role_id: roleId } : {}),
    };
    const created = await createLimit(record);
    expect(created.status).toBe(201);
    const limit = created.body.resource[0];
    const key = expected.replace('{uid}', String(userId)).replace('{rid}', String(roleId));
    expect(limit).toMatchObject({ type: given.type, key_text: key, rate: 100, is_active: false, origin: 'api' });
    expect(limit.period).toBe(key.split('.').at(-1));
    expect((await api('GET', `/system/limit/${limit.id}`)).body.key_text).toBe(key);
    expect((await createLimit(record)).body.error).toMatchObject({
      code: 400,
      message: 'A limit already exists with those parameters. No records added.',
      context: { field: 'key_text' },
    });
    const changed = await api('PATCH', `/system/limit/${limit.id}?fields=rate,period,key_text`, { rate: 5, period: 'minute' });
    expect(changed.body).toEqual({ rate: 5, period: 'minute', key_text: key.replace(/\.[^.]+$/, '.minute') });
    expect((await api('DELETE', `/system/limit/${limit.id}`)).status).toBe(200);
    expect((await api('GET', `/system/limit/${limit.id}`)).status).toBe(404);
  });

  it.each([
    [{ type: 'instance', rate: 'many' }, 'Limit rate must be an integer. Limit not saved.'],
    [{ type: 'instance.user', rate: 1 }, 'user_id must be specified with this limit type. Limit: bad'],
    [{ type: 'instance.role', rate: 1 }, 'role_id must be specified with this limit type. Limit: bad'],
    [{ type: 'instance.service', rate: 1 }, 'service_id must be specified with this limit type.'],
    [{ type: 'instance.service', rate: 1, service_id: 999 }, 'No service exists for bad limit.'],
    [{ type: 'instance', rate: 1, verb: 'FETCH' }, 'Verb is invalid or not allowed.'],
    [{ type: 'instance', rate: 1, period: 'fortnight' }, 'Limit period must be one of minute, hour, day, 7-day, 30-day. Limit not saved.'],
    // Its key would not fit the key_text column of a MySQL system database (the error named key_text there, and SQLite took it).
    [
      { type: 'instance.service.endpoint', rate: 1, service_id: 7, endpoint: 'x'.repeat(250), verb: 'PATCH' },
      'endpoint is too long for this limit: at most 209 characters. Limit: bad',
    ],
  ])('%o is refused: %s', async (record, message) => {
    const response = await createLimit({ name: 'bad', ...record });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(message);
    expect((await api('GET', '/system/limit?filter=name=bad')).body.resource).toEqual([]);
  });
});

describe('enforcement', () => {
  it('refuses the request after `rate` with 429 and the limit headers, locks out, and limit_cache reads and resets the counter', async () => {
    const limit = (await createLimit({ name: 'per user', type: 'instance.each_user.service', service_id: 7, rate: 3 })).body.resource[0];
    const token = (await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).body.session_token;
    const asUser = () => api('GET', '/user/session', undefined, { token });
    for (let i = 0; i < 3; i++) {
      const ok = await asUser();
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const refused = await asUser();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: 429,
      message: 'API limit(s) exceeded. ',
      context: [
        {
          id: limit.id,
          name: 'per user',
          object: expect.objectContaining({ id: limit.id, type: 'instance.each_user.service', period: 'minute', rate: 3 }),
        },
      ],
    });
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + retryAfter - 1);
    // Locked out for the period; administrators are never limited.
    expect((await asUser()).status).toBe(429);
    expect((await api('GET', '/user/session')).status).not.toBe(429);

    const cache = await api('GET', '/system/limit_cache');
    expect(cache.body.resource).toContainEqual({
      id: limit.id,
      limit_id: limit.id,
      name: 'per user',
      key: `instance.each_user:${userId}.service:7.minute`,
      user_id: userId,
      max: 3,
      attempts: 3,
      remaining: 0,
    });
    expect((await api('DELETE', '/system/limit_cache')).status).toBe(400);
    expect((await api('DELETE', `/system/limit_cache/${limit.id}`)).body).toEqual({ success: true });
    expect((await asUser()).status).toBe(200);
    expect((await api('GET', `/system/limit_cache/${limit.id}?user_id=${userId}`)).body).toMatchObject({ attempts: 1, remaining: 2 });
    expect((await api('DELETE', '/system/limit_cache?force=true')).body).toEqual({ success: true });
    expect((await api('DELETE', `/system/limit_cache/99999`)).status).toBe(404);

    // Deactivated, the limit no longer counts.
    await api('PATCH', `/system/limit/${limit.id}`, { is_active: false });
    for (let i = 0; i < 5; i++) expect((await asUser()).status).toBe(200);
    await api('DELETE', `/system/limit/${limit.id}`);
  });

  it('holds a 30-day limit, whose period is longer than a Node.js timer can wait, and limit_cache reads and resets it', async () => {
    // The library's memory store ended each key with a timer of the period's length, which Node.js fires after 1 ms beyond 2^31 - 1 ms.
    const limit = (await createLimit({ name: 'long', type: 'instance.each_user.service', service_id: 7, rate: 2, period: '30-day' })).body
      .resource[0];
    const token = (await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).body.session_token;
    const asUser = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return api('GET', '/user/session', undefined, { token });
    };
    expect((await asUser()).status).toBe(200);
    expect((await asUser()).status).toBe(200);
    const refused = await asUser();
    expect(refused.status).toBe(429);
    // Locked until the period ends (the reference's 30 weeks), not for a minute.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(29 * 7 * 86400);
    expect((await asUser()).status).toBe(429);
    expect((await api('GET', `/system/limit_cache/${limit.id}?user_id=${userId}`)).body).toMatchObject({ max: 2, remaining: 0 });
    expect((await api('DELETE', `/system/limit_cache/${limit.id}`)).body).toEqual({ success: true });
    expect((await asUser()).status).toBe(200);
    expect((await api('GET', `/system/limit_cache/${limit.id}?user_id=${userId}`)).body).toMatchObject({ attempts: 1, remaining: 1 });
    await api('DELETE', `/system/limit/${limit.id}`);
  });

  it("a user's own limit overrides the each_user one, and a verb-specific limit the verb-less one", async () => {
    const each = (await createLimit({ name: 'each', type: 'instance.each_user', rate: 1 })).body.resource[0];
    const own = (await createLimit({ name: 'own', type: 'instance.user', user_id: userId, rate: 2 })).body.resource[0];
    const ownGet = (await createLimit({ name: 'own get', type: 'instance.user', user_id: userId, rate: 4, verb: 'GET' })).body.resource[0];
    const token = (await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).body.session_token;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api('GET', '/user/session', undefined, { token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await api('GET', '/user/session', undefined, { token });
    expect(refused.body.error.context.map((c: { id: number }) => c.id)).toEqual([ownGet.id]);
    for (const limit of [each, own, ownGet]) await api('DELETE', `/system/limit/${limit.id}`);
  });

  it("counts HTTP Basic credentials as a login at their account's login endpoint, before the password is checked", async () => {
    const systemId = (await api('GET', `/system/service?filter=${encodeURIComponent("name='system'")}&fields=id`)).body.resource[0].id;
    const limit = (endpoint: string, serviceId: number, rate: number) =>
      createLimit({ name: `logins ${endpoint}`, type: 'instance.service.endpoint', service_id: serviceId, endpoint, verb: 'POST', rate });
    const userLogins = (await limit('session', 7, 2)).body.resource[0];
    const adminLogins = (await limit('admin/session', systemId, 1)).body.resource[0];
    const basic = (email: string, password: string) =>
      api('GET', '/user/profile', undefined, null, { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` });
    try {
      expect((await basic('lim@x.io', 'wrong-password-123456')).status).toBe(401);
      expect((await basic('lim@x.io', PASSWORD)).body).toMatchObject({ email: 'lim@x.io' });
      // The user login endpoint's counter is spent: refused before the password is checked, right or wrong, and so is a login.
      expect((await basic('lim@x.io', PASSWORD)).status).toBe(429);
      expect((await basic('nobody@x.io', 'wrong-password-123456')).status).toBe(429);
      expect((await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).status).toBe(429);
      // An administrator's credentials count at the administrators' login endpoint.
      expect((await basic('admin@test.local', 'wrong-password-123456')).status).toBe(401);
      expect((await basic('admin@test.local', 'admin-password-12345')).status).toBe(429);
      expect(
        (await api('POST', '/system/admin/session', { email: 'admin@test.local', password: 'admin-password-12345' }, null)).status,
      ).toBe(429);
    } finally {
      for (const { id } of [userLogins, adminLogins]) await api('DELETE', `/system/limit/${id}`);
    }
    expect((await basic('lim@x.io', PASSWORD)).status).toBe(200);
  });

  it('endpoint limits match the path by prefix up to a star', async () => {
    // The login itself (POST /user/session) is the first request the limit counts.
    const endpoint = (await createLimit({ name: 'ep', type: 'instance.service.endpoint', service_id: 7, endpoint: 'sess*', rate: 2 })).body
      .resource[0];
    const token = (await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).body.session_token;
    expect((await api('GET', '/user/session', undefined, { token })).status).toBe(200);
    expect((await api('GET', '/user/session', undefined, { token })).status).toBe(429);
    expect((await api('GET', '/user/profile', undefined, { token })).status).not.toBe(429);
    await api('DELETE', `/system/limit/${endpoint.id}`);
  });
});

describe('counters of each_user limits', () => {
  it('are listed one per limited user (also users who made no request), read and reset per user and per limit', async () => {
    const otherId = (await api('POST', '/system/user', { resource: [{ name: 'Oth', email: 'oth@x.io', password: PASSWORD }] })).body
      .resource[0].id;
    const limit = (
      await createLimit({ name: 'each two', type: 'instance.each_user.service.endpoint', service_id: 7, endpoint: 'session', rate: 2 })
    ).body.resource[0];
    const login = async (email: string) => (await api('POST', '/user/session', { email, password: PASSWORD }, null)).body.session_token;
    const [mine, theirs] = [await login('lim@x.io'), await login('oth@x.io')];
    const read = (token: string) => api('GET', '/user/session', undefined, { token });
    const counters = async () => (await api('GET', `/system/limit_cache/${limit.id}`)).body.resource;
    const key = (user: number) => `instance.each_user:${user}.service:7.endpoint:session.minute`;

    expect(await counters()).toEqual([
      { id: limit.id, limit_id: limit.id, name: 'each two', key: key(userId), user_id: userId, max: 2, attempts: 0, remaining: 2 },
      { id: limit.id, limit_id: limit.id, name: 'each two', key: key(otherId), user_id: otherId, max: 2, attempts: 0, remaining: 2 },
    ]);
    expect([(await read(mine)).status, (await read(mine)).status, (await read(mine)).status]).toEqual([200, 200, 429]);
    expect([(await read(theirs)).status, (await read(theirs)).status, (await read(theirs)).status]).toEqual([200, 200, 429]);
    expect((await counters()).map((c: { attempts: number }) => c.attempts)).toEqual([2, 2]);
    expect((await api('GET', `/system/limit_cache?user_id=${otherId}`)).body.resource).toEqual([
      expect.objectContaining({ limit_id: limit.id, user_id: otherId, attempts: 2, remaining: 0 }),
    ]);

    // One user's counter: that user may call again, the other stays locked out.
    expect((await api('DELETE', `/system/limit_cache/${limit.id}?user_id=${userId}`)).body).toEqual({ success: true });
    expect((await read(mine)).status).toBe(200);
    expect((await read(theirs)).status).toBe(429);
    expect((await counters()).map((c: { attempts: number }) => c.attempts)).toEqual([1, 2]);
    // The whole limit: every user's counter.
    expect((await api('DELETE', `/system/limit_cache?ids=${limit.id}`)).body).toEqual({ success: true });
    expect((await counters()).map((c: { attempts: number }) => c.attempts)).toEqual([0, 0]);
    expect((await read(theirs)).status).toBe(200);

    // A deactivated user has no counter listed; an unknown limit is a 404.
    await api('PATCH', `/system/user/${otherId}`, { is_active: false });
    expect((await counters()).map((c: { user_id: number }) => c.user_id)).toEqual([userId]);
    await api('PATCH', `/system/user/${otherId}`, { is_active: true });
    expect((await api('GET', '/system/limit_cache/99999')).status).toBe(404);
    expect((await api('DELETE', '/system/limit_cache?ids=99999')).status).toBe(404);
    await api('DELETE', `/system/limit/${limit.id}`);
  });

  it('are embedded by related=limit_cache_by_limit_id on /system/limit, as the admin console lists limits, with the records a limit names', async () => {
    const eachUser = (await createLimit({ name: 'listed each', type: 'instance.each_user', rate: 5 })).body.resource[0];
    const forRole = (await createLimit({ name: 'listed role', type: 'instance.role', role_id: roleId, rate: 7, is_active: false })).body
      .resource[0];
    const forUser = (await createLimit({ name: 'listed user', type: 'instance.user.service', user_id: userId, service_id: 7, rate: 9 }))
      .body.resource[0];
    const list = await api(
      'GET',
      '/system/limit?related=service_by_service_id,role_by_role_id,user_by_user_id,limit_cache_by_limit_id&limit=50&offset=0&include_count=true&order=name',
    );
    expect(list.status).toBe(200);
    const byName = Object.fromEntries(list.body.resource.map((l: { name: string }) => [l.name, l]));
    expect(byName['listed each'].limit_cache_by_limit_id).toContainEqual({
      id: eachUser.id,
      key: `instance.each_user:${userId}.minute`,
      user_id: userId,
      max: 5,
      attempts: 0,
      remaining: 5,
    });
    // Inactive limits count nothing, and still show their counter.
    expect(byName['listed role']).toMatchObject({
      role_by_role_id: { id: roleId, name: 'limited' },
      service_by_service_id: null,
      user_by_user_id: null,
    });
    expect(byName['listed role'].limit_cache_by_limit_id).toEqual([
      { id: forRole.id, key: `instance.role:${roleId}.minute`, user_id: null, max: 7, attempts: 0, remaining: 7 },
    ]);
    expect(byName['listed user']).toMatchObject({
      user_by_user_id: { id: userId, email: 'lim@x.io' },
      service_by_service_id: { id: 7, name: 'user' },
    });
    expect(byName['listed user'].limit_cache_by_limit_id).toEqual([
      { id: forUser.id, key: `instance.user:${userId}.service:7.minute`, user_id: userId, max: 9, attempts: 0, remaining: 9 },
    ]);
    expect((await api('GET', `/system/limit/${forUser.id}?related=*`)).body.limit_cache_by_limit_id).toHaveLength(1);
    expect((await api('GET', '/system/limit?related=limit_cache_by_nothing')).status).toBe(400);
    for (const limit of [eachUser, forRole, forUser]) await api('DELETE', `/system/limit/${limit.id}`);
  });
});

describe('every limit type is enforced', () => {
  let token: string;
  let appKey: string;
  beforeAll(async () => {
    token = (await api('POST', '/user/session', { email: 'lim@x.io', password: PASSWORD }, null)).body.session_token;
    appKey = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'limited-app', role_id: roleId }] })).body.resource[0]
      .api_key;
  });

  // Each limit allows one request a minute; the second is 429, and a request the limit does not cover is not.
  it.each([
    ['instance', {}, null],
    ['instance.user', { user: true }, 'another user'],
    ['instance.each_user', {}, 'no user'],
    ['instance.user.service', { user: true, service_id: 7 }, 'another service'],
    ['instance.each_user.service', { service_id: 7 }, 'another service'],
    ['instance.service', { service_id: 7 }, 'another service'],
    ['instance.service.endpoint', { service_id: 7, endpoint: 'session' }, 'another endpoint'],
    ['instance.user.service.endpoint', { user: true, service_id: 7, endpoint: 'session' }, 'another endpoint'],
    ['instance.each_user.service.endpoint', { service_id: 7, endpoint: 'session' }, 'another endpoint'],
    ['instance.role', { role: true }, 'no role'],
    ['instance.each_user', { verb: 'GET' }, 'another verb'],
  ] as const)('%s %o', async (type, fields, outside) => {
    const { user, role, ...rest } = fields as Record<string, unknown>;
    const limit = (
      await createLimit({
        name: `enforced ${type} ${JSON.stringify(fields)}`,
        type,
        rate: 1,
        ...rest,
        ...(user ? { user_id: userId } : {}),
        ...(role ? { role_id: roleId } : {}),
      })
    ).body.resource[0];
    const call = () => api('GET', '/user/session', undefined, { token, key: appKey });
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.body.error.context).toEqual([expect.objectContaining({ id: limit.id })]);
    const other: Record<string, () => Promise<{ status: number }>> = {
      'another user': async () => {
        const other = (await api('POST', '/user/session', { email: 'oth@x.io', password: PASSWORD }, null)).body.session_token;
        return api('GET', '/user/session', undefined, { token: other, key: appKey });
      },
      'no user': () => api('GET', '/system/environment', undefined, { key: appKey }),
      'another service': () => api('GET', '/system/environment', undefined, { token, key: appKey }),
      'another endpoint': () => api('GET', '/user/profile', undefined, { token, key: appKey }),
      'no role': () => api('GET', '/user/session', undefined, { token }),
      'another verb': () => api('POST', '/user/profile', { phone: '1' }, { token, key: appKey }),
    };
    if (outside !== null) expect((await other[outside]()).status).toBe(200);
    await api('DELETE', `/system/limit/${limit.id}`);
  });
});

describe('limits declared in platform.yaml', () => {
  let declared: TestServer;
  let admin: Api;
  const model = minimalModel({
    roles: [{ name: 'reader', description: '', is_active: true, origin: 'platform', grants: [] }],
    limits: [
      {
        name: 'sessions per minute',
        description: 'session reads',
        type: 'instance.service',
        rate: 2,
        period: 'minute',
        service: 'user',
        endpoint: null,
        role: null,
        verb: 'GET',
        is_active: true,
      },
      {
        name: 'readers per day',
        description: '',
        type: 'instance.role',
        rate: 1000,
        period: 'day',
        service: null,
        endpoint: null,
        role: 'reader',
        verb: null,
        is_active: true,
      },
    ],
  });
  beforeAll(async () => {
    declared = await startTestServer(model);
    const token = await declared.adminToken();
    admin = apiClient(declared.app, () => ({ key: declared.apiKey, token }));
  });
  afterAll(async () => declared.close());

  it('are stored at start with origin platform, read-only through the API, and enforced', async () => {
    const list = (await admin('GET', '/system/limit')).body.resource;
    const roleId = (await admin('GET', '/system/role?filter=name=reader')).body.resource[0].id;
    expect(list).toEqual([
      expect.objectContaining({
        name: 'sessions per minute',
        key_text: 'instance.service:7.verb:GET.minute',
        period: 'minute',
        rate: 2,
        origin: 'platform',
      }),
      expect.objectContaining({ name: 'readers per day', key_text: `instance.role:${roleId}.day`, period: 'day', origin: 'platform' }),
    ]);
    const change = await admin('PATCH', `/system/limit/${list[0].id}`, { rate: 50 });
    expect(change.status).toBe(400);
    expect(change.body.error.message).toContain('is declared in platform.yaml');
    expect((await admin('DELETE', `/system/limit/${list[0].id}`)).status).toBe(400);
    await admin('POST', '/system/user', { resource: [{ name: 'Dee', email: 'dee@x.io', password: PASSWORD }] });
    const token = (await admin('POST', '/user/session', { email: 'dee@x.io', password: PASSWORD }, null)).body.session_token;
    const read = () => admin('GET', '/user/session', undefined, { token });
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(429);
  });
});

describe('a duplicate limit created twice at once', () => {
  // On the system database kind in use: SQLite here, PostgreSQL and MariaDB in the system suites (system-suite/).
  it('answers one 201 and the same 400 as a later duplicate, from two instances on one system database', async () => {
    const kind = systemDatabaseInUse();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-limit-races-'));
    const database = kind === 'sqlite' ? undefined : await createTestDatabase(kind);
    // Two instances (or workers) on one system database.
    const options = { systemDatabase: database?.url ?? path.join(dir, 'system.sqlite'), env: {} };
    const servers = [await startTestServer(minimalModel(), options), await startTestServer(minimalModel(), options)];
    try {
      const apis = await Promise.all(
        servers.map(async (s) => {
          const token = await s.adminToken();
          return apiClient(s.app, () => ({ key: s.apiKey, token }));
        }),
      );
      for (let n = 0; n < 10; n++) {
        const record = { type: 'instance.each_user', name: `twice ${n}`, rate: n + 1, period: n % 5, verb: ['GET', 'POST'][n % 2] };
        const answers = await Promise.all([0, 1, 0, 1].map((i) => apis[i]('POST', '/system/limit', { resource: [record] })));
        expect(
          answers.filter((a) => a.status === 201),
          JSON.stringify(answers),
        ).toHaveLength(1);
        // A duplicate sent once the first is stored: what check answers.
        const later = await apis[n % 2]('POST', '/system/limit', { resource: [record] });
        expect(later.status).toBe(400);
        expect(later.body.error).toMatchObject({
          code: 400,
          message: 'A limit already exists with those parameters. No records added.',
          context: { field: 'key_text' },
        });
        for (const answer of answers.filter((a) => a.status !== 201))
          expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: later.body });
      }
    } finally {
      for (const s of servers) await s.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
