/**
 * Session tokens end when their account's credentials change: a password change (by the user, by
 * an administrator for themselves, or by an administrator for another account), deactivation and
 * deletion refuse every token issued before, with 401, at once — the clock here never moves, so
 * tokens issued in the same second as the change are covered. Tokens issued afterwards work.
 * And a user's token without an API key is 401: the user's role belongs to an app.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

/** A clock that stands still: every token and every change happen in the same second. */
const clock: Clock = { now: () => Date.UTC(2026, 2, 1, 12, 0, 0, 500) };
const PASSWORD = 'first-password-123456';
const NEW_PASSWORD = 'second-password-123456';

let server: TestServer;
let api: Api;
let root: string;
/** The key of an app whose default role reads the `notes` service. */
let KEY: string;

beforeAll(async () => {
  server = await startTestServer(minimalModel(), { clock });
  api = apiClient(server.app, () => ({ key: server.apiKey, token: root }));
  root = await server.adminToken();
  const db = new Database(path.join(server.dir, 'notes.sqlite'));
  db.exec("create table note (id integer primary key, body text); insert into note (body) values ('hello')");
  db.close();
  const service = await api('POST', '/system/service', {
    resource: [{ name: 'notes', label: 'Notes', type: 'sqlite', config: { database: 'notes.sqlite' } }],
  });
  const role = await api('POST', '/system/role', {
    resource: [
      { name: 'reader', role_service_access_by_role_id: [{ service_id: service.body.resource[0].id, component: '*', verb_mask: 1 }] },
    ],
  });
  KEY = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'portal', role_id: role.body.resource[0].id }] })).body
    .resource[0].api_key;
});
afterAll(async () => server.close());

async function createUser(email: string): Promise<number> {
  const created = await api('POST', '/system/user', { resource: [{ name: email, email, password: PASSWORD }] });
  expect(created.status).toBe(201);
  return created.body.resource[0].id;
}

async function createAdmin(email: string): Promise<number> {
  const created = await api('POST', '/system/admin', { resource: [{ name: email, email, password: PASSWORD }] });
  expect(created.status).toBe(201);
  return created.body.resource[0].id;
}

const userLogin = async (email: string, password = PASSWORD) =>
  (await api('POST', '/user/session', { email, password }, null)).body.session_token as string;
const adminLogin = async (email: string, password = PASSWORD) =>
  (await api('POST', '/system/admin/session', { email, password }, null)).body.session_token as string;
/** A user's token at work: the profile (no key needed) and a service through the app's role. */
const userStatus = async (token: string) => {
  const profile = (await api('GET', '/user/profile', undefined, { token })).status;
  const files = (await api('GET', '/notes/_table/note', undefined, { key: KEY, token })).status;
  expect(files).toBe(profile);
  return profile;
};
const adminStatus = async (token: string) => (await api('GET', '/system/user?limit=1', undefined, { token })).status;

describe('a password change ends the sessions issued before it', () => {
  it('when users change their own (/user/password)', async () => {
    await createUser('self@x.io');
    const before = await userLogin('self@x.io');
    const other = await userLogin('self@x.io');
    expect(await userStatus(before)).toBe(200);
    const changed = await api(
      'POST',
      '/user/password?login=true',
      { old_password: PASSWORD, new_password: NEW_PASSWORD },
      { token: before },
    );
    expect(changed.status).toBe(200);
    const refused = await api('GET', '/user/profile', undefined, { token: before });
    expect(refused.body.error).toEqual({ code: 401, message: 'Invalid token: Session terminated. Please re-login.' });
    expect(await userStatus(other)).toBe(401);
    // The token the change returned, and a new login, work at once.
    expect(await userStatus(changed.body.session_token)).toBe(200);
    expect(await userStatus(await userLogin('self@x.io', NEW_PASSWORD))).toBe(200);
    // Refreshing a refused token does not revive it.
    expect((await api('GET', '/user/session', undefined, { token: before })).status).toBe(401);
  });

  it('when administrators change their own (/system/admin/password)', async () => {
    await createAdmin('boss@x.io');
    const before = await adminLogin('boss@x.io');
    expect(await adminStatus(before)).toBe(200);
    const changed = await api('POST', '/system/admin/password', { old_password: PASSWORD, new_password: NEW_PASSWORD }, { token: before });
    expect(changed.body).toEqual({ success: true });
    expect(await adminStatus(before)).toBe(401);
    expect(await adminStatus(await adminLogin('boss@x.io', NEW_PASSWORD))).toBe(200);
  });

  it("when an administrator sets a user's password (/system/user)", async () => {
    const id = await createUser('managed@x.io');
    const before = await userLogin('managed@x.io');
    expect(await userStatus(before)).toBe(200);
    expect((await api('PATCH', `/system/user/${id}`, { password: NEW_PASSWORD })).status).toBe(200);
    expect(await userStatus(before)).toBe(401);
    expect(await userStatus(await userLogin('managed@x.io', NEW_PASSWORD))).toBe(200);
  });

  it("when an administrator sets another administrator's password (/system/admin)", async () => {
    const id = await createAdmin('deputy@x.io');
    const before = await adminLogin('deputy@x.io');
    expect((await api('PATCH', `/system/admin/${id}`, { password: NEW_PASSWORD })).status).toBe(200);
    expect(await adminStatus(before)).toBe(401);
    expect(await adminStatus(await adminLogin('deputy@x.io', NEW_PASSWORD))).toBe(200);
  });

  it('but not when other fields change', async () => {
    const id = await createUser('renamed@x.io');
    const before = await userLogin('renamed@x.io');
    expect((await api('PATCH', `/system/user/${id}`, { first_name: 'Renamed' })).status).toBe(200);
    expect(await userStatus(before)).toBe(200);
  });
});

describe('deactivation and deletion end the sessions', () => {
  it('of a user deactivated, for good (reactivation does not revive them)', async () => {
    const id = await createUser('paused@x.io');
    const before = await userLogin('paused@x.io');
    expect((await api('PATCH', `/system/user/${id}`, { is_active: false })).status).toBe(200);
    expect(await userStatus(before)).toBe(401);
    expect((await api('POST', '/user/session', { email: 'paused@x.io', password: PASSWORD }, null)).status).toBe(401);
    expect((await api('PATCH', `/system/user/${id}`, { is_active: true })).status).toBe(200);
    expect(await userStatus(before)).toBe(401);
    expect(await userStatus(await userLogin('paused@x.io'))).toBe(200);
  });

  it('of an administrator deactivated', async () => {
    const id = await createAdmin('idle@x.io');
    const before = await adminLogin('idle@x.io');
    expect((await api('PATCH', `/system/admin/${id}`, { is_active: false })).status).toBe(200);
    expect(await adminStatus(before)).toBe(401);
  });

  it('of a user or administrator deleted', async () => {
    const userId = await createUser('deleted@x.io');
    const userToken = await userLogin('deleted@x.io');
    const adminId = await createAdmin('fired@x.io');
    const adminToken = await adminLogin('fired@x.io');
    expect((await api('DELETE', `/system/user/${userId}`)).status).toBe(200);
    expect((await api('DELETE', `/system/admin/${adminId}`)).status).toBe(200);
    expect(await userStatus(userToken)).toBe(401);
    expect(await adminStatus(adminToken)).toBe(401);
  });
});

describe("a user's session token without an API key", () => {
  it('is 401 where a role is needed: the role belongs to an app', async () => {
    await createUser('keyless@x.io');
    const token = await userLogin('keyless@x.io');
    const response = await api('GET', '/notes/_table/note', undefined, { token });
    expect(response.body.error).toEqual({
      code: 401,
      message:
        "No API Key provided. Please provide a valid API Key using X-Service-API-Key request header or 'api_key' url query parameter.",
    });
    // With the app's key the role resolves; the user's own endpoints need no role.
    expect((await api('GET', '/notes/_table/note', undefined, { key: KEY, token })).status).toBe(200);
    expect((await api('GET', '/user/profile', undefined, { token })).status).toBe(200);
    // An administrator's session needs no key: administrators have no role.
    expect((await api('GET', '/notes/_table/note', undefined, { token: root })).status).toBe(200);
  });
});
