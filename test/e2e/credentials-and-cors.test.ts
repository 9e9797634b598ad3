/**
 * Where credentials may come from (the spec's headers, the X-DreamFactory-* aliases, query
 * parameters, Authorization: Bearer), verb tunnelling, and CORS from /system/cors rules.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;
let token: string;

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

describe('credentials', () => {
  it.each([
    ['the spec headers', '', () => ({ 'x-service-api-key': server.apiKey, 'x-service-session-token': token })],
    ['the X-DreamFactory-* aliases', '', () => ({ 'X-DreamFactory-API-Key': server.apiKey, 'X-DreamFactory-Session-Token': token })],
    ['query parameters', 'QUERY', () => ({})],
    ['Authorization: Bearer', '', () => ({ authorization: `Bearer ${token}` })],
    ['a session token alone', '', () => ({ 'x-dreamfactory-session-token': token })],
  ])('are read from %s', async (_name, mode, headers) => {
    const url = mode === 'QUERY' ? `/system/admin?api_key=${server.apiKey}&session_token=${token}` : '/system/admin';
    const response = await api('GET', url, undefined, null, headers());
    expect(response.status).toBe(200);
  });

  it('refuses an unknown key even where no key is needed', async () => {
    const response = await api('POST', '/system/admin/session', { email: 'admin@test.local', password: 'admin-password-12345' }, null, {
      'x-dreamfactory-api-key': 'nope',
    });
    expect(response.body.error).toEqual({ code: 401, message: 'Invalid API key. The API key is not associated with any app.' });
  });

  // Node joins a repeated header's values with ', ': the key 'k, k' was then a 401 'Invalid API key'.
  it.each([
    ['X-DreamFactory-API-Key', () => server.apiKey],
    ['X-Service-API-Key', () => server.apiKey],
    ['X-DreamFactory-Session-Token', () => token],
    ['X-Service-Session-Token', () => token],
  ])('answers a credential header sent more than once (%s) with a 400 naming it', async (name, value) => {
    const response = await server.app.inject({ method: 'GET', url: '/api/v2/system/admin', headers: { [name]: [value(), value()] } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 400,
        message: `Header '${name}' was sent more than once: send one API key and one session token, each once.`,
        context: { header: name },
      },
    });
  });

  it.each([
    ['X-Service-API-Key', 'X-DreamFactory-API-Key', () => server.apiKey],
    ['X-Service-Session-Token', 'X-DreamFactory-Session-Token', () => token],
  ])('answers %s and %s sent with different values with a 400 naming both', async (name, alias, value) => {
    // The first was taken silently, the other dropped.
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/admin',
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, [name]: value(), [alias]: 'other' },
    });
    expect(response.json()).toEqual({
      error: {
        code: 400,
        message: `Headers '${name}' and '${alias}' were both sent, with different values: send the API key and the session token in one header each.`,
        context: { headers: [name, alias] },
      },
    });
    // The same value in both is no conflict.
    const same = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/admin',
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, [alias]: value() },
    });
    expect(same.statusCode).toBe(200);
  });
});

describe('HTTP Basic credentials (reference 6.1)', () => {
  const ADMIN = ['admin@test.local', 'admin-password-12345'] as const;
  const USER_PASSWORD = 'basic-password-123456';
  const basic = (email: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` });
  const mismatch = { code: 401, message: 'Unauthorized. User credentials did not match.' };

  beforeAll(async () => {
    await api('POST', '/system/user', {
      resource: [
        { name: 'Basil', email: 'basil@x.io', password: USER_PASSWORD },
        { name: 'Dormant', email: 'dormant@x.io', password: USER_PASSWORD, is_active: false },
      ],
    });
  });

  it('authenticate an administrator or a user, any case of the email, for that request only', async () => {
    expect((await api('GET', '/system/admin?fields=email', undefined, null, basic(...ADMIN))).body.resource).toContainEqual({
      email: 'admin@test.local',
    });
    const profile = await api('GET', '/user/profile', undefined, null, basic('Basil@X.io', USER_PASSWORD));
    expect(profile.body).toMatchObject({ email: 'basil@x.io', name: 'Basil' });
    expect(profile.body.session_token).toBeUndefined();
    // A user is no administrator; no session is left behind.
    expect((await api('GET', '/system/admin', undefined, { key: server.apiKey }, basic('basil@x.io', USER_PASSWORD))).status).toBe(403);
    expect((await api('GET', '/user/session', undefined, null, basic('basil@x.io', USER_PASSWORD))).status).toBe(401);
    // With credentials from the root listing too.
    const listing = await api('GET', '/api/v2?fields=name', undefined, null, basic(...ADMIN));
    expect(listing.body.services).toContainEqual(expect.objectContaining({ name: 'system' }));
  });

  it.each([
    ['a wrong password', () => basic('basil@x.io', 'wrong-password-123456')],
    ['an unknown email', () => basic('nobody@x.io', USER_PASSWORD)],
    ['an inactive account', () => basic('dormant@x.io', USER_PASSWORD)],
    ['an empty email and password', () => basic('', '')],
    ['a value without a colon', () => ({ authorization: `Basic ${Buffer.from('basil@x.io').toString('base64')}` })],
    ['a value that is not base64', () => ({ authorization: 'Basic !!!%%%' })],
    ['no value', () => ({ authorization: 'Basic' })],
    ['a NUL in the email', () => basic('basil@x.io\u0000', USER_PASSWORD)],
    ['a very long email', () => basic(`${'x'.repeat(4000)}@x.io`, USER_PASSWORD)],
    ['an email of four-byte characters', () => basic('\u{1F600}@x.io', USER_PASSWORD)],
  ])('refuse %s with 401, even where no credentials are needed', async (_name, headers) => {
    for (const url of ['/system/admin', '/user/profile', '/system/environment', '/api/v2']) {
      const response = await api('GET', url, undefined, null, headers());
      expect(response.status, url).toBe(401);
      expect(response.body.error, url).toEqual(mismatch);
    }
  });

  it('give way to a session token sent with them', async () => {
    expect((await api('GET', '/system/admin', undefined, { token }, basic('basil@x.io', 'wrong-password-123456'))).status).toBe(200);
  });

  it('are not a login: the login endpoints ignore them (and any session token), taking the credentials of the body', async () => {
    const wrong = basic('basil@x.io', 'wrong-password-123456');
    expect((await api('POST', '/system/admin/session', { email: ADMIN[0], password: ADMIN[1] }, null, wrong)).status).toBe(200);
    expect(
      (await api('POST', '/user/session', { email: 'basil@x.io', password: USER_PASSWORD }, { token: 'not-a-token' }, wrong)).status,
    ).toBe(200);
    const bodyless = await api('POST', '/user/session', {}, null, basic('basil@x.io', USER_PASSWORD));
    expect(bodyless.body.error).toMatchObject({ code: 400, message: 'Login request is missing required email.' });
    const admin = await api('POST', '/system/admin/session', {}, null, basic(...ADMIN));
    expect(admin.body.error).toMatchObject({ code: 400, message: 'Login request is missing required email.' });
    // Elsewhere on the session endpoints they still authenticate (a logout with them ends no session).
    expect((await api('DELETE', '/user/session', undefined, null, wrong)).body.error).toEqual(mismatch);
  });
});

describe('verb tunnelling', () => {
  it('runs a POST as the verb of X-HTTP-Method, X-Method-Override or ?method=', async () => {
    const ids = (await api('POST', '/system/role', { resource: [{ name: 'tunnel-1' }, { name: 'tunnel-2' }] })).body.resource.map(
      (r: { id: number }) => r.id,
    );
    const patched = await api('POST', `/system/role/${ids[0]}`, { description: 'via override' }, undefined, {
      'x-method-override': 'PATCH',
    });
    expect(patched.body).toEqual({ id: ids[0] });
    expect((await api('GET', `/system/role/${ids[0]}`)).body.description).toBe('via override');
    const merged = await api('POST', `/system/role/${ids[0]}`, { description: 'merged' }, undefined, { 'x-http-method': 'MERGE' });
    expect(merged.status).toBe(200);
    // GET over POST: the query options come in the body.
    const listed = await api('POST', '/system/role?method=GET', { filter: "name like 'tunnel%'", fields: 'name' });
    expect(listed.body).toEqual({ resource: [{ name: 'tunnel-1' }, { name: 'tunnel-2' }] });
    const deleted = await api('POST', `/system/role?ids=${ids.join(',')}`, undefined, undefined, { 'X-HTTP-Method': 'DELETE' });
    expect(deleted.body.resource).toHaveLength(2);
    expect((await api('POST', '/system/role', undefined, undefined, { 'x-http-method': 'TRACE' })).status).toBe(405);
  });

  const tunnelled = (url: string, method: string) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, 'x-http-method': method },
    });

  it('names the methods the path takes in the Allow of a 405 an override makes, as OPTIONS does (it sent none)', async () => {
    for (const [url, allow] of [
      ['/api/v2/system/role', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
      ['/api/v2/system/environment', 'GET, HEAD, OPTIONS'],
    ]) {
      const answer = await tunnelled(url, 'TRACE');
      expect([url, answer.statusCode, answer.headers.allow, answer.json().error.code]).toEqual([url, 405, allow, 405]);
    }
    const unknown = await tunnelled('/api/v2/nope/x', 'TRACE');
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: { code: 404, message: 'Could not find a service for nope' } }]);
  });

  it('answers a POST overridden to HEAD with headers only (it sent the GET body), refusals included', async () => {
    const found = await tunnelled('/api/v2/system/environment', 'HEAD');
    expect([found.statusCode, found.headers['content-length'], found.body]).toEqual([200, '0', '']);
    const missing = await tunnelled('/api/v2/system/role/999999', 'HEAD');
    expect([missing.statusCode, missing.headers['content-length'], missing.body]).toEqual([404, '0', '']);
  });

  it('answers headers only to a POST tunnelled as HEAD that is refused before it is served (its body unreadable)', async () => {
    const refused = (url: string, headers: Record<string, string>, payload: string) =>
      server.app.inject({
        method: 'POST',
        url,
        headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, 'content-type': 'application/json', ...headers },
        payload,
      });
    // The override read from each place the body does not hold; the body's faults: malformed JSON, an encoding not spoken, not UTF-8.
    const answers = [
      await refused('/api/v2/system/role', { 'x-http-method': 'HEAD' }, '{"name": '),
      await refused('/api/v2/system/role?method=HEAD', {}, '{"name": '),
      await refused('/api/v2/system/role', { 'x-http-method-override': 'HEAD' }, '{"name": '),
      await refused('/api/v2/system/role', { 'x-method-override': 'HEAD', 'content-encoding': 'br2' }, '{}'),
      await refused('/api/v2', { 'x-http-method': 'HEAD' }, '{"name": '),
    ];
    expect(answers.map((answer) => [answer.statusCode, answer.headers['content-length'], answer.body])).toEqual([
      [400, '0', ''],
      [400, '0', ''],
      [400, '0', ''],
      [415, '0', ''],
      [400, '0', ''],
    ]);
    // Without the override, the same refusals say why in the body.
    const plain = await refused('/api/v2/system/role', {}, '{"name": ');
    expect([plain.statusCode, plain.json().error.code]).toEqual([400, 400]);
    // A body's own `_method` (the framework's override) still comes before X-HTTP-Method: a DELETE then, answered with its body.
    const bodyFirst = await refused('/api/v2/system/role', { 'x-http-method': 'HEAD' }, '{"_method": "DELETE"}');
    expect([bodyFirst.statusCode, bodyFirst.json().error.message]).toEqual([400, 'No filter or records given for delete request.']);
    const rootBodyFirst = await refused('/api/v2', { 'x-http-method': 'HEAD' }, '{"_method": "DELETE"}');
    expect([rootBodyFirst.statusCode, rootBodyFirst.json().error.code]).toEqual([405, 405]);
  });

  it('reads a tunnelled verb on /api/v2 itself: HEAD answers headers only, a verb it does not take is a 405', async () => {
    // It answered every POST with the listing, a HEAD's included.
    const head = await tunnelled('/api/v2', 'HEAD');
    expect([head.statusCode, head.headers['content-length'], head.body]).toEqual([200, '0', '']);
    const deleted = await tunnelled('/api/v2', 'DELETE');
    expect([deleted.statusCode, deleted.headers.allow, deleted.json().error.code]).toEqual([405, 'GET, HEAD, POST, OPTIONS', 405]);
    const plain = await server.app.inject({ method: 'POST', url: '/api/v2', headers: { 'x-service-api-key': server.apiKey } });
    expect(plain.json().services).toBeDefined();
    expect((await tunnelled('/api/v2', 'GET')).json().services).toBeDefined();
  });
});

describe('CORS from /system/cors', () => {
  const preflight = (url: string, origin: string, method = 'POST') =>
    server.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-dreamfactory-api-key,content-type' },
    });

  it('sends no CORS headers without a matching rule', async () => {
    const response = await preflight('/api/v2/system/environment', 'https://app.example');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers preflights and requests as the longest matching enabled rule says', async () => {
    await api('POST', '/system/cors', {
      resource: [
        {
          path: 'api/v2/*',
          origin: 'https://app.example, https://other.example',
          method: ['GET', 'POST'],
          header: 'X-Custom',
          exposed_header: 'X-Total',
          max_age: 600,
          supports_credentials: true,
        },
        { path: 'api/v2/system/*', origin: '*', method: ['GET'] },
        { path: '^api/v2/user/.*', origin: '*', method: ['GET', 'POST', 'DELETE'], enabled: false },
      ],
    });
    const response = await preflight('/api/v2/db/_table/contact', 'https://app.example');
    expect(response.statusCode).toBe(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-credentials': 'true',
      'access-control-max-age': '600',
    });
    const allowed = String(response.headers['access-control-allow-headers']).split(/,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining([
        'X-Service-API-Key',
        'X-Service-Session-Token',
        'X-DreamFactory-API-Key',
        'X-DreamFactory-Session-Token',
        'X-Custom',
      ]),
    );

    // A method the rule does not allow: 405 in the spec's error shape (reference 5.6).
    const refused = await preflight('/api/v2/db/_table/contact', 'https://app.example', 'DELETE');
    expect(refused.statusCode).toBe(405);
    expect(refused.json()).toEqual({
      error: { code: 405, message: 'Method DELETE is not allowed from this origin by the CORS rules.' },
    });
    expect((await preflight('/api/v2/db/_table/contact', 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    const system = await preflight('/api/v2/system/environment', 'https://evil.example', 'GET');
    expect(system.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' });
    // The disabled rule does not apply: the api/v2/* rule does.
    expect((await preflight('/api/v2/user/session', 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();

    const actual = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/environment',
      headers: { origin: 'https://app.example' },
    });
    expect(actual.headers['access-control-allow-origin']).toBe('*');
    const data = await server.app.inject({
      method: 'GET',
      url: '/api/v2/api_docs',
      headers: { origin: 'https://app.example', 'x-service-session-token': token },
    });
    expect(data.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'X-Total',
    });
  });

  it("allows a browser's own headers where a rule allows any header ('*'), credentialed or not", async () => {
    await api('POST', '/system/cors', {
      resource: [{ path: 'api/v2/files/*', origin: 'https://console.example', header: '*', method: ['GET'], supports_credentials: true }],
    });
    // The admin console's headers: its API key and session token, and its own loading and cache headers.
    const asked = 'cache-control,show-loading,x-dreamfactory-api-key,x-dreamfactory-session-token';
    const response = await server.app.inject({
      method: 'OPTIONS',
      url: '/api/v2/files/',
      headers: { origin: 'https://console.example', 'access-control-request-method': 'GET', 'access-control-request-headers': asked },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': 'https://console.example',
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': asked,
    });
    const id = (await api('GET', `/system/cors?filter=${encodeURIComponent("path='api/v2/files/*'")}&fields=id`)).body.resource[0].id;
    await api('DELETE', `/system/cors/${id}`);
  });

  it('follows changes to the rules at once', async () => {
    const id = (await api('GET', `/system/cors?filter=${encodeURIComponent("path='api/v2/*'")}&fields=id`)).body.resource[0].id;
    await api('PATCH', `/system/cors/${id}`, { origin: 'https://third.example' });
    expect((await preflight('/api/v2/db/_table/contact', 'https://app.example')).headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight('/api/v2/db/_table/contact', 'https://third.example')).headers['access-control-allow-origin']).toBe(
      'https://third.example',
    );
    await api('DELETE', `/system/cors/${id}`);
    expect((await preflight('/api/v2/db/_table/contact', 'https://third.example')).headers['access-control-allow-origin']).toBeUndefined();
  });
});

// Not a preflight (no Origin): HTTP's OPTIONS, which answered 404 'No route' on every path.
describe('OPTIONS without Origin', () => {
  const options = (url: string) => server.app.inject({ method: 'OPTIONS', url });

  it('answers 204 with the methods the path takes, and 404 for an unknown service', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-options-'));
    try {
      expect(
        (await api('POST', '/system/service', { resource: [{ name: 'opt_files', type: 'local_file', config: { container: root } }] }))
          .status,
      ).toBe(201);
      const expected: Array<[string, string]> = [
        ['/api/v2', 'GET, HEAD, POST, OPTIONS'],
        ['/api/v2/system/environment', 'GET, HEAD, OPTIONS'],
        ['/api/v2/system/role', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
        ['/api/v2/system/role/1', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
        ['/api/v2/user/session', 'GET, HEAD, POST, PUT, DELETE, OPTIONS'],
        ['/api/v2/opt_files/_spec', 'GET, HEAD, OPTIONS'],
        ['/api/v2/opt_files/docs/a.txt?x=1', 'GET, HEAD, POST, PUT, DELETE, OPTIONS'],
      ];
      for (const [url, allow] of expected) {
        const answer = await options(url);
        expect([url, answer.statusCode, answer.headers.allow, answer.body]).toEqual([url, 204, allow, '']);
      }
      const unknown = await options('/api/v2/nope/x');
      expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: { code: 404, message: 'Could not find a service for nope' } }]);
      // A preflight no rule answers is still no route.
      const preflight = await server.app.inject({
        method: 'OPTIONS',
        url: '/api/v2/user/session',
        headers: { origin: 'https://nobody.example', 'access-control-request-method': 'GET' },
      });
      expect([preflight.statusCode, preflight.headers.allow, preflight.json().error.code]).toEqual([404, undefined, 404]);
    } finally {
      await api('DELETE', '/system/service?filter=name%3D%27opt_files%27');
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
