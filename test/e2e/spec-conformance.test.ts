/**
 * The spec's wording and behaviour on the system service (issue 9 items 12, 14, 15): messages
 * clients match, `group` on system lists, HEAD and unknown methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { bodiesNotByReference } from '#test/golden/validators.js';

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer();
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server?.close());

describe('messages the spec names', () => {
  it('a call that needs a session and has none: "No session token (JWT) provided"', async () => {
    const response = await api('GET', '/system/role', undefined, { key: server.apiKey });
    expect(response.status).toBe(401);
    expect(response.body.error.message).toMatch(/^No session token \(JWT\) provided/);
  });

  it('a login without Content-Type: application/json: "Login request is missing required email"', async () => {
    const body = JSON.stringify({ email: 'admin@test.local', password: 'admin-password-12345' });
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/v2/system/admin/session',
        headers: { 'x-service-api-key': server.apiKey, ...headers },
        payload: body,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toBe('Login request is missing required email.');
    }
    const json = await server.app.inject({
      method: 'POST',
      url: '/api/v2/system/admin/session',
      headers: { 'x-service-api-key': server.apiKey, 'content-type': 'application/json; charset=utf-8' },
      payload: body,
    });
    expect(json.statusCode).toBe(200);
  });

  it('a system batch delete that misses records: "...could be deleted"', async () => {
    const created = await api('POST', '/system/role', { resource: [{ name: 'doomed' }] });
    const id = created.body.resource[0].id;
    const response = await api('DELETE', `/system/role?ids=${id},999999`);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('Batch Error: Not all requested records could be deleted.');
    // Nothing was deleted: the batch failed as a whole.
    expect((await api('GET', `/system/role/${id}`)).status).toBe(200);
    const update = await api('PATCH', `/system/role?ids=${id},999999`, { resource: [{ description: 'x' }] });
    expect(update.body.error.message).toBe('Batch Error: Not all requested records could be updated.');
  });
});

describe('system lists', () => {
  it('group by a field with only that field', async () => {
    const response = await api('GET', '/system/service?group=type&fields=type');
    expect(response.status).toBe(200);
    const types = response.body.resource.map((r: { type: string }) => r.type);
    expect(new Set(types).size).toBe(types.length);
    expect(types).toEqual(expect.arrayContaining(['system', 'swagger', 'user', 'local_file']));
  });

  it('count a read by ids as any list', async () => {
    expect((await api('GET', '/system/app?ids=2,1&fields=id&include_count=true')).body).toEqual({
      resource: [{ id: 2 }, { id: 1 }],
      meta: { count: 2 },
    });
    expect((await api('GET', '/system/app?ids=1,2,3&count_only=true')).body).toEqual({ meta: { count: 3 } });
  });

  it('come back in id order without `order`', async () => {
    for (const name of ['zeta', 'alpha', 'mid']) await api('POST', '/system/role', { resource: [{ name }] });
    const ids = (await api('GET', '/system/role?fields=id,name')).body.resource.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const byName = (await api('GET', '/system/role?fields=name&order=name')).body.resource.map((r: { name: string }) => r.name);
    expect(byName).toEqual([...byName].sort());
  });
});

describe('discovery documents', () => {
  it("give every operation a summary, a description and the spec's error statuses (409 on writes, 429 with its headers, 503), and request bodies by reference", async () => {
    const methods = ['get', 'post', 'put', 'patch', 'delete'];
    for (const url of ['/system/_spec', '/user/_spec', '/files/_spec', '/email/_spec', '/api_docs']) {
      const document = (await api('GET', url)).body;
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: object }>>)) {
        for (const method of methods.filter((m) => item[m] !== undefined)) {
          const statuses = Object.keys(item[method].responses);
          const expected = ['400', '401', '403', '404', '429', '500', '503', ...(method === 'get' ? [] : ['409'])];
          expect(statuses, `${url} ${method} ${path}`).toEqual(expect.arrayContaining(expected));
          expect(item[method], `${url} ${method} ${path}`).toMatchObject({ summary: expect.any(String), description: expect.any(String) });
        }
      }
      // Request bodies reference components/schemas (spec, Discovery), whatever their media type (the
      // files and email ones too), and the components exist.
      expect(bodiesNotByReference(document), url).toEqual([]);
      expect(Object.keys(document.components.responses.TooManyRequests.headers)).toEqual([
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]);
    }
  });
});

describe('methods', () => {
  it('HEAD answers like GET without a body; unknown methods are 405 in the envelope', async () => {
    const head = await server.app.inject({
      method: 'HEAD',
      url: '/api/v2/system/role',
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() },
    });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect((await server.app.inject({ method: 'HEAD', url: '/api/v2/system/role' })).statusCode).toBe(401);
    const propfind = await server.app.inject({ method: 'PROPFIND' as 'GET', url: '/api/v2/system/role' });
    expect(propfind.statusCode).toBe(405);
    expect(propfind.json()).toEqual({ error: { code: 405, message: "Invalid or unsupported verb 'PROPFIND' used in request." } });
    expect(propfind.headers.allow).toContain('GET');
  });

  it("names in a 405's Allow the methods the path takes, as OPTIONS does; a path no route serves is a 404 for any method", async () => {
    for (const url of ['/api/v2/system/environment', '/api/v2/system/role/1', '/api/v2/email/_spec', '/api/v2']) {
      const options = await server.app.inject({ method: 'OPTIONS', url });
      const trace = await server.app.inject({ method: 'TRACE' as 'GET', url });
      expect(trace.statusCode, url).toBe(405);
      expect(trace.headers.allow, url).toBe(options.headers.allow);
    }
    const unknownService = await server.app.inject({ method: 'PROPFIND' as 'GET', url: '/api/v2/nosuch/x' });
    expect(unknownService.statusCode).toBe(404);
    expect(unknownService.json().error.code).toBe(404);
    for (const url of ['/nope', '/health', '/api/v1/system/role']) {
      const trace = await server.app.inject({ method: 'TRACE' as 'GET', url });
      expect(trace.statusCode, url).toBe(404);
      expect(trace.json(), url).toEqual({ error: { code: 404, message: `No route for TRACE ${url}.` } });
    }
  });
});

describe('versioning', () => {
  it('serves under /api/v2 only, gives the platform version, and serves both discovery paths its version implies', async () => {
    const environment = (await api('GET', '/system/environment')).body;
    expect(environment.platform.version).toMatch(/^\d+\.\d+\.\d+$/);
    const [major, minor] = environment.platform.version.split('.').map(Number);
    // 7.5 and later: GET /{service}/_spec; 7.4.x and earlier: GET /api_docs/{service}. Both are served.
    expect(major > 7 || (major === 7 && minor >= 5)).toBe(true);
    const spec = await api('GET', '/email/_spec');
    expect(spec.status).toBe(200);
    expect((await api('GET', '/api_docs/email')).body.paths).toEqual(spec.body.paths);
    const v1 = await api('GET', '/api/v1/system/environment');
    expect([v1.status, v1.body.error.code]).toEqual([404, 404]);
  });
});
