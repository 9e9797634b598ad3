/**
 * The `cache_redis` service on the machine's Redis: the reference's key/value endpoints, TTLs,
 * listing under a prefix, grants per key, and an unreachable or silent server as a quick 503.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, closedPort, requireBroker, silentServer } from '#test/helpers/require-broker.js';
import { startTcpRelay } from '#test/helpers/tcp-relay.js';

describe.skipIf(!(await requireBroker('redis')))('cache_redis service', () => {
  const prefix = `portico-test:${crypto.randomBytes(4).toString('hex')}:`;
  const url = new URL(brokerUrl('redis'));
  let server: TestServer;
  let api: Api;
  let reader: Api;
  let redis: Redis;

  beforeAll(async () => {
    const model = minimalModel();
    model.services.push({
      id: 20,
      name: 'cache',
      label: 'Cache',
      type: 'cache_redis',
      description: '',
      is_active: true,
      origin: 'platform',
      kind: 'plain',
      config: { host: url.hostname, port: Number(url.port), key_prefix: prefix, default_ttl: 60, max_value_bytes: 1000 },
    });
    server = await startTestServer(model);
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
    const role = (
      await api('POST', '/system/role', {
        resource: [
          {
            name: 'session-reader',
            role_service_access_by_role_id: [
              { service_id: 20, component: '', verb_mask: 1 | 2 },
              { service_id: 20, component: 'session/*', verb_mask: 1 | 2 },
            ],
          },
        ],
      })
    ).body.resource[0].id;
    const app = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'cache-app', role_id: role }] })).body.resource[0];
    reader = apiClient(server.app, () => ({ key: app.api_key }));
    redis = new Redis(brokerUrl('redis'));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await server?.close();
  });

  it('stores, reads, replaces and deletes keys with the reference statuses', async () => {
    expect(await api('POST', '/cache/greeting', { text: 'hello' })).toMatchObject({ status: 201, body: { greeting: { text: 'hello' } } });
    expect((await api('GET', '/cache/greeting')).body).toEqual({ text: 'hello' });
    const again = await api('POST', '/cache/greeting', '"other"');
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe("Key 'greeting' already exists in cache. Use PUT to update existing key.");
    expect(await api('PUT', '/cache/greeting', '"replaced"')).toMatchObject({ status: 200, body: { greeting: 'replaced' } });
    expect((await api('GET', '/cache/greeting')).body).toBe('replaced');
    expect((await api('DELETE', '/cache/greeting')).body).toEqual({ success: true });
    expect((await api('DELETE', '/cache/greeting')).body).toEqual({ success: false });
    const missing = await api('GET', '/cache/greeting');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe("No value found for key 'greeting'.");
    expect((await api('GET', '/cache/greeting?default=fallback')).body).toBe('fallback');
  });

  it('keys with slashes stay distinct from keys with dots (no folding)', async () => {
    await api('PUT', '/cache/user/1', 1);
    await api('PUT', '/cache/user.1', 2);
    expect((await api('GET', '/cache/user/1')).body).toBe(1);
    expect((await api('GET', '/cache/user.1')).body).toBe(2);
    expect(await redis.exists(`${prefix}user/1`)).toBe(1);
  });

  it('applies ttl, forever and the default TTL', async () => {
    await api('PUT', '/cache/short?ttl=5', '"x"');
    await api('PUT', '/cache/kept?forever=true', '"x"');
    await api('PUT', '/cache/usual', '"x"');
    expect(await redis.ttl(`${prefix}short`)).toBeLessThanOrEqual(5);
    expect(await redis.ttl(`${prefix}short`)).toBeGreaterThan(0);
    expect(await redis.ttl(`${prefix}kept`)).toBe(-1);
    expect(await redis.ttl(`${prefix}usual`)).toBeGreaterThan(50);
    await api('PUT', '/cache/gone?ttl=1', '"x"');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api('GET', '/cache/gone')).status).toBe(404);
    expect((await api('PUT', '/cache/bad?ttl=soon', '"x"')).status).toBe(400);
    // Past what Redis takes: its own words ('ERR value is not an integer or out of range') came back.
    for (const ttl of ['99999999999999999999', '9223372036854775807', '2147483648']) {
      const refused = await api('PUT', `/cache/bad?ttl=${ttl}`, '"x"');
      expect(refused.body.error, ttl).toEqual({
        code: 400,
        message: `Parameter 'ttl' must be a whole number of seconds up to 2147483647, not '${ttl}'.`,
        context: { parameter: 'ttl' },
      });
    }
    expect((await api('PUT', '/cache/long?ttl=2147483647', '"x"')).status).toBe(200);
    // ttl=0 expires at once (Laravel's put forgets the key): it stored the value for ever.
    expect((await api('PUT', '/cache/zero?ttl=0', '"x"')).body).toEqual({ zero: 'x' });
    expect(await redis.exists(`${prefix}zero`)).toBe(0);
    await api('PUT', '/cache/was', '"x"');
    expect((await api('PATCH', '/cache/was?ttl=-5', '"y"')).status).toBe(200);
    expect(await redis.exists(`${prefix}was`)).toBe(0);
    await api('PUT', '/cache/kept2', '"x"');
    expect((await api('POST', '/cache/kept2?ttl=0', '"y"')).status).toBe(400);
    expect((await api('POST', '/cache/new0?ttl=0', '"y"')).status).toBe(201);
    expect((await api('PUT', '/cache?ttl=0', { kept2: 1, other0: 2 })).status).toBe(200);
    expect((await api('POST', '/cache?ttl=0', { new1: 1 })).status).toBe(201);
    expect(await redis.exists(`${prefix}kept2`, `${prefix}other0`, `${prefix}new0`, `${prefix}new1`)).toBe(0);
  });

  it('reads and clears with clear=true (alias pull)', async () => {
    await api('PUT', '/cache/once', '"token"');
    expect((await api('GET', '/cache/once?clear=true')).body).toBe('token');
    expect((await api('GET', '/cache/once')).status).toBe(404);
  });

  it('answers a string value as JSON, so that "null", "12" or "{}" stored as strings read back as strings; a value another client wrote as it is', async () => {
    // As bare text/plain they read back as null, a number, an object.
    for (const text of ['null', '12', '{"a":1}', 'plain']) {
      expect((await api('PUT', '/cache/str', JSON.stringify(text))).status).toBe(200);
      const read = await server.app.inject({
        method: 'GET',
        url: '/api/v2/cache/str',
        headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() },
      });
      expect(read.headers['content-type'], text).toMatch(/^application\/json/);
      expect(read.json(), text).toBe(text);
    }
    const fallback = await api('GET', '/cache/nothing-here?default=12');
    expect(fallback.headers['content-type']).toMatch(/^application\/json/);
    expect(fallback.body).toBe('12');
    // Not JSON (written by another client of the server): a JSON.parse error, a 500.
    await redis.set(`${prefix}foreign`, 'not json {');
    const foreign = await api('GET', '/cache/foreign');
    expect([foreign.status, foreign.headers['content-type'], foreign.body]).toEqual([200, 'text/plain; charset=utf-8', 'not json {']);
  });

  it('creates several keys all or none, and lists keys under a prefix', async () => {
    expect(await api('POST', '/cache', { 'list/a': 1, 'list/b': 2 })).toMatchObject({ status: 201, body: { success: true } });
    const clash = await api('POST', '/cache', { 'list/c': 3, 'list/a': 9 });
    expect(clash.status).toBe(400);
    expect(clash.body.error.message).toBe('Nothing was stored in cache. One or more key(s) already exists (list/a)');
    expect((await api('GET', '/cache/list/c')).status).toBe(404);
    expect((await api('PUT', '/cache', { 'list/a': 10, 'list/c': 3 })).body).toEqual({ success: true });
    expect((await api('GET', '/cache?prefix=list/')).body).toEqual({ resource: ['list/a', 'list/b', 'list/c'] });
    expect((await api('GET', '/cache/list/a')).body).toBe(10);
  });

  it('keeps the response caches lent to other services out of reach: reading, replacing or deleting them is a 400', async () => {
    const lent = `${prefix}~responses:db:rows`;
    await redis.set(lent, JSON.stringify({ secret: 'rows of another service' }), 'EX', 60);
    for (const [verb, url, body] of [
      ['GET', '/cache/~responses:db:rows', undefined],
      ['PUT', '/cache/~responses:db:rows', JSON.stringify({ poisoned: true })],
      ['POST', '/cache/~responses:db:new', JSON.stringify(1)],
      ['DELETE', '/cache/~responses:db:rows', undefined],
      ['PUT', '/cache', { '~responses:db:rows': { poisoned: true } }],
      ['POST', '/cache', { '~responses:db:new': 1 }],
    ] as const) {
      const answer = await api(verb, url, body);
      expect(answer.status, `${verb} ${url}`).toBe(400);
      expect(JSON.stringify(answer.body)).not.toContain('rows of another service');
    }
    expect(JSON.parse((await redis.get(lent)) ?? 'null')).toEqual({ secret: 'rows of another service' });
    expect(await redis.exists(`${prefix}~responses:db:new`)).toBe(0);
  });

  it('refuses an empty value (400) and a value over max_value_bytes (413)', async () => {
    expect((await api('PUT', '/cache/empty')).status).toBe(400);
    const big = await api('PUT', '/cache/big', JSON.stringify('x'.repeat(2000)));
    expect(big.status).toBe(413);
  });

  it('applies role grants per key, for keys in the path and in the body', async () => {
    await api('PUT', '/cache/session/abc', '"mine"');
    await api('PUT', '/cache/secret', '"hidden"');
    expect((await reader('GET', '/cache/session/abc')).body).toBe('mine');
    expect((await reader('GET', '/cache/secret')).status).toBe(401);
    expect((await reader('POST', '/cache/session/new', 1)).status).toBe(201);
    expect((await reader('DELETE', '/cache/session/new')).status).toBe(401);
    const body = await reader('POST', '/cache', { 'session/x': 1, secret2: 2 });
    expect(body.status).toBe(403);
    expect(body.body.error.message).toContain("component 'secret2'");
    // The listing shows only keys the role may read.
    const listed = (await reader('GET', '/cache')).body.resource as string[];
    expect(listed).toContain('session/abc');
    expect(listed).not.toContain('secret');
  });

  it('is listed with its group and config schema, and documented', async () => {
    const type = (await api('GET', '/system/service_type/cache_redis')).body;
    expect(type).toMatchObject({ name: 'cache_redis', group: 'Cache' });
    expect(type.config_schema.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['host', 'port', 'password', 'database_index', 'default_ttl']),
    );
    const spec = (await api('GET', '/cache/_spec')).body;
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/', '/{key}']));
  });

  it('answers 503 naming the service, quickly, when Redis is unreachable or silent; never the password', async () => {
    const silent = await silentServer();
    const port = await closedPort();
    await api('POST', '/system/service', {
      resource: [
        {
          name: 'cache_down',
          label: 'Down',
          type: 'cache_redis',
          config: { host: '127.0.0.1', port, password: 'sekret-pw', timeout_ms: 1000 },
        },
        {
          name: 'cache_silent',
          label: 'Silent',
          type: 'cache_redis',
          config: { host: '127.0.0.1', port: silent.port, password: 'sekret-pw', timeout_ms: 1000 },
        },
      ],
    });
    for (const name of ['cache_down', 'cache_silent']) {
      const started = Date.now();
      const response = await api('GET', `/${name}/anything`);
      expect(response.status).toBe(503);
      expect(response.body.error.message).toContain(`'${name}'`);
      expect(JSON.stringify(response.body)).not.toContain('sekret');
      expect(Date.now() - started).toBeLessThan(5000);
    }
    await silent.close();
  });

  it('serves again once Redis answers again after it stopped answering on the open connection', async () => {
    const relay = await startTcpRelay(Number(url.port), url.hostname);
    try {
      await api('POST', '/system/service', {
        resource: [
          {
            name: 'cache_frozen',
            label: 'Frozen',
            type: 'cache_redis',
            config: { host: '127.0.0.1', port: relay.port, key_prefix: prefix, timeout_ms: 1000 },
          },
        ],
      });
      expect((await api('PUT', '/cache_frozen/thaw', '"x"')).status).toBe(200);
      relay.freeze();
      expect((await api('GET', '/cache_frozen/thaw')).status).toBe(503);
      await relay.restore();
      // The frozen connection stayed open and ioredis kept it: every later call was a 503, for good.
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        status = (await api('GET', '/cache_frozen/thaw')).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status).toBe(200);
    } finally {
      await relay.close();
    }
  }, 30_000);
});
