import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { effectiveVerb, hostnameOf, parsePath, serviceOfUrl } from '#runtime/http/api-dispatch.js';

describe('parsePath', () => {
  it.each([
    ['/api/v2', '', [], false, ''],
    ['/api/v2/', '', [], true, ''],
    ['/api/v2/db', 'db', [], false, ''],
    ['/api/v2/db/_table/contact/42?fields=id', 'db', ['_table', 'contact', '42'], false, '/_table/contact/42'],
    ['/api/v2/db/_table/contact/?limit=1', 'db', ['_table', 'contact'], true, '/_table/contact/'],
    ['/api/v2//db///_table/contact', 'db', ['_table', 'contact'], false, '///_table/contact'],
    ['/api/v2/db/_table/a%20b', 'db', ['_table', 'a b'], false, '/_table/a%20b'],
    ['/api/v2/db/_table/%E0%A4%A', 'db', ['_table', '%E0%A4%A'], false, '/_table/%E0%A4%A'],
    ['/api/v2/db/../_table/./x', 'db', ['_table', 'x'], false, '/../_table/./x'],
    ['/api/v2/files/a/b/?x=/y/', 'files', ['a', 'b'], true, '/a/b/'],
    ['/api/v2/files/a%2F..%2Fb', 'files', ['a/../b'], false, '/a%2F..%2Fb'],
  ])('%s', (url, service, resource, trailingSlash, rawPath) => {
    // rawPath keeps what the router drops, for services that must refuse it (file services).
    expect(parsePath(url)).toEqual({ service, resource, trailingSlash, rawPath });
    // The body parser's shortcut finds the same service.
    expect(serviceOfUrl(url)).toBe(service);
  });

  it.each(['/db/x', '/api/v2x/db', '/./../files%2Fa/b', '/api/v2/%64b?x=/y', '', '/api/v2?/db', '/api/v2/./..//%'])(
    'the body parser finds the service of %s as parsePath does',
    (url) => {
      expect(serviceOfUrl(url)).toBe(parsePath(url).service);
    },
  );
});

describe('hostnameOf', () => {
  it.each(['example.com', 'example.com:8080', '127.0.0.1:20200', '[::1]:8080', '[::1]', 'a:b:c', ':80', ''])(
    'reads the Host header %j as request.hostname does',
    async (host) => {
      const app = Fastify();
      app.get('/', (request) => ({ ours: hostnameOf(request), fastify: request.hostname }));
      const response = await app.inject({ url: '/', headers: { host } });
      const { ours, fastify } = response.json();
      expect(ours).toBe(fastify);
      await app.close();
    },
  );
});

describe('effectiveVerb', () => {
  it('tunnels POST through X-HTTP-Method, X-Method-Override or ?method=, MERGE as PATCH', () => {
    expect(effectiveVerb('POST', { 'x-http-method': 'delete' }, {})).toBe('DELETE');
    expect(effectiveVerb('POST', { 'x-method-override': 'MERGE' }, {})).toBe('PATCH');
    expect(effectiveVerb('POST', {}, { method: 'put' })).toBe('PUT');
    expect(effectiveVerb('GET', { 'x-http-method': 'DELETE' }, {})).toBe('GET');
  });

  it('tunnels first as the reference framework does: X-HTTP-Method-Override, else _method in the query or body', () => {
    expect(effectiveVerb('POST', { 'x-http-method-override': 'get' }, {})).toBe('GET');
    expect(effectiveVerb('POST', {}, { _method: 'DELETE' })).toBe('DELETE');
    expect(effectiveVerb('POST', {}, {}, { _method: 'merge', resource: [] })).toBe('PATCH');
    // A framework override of POST leaves the platform's own headers their say.
    expect(effectiveVerb('POST', { 'x-http-method-override': 'POST', 'x-http-method': 'PUT' }, {})).toBe('PUT');
    expect(effectiveVerb('POST', { 'x-http-method-override': 'GET', 'x-http-method': 'DELETE' }, {})).toBe('GET');
    expect(effectiveVerb('GET', { 'x-http-method-override': 'DELETE' }, { _method: 'DELETE' })).toBe('GET');
    expect(() => effectiveVerb('POST', { 'x-http-method-override': 'TRACE' }, {})).toThrow(expect.objectContaining({ status: 405 }));
  });

  it('refuses other verbs with 405', () => {
    expect(() => effectiveVerb('POST', { 'x-http-method': 'TRACE' }, {})).toThrow(expect.objectContaining({ status: 405 }));
  });
});

describe('createDispatch and createServe: answered at once or through a promise alike', () => {
  let server: TestServer;
  let api: Api;
  beforeAll(async () => {
    server = await startTestServer();
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
    const db = new Database(path.join(server.dir, 'dispatch.sqlite'));
    db.exec("create table item (id integer primary key, title text not null); insert into item values (1, 'one')");
    db.close();
    await api('POST', '/system/service', {
      resource: [{ name: 'db', label: 'DB', type: 'sqlite', config: { database: 'dispatch.sqlite' } }],
    });
  });
  afterAll(() => server.close());

  /** The administrator's app as /system/access_usage last saw it. */
  const lastUse = async () =>
    (await api('GET', '/system/access_usage')).body.resource.find((row: { name: string }) => row.name === 'admin') as {
      last_service: string;
      last_status: number;
    };

  it('answers SQLite reads and writes (answered at once below Serve) and their errors thrown at once in the spec shape, noting each status', async () => {
    expect(await api('GET', '/db/_table/item/1')).toMatchObject({ status: 200, body: { id: 1, title: 'one' } });
    expect(await lastUse()).toMatchObject({ last_service: 'db', last_status: 200 });
    expect(await api('PATCH', '/db/_table/item/1', { title: 'uno' })).toMatchObject({ status: 200, body: { id: 1 } });
    // Thrown at once: by the key's parsing, the table's plan, the driver (NOT NULL), the route.
    const failures: Array<[string, string, unknown, number]> = [
      ['GET', '/db/_table/item/abc', undefined, 400],
      ['GET', '/db/_table/nope/1', undefined, 404],
      ['PATCH', '/db/_table/item/1', { title: null }, 400],
      ['GET', '/db/_nope', undefined, 404],
    ];
    for (const [verb, url, body, status] of failures) {
      const response = await api(verb, url, body);
      expect(response.status, url).toBe(status);
      expect(response.body, url).toEqual({ error: expect.objectContaining({ code: status, message: expect.any(String) }) });
      expect(await lastUse(), url).toMatchObject({ last_service: 'db', last_status: status });
    }
  });

  it('answers a refusal Serve throws at once (no credentials, an unknown service) in the spec shape', async () => {
    expect(await api('GET', '/db/_table/item/1', undefined, null)).toMatchObject({ status: 401, body: { error: { code: 401 } } });
    expect(await api('GET', '/nowhere/_table/item/1')).toMatchObject({ status: 404, body: { error: { code: 404 } } });
  });
});
