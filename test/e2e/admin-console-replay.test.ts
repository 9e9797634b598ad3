/**
 * The reference platform's admin console (df-admin-interface), replayed screen by screen against
 * the generated quickstart server over HTTP: each step sends the request the console sends (its
 * URL, query parameters, headers and body, as its services and components build them) and checks
 * the status and the fields the console then reads. Every response must be a success except the
 * one failure the console expects (its user login attempt before the admin login).
 *
 * The console sends the API keys it was built with; the operator points the quickstart's
 * built-in apps at them once, through the API (what issue 12 asks to be possible).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';

const ADMIN = { email: 'console@portico.local', password: 'console-password-0123456789' };
/** The keys the console's bundle carries for the admin, api_docs and file_manager apps. */
const CONSOLE_KEYS: Record<string, string> = {
  admin: '6498a8ad1beb9d84d63035c5d1120c007fad6de706734db9689f8996707e0f7d',
  api_docs: '36fda24fe5588fa4285ac6c6c2fdfbdb6b6bc9834699774c9bf777f706d05a88',
  file_manager: 'b5cb82af7b5d4130f36149f90aa2746782e59a872ac70454ac188743cb55b0ba',
};

let server: RunningQuickstart;
/** The console's session cookie. */
let token: string | null = null;
/** Every response the console did not expect to fail. */
const unexpected: string[] = [];

interface Options {
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The failure status the console expects here (it handles it). */
  expectFailure?: number;
}

/** One request as the console's HTTP interceptors send it: its API key, its session token, its own headers. */
async function consoleCall(method: string, path: string, options: Options = {}): Promise<{ status: number; body: any }> {
  const url = new URL(`/api/v2${path}`, server.url);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = {
    'X-DreamFactory-API-Key': CONSOLE_KEYS.admin,
    'Cache-Control': 'no-cache, private',
    'show-loading': '',
    Accept: 'application/json, text/plain, */*',
    'User-Agent': 'Mozilla/5.0 (console replay)',
    ...(token ? { 'X-DreamFactory-Session-Token': token } : {}),
    ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...options.headers,
  };
  const response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  const ok = response.status < 400;
  if (options.expectFailure !== undefined) expect(response.status, `${method} ${path}`).toBe(options.expectFailure);
  else if (!ok) unexpected.push(`${method} ${url.pathname}${url.search} -> ${response.status} ${text}`);
  expect(ok || options.expectFailure !== undefined, `${method} ${url.pathname}${url.search} -> ${response.status} ${text}`).toBe(true);
  return { status: response.status, body };
}

/** DfBaseCrudService.getAll: limit 50, offset 0, include_count, plus the caller's options. */
const getAll = (path: string, query: Record<string, string | number | boolean> = {}) =>
  consoleCall('GET', path, { query: { limit: 50, offset: 0, include_count: true, ...query } });

/**
 * The services resolver of a screen listing some service-type groups, then its table: the table
 * shows the services only once the event scripts (its Scripting column) have come.
 */
async function servicesOfGroups(groups: string[], query: Record<string, string | number> = {}) {
  const types = (await Promise.all(groups.map((group) => getAll('/system/service_type', { fields: 'name', group })))).flatMap(
    (r) => r.body.resource as Array<{ name: string }>,
  );
  const list = await getAll('/system/service', { sort: 'name', filter: `(type in ("${types.map((t) => t.name).join('","')}"))`, ...query });
  const scripts = await getAll('/system/event_script');
  return { types, list: list.body, scripts: scripts.body.resource as Array<{ name: string }> };
}

beforeAll(async () => {
  server = await startQuickstart(copyQuickstart(), { PORTICO_ADMIN_EMAIL: ADMIN.email, PORTICO_ADMIN_PASSWORD: ADMIN.password });
  // The operator's one-time step: the built-in apps take the keys the console was built with.
  const headers = { 'X-Service-API-Key': server.apiKey, 'Content-Type': 'application/json' };
  const login = (await (
    await fetch(`${server.url}/api/v2/system/admin/session`, { method: 'POST', headers, body: JSON.stringify(ADMIN) })
  ).json()) as { session_token: string };
  const auth = { ...headers, 'X-Service-Session-Token': login.session_token };
  const apps = (await (await fetch(`${server.url}/api/v2/system/app?fields=id,name`, { headers: auth })).json()) as {
    resource: Array<{ id: number; name: string }>;
  };
  // The admin app last: its old key is the one these calls carry.
  const builtins = apps.resource
    .filter((a) => CONSOLE_KEYS[a.name])
    .sort((a, b) => Number(a.name === 'admin') - Number(b.name === 'admin'));
  expect(builtins.map((a) => a.name)).toEqual(['api_docs', 'file_manager', 'admin']);
  for (const app of builtins) {
    const response = await fetch(`${server.url}/api/v2/system/app/${app.id}`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ api_key: CONSOLE_KEYS[app.name] }),
    });
    expect(response.status).toBe(200);
  }
});

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

describe('the admin console against the quickstart', () => {
  let dbServiceId: number;

  it('login: environment, the user login it expects to fail, the admin login, then the licence check', async () => {
    const before = await consoleCall('GET', '/system/environment');
    expect(before.body.authentication).toMatchObject({
      allow_open_registration: false,
      login_attribute: 'email',
      oauth: [],
      saml: [],
      adldap: [],
    });
    await consoleCall('POST', '/user/session', { body: { email: ADMIN.email, password: ADMIN.password }, expectFailure: 401 });
    const session = await consoleCall('POST', '/system/admin/session', { body: { email: ADMIN.email, password: ADMIN.password } });
    expect(session.body).toMatchObject({
      session_token: expect.any(String),
      session_id: expect.any(String),
      is_sys_admin: true,
      is_root_admin: true,
      email: ADMIN.email,
      name: expect.any(String),
      host: expect.any(String),
      token_expiry_date: expect.any(String),
    });
    token = session.body.session_token;
    const env = await consoleCall('GET', '/system/environment');
    expect(env.body.platform.license).toBe('OPEN SOURCE');
    expect(env.body.server).toMatchObject({
      host: expect.any(String),
      machine: expect.any(String),
      release: expect.any(String),
      server_os: expect.any(String),
      version: expect.any(String),
    });
  });

  it('reload, new tab, deep link: the session is restored with GET /user/session', async () => {
    const restored = await consoleCall('GET', '/user/session', { headers: { Authorization: '' } });
    expect(restored.body).toMatchObject({ is_sys_admin: true, is_root_admin: true, email: ADMIN.email, session_token: expect.any(String) });
  });

  it('home: the system resources (paywall check) and the services', async () => {
    const system = await consoleCall('GET', '/system', { headers: { 'skip-error': 'true' } });
    expect(system.body.resource.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['admin', 'app', 'role', 'service', 'user', 'cors', 'email_template', 'lookup', 'cache']),
    );
    const root = await consoleCall('GET', '', { query: { fields: 'name,label,type' } });
    expect(root.body.services.map((s: { name: string }) => s.name)).toContain('db');
  });

  it('services: each service tab (its service-type groups), and the platform APIs', async () => {
    const tabs = [
      ['Database', 'Big Data'],
      ['Script'],
      ['Remote Service'],
      ['File', 'Excel'],
      ['Cache', 'Email', 'Notification', 'Log', 'Source Control', 'IoT'],
      ['LDAP', 'SSO', 'OAuth'],
      ['Log'],
      ['MCP'],
    ];
    for (const groups of tabs) {
      const { list } = await servicesOfGroups(groups);
      expect(list.meta.count, groups.join()).toBe(list.resource.length);
    }
    expect((await servicesOfGroups(['Remote Service'])).types.map((t) => t.name)).toContain('soap');
    expect((await servicesOfGroups(['Cache', 'Email'])).list.resource.map((s: { name: string }) => s.name)).toContain('email');
    // The quickstart's contact_info hook is the db service's script.
    const { scripts } = await servicesOfGroups(['Database']);
    expect(scripts.find((script) => script.name.includes('db'))).toMatchObject({
      name: expect.stringMatching(/^db\._table\.contact_info\./),
      is_active: true,
    });
    const platform = await getAll('/system/service', { sort: 'name', filter: '(created_by_id is null) and (name != "api_docs")' });
    expect(platform.body.resource.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['system', 'user', 'db']));
    expect(platform.body.resource.map((s: { name: string }) => s.name)).not.toContain('api_docs');
  });

  it('services: the list of database services', async () => {
    const { types, list } = await servicesOfGroups(['Database', 'Big Data']);
    expect(types.map((t) => t.name)).toEqual(expect.arrayContaining(['sqlite', 'pgsql', 'mysql']));
    const db = list.resource.find((s: { name: string }) => s.name === 'db');
    expect(db).toMatchObject({
      id: expect.any(Number),
      name: 'db',
      label: expect.any(String),
      type: 'sqlite',
      is_active: true,
      created_by_id: null,
    });
    expect(list.meta.count).toBeGreaterThanOrEqual(1);
    dbServiceId = db.id;
  });

  let created: { id: number; name: string };

  it("services: create a database service from the type's config_schema, test its connection, open its docs", async () => {
    const types = await getAll('/system/service_type');
    for (const type of types.body.resource) expect(Array.isArray(type.config_schema), type.name).toBe(true);
    const sqlite = types.body.resource.find((t: { name: string }) => t.name === 'sqlite');
    await consoleCall('GET', '/system/lookup', { query: { fields: 'name', limit: '100' } });
    // initializeConfig: a control per descriptor, holding its default; the user fills in the database.
    const config: Record<string, unknown> = Object.fromEntries(
      sqlite.config_schema.map((f: { name: string; default: unknown }) => [f.name, f.default]),
    );
    config.database = 'data/console.sqlite';
    const payload = {
      type: 'sqlite',
      name: 'console_db',
      label: '',
      description: 'Made in the console',
      is_active: true,
      storage_service_id: null,
      service_doc_by_service_id: null,
      config,
      id: null,
    };
    const response = await consoleCall('POST', '/system/service', { body: { resource: [payload] } });
    expect(response.status).toBe(201);
    created = { id: response.body.resource[0].id, name: 'console_db' };
    await consoleCall('GET', '/console_db/_table');
    const byName = await consoleCall('GET', '/system/service', { query: { filter: 'name=console_db' } });
    expect(byName.body.resource[0].id).toBe(created.id);
    const docs = await consoleCall('GET', '/api_docs/console_db', { headers: { 'X-DreamFactory-API-Key': CONSOLE_KEYS.api_docs } });
    expect(docs.body).toMatchObject({ openapi: expect.any(String), paths: expect.any(Object) });
    // The docs screen's health check: the group's first endpoint (/_schema for a database).
    expect(docs.body.info.group).toBe('Database');
    await consoleCall('GET', '/console_db/_schema');
  });

  it('services: create a SOAP service (a network service: its document saved with it), list its operations', async () => {
    fs.mkdirSync(`${server.dir}/wsdl`, { recursive: true });
    fs.copyFileSync('test/golden/scenarios/soap-calculator/calculator.wsdl', `${server.dir}/wsdl/calculator.wsdl`);
    const soap = (await consoleCall('GET', '/system/service_type/soap')).body;
    expect(soap).toMatchObject({ group: 'Remote Service', service_definition_editable: true });
    const config: Record<string, unknown> = Object.fromEntries(
      soap.config_schema.map((f: { name: string; default: unknown }) => [f.name, f.default]),
    );
    Object.assign(config, { wsdl: 'calculator.wsdl', content: '' });
    const doc = JSON.stringify({ openapi: '3.0.0', info: { title: 'Calculator', version: '1' }, paths: {} });
    const response = await consoleCall('POST', '/system/service', {
      query: { fields: '*', related: 'service_doc_by_service_id' },
      body: {
        resource: [
          {
            type: 'soap',
            name: 'calculator',
            label: 'Calculator',
            description: '',
            is_active: true,
            storage_service_id: null,
            config,
            service_doc_by_service_id: { content: doc, format: 0 },
            id: null,
          },
        ],
      },
    });
    expect(response.body.resource[0]).toMatchObject({ name: 'calculator', service_doc_by_service_id: { content: doc, format: 0 } });
    expect((await consoleCall('GET', '/calculator', { query: { as_access_list: true } })).body.resource).toEqual([
      '',
      '*',
      'Add',
      'Divide',
      'Multiply',
      'Subtract',
    ]);
  });

  it('services: edit (read with its document, PUT the merged record), then save and clear its cache', async () => {
    const service = (await consoleCall('GET', `/system/service/${created.id}`, { query: { related: 'service_doc_by_service_id' } })).body;
    expect(service).toMatchObject({
      id: created.id,
      name: 'console_db',
      label: 'console_db',
      type: 'sqlite',
      service_doc_by_service_id: null,
      config: expect.objectContaining({ database: 'data/console.sqlite' }),
    });
    const edit = {
      ...service,
      type: 'sqlite',
      name: 'console_db',
      label: 'Console DB',
      description: service.description,
      is_active: true,
      storage_service_id: null,
      config: { ...service.config, max_records: 500 },
      service_doc_by_service_id: null,
      id: created.id,
    };
    await consoleCall('PUT', `/system/service/${created.id}`, { body: edit });
    await consoleCall('DELETE', '/system/cache/console_db');
    expect((await consoleCall('GET', `/system/service/${created.id}`)).body).toMatchObject({
      label: 'Console DB',
      config: expect.objectContaining({ max_records: 500 }),
    });
  });

  let roleId: number;

  it('roles: list, create with access to a component picked from the access list, edit', async () => {
    const roles = await getAll('/system/role', { related: 'lookup_by_role_id', sort: 'name' });
    expect(roles.body.resource.map((r: { name: string }) => r.name)).toContain('reader');
    const services = await getAll('/system/service', { limit: 0, sort: 'name' });
    expect(services.body.resource.length).toBeGreaterThan(5);
    const components = (await consoleCall('GET', '/db', { query: { as_access_list: true } })).body.resource;
    expect(components).toEqual(
      expect.arrayContaining(['', '*', '_table/', '_table/*', '_table/contact/', '_table/contact/*', '_schema/*']),
    );
    const grant = {
      id: null,
      role_id: null,
      service_id: dbServiceId,
      component: '_table/contact/*',
      verb_mask: 1 + 2,
      requestor_mask: 1,
      filters: [{ name: 'first_name', operator: '!=', value: 'nobody' }],
      filter_op: 'AND',
    };
    const response = await consoleCall('POST', '/system/role', {
      query: { fields: '*', related: 'role_service_access_by_role_id,lookup_by_role_id' },
      body: {
        resource: [
          {
            id: null,
            name: 'console-role',
            description: 'From the console',
            is_active: true,
            role_service_access_by_role_id: [grant],
            lookup_by_role_id: [],
          },
        ],
      },
    });
    roleId = response.body.resource[0].id;
    expect(response.body.resource[0].role_service_access_by_role_id).toEqual([
      expect.objectContaining({ component: '_table/contact/*', verb_mask: 3, filter_op: 'AND' }),
    ]);

    const role = (
      await consoleCall('GET', `/system/role/${roleId}`, {
        query: { related: 'role_service_access_by_role_id,lookup_by_role_id', accessible_tabs: true },
      })
    ).body;
    const [existing] = role.role_service_access_by_role_id;
    await consoleCall('PUT', `/system/role/${roleId}`, {
      body: {
        id: roleId,
        name: 'console-role',
        description: 'Changed in the console',
        is_active: true,
        role_service_access_by_role_id: [
          { ...existing, verb_mask: 1 },
          { id: null, role_id: roleId, service_id: dbServiceId, component: '_schema/*', verb_mask: 1, requestor_mask: 1, filters: [] },
        ],
        lookup_by_role_id: [{ name: 'region', value: 'north', private: false, description: '' }],
      },
    });
    const after = (
      await consoleCall('GET', `/system/role/${roleId}`, { query: { related: 'role_service_access_by_role_id,lookup_by_role_id' } })
    ).body;
    expect(after.role_service_access_by_role_id.map((g: { component: string; verb_mask: number }) => [g.component, g.verb_mask])).toEqual([
      ['_table/contact/*', 1],
      ['_schema/*', 1],
    ]);
    expect(after.lookup_by_role_id).toEqual([expect.objectContaining({ name: 'region', value: 'north' })]);

    // The advanced filters, with the operators the console's picker offers.
    const filtered = await consoleCall('POST', '/system/role', {
      query: { fields: '*', related: 'role_service_access_by_role_id,lookup_by_role_id' },
      body: {
        resource: [
          {
            id: null,
            name: 'console-filtered-role',
            description: '',
            is_active: true,
            role_service_access_by_role_id: [
              {
                ...grant,
                filters: [
                  { name: 'first_name', operator: 'start with', value: 'J' },
                  { name: 'last_name', operator: 'end with', value: 'g' },
                ],
              },
            ],
            lookup_by_role_id: [],
          },
        ],
      },
    });
    expect(filtered.status).toBe(201);
    expect(filtered.body.resource[0].role_service_access_by_role_id[0].filters.map((f: { operator: string }) => f.operator)).toEqual([
      'start with',
      'end with',
    ]);
  });

  it('apps: list, create ("type":"0"), read, refresh the key, and the new key works', async () => {
    const list = await getAll('/system/app', { related: 'role_by_role_id', fields: '*', sort: 'name' });
    expect(list.body.resource.find((a: { name: string }) => a.name === 'admin')).toMatchObject({
      api_key: CONSOLE_KEYS.admin,
      created_by_id: null,
    });
    const response = await consoleCall('POST', '/system/app', {
      query: { fields: '*', related: 'role_by_role_id' },
      body: {
        resource: [
          {
            name: 'console-app',
            description: 'An app',
            type: '0',
            role_id: roleId,
            is_active: true,
            url: null,
            storage_service_id: null,
            storage_container: null,
            path: null,
          },
        ],
      },
    });
    const app = response.body.resource[0];
    expect(app).toMatchObject({
      name: 'console-app',
      type: 0,
      api_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      role_by_role_id: expect.objectContaining({ id: roleId }),
      launch_url: '',
    });
    const read = await consoleCall('GET', `/system/app/${app.id}`, { query: { related: 'role_by_role_id', fields: '*' } });
    expect(read.body.created_by_id).not.toBeNull();
    const newKey = 'f'.repeat(8) + app.api_key.slice(8);
    await consoleCall('PUT', `/system/app/${app.id}`, { body: { api_key: newKey } });
    // The app's default role reads contacts with the new key; the old key is no app any more.
    const contacts = await fetch(`${server.url}/api/v2/db/_table/contact?limit=1`, { headers: { 'X-DreamFactory-API-Key': newKey } });
    expect(contacts.status).toBe(200);
    expect(
      (await fetch(`${server.url}/api/v2/db/_table/contact?limit=1`, { headers: { 'X-DreamFactory-API-Key': app.api_key } })).status,
    ).toBe(401);
    expect((await consoleCall('GET', `/system/app/${app.id}`, { query: { fields: 'api_key' } })).body.api_key).toBe(newKey);
  });

  it('users: list, create with an app role and lookups, edit', async () => {
    await getAll('/system/user', { sort: 'name' });
    const apps = await getAll('/system/app', { sort: 'name' });
    await getAll('/system/role', { sort: 'name' });
    const appId = apps.body.resource.find((a: { name: string }) => a.name === 'addressbook').id;
    const response = await consoleCall('POST', '/system/user', {
      query: { send_invite: false },
      body: {
        resource: [
          {
            username: '',
            email: 'console-user@x.io',
            first_name: 'Con',
            last_name: 'Sole',
            name: 'Con Sole',
            phone: '',
            is_active: true,
            lookup_by_user_id: [],
            user_to_app_to_role_by_user_id: [{ app_id: appId, role_id: roleId }],
            password: 'console-user-password-1',
          },
        ],
      },
    });
    const id = response.body.resource[0].id;
    const user = (
      await consoleCall('GET', `/system/user/${id}`, { query: { related: 'lookup_by_user_id,user_to_app_to_role_by_user_id' } })
    ).body;
    // The details page: "Confirmed: Yes", no invitation to send (an account with a password).
    expect(user).toMatchObject({
      confirmed: true,
      email: 'console-user@x.io',
      username: null,
      user_to_app_to_role_by_user_id: [expect.objectContaining({ app_id: appId, role_id: roleId })],
      lookup_by_user_id: [],
    });
    await consoleCall('PUT', `/system/user/${id}`, {
      body: {
        username: 'consoleuser',
        email: 'console-user@x.io',
        first_name: 'Con',
        last_name: 'Sole',
        name: 'Con Sole',
        phone: '555',
        is_active: true,
        lookup_by_user_id: [{ name: 'desk', value: '7', private: false, id: null }],
        user_to_app_to_role_by_user_id: user.user_to_app_to_role_by_user_id,
      },
    });
    expect((await consoleCall('GET', `/system/user/${id}`, { query: { related: 'lookup_by_user_id' } })).body).toMatchObject({
      username: 'consoleuser',
      phone: '555',
      lookup_by_user_id: [expect.objectContaining({ name: 'desk', value: '7' })],
    });
    // The users table's download buttons: the list as CSV, XML and JSON files.
    const download = async (type: string) => {
      const url = new URL('/api/v2/system/user', server.url);
      for (const [name, value] of Object.entries({ limit: 50, offset: 0, include_count: true, file: `list.${type}` }))
        url.searchParams.set(name, String(value));
      const response = await fetch(url, {
        headers: {
          'X-DreamFactory-API-Key': CONSOLE_KEYS.admin,
          'X-DreamFactory-Session-Token': token!,
          Accept: 'application/json, text/plain, */*',
        },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="list.${type}"`);
      return { type: response.headers.get('content-type'), text: await response.text() };
    };
    const csv = await download('csv');
    expect(csv.type).toMatch(/^text\/csv/);
    const [header, ...lines] = csv.text.trim().split('\r\n');
    expect(header.split(',')).toEqual(expect.arrayContaining(['id', 'email', 'first_name', 'confirmed']));
    expect(lines.some((line) => line.includes('console-user@x.io'))).toBe(true);
    const xml = await download('xml');
    expect(xml.type).toMatch(/^application\/xml/);
    expect(xml.text).toMatch(/^<\?xml[^>]*\?>\n<dfapi><resource><id>\d+<\/id>/);
    expect(xml.text).toContain('<email>console-user@x.io</email>');
    expect(JSON.parse((await download('json')).text).resource.map((u: { email: string }) => u.email)).toContain('console-user@x.io');
    // The users table: its registration column says confirmed, not pending.
    const users = await getAll('/system/user', { sort: 'name' });
    expect(users.body.resource.find((u: { id: number }) => u.id === id)).toMatchObject({ confirmed: true });
    const admins = await getAll('/system/admin', { sort: 'name' });
    expect(admins.body.resource.find((a: { email: string }) => a.email === ADMIN.email)).toMatchObject({ confirmed: true });
    const login = await consoleCall('POST', '/user/session', {
      body: { email: 'console-user@x.io', password: 'console-user-password-1' },
      headers: { 'X-DreamFactory-Session-Token': '' },
    });
    expect(login.body).toMatchObject({ is_sys_admin: false, role_id: null });
  });

  it('admins: list, create with tab choices (a restricted administrator), their session and tabs, edit back to a full administrator', async () => {
    await getAll('/system/admin', { sort: 'name' });
    const response = await consoleCall('POST', '/system/admin', {
      query: { send_invite: false },
      body: {
        resource: [
          {
            username: '',
            email: 'console-admin@x.io',
            first_name: 'Ad',
            last_name: 'Min',
            name: 'Ad Min',
            phone: '',
            is_active: true,
            access_by_tabs: ['apps', 'users', 'services'],
            is_restricted_admin: true,
            lookup_by_user_id: [],
            password: 'console-admin-password-1',
          },
        ],
      },
    });
    const id = response.body.resource[0].id;
    // adminsResolver: the admin with its assignments, then its role's tabs.
    const admin = (
      await consoleCall('GET', `/system/admin/${id}`, { query: { related: 'user_to_app_to_role_by_user_id,lookup_by_user_id' } })
    ).body;
    expect(admin).toMatchObject({
      email: 'console-admin@x.io',
      user_to_app_to_role_by_user_id: [expect.objectContaining({ role_id: expect.any(Number) })],
      lookup_by_user_id: [],
    });
    const restrictedRole = admin.user_to_app_to_role_by_user_id[0].role_id;
    const role = (
      await consoleCall('GET', `/system/role/${restrictedRole}`, { query: { related: 'lookup_by_role_id', accessible_tabs: true } })
    ).body;
    expect(role.accessible_tabs).toEqual(['apps', 'users', 'services', 'config']);

    // The restricted administrator's own console: its session, then its side navigation's tabs.
    const session = await fetch(`${server.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-DreamFactory-API-Key': CONSOLE_KEYS.admin },
      body: JSON.stringify({ email: 'console-admin@x.io', password: 'console-admin-password-1' }),
    });
    const restricted = (await session.json()) as { session_token: string; is_sys_admin: boolean; is_root_admin: boolean; role_id: number };
    expect(restricted).toMatchObject({ is_sys_admin: true, is_root_admin: false, role_id: restrictedRole });
    const tabs = await consoleCall('GET', `/system/role/${restrictedRole}`, {
      query: { related: 'role_service_access_by_role_id', accessible_tabs: true },
      headers: { 'X-DreamFactory-Session-Token': restricted.session_token },
    });
    expect(tabs.body.accessible_tabs).toEqual(['apps', 'users', 'services', 'config']);
    const services = await consoleCall('GET', '/system/service', {
      query: { limit: 10 },
      headers: { 'X-DreamFactory-Session-Token': restricted.session_token },
    });
    expect(services.body.resource.length).toBeGreaterThan(0);

    await consoleCall('PUT', `/system/admin/${id}`, {
      body: {
        username: 'consoleadmin',
        email: 'console-admin@x.io',
        first_name: 'Ad',
        last_name: 'Min',
        name: 'Ad Min',
        phone: '',
        is_active: true,
        access_by_tabs: [],
        is_restricted_admin: false,
        lookup_by_user_id: [],
      },
    });
    expect(
      (await consoleCall('GET', `/system/admin/${id}`, { query: { related: 'user_to_app_to_role_by_user_id' } })).body
        .user_to_app_to_role_by_user_id,
    ).toEqual([]);
    const login = await fetch(`${server.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-DreamFactory-API-Key': CONSOLE_KEYS.admin },
      body: JSON.stringify({ email: 'console-admin@x.io', password: 'console-admin-password-1' }),
    });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ is_root_admin: true, role_id: null });
  });

  it('CORS: list, create, read, edit, delete', async () => {
    await getAll('/system/cors');
    const response = await consoleCall('POST', '/system/cors', {
      query: { fields: '*' },
      body: {
        resource: [
          {
            path: 'api/v2/db/*',
            description: 'Console',
            origin: 'https://console.example',
            header: '*',
            exposed_header: '',
            max_age: 0,
            method: ['GET', 'POST'],
            supports_credentials: false,
            enabled: true,
          },
        ],
      },
    });
    const cors = response.body.resource[0];
    expect(cors).toMatchObject({ id: expect.any(Number), method: ['GET', 'POST'], enabled: true });
    const read = (await consoleCall('GET', `/system/cors/${cors.id}`, { query: { fields: '*' } })).body;
    await consoleCall('PUT', `/system/cors/${cors.id}`, {
      body: {
        path: 'api/v2/db/*',
        description: 'Edited',
        origin: 'https://console.example',
        header: '*',
        exposed_header: '',
        max_age: 3600,
        method: ['GET'],
        supports_credentials: false,
        enabled: true,
        created_by_id: read.created_by_id,
        created_date: read.created_date,
        last_modified_by_id: read.last_modified_by_id,
        last_modified_date: read.last_modified_date,
      },
    });
    expect((await consoleCall('GET', `/system/cors/${cors.id}`)).body).toMatchObject({ max_age: 3600, method: ['GET'] });
    await consoleCall('DELETE', `/system/cors/${cors.id}`, { query: { fields: '*' } });
  });

  it('cache: the per-service caches, one flushed, then all', async () => {
    const caches = await getAll('/system/cache', { fields: '*' });
    expect(caches.body.resource).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'db', label: expect.any(String) })]));
    await consoleCall('DELETE', '/system/cache/db');
    await consoleCall('DELETE', '/system/cache');
  });

  it('email templates: list, create, read, edit', async () => {
    const list = await getAll('/system/email_template', { fields: '*' });
    expect(list.body.resource.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['User Invite Default', 'Password Reset Default', 'User Registration Default']),
    );
    const response = await consoleCall('POST', '/system/email_template', {
      query: { fields: '*' },
      body: {
        resource: [
          {
            name: 'Console template',
            description: '',
            to: '',
            cc: '',
            bcc: '',
            subject: 'Hello',
            attachment: '',
            body_html: '<p>Hi</p>',
            from_name: '',
            from_email: '',
            reply_to_name: '',
            reply_to_email: '',
          },
        ],
      },
    });
    const id = response.body.resource[0].id;
    expect((await consoleCall('GET', `/system/email_template/${id}`)).body).toMatchObject({
      name: 'Console template',
      subject: 'Hello',
      body_html: '<p>Hi</p>',
    });
    await consoleCall('PUT', `/system/email_template/${id}`, {
      body: {
        name: 'Console template',
        description: 'Edited',
        to: 'a@x.io',
        cc: '',
        bcc: '',
        subject: 'Hello again',
        attachment: '',
        body_html: '<p>Hi</p>',
        from_name: 'Portico',
        from_email: 'noreply@x.io',
        reply_to_name: '',
        reply_to_email: '',
      },
    });
    expect((await consoleCall('GET', `/system/email_template/${id}`)).body).toMatchObject({ subject: 'Hello again', to: ['a@x.io'] });
  });

  it('global lookups: list, create, update, delete', async () => {
    await getAll('/system/lookup');
    const response = await consoleCall('POST', '/system/lookup', {
      query: { fields: '*' },
      body: {
        resource: [
          { name: 'tenant', value: 'acme', private: false, id: null },
          { name: 'secret', value: 'hush', private: true, id: null },
        ],
      },
    });
    const [tenant, secret] = response.body.resource;
    expect(secret.value).toBe('**********');
    await consoleCall('PUT', `/system/lookup/${tenant.id}`, { body: { ...tenant, value: 'acme2' } });
    await consoleCall('DELETE', '/system/lookup', { query: { ids: secret.id } });
    expect((await getAll('/system/lookup')).body.resource).toEqual([expect.objectContaining({ name: 'tenant', value: 'acme2' })]);
  });

  it('schema: the databases, their tables, one table and its fields', async () => {
    const { list } = await servicesOfGroups(['Database']);
    expect(list.resource.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['db', 'console_db']));
    const tables = await consoleCall('GET', '/db/_schema', { query: { fields: 'name,label' } });
    expect(tables.body.resource).toEqual(expect.arrayContaining([{ name: 'contact', label: expect.any(String) }]));
    const table = await consoleCall('GET', '/db/_schema/contact?refresh=true');
    expect(table.body).toMatchObject({
      name: 'contact',
      label: expect.any(String),
      plural: expect.any(String),
      primary_key: ['id'],
      field: expect.any(Array),
      related: expect.any(Array),
    });
    const fields = await consoleCall('GET', '/db/_schema/contact/_field');
    expect(fields.body.resource.map((f: { name: string }) => f.name)).toContain('first_name');
  });

  it("data explorer: database services, tables, a table's schema and a page of its records", async () => {
    const types = await Promise.all(
      ['Database', 'Big Data'].map((group) => consoleCall('GET', '/system/service_type', { query: { fields: 'name', group } })),
    );
    const names = types.flatMap((r) => r.body.resource.map((t: { name: string }) => t.name));
    const services = await consoleCall('GET', '/system/service', {
      query: { filter: `(type in ("${names.join('","')}"))`, fields: 'id,name,label,description,type', limit: '100', sort: 'name' },
    });
    expect(services.body.resource[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      label: expect.any(String),
      description: expect.any(String),
      type: expect.any(String),
    });
    await consoleCall('GET', '/db/_schema');
    await consoleCall('GET', '/db/_schema/contact', { query: { refresh: 'true' } });
    const page = await consoleCall('GET', '/db/_table/contact', {
      query: { limit: '50', offset: '0', include_count: 'true', order: 'last_name ASC' },
    });
    expect(page.body.meta.count).toBeGreaterThan(0);
    expect(page.body.resource[0]).toHaveProperty('first_name');
  });

  it("API docs: the documented services, one service's document, the keys that can call it", async () => {
    const list = await getAll('/system/service', { limit: 100, filter: '(type not like "%swagger%")' });
    expect(list.body.meta.count).toBe(list.body.resource.length);
    expect(list.body.resource.map((s: { type: string }) => s.type)).not.toContain('swagger');
    await consoleCall('GET', '/system/service', { query: { filter: 'name=db' } });
    const doc = await consoleCall('GET', '/api_docs/db', { headers: { 'X-DreamFactory-API-Key': CONSOLE_KEYS.api_docs } });
    expect(Object.keys(doc.body.paths)).toContain('/_table/contact');
    const roles = await consoleCall('GET', '/system/role?related=role_service_access_by_role_id');
    for (const role of roles.body.resource)
      await consoleCall('GET', '/system/app', { query: { filter: `role_id=${role.id}`, fields: '*' } });
  });

  it('system info: platform, server and client', async () => {
    const env = await consoleCall('GET', '/system/environment');
    expect(env.body.platform).toMatchObject({
      version: expect.any(String),
      license: 'OPEN SOURCE',
      db_driver: 'sqlite',
      install_path: expect.any(String),
    });
    expect(env.body.client).toMatchObject({
      user_agent: 'Mozilla/5.0 (console replay)',
      ip_address: expect.any(String),
      locale: expect.any(String),
    });
  });

  it('files and logs: the file manager lists, creates a folder and a file, reads and deletes them; the logs screen lists its folder', async () => {
    const root = await consoleCall('GET', '/files/', { query: { include_folders: true, include_files: true } });
    expect(root.body).toHaveProperty('resource');
    await consoleCall('POST', '/files/', { headers: { 'X-Folder-Name': 'console-replay' } });
    await consoleCall('POST', '/files/console-replay/', {
      body: {
        resource: [{ name: 'hello.txt', type: 'file', content: Buffer.from('hello from the console').toString('base64'), is_base64: true }],
      },
    });
    const listed = await consoleCall('GET', '/files/console-replay/', { query: { include_folders: true, include_files: true } });
    expect(listed.body.resource.map((entry: { name: string }) => entry.name)).toContain('hello.txt');
    const url = new URL('/api/v2/files/console-replay/hello.txt', server.url);
    const file = await fetch(url, { headers: { 'X-DreamFactory-API-Key': CONSOLE_KEYS.admin, 'X-DreamFactory-Session-Token': token! } });
    expect([file.status, await file.text()]).toEqual([200, 'hello from the console']);
    await consoleCall('DELETE', '/files/console-replay/', { query: { force: true } });
    const logs = await consoleCall('GET', '/logs/', { query: { include_folders: true, include_files: true } });
    expect(logs.body).toHaveProperty('resource');
  });

  it('logout: the admin session ends, and the token no longer restores it', async () => {
    expect((await consoleCall('DELETE', '/system/admin/session')).body).toEqual({ success: true });
    await consoleCall('GET', '/user/session', { headers: { Authorization: '' }, expectFailure: 401 });
    token = null;
  });

  it('met no response the console did not expect', () => {
    expect(unexpected).toEqual([]);
  });
});
