import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(minimalModel(), { clock: clock as Clock });
});
afterAll(async () => server.close());

const login = (payload: unknown, headers: Record<string, string> = {}) =>
  server.app.inject({
    method: 'POST',
    url: '/api/v2/system/admin/session',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });

describe('admin session', () => {
  it('logs in with the API key and returns the spec session object', async () => {
    const response = await login({ email: 'admin@test.local', password: 'admin-password-12345' }, { 'x-service-api-key': server.apiKey });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ id: expect.any(Number), email: 'admin@test.local', first_name: 'Ada', is_sys_admin: true });
    expect(body.session_id).toBe(body.session_token);
    expect(body.token_expiry_date).toBe('2026-01-02 00:00:00');
    expect(body.last_login_date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const payload = JSON.parse(Buffer.from(body.session_token.split('.')[1], 'base64url').toString());
    expect(payload.user_id).toBe(body.id);
  });

  it('returns every field of the spec Session, each of its type', async () => {
    const body = (
      await login({ email: 'admin@test.local', password: 'admin-password-12345' }, { 'x-service-api-key': server.apiKey })
    ).json();
    const date = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(body).toMatchObject({
      session_token: expect.any(String),
      session_id: body.session_token,
      id: expect.any(Number),
      email: 'admin@test.local',
      first_name: 'Ada',
      last_name: 'Admin',
      name: 'Admin',
      is_sys_admin: true,
      role: expect.any(String),
      last_login_date: date,
      token_expiry_date: date,
      apps: expect.arrayContaining([expect.objectContaining({ name: 'admin' })]),
      ticket: expect.any(String),
      ticket_expiry: expect.any(String),
      // What real clients read beyond the spec's fields (a Svelte client's schema, the Terraform provider, the console).
      host: expect.any(String),
      is_root_admin: true,
      role_id: null,
    });
    expect(Number.isInteger(body.id)).toBe(true);
  });

  it('issues a new token on each login, both valid; GET refreshes to a new token with a new expiry', async () => {
    const credentials = { email: 'admin@test.local', password: 'admin-password-12345' };
    const first = (await login(credentials)).json();
    const second = (await login(credentials)).json();
    expect(second.session_token).not.toBe(first.session_token);
    const call = (token: string) =>
      server.app.inject({ method: 'GET', url: '/api/v2/system/admin/session', headers: { 'x-service-session-token': token } });
    clock.time += 20 * 3600_000;
    const refreshed = await call(first.session_token);
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json()).toMatchObject({ id: first.id, email: 'admin@test.local' });
    expect(refreshed.json().session_token).not.toBe(first.session_token);
    expect(refreshed.json().token_expiry_date).toBe(new Date(clock.time + 24 * 3600_000).toISOString().replace('T', ' ').slice(0, 19));
    expect((await call(second.session_token)).statusCode).toBe(200);
    // Past the first token's 24 hours its refreshed successor still serves.
    clock.time += 5 * 3600_000;
    expect((await call(first.session_token)).statusCode).toBe(401);
    expect((await call(refreshed.json().session_token)).statusCode).toBe(200);
  });

  it('takes duration 0 (until the browser closes) as the default lifetime', async () => {
    const body = (await login({ email: 'admin@test.local', password: 'admin-password-12345', duration: 0 })).json();
    expect(body.token_expiry_date).toBe(new Date(clock.time + 24 * 3600_000).toISOString().replace('T', ' ').slice(0, 19));
  });

  it('answers a login sent to /api/v2/admin/session as the spec says: no session token (JWT) provided', async () => {
    const wrong = (headers: Record<string, string>) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v2/admin/session',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ email: 'admin@test.local', password: 'admin-password-12345' }),
      });
    const withKey = await wrong({ 'x-service-api-key': server.apiKey });
    expect(withKey.statusCode).toBe(401);
    expect(withKey.json().error.message).toMatch(/^No session token \(JWT\) provided\./);
    const withoutKey = await wrong({});
    expect(withoutKey.statusCode).toBe(401);
    expect(withoutKey.json().error.message).toMatch(/^No session token or API Key detected in request\./);
  });

  it('logs in without an API key, but refuses an unknown one', async () => {
    expect((await login({ email: 'admin@test.local', password: 'admin-password-12345' })).statusCode).toBe(200);
    const bad = await login({ email: 'admin@test.local', password: 'admin-password-12345' }, { 'x-service-api-key': 'nope' });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.code).toBe(401);
  });

  it.each([
    [{ password: 'x' }, 400, 'Login request is missing required email.'],
    [{ email: 'admin@test.local' }, 400, 'Login request is missing required password.'],
    [{ email: 'admin@test.local', password: 'wrong' }, 401, 'Invalid credentials supplied.'],
    [
      { email: 'admin@test.local', password: 'admin-password-12345', duration: 'long' },
      400,
      "Field 'duration' must be a whole number of minutes from 0 to 525600.",
    ],
    [
      { email: 'admin@test.local', password: 'admin-password-12345', duration: 1e20 },
      400,
      "Field 'duration' must be a whole number of minutes from 0 to 525600.",
    ],
  ])('refuses %o', async (payload, status, message) => {
    const response = await login(payload);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ error: { code: status, message, ...(status === 400 ? { context: expect.any(Object) } : {}) } });
  });

  it('refuses malformed JSON with 400', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v2/system/admin/session',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 400, message: 'Invalid or malformed JSON.' } });
  });

  it('refreshes with GET and PUT, logs out with DELETE, and refuses the logged-out token', async () => {
    const token = await server.adminToken();
    const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': token };
    const got = await server.app.inject({ method: 'GET', url: '/api/v2/system/admin/session', headers });
    expect(got.statusCode).toBe(200);
    expect(got.json().email).toBe('admin@test.local');
    const put = await server.app.inject({
      method: 'PUT',
      url: `/api/v2/system/admin/session?session_token=${token}`,
      headers: { 'x-service-api-key': server.apiKey },
    });
    expect(put.statusCode).toBe(200);
    const fresh = put.json().session_token as string;
    // PUT replaced the old token.
    const old = await server.app.inject({ method: 'GET', url: '/api/v2/system/environment', headers: { ...headers } });
    expect(old.statusCode).toBe(200); // environment is open, even with a dead token
    const oldApp = await server.app.inject({ method: 'GET', url: '/api/v2/system/app', headers });
    expect(oldApp.statusCode).toBe(401);
    const del = await server.app.inject({
      method: 'DELETE',
      url: '/api/v2/system/admin/session',
      headers: { 'x-service-session-token': fresh },
    });
    expect(del.json()).toEqual({ success: true });
    const after = await server.app.inject({ method: 'GET', url: '/api/v2/system/app', headers: { 'x-service-session-token': fresh } });
    expect(after.statusCode).toBe(401);
  });

  it('refreshes with PUT and the token in the session header', async () => {
    const token = await server.adminToken();
    const put = await server.app.inject({
      method: 'PUT',
      url: '/api/v2/system/admin/session',
      headers: { 'x-dreamfactory-session-token': token },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().session_token).not.toBe(token);
    const old = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/admin/session',
      headers: { 'x-service-session-token': token },
    });
    expect(old.statusCode).toBe(401);
  });

  it('honours duration and expires after 24 hours by default', async () => {
    const short = (await login({ email: 'admin@test.local', password: 'admin-password-12345', duration: 5 })).json();
    const long = (await login({ email: 'admin@test.local', password: 'admin-password-12345' })).json();
    const call = (token: string) =>
      server.app.inject({ method: 'GET', url: '/api/v2/system/app', headers: { 'x-service-session-token': token } });
    expect((await call(short.session_token)).statusCode).toBe(200);
    clock.time += 6 * 60_000;
    expect((await call(short.session_token)).statusCode).toBe(401);
    expect((await call(long.session_token)).statusCode).toBe(200);
    clock.time += 24 * 3600_000;
    const expired = await call(long.session_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.message).toMatch(/expired/);
  });
});

describe('system endpoints', () => {
  it('serves the environment without credentials', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/v2/system/environment' });
    expect(response.statusCode).toBe(200);
    expect(response.json().platform).toMatchObject({ version: expect.any(String), is_hosted: false });
  });

  it('lists the apps with their keys for administrators only', async () => {
    const token = await server.adminToken();
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/app?fields=id,name,api_key,is_active',
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
    });
    expect(response.statusCode).toBe(200);
    const apps = response.json().resource as Array<{ name: string; api_key: string; is_active: boolean }>;
    expect(apps.map((a) => a.name)).toEqual(['admin', 'api_docs', 'file_manager']);
    expect(apps[0]).toEqual({ id: expect.any(Number), name: 'admin', api_key: server.apiKey, is_active: true });
    expect(apps.every((a) => /^[0-9a-f]{64}$/.test(a.api_key))).toBe(true);
    const anonymous = await server.app.inject({
      method: 'GET',
      url: '/api/v2/system/app',
      headers: { 'x-service-api-key': server.apiKey },
    });
    expect(anonymous.statusCode).toBe(401);
    const none = await server.app.inject({ method: 'GET', url: '/api/v2/system/app' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.message).toMatch(/No session token or API Key detected/);
  });

  it('answers 404 for an unknown service and an unknown resource', async () => {
    const token = await server.adminToken();
    const headers = { 'x-service-session-token': token };
    const service = await server.app.inject({ method: 'GET', url: '/api/v2/nosuch/_table', headers });
    expect(service.statusCode).toBe(404);
    expect(service.json().error.message).toBe('Could not find a service for nosuch');
    const resource = await server.app.inject({ method: 'GET', url: '/api/v2/system/nosuch', headers });
    expect(resource.statusCode).toBe(404);
  });
});
