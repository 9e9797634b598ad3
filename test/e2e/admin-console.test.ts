/**
 * What the reference platform's admin console needs from the system resources (issue 12), one
 * describe per point: the environment's full shape, session restore with GET /user/session, the
 * reference's lenient input, GET /system/cache, and built-ins editable through the API with
 * their changes kept across restarts while platform.yaml still seeds them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '#runtime/http/create-server.js';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, systemDatabaseInUse, type TestServer } from '#test/helpers/platform-fixtures.js';

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
    const response = await api('GET', '/system/environment', undefined, undefined, {
      'user-agent': 'console-test/1.0',
      'accept-language': 'de-CH,de;q=0.9',
    });
    expect(response.status).toBe(200);
    const env = response.body;
    expect(env.platform).toMatchObject({
      version: expect.any(String),
      is_hosted: false,
      is_trial: false,
      license: 'OPEN SOURCE',
      license_key: false,
      bitnami_demo: false,
      secured_package_export: false,
      install_type: expect.any(String),
      // The system database in use, by the reference's driver names.
      db_driver: { sqlite: 'sqlite', postgres: 'pgsql', mysql: 'mysql' }[systemDatabaseInUse()],
      install_path: server.dir,
      cache_driver: expect.any(String),
      packages: [],
    });
    expect(env.server).toEqual({
      server_os: os.platform(),
      release: os.release(),
      version: os.version(),
      host: os.hostname(),
      machine: os.machine(),
    });
    expect(env.client).toEqual({ user_agent: 'console-test/1.0', ip_address: expect.any(String), locale: 'de-CH' });
    expect(env.config).toEqual({
      always_wrap_resources: true,
      resources_wrapper: 'resource',
      db: {
        max_records_returned: 1000,
        time_format: expect.any(String),
        date_format: expect.any(String),
        datetime_format: expect.any(String),
        timestamp_format: expect.any(String),
      },
    });
    expect(env.authentication).toMatchObject({
      admin: { path: 'system/admin/session', verb: 'POST' },
      user: { path: 'user/session', verb: 'POST' },
      oauth: [],
      adldap: [],
      saml: [],
      allow_open_registration: false,
      open_reg_email_service_id: null,
      login_attribute: 'email',
    });
    // The built-in apps are the reference's launchable consoles: an administrator is offered them.
    expect(env.apps.map((app: { name: string }) => app.name)).toEqual(['admin', 'api_docs', 'file_manager']);
  });

  it('offers each caller the launchable apps that are theirs: anonymous callers those with a default role, users also their own', async () => {
    const role = (await api('POST', '/system/role', { resource: [{ name: 'launch-role' }] })).body.resource[0].id;
    const apps = await api('POST', '/system/app?fields=id,name', {
      resource: [
        { name: 'launch-public', type: 2, url: 'https://public.example', role_id: role },
        { name: 'launch-private', type: 2, url: 'https://private.example' },
        { name: 'launch-assigned', type: 2, url: 'https://assigned.example' },
        { name: 'launch-key-only', type: 0, role_id: role },
      ],
    });
    const assigned = apps.body.resource.find((app: { name: string }) => app.name === 'launch-assigned').id;
    const builtins = (await api('GET', '/system/app?fields=id,name')).body.resource;
    const fileManager = builtins.find((app: { name: string }) => app.name === 'file_manager').id;
    await api('POST', '/system/user', {
      resource: [
        {
          name: 'Launcher',
          email: 'launcher@x.io',
          password: 'launcher-password-123',
          user_to_app_to_role_by_user_id: [
            { app_id: assigned, role_id: role },
            { app_id: fileManager, role_id: role },
          ],
        },
      ],
    });
    const names = (body: { apps: Array<{ name: string }> }) => body.apps.map((app) => app.name).filter((name) => name.startsWith('launch'));
    expect(names((await api('GET', '/system/environment', undefined, null)).body)).toEqual(['launch-public']);
    const login = await api('POST', '/user/session', { email: 'launcher@x.io', password: 'launcher-password-123' }, null);
    const asUser = await api('GET', '/system/environment', undefined, { token: login.body.session_token });
    expect(names(asUser.body)).toEqual(['launch-public', 'launch-assigned']);
    // A built-in app the user is assigned to is theirs too; the others are not.
    expect(asUser.body.apps.map((app: { name: string }) => app.name)).toContain('file_manager');
    expect(asUser.body.apps.map((app: { name: string }) => app.name)).not.toContain('admin');
    expect(names((await api('GET', '/system/environment')).body)).toEqual(['launch-public', 'launch-private', 'launch-assigned']);
    await api('DELETE', `/system/app?ids=${apps.body.resource.map((app: { id: number }) => app.id).join(',')}`);
    await api('DELETE', '/system/user?filter=email%3D%22launcher%40x.io%22');
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

describe("GET /user/session with an administrator's token (2)", () => {
  it("returns the administrator's session, as the console restores it on every reload", async () => {
    // The console sends its token in X-DreamFactory-Session-Token with an empty Authorization, or as a Bearer token.
    const variants: Array<Record<string, string>> = [
      { 'x-dreamfactory-session-token': token, authorization: '' },
      { authorization: `Bearer ${token}` },
    ];
    for (const headers of variants) {
      const response = await api('GET', '/user/session', undefined, null, headers);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        email: 'admin@test.local',
        is_sys_admin: true,
        is_root_admin: true,
        session_token: expect.any(String),
        id: expect.any(Number),
      });
    }
  });

  it("still refuses an administrator's login at POST /user/session", async () => {
    const response = await api('POST', '/user/session', { email: 'admin@test.local', password: 'admin-password-12345' }, null);
    expect(response.status).toBe(401);
  });
});

describe('lenient input on system resources (3)', () => {
  it('takes integers as numeric strings ("type":"0" on an app)', async () => {
    const role = await api('POST', '/system/role', { resource: [{ name: 'lenient-role' }] });
    const created = await api('POST', '/system/app?fields=*', {
      resource: [{ name: 'lenient-app', type: '0', role_id: String(role.body.resource[0].id), is_active: true }],
    });
    expect(created.status).toBe(201);
    expect(created.body.resource[0]).toMatchObject({ name: 'lenient-app', type: 0, role_id: role.body.resource[0].id });
    const patched = await api('PATCH', `/system/app/${created.body.resource[0].id}?fields=type,url`, {
      type: '2',
      url: 'https://app.example',
    });
    expect(patched.body).toMatchObject({ type: 2, url: 'https://app.example' });
    expect((await api('POST', '/system/app', { resource: [{ name: 'lenient-app2', type: 'zero' }] })).status).toBe(400);
  });

  it('takes null for the optional texts the schema says may be null, read back as ""', async () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['role', { name: 'null-texts' }, ['description']],
      ['app', { name: 'null-texts' }, ['label', 'description']],
      ['service', { name: 'null_texts', label: 'N', type: 'local_email' }, ['description']],
      ['cors', { path: 'null-texts/*', origin: '*' }, ['description', 'header', 'exposed_header']],
      ['lookup', { name: 'null_texts', value: 'v' }, ['description']],
      ['email_template', { name: 'null-texts' }, ['description', 'subject', 'body_text', 'body_html']],
    ];
    for (const [resource, record, texts] of cases) {
      const nulls = Object.fromEntries(texts.map((name) => [name, null]));
      const created = await api('POST', `/system/${resource}?fields=${texts.join(',')}`, { resource: [{ ...record, ...nulls }] });
      expect(created.status, resource).toBe(201);
      expect(created.body.resource[0], resource).toEqual(Object.fromEntries(texts.map((name) => [name, ''])));
    }
    const role = (await api('GET', '/system/role?filter=name=null-texts&fields=id')).body.resource[0].id;
    const nested = await api('PATCH', `/system/role/${role}?related=lookup_by_role_id`, {
      description: null,
      lookup_by_role_id: [{ name: 'nested_null', value: 'v', description: null }],
    });
    expect(nested.status).toBe(200);
    expect(nested.body.lookup_by_role_id[0].description).toBe('');
  });

  it('takes the profile form back with a blank username (read as none, as on the account records)', async () => {
    const profile = (await api('GET', '/system/admin/profile')).body;
    const saved = await api('POST', '/system/admin/profile', { ...profile, username: '', phone: '555', security_answer: '' });
    expect(saved.body).toEqual({ success: true });
    expect((await api('GET', '/system/admin/profile')).body).toMatchObject({ username: null, phone: '555' });
  });

  it('reads a blank api_key (null or "") on an app as none: generated on create, kept on update', async () => {
    const created = await api('POST', '/system/app?fields=id,api_key', {
      resource: [
        { name: 'blank-key-null', api_key: null },
        { name: 'blank-key-empty', api_key: '' },
      ],
    });
    expect(created.status).toBe(201);
    const [first, second] = created.body.resource;
    for (const app of [first, second]) expect(app.api_key).toMatch(/^[0-9a-f]{64}$/);
    const updated = await api('PUT', `/system/app/${first.id}?fields=api_key`, { name: 'blank-key-null', api_key: '' });
    expect(updated.body.api_key).toBe(first.api_key);
    expect((await api('POST', '/system/app', { resource: [{ name: 'short-key', api_key: 'short' }] })).status).toBe(400);
  });

  it.each(['user', 'admin'])('reads username "" as null on %s, twice over (no unique clash)', async (resource) => {
    const base = { name: `Blank ${resource}`, username: '', password: 'a-long-enough-password' };
    const first = await api('POST', `/system/${resource}?fields=username`, { resource: [{ ...base, email: `blank1-${resource}@x.io` }] });
    const second = await api('POST', `/system/${resource}?fields=username`, { resource: [{ ...base, email: `blank2-${resource}@x.io` }] });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.resource[0].username).toBeNull();
  });

  it('takes the restricted-admin fields the console sends for administrators (restricted-admins.test.ts), and a blank password', async () => {
    const created = await api('POST', '/system/admin', {
      resource: [
        {
          name: 'Tabbed',
          email: 'tabbed@x.io',
          password: 'a-long-enough-password',
          is_active: true,
          access_by_tabs: ['apps', 'users'],
          is_restricted_admin: true,
          lookup_by_user_id: [],
        },
      ],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    const updated = await api('PUT', `/system/admin/${id}`, {
      name: 'Tabbed',
      email: 'tabbed@x.io',
      is_active: true,
      access_by_tabs: [],
      is_restricted_admin: false,
      password: null,
    });
    expect(updated.status).toBe(200);
    const login = await api('POST', '/system/admin/session', { email: 'tabbed@x.io', password: 'a-long-enough-password' }, null);
    expect(login.status).toBe(200);
    expect((await api('GET', `/system/admin/${id}`)).body).not.toHaveProperty('access_by_tabs');
  });

  it('keeps filter_op as sent, in any case', async () => {
    const created = await api('POST', '/system/role?related=role_service_access_by_role_id', {
      resource: [
        {
          name: 'op-case',
          role_service_access_by_role_id: [
            { service_id: null, component: '*', verb_mask: 1, requestor_mask: 1, filters: [], filter_op: 'OR' },
            { service_id: null, component: 'x', verb_mask: 1, requestor_mask: 1, filters: [], filter_op: 'And' },
          ],
        },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.resource[0].role_service_access_by_role_id.map((g: { filter_op: string }) => g.filter_op)).toEqual(['OR', 'And']);
    expect(
      (
        await api('POST', '/system/role', {
          resource: [{ name: 'op-bad', role_service_access_by_role_id: [{ component: '*', verb_mask: 1, filter_op: 'xor' }] }],
        })
      ).status,
    ).toBe(400);
  });

  it('defaults a blank service label to the name and drops null config fields the type does not take', async () => {
    const created = await api('POST', '/system/service?fields=name,label,config', {
      resource: [
        {
          id: null,
          name: 'blank_label',
          label: '',
          description: '',
          is_active: true,
          type: 'local_email',
          storage_service_id: null,
          config: { directory: null },
        },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.resource[0]).toEqual({ name: 'blank_label', label: 'blank_label', config: { directory: 'data/mail' } });
  });
});

describe('a failed create in the shape the console reads', () => {
  // The console shows `error.context.resource[0].message` when creating a role, user, admin, app,
  // CORS rule or email template fails (the reference answers every POST as a batch).
  it.each([
    ['role', { description: 'no name' }, 400, "Field 'name' is required."],
    ['user', { email: 'not-an-email', name: 'U' }, 400, 'Field \'email\' must match format "email".'],
    [
      'admin',
      { name: 'A', email: 'short-pw@x.io', password: 'short' },
      400,
      'Invalid data supplied. The password must be at least 16 characters.',
    ],
    ['app', { name: 'admin' }, 409, "Duplicate entry: a record with the same 'name' already exists."],
    ['cors', { path: 'api/v2/*' }, 400, "Field 'origin' is required."],
    ['email_template', { name: 'User Invite Default' }, 409, "Duplicate entry: a record with the same 'name' already exists."],
    [
      'role',
      { name: 'bad grant', role_service_access_by_role_id: [{ service_id: 9999, component: '*', verb_mask: 1, requestor_mask: 1 }] },
      400,
      "Field 'role_service_access_by_role_id[0].service_id' refers to no service with id 9999.",
    ],
  ])('POST /system/%s %o: its own status and message, and context.resource[0].message', async (resource, record, status, message) => {
    const response = await api('POST', `/system/${resource}`, { resource: [record] });
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ code: status, message });
    expect(response.body.error.context.resource).toEqual([expect.objectContaining({ code: status, message })]);
    expect(response.body.error.context.errors).toEqual([{ index: 0, message, code: status }]);
  });

  it("several records: the batch error, nothing written, the failing record's message at its index", async () => {
    const response = await api('POST', '/system/role', {
      resource: [{ name: 'batch-one' }, { name: 'batch-one' }, { name: 'batch-three' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('Batch Error: Not all requested records could be created. All changes rolled back.');
    expect(response.body.error.context.errors).toEqual([
      { index: 1, message: "Duplicate entry: a record with the same 'name' already exists.", code: 409 },
    ]);
    expect(response.body.error.context.resource).toEqual([
      null,
      expect.objectContaining({ code: 409, message: "Duplicate entry: a record with the same 'name' already exists." }),
    ]);
    const invalid = await api('POST', '/system/role', { resource: [{ name: 'batch-four' }, { description: 'nameless' }] });
    expect(invalid.body.error.context.resource).toEqual([
      null,
      expect.objectContaining({ code: 400, message: "Field 'resource[1].name' is required." }),
    ]);
    expect((await api('GET', `/system/role?filter=${encodeURIComponent("name like 'batch-%'")}`)).body.resource).toEqual([]);
  });
});

describe('service documents: related=service_doc_by_service_id (4)', () => {
  const doc = JSON.stringify({ openapi: '3.0.0', info: { title: 'Mail', version: '1' }, paths: {} });

  it('creates a service with its document, reads it back, replaces it, and removes it with null', async () => {
    const created = await api('POST', '/system/service?fields=*&related=service_doc_by_service_id', {
      resource: [
        {
          id: null,
          name: 'documented',
          label: 'Documented',
          description: '',
          is_active: true,
          type: 'local_email',
          config: {},
          service_doc_by_service_id: { content: doc, format: 0 },
        },
      ],
    });
    expect(created.status).toBe(201);
    const service = created.body.resource[0];
    expect(service.service_doc_by_service_id).toMatchObject({ id: expect.any(Number), service_id: service.id, format: 0, content: doc });

    const read = await api('GET', `/system/service/${service.id}?related=service_doc_by_service_id`);
    expect(read.body.service_doc_by_service_id).toEqual(service.service_doc_by_service_id);

    // The console PUTs the record it read, with the document changed (keeping its id).
    const yaml = 'openapi: 3.0.0\ninfo: {title: Mail, version: "2"}\npaths: {}\n';
    const put = await api('PUT', `/system/service/${service.id}?related=service_doc_by_service_id`, {
      ...read.body,
      service_doc_by_service_id: { ...read.body.service_doc_by_service_id, content: yaml, format: '1' },
    });
    expect(put.status).toBe(200);
    expect(put.body.service_doc_by_service_id).toMatchObject({ id: service.service_doc_by_service_id.id, format: 1, content: yaml });

    const removed = await api('PATCH', `/system/service/${service.id}?related=service_doc_by_service_id`, {
      service_doc_by_service_id: null,
    });
    expect(removed.body.service_doc_by_service_id).toBeNull();
    const list = await api('GET', '/system/service?filter=name=documented&related=service_doc_by_service_id');
    expect(list.body.resource[0].service_doc_by_service_id).toBeNull();
  });

  it.each([
    ['a bad document', { service_doc_by_service_id: { content: doc, format: 7 } }, '', 'service_doc_by_service_id.format'],
    ['a document that is not an object', { service_doc_by_service_id: 'text' }, '', 'service_doc_by_service_id'],
    [
      'a document without content (null)',
      { service_doc_by_service_id: { content: null, format: 0 } },
      '',
      'service_doc_by_service_id.content',
    ],
    ['an unknown relation in related', {}, '&related=service_doc_by_service_id,nosuch', 'related'],
  ])('writes nothing when the POST has %s, so a retry does not meet a 409', async (_case, extra, query, field) => {
    const record = { name: 'half_written', label: 'Half', type: 'local_email', config: {}, ...extra };
    const response = await api('POST', `/system/service?fields=*${query}`, { resource: [record] });
    expect(response.status).toBe(400);
    expect(response.body.error.context.field).toBe(field);
    expect((await api('GET', '/system/service?filter=name=half_written')).body.resource).toEqual([]);
    expect((await api('POST', '/system/service', { resource: [{ ...record, service_doc_by_service_id: null }] })).status).toBe(201);
    await api('DELETE', '/system/service?filter=name=half_written');
  });
});

describe('GET /{service}?as_access_list=true (5)', () => {
  const list = async (service: string) => {
    const response = await api('GET', `/${service}?as_access_list=true`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.resource as string[];
  };

  it("lists a database's components: the service, _schema and _table, and each table under them", async () => {
    const file = path.join(server.dir, 'book.sqlite');
    const db = new Database(file);
    db.exec('create table contact (id integer primary key, name text); create table contact_group (id integer primary key, name text)');
    db.close();
    expect(
      (
        await api('POST', '/system/service', {
          resource: [{ name: 'book', label: 'Book', type: 'sqlite', config: { database: 'book.sqlite' } }],
        })
      ).status,
    ).toBe(201);
    expect(await list('book')).toEqual([
      '',
      '*',
      '_schema/',
      '_schema/*',
      '_schema/contact/',
      '_schema/contact/*',
      '_schema/contact_group/',
      '_schema/contact_group/*',
      '_table/',
      '_table/*',
      '_table/contact/',
      '_table/contact/*',
      '_table/contact_group/',
      '_table/contact_group/*',
    ]);
  });

  it("lists a SOAP service's operations", async () => {
    fs.mkdirSync(path.join(server.dir, 'wsdl'), { recursive: true });
    fs.copyFileSync(
      path.resolve('test/golden/scenarios/soap-calculator/calculator.wsdl'),
      path.join(server.dir, 'wsdl', 'calculator.wsdl'),
    );
    expect(
      (
        await api('POST', '/system/service', {
          resource: [{ name: 'calc', label: 'Calc', type: 'soap', config: { wsdl: 'calculator.wsdl' } }],
        })
      ).status,
    ).toBe(201);
    expect(await list('calc')).toEqual(['', '*', 'Add', 'Divide', 'Multiply', 'Subtract']);
  });

  it('lists the system, user and api_docs components, and "" and "*" for services without parts', async () => {
    const system = await list('system');
    expect(system.slice(0, 2)).toEqual(['', '*']);
    expect(system).toEqual(expect.arrayContaining(['app/', 'app/*', 'role/', 'role/*', 'admin/session', 'environment/']));
    expect(await list('user')).toEqual(['', '*', 'password', 'profile', 'register', 'session']);
    expect(await list('api_docs')).toEqual(expect.arrayContaining(['', '*', 'system', 'user', 'email']));
    expect(await list('files')).toEqual(['', '*']);
  });

  it('names components a grant then honours', async () => {
    const role = await api('POST', '/system/role', {
      resource: [
        {
          name: 'picked',
          is_active: true,
          role_service_access_by_role_id: [
            {
              service_id: (await api('GET', '/system/service?filter=name=book&fields=id')).body.resource[0].id,
              component: '_table/contact/*',
              verb_mask: 1,
              requestor_mask: 1,
            },
          ],
        },
      ],
    });
    const app = await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'picked-app', role_id: role.body.resource[0].id }] });
    const key = app.body.resource[0].api_key;
    expect((await api('GET', '/book/_table/contact', undefined, { key })).status).toBe(200);
    expect((await api('GET', '/book/_table/contact_group', undefined, { key })).status).toBe(401);
  });
});

describe('GET /system/service_type: config_schema as field descriptors (6)', () => {
  interface Descriptor {
    name: string;
    label: string;
    type: string;
    description: string;
    default: unknown;
    required: boolean;
    allow_null: boolean;
    values?: unknown[];
    items?: unknown;
    object?: unknown;
  }

  it("describes every type's config as the reference's array of fields", async () => {
    const response = await api('GET', '/system/service_type');
    expect(response.status).toBe(200);
    const types = response.body.resource as Array<{ name: string; group: string; config_schema: Descriptor[] }>;
    expect(types.length).toBeGreaterThan(5);
    for (const type of types) {
      expect(type, type.name).toMatchObject({
        label: expect.any(String),
        description: expect.any(String),
        group: expect.any(String),
        singleton: expect.any(Boolean),
        subscription_required: false,
      });
      expect(Array.isArray(type.config_schema), type.name).toBe(true);
      for (const field of type.config_schema) {
        expect(field, `${type.name}.${field.name}`).toMatchObject({
          name: expect.any(String),
          label: expect.any(String),
          description: expect.any(String),
          required: expect.any(Boolean),
          allow_null: expect.any(Boolean),
        });
        expect(['string', 'text', 'password', 'integer', 'boolean', 'picklist', 'multi_picklist', 'array', 'object']).toContain(field.type);
        if (field.type === 'picklist')
          expect(field.values, `${type.name}.${field.name}`).toEqual(
            expect.arrayContaining([{ label: expect.any(String), name: expect.anything() }]),
          );
        if (field.type === 'object')
          expect(field.object).toEqual({
            key: { label: expect.any(String), type: 'string' },
            value: { label: expect.any(String), type: 'string' },
          });
      }
    }
  });

  it('gives required fields, defaults, passwords, picklists and nested records', async () => {
    const field = async (type: string, name: string) => {
      const response = await api('GET', `/system/service_type/${type}`);
      expect(response.status).toBe(200);
      return (response.body.config_schema as Descriptor[]).find((f) => f.name === name);
    };
    expect(await field('sqlite', 'database')).toMatchObject({ type: 'string', required: true, allow_null: false, label: 'Database' });
    expect(await field('sqlite', 'max_records')).toMatchObject({ type: 'integer', default: 1000, required: false });
    expect(await field('pgsql', 'password')).toMatchObject({ type: 'password' });
    expect(await field('soap', 'wsse_password_type')).toMatchObject({
      type: 'picklist',
      default: 'PasswordDigest',
      values: [
        { label: 'PasswordDigest', name: 'PasswordDigest' },
        { label: 'PasswordText', name: 'PasswordText' },
      ],
    });
    expect(await field('soap', 'options')).toMatchObject({ type: 'object' });
    expect((await field('soap', 'headers'))?.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'namespace', type: 'string' })]),
    );
    expect(await field('user', 'allow_open_registration')).toMatchObject({
      type: 'boolean',
      label: 'Allow Open Registration',
      default: false,
    });
    expect((await field('user', 'app_role_map'))?.items).toEqual([
      expect.objectContaining({ name: 'app_id', type: 'integer', required: true }),
      expect.objectContaining({ name: 'role_id', type: 'integer', required: true }),
    ]);
    expect((await api('GET', '/system/service_type/nosuch')).status).toBe(404);
    expect((await api('GET', '/system/service_type?group=Database&fields=name')).body.resource).toEqual([
      { name: 'mysql' },
      { name: 'pgsql' },
      { name: 'sqlite' },
    ]);
  });

  it('takes back the config a form builds from the descriptors (every field, defaults, blanks as null or "")', async () => {
    const schema = (await api('GET', '/system/service_type/sqlite')).body.config_schema as Descriptor[];
    const config = Object.fromEntries(schema.map((f) => [f.name, f.default]));
    Object.assign(config, { database: 'formed.sqlite', seed: '' });
    const created = await api('POST', '/system/service?fields=config', {
      resource: [
        { id: null, name: 'formed', label: '', description: '', is_active: true, type: 'sqlite', config, service_doc_by_service_id: null },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.resource[0].config).toMatchObject({ database: 'formed.sqlite', max_records: 1000, allow_upsert: false });
    expect(created.body.resource[0].config).not.toHaveProperty('seed');
  });
});

describe('GET /system/cache (7)', () => {
  it('lists the services with a cache of their own, which DELETE then clears', async () => {
    fs.writeFileSync(path.join(server.dir, 'cached.sqlite'), '');
    expect(
      (
        await api('POST', '/system/service', {
          resource: [{ name: 'cached', label: 'Cached', type: 'sqlite', config: { database: 'cached.sqlite' } }],
        })
      ).status,
    ).toBe(201);
    const list = await api('GET', '/system/cache?fields=*');
    expect(list.status).toBe(200);
    expect(list.body.resource).toContainEqual({ name: 'cached', label: 'Cached', description: '', type: 'sqlite' });
    expect(list.body.resource.map((c: { name: string }) => c.name)).not.toContain('system');
    for (const cache of list.body.resource) expect((await api('DELETE', `/system/cache/${cache.name}`)).body).toEqual({ success: true });
  });
});

describe('built-ins editable through the API (8)', () => {
  const withRegistration = (allow: boolean): PlatformModel =>
    minimalModel({
      roles: [{ name: 'registered', description: '', is_active: true, origin: 'platform', grants: [] }],
      settings: { ...minimalModel().settings, allowOpenRegistration: allow, openRegistrationRole: 'registered' },
    });

  it("keeps the admin app's key and the user service's config across restarts; a changed platform.yaml seeds again", async () => {
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
      const put = await admin('PUT', `/system/service/${userService.id}`, {
        ...userService,
        config: { ...userService.config, allow_open_registration: true, open_reg_email_service_id: null },
      });
      expect(put.status).toBe(200);
      expect((await admin('PUT', `/system/service/${userService.id}`, { ...userService, label: 'Renamed' })).status).toBe(400);
      await app.close();

      ({ app, admin } = await start(withRegistration(false)));
      const anonymous = apiClient(app, () => ({ key: REFERENCE_ADMIN_KEY }));
      expect((await anonymous('GET', '/system/environment')).body.authentication.allow_open_registration).toBe(true);
      const registered = await anonymous('POST', '/user/register', {
        email: 'new@x.io',
        first_name: 'New',
        last_name: 'User',
        new_password: 'a-long-enough-password',
      });
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

  it("sends password-reset mail with the template and email service the user service's config names", async () => {
    const template = await api('POST', '/system/email_template', {
      resource: [{ name: 'Console reset', subject: 'Reset for {email}', body_text: 'Your code: {code}' }],
    });
    const email = (await api('GET', '/system/service?filter=name=email&fields=id')).body.resource[0].id;
    const userService = (await api('GET', '/system/service?filter=name=user&fields=*')).body.resource[0];
    const config = { ...userService.config, password_email_service_id: email, password_email_template_id: template.body.resource[0].id };
    expect((await api('PATCH', `/system/service/${userService.id}`, { config })).status).toBe(200);
    await api('POST', '/system/user', { resource: [{ name: 'Reset Me', email: 'reset-me@x.io', password: 'a-long-enough-password' }] });
    expect((await api('POST', '/user/password?reset=true', { email: 'reset-me@x.io' }, null)).body).toEqual({ success: true });
    const dir = path.join(server.dir, 'data/mail');
    const last = fs.readdirSync(dir).sort().at(-1) as string;
    const mail = JSON.parse(fs.readFileSync(path.join(dir, last), 'utf8'));
    expect(mail).toMatchObject({ subject: 'Reset for reset-me@x.io', body_text: expect.stringMatching(/^Your code: [0-9A-Z]{32}$/) });
  });

  it('refuses changes to the other built-in services', async () => {
    const email = (await api('GET', '/system/service?filter=name=email&fields=*')).body.resource[0];
    const response = await api('PUT', `/system/service/${email.id}`, { ...email, config: { directory: 'elsewhere' } });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(
      "The service 'email' is built into every platform and cannot be changed through the API: change platform.yaml and rebuild.",
    );
  });
});
