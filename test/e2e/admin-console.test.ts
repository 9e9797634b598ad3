/**
 * What the reference platform's admin console needs from the system resources (issue 12), one
 * describe per point: the environment's full shape, session restore with GET /user/session, the
 * reference's lenient input, GET /system/cache, and built-ins editable through the API with
 * their changes kept across restarts while platform.yaml still seeds them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../runtime/http/create-server.js';
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { apiClient, type Api } from '../helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '../helpers/platform-fixtures.js';

/** The admin app key the reference's console bundle is built with. */
const REFERENCE_ADMIN_KEY = '6498a8ad1beb9d84d63035c5d1120c007fad6de706734db9689f8996707e0f7d';

let server: TestServer;
let api: Api;
let token: string;

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

describe('GET /system/environment (1)', () => {
  it('gives an administrator the reference shape: platform with an open-source licence, server, client, config', async () => {
    const response = await api('GET', '/system/environment', undefined, undefined, { 'user-agent': 'console-test/1.0', 'accept-language': 'de-CH,de;q=0.9' });
    expect(response.status).toBe(200);
    const env = response.body;
    expect(env.platform).toMatchObject({
      version: expect.any(String), is_hosted: false, is_trial: false, license: 'OPEN SOURCE', license_key: false,
      bitnami_demo: false, secured_package_export: false, install_type: expect.any(String),
      db_driver: 'sqlite', install_path: server.dir, cache_driver: expect.any(String), packages: [],
    });
    expect(env.server).toEqual({ server_os: os.platform(), release: os.release(), version: os.version(), host: os.hostname(), machine: os.machine() });
    expect(env.client).toEqual({ user_agent: 'console-test/1.0', ip_address: expect.any(String), locale: 'de-CH' });
    expect(env.config).toEqual({
      always_wrap_resources: true, resources_wrapper: 'resource',
      db: { max_records_returned: 1000, time_format: expect.any(String), date_format: expect.any(String), datetime_format: expect.any(String), timestamp_format: expect.any(String) },
    });
    expect(env.authentication).toMatchObject({
      admin: { path: 'system/admin/session', verb: 'POST' }, user: { path: 'user/session', verb: 'POST' },
      oauth: [], adldap: [], saml: [], allow_open_registration: false, open_reg_email_service_id: null, login_attribute: 'email',
    });
    expect(env.apps).toEqual([]);
  });

  it('shows anonymous callers how to log in, the licence and the version, not the server or client', async () => {
    const response = await api('GET', '/system/environment', undefined, null);
    expect(response.status).toBe(200);
    expect(response.body.platform).toMatchObject({ version: expect.any(String), is_hosted: false, license: 'OPEN SOURCE' });
    expect(response.body.platform).not.toHaveProperty('install_path');
    expect(response.body).not.toHaveProperty('server');
    expect(response.body).not.toHaveProperty('client');
    expect(response.body.authentication.admin.path).toBe('system/admin/session');
  });
});

describe('GET /user/session with an administrator\'s token (2)', () => {
  it('returns the administrator\'s session, as the console restores it on every reload', async () => {
    // The console sends its token in X-DreamFactory-Session-Token with an empty Authorization, or as a Bearer token.
    const variants: Array<Record<string, string>> = [{ 'x-dreamfactory-session-token': token, authorization: '' }, { authorization: `Bearer ${token}` }];
    for (const headers of variants) {
      const response = await api('GET', '/user/session', undefined, null, headers);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ email: 'admin@test.local', is_sys_admin: true, is_root_admin: true, session_token: expect.any(String), id: expect.any(Number) });
    }
  });

  it('still refuses an administrator\'s login at POST /user/session', async () => {
    const response = await api('POST', '/user/session', { email: 'admin@test.local', password: 'admin-password-12345' }, null);
    expect(response.status).toBe(401);
  });
});

describe('lenient input on system resources (3)', () => {
  it('takes integers as numeric strings ("type":"0" on an app)', async () => {
    const role = await api('POST', '/system/role', { resource: [{ name: 'lenient-role' }] });
    const created = await api('POST', '/system/app?fields=*', { resource: [{ name: 'lenient-app', type: '0', role_id: String(role.body.resource[0].id), is_active: true }] });
    expect(created.status).toBe(201);
    expect(created.body.resource[0]).toMatchObject({ name: 'lenient-app', type: 0, role_id: role.body.resource[0].id });
    const patched = await api('PATCH', `/system/app/${created.body.resource[0].id}?fields=type,url`, { type: '2', url: 'https://app.example' });
    expect(patched.body).toMatchObject({ type: 2, url: 'https://app.example' });
    expect((await api('POST', '/system/app', { resource: [{ name: 'lenient-app2', type: 'zero' }] })).status).toBe(400);
  });

  it.each(['user', 'admin'])('reads username "" as null on %s, twice over (no unique clash)', async (resource) => {
    const base = { name: `Blank ${resource}`, username: '', password: 'a-long-enough-password' };
    const first = await api('POST', `/system/${resource}?fields=username`, { resource: [{ ...base, email: `blank1-${resource}@x.io` }] });
    const second = await api('POST', `/system/${resource}?fields=username`, { resource: [{ ...base, email: `blank2-${resource}@x.io` }] });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.resource[0].username).toBeNull();
  });

  it('ignores the restricted-admin fields the console sends for administrators, and a blank password', async () => {
    const created = await api('POST', '/system/admin', {
      resource: [{ name: 'Tabbed', email: 'tabbed@x.io', password: 'a-long-enough-password', is_active: true, access_by_tabs: ['apps', 'users'], is_restricted_admin: true, lookup_by_user_id: [] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    const updated = await api('PUT', `/system/admin/${id}`, { name: 'Tabbed', email: 'tabbed@x.io', is_active: true, access_by_tabs: [], is_restricted_admin: false, password: null });
    expect(updated.status).toBe(200);
    const login = await api('POST', '/system/admin/session', { email: 'tabbed@x.io', password: 'a-long-enough-password' }, null);
    expect(login.status).toBe(200);
    expect((await api('GET', `/system/admin/${id}`)).body).not.toHaveProperty('access_by_tabs');
  });

  it('keeps filter_op as sent, in any case', async () => {
    const created = await api('POST', '/system/role?related=role_service_access_by_role_id', {
      resource: [{ name: 'op-case', role_service_access_by_role_id: [{ service_id: null, component: '*', verb_mask: 1, requestor_mask: 1, filters: [], filter_op: 'OR' }, { service_id: null, component: 'x', verb_mask: 1, requestor_mask: 1, filters: [], filter_op: 'And' }] }],
    });
    expect(created.status).toBe(201);
    expect(created.body.resource[0].role_service_access_by_role_id.map((g: { filter_op: string }) => g.filter_op)).toEqual(['OR', 'And']);
    expect((await api('POST', '/system/role', { resource: [{ name: 'op-bad', role_service_access_by_role_id: [{ component: '*', verb_mask: 1, filter_op: 'xor' }] }] })).status).toBe(400);
  });

  it('defaults a blank service label to the name and drops null config fields the type does not take', async () => {
    const created = await api('POST', '/system/service?fields=name,label,config', {
      resource: [{ id: null, name: 'blank_label', label: '', description: '', is_active: true, type: 'local_email', storage_service_id: null, config: { directory: null } }],
    });
    expect(created.status).toBe(201);
    expect(created.body.resource[0]).toEqual({ name: 'blank_label', label: 'blank_label', config: { directory: 'data/mail' } });
  });
});

describe('GET /system/cache (7)', () => {
  it('lists the services with a cache of their own, which DELETE then clears', async () => {
    fs.writeFileSync(path.join(server.dir, 'cached.sqlite'), '');
    expect((await api('POST', '/system/service', { resource: [{ name: 'cached', label: 'Cached', type: 'sqlite', config: { database: 'cached.sqlite' } }] })).status).toBe(201);
    const list = await api('GET', '/system/cache?fields=*');
    expect(list.status).toBe(200);
    expect(list.body.resource).toContainEqual({ name: 'cached', label: 'Cached', description: '', type: 'sqlite' });
    expect(list.body.resource.map((c: { name: string }) => c.name)).not.toContain('system');
    for (const cache of list.body.resource) expect((await api('DELETE', `/system/cache/${cache.name}`)).body).toEqual({ success: true });
  });
});

describe('built-ins editable through the API (8)', () => {
  const withRegistration = (allow: boolean): PlatformModel => minimalModel({
    roles: [{ name: 'registered', description: '', is_active: true, origin: 'platform', grants: [] }],
    settings: { ...minimalModel().settings, allowOpenRegistration: allow, openRegistrationRole: 'registered' },
  });

  it('keeps the admin app\'s key and the user service\'s config across restarts; a changed platform.yaml seeds again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-builtins-'));
    const options = { baseDir: dir, systemDatabase: path.join(dir, 'system.sqlite'), env: {} };
    const start = async (model: PlatformModel) => {
      const app = await createServer(model, options);
      const anonymous = apiClient(app, () => ({}));
      const login = await anonymous('POST', '/system/admin/session', { email: 'admin@test.local', password: 'admin-password-12345' });
      return { app, admin: apiClient(app, () => ({ token: login.body.session_token })) };
    };
    try {
      let { app, admin } = await start(withRegistration(false));
      const adminApp = (await admin('GET', '/system/app?filter=name=admin&fields=id,api_key')).body.resource[0];
      expect((await admin('PATCH', `/system/app/${adminApp.id}`, { api_key: REFERENCE_ADMIN_KEY })).status).toBe(200);
      const userService = (await admin('GET', '/system/service?filter=name=user&fields=*')).body.resource[0];
      expect(userService.config).toMatchObject({ allow_open_registration: false, open_reg_role_id: expect.any(Number) });
      const roleId = userService.config.open_reg_role_id;
      // The console PUTs the whole record back with the changed config.
      const put = await admin('PUT', `/system/service/${userService.id}`, { ...userService, config: { ...userService.config, allow_open_registration: true, open_reg_email_service_id: null } });
      expect(put.status).toBe(200);
      expect((await admin('PUT', `/system/service/${userService.id}`, { ...userService, label: 'Renamed' })).status).toBe(400);
      await app.close();

      ({ app, admin } = await start(withRegistration(false)));
      const anonymous = apiClient(app, () => ({ key: REFERENCE_ADMIN_KEY }));
      expect((await anonymous('GET', '/system/environment')).body.authentication.allow_open_registration).toBe(true);
      const registered = await anonymous('POST', '/user/register', { email: 'new@x.io', first_name: 'New', last_name: 'User', new_password: 'a-long-enough-password' });
      expect(registered.status).toBe(201);
      const user = (await admin('GET', '/system/user?filter=email=new@x.io&related=user_to_app_to_role_by_user_id')).body.resource[0];
      expect(user.user_to_app_to_role_by_user_id.every((a: { role_id: number }) => a.role_id === roleId)).toBe(true);
      expect(user.user_to_app_to_role_by_user_id.length).toBeGreaterThan(0);
      expect((await admin('GET', `/system/app/${adminApp.id}?fields=api_key`)).body.api_key).toBe(REFERENCE_ADMIN_KEY);
      await app.close();

      // platform.yaml says something else about registration (true, then false again): each
      // change is a new seed, and the last one wins over the value set through the API.
      ({ app } = await start(withRegistration(true)));
      await app.close();
      ({ app, admin } = await start(withRegistration(false)));
      expect((await apiClient(app, () => ({}))('GET', '/system/environment')).body.authentication.allow_open_registration).toBe(false);
      expect((await admin('GET', `/system/app/${adminApp.id}?fields=api_key`)).body.api_key).toBe(REFERENCE_ADMIN_KEY);
      await app.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses changes to the other built-in services', async () => {
    const email = (await api('GET', '/system/service?filter=name=email&fields=*')).body.resource[0];
    const response = await api('PUT', `/system/service/${email.id}`, { ...email, config: { directory: 'elsewhere' } });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe("The service 'email' is built into every platform and cannot be changed through the API: change platform.yaml and rebuild.");
  });
});
