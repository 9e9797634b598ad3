/**
 * The access matrix: every route the server documents (GET /api/v2/api_docs, plus the root
 * listing and each service's _spec) is called as eight callers, and the status must be the one
 * the access rules decide. A route without an expected decision here fails the test, so a route
 * added later must be decided.
 *
 * Expected values: 'ok' means access was granted (any status but 401 and 403: the handler may
 * still answer 400 or 404 to the empty requests sent here); 401 and 403 are exact.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import type { Verb } from '#runtime/model/platform-model.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const SCENARIOS = [
  'no key',
  'unknown key',
  'no token',
  'expired token',
  'revoked token',
  'non-admin user',
  'role lacking the verb',
  'administrator',
] as const;
type Scenario = (typeof SCENARIOS)[number];
type Outcome = 'ok' | 401 | 403;
type Row = Record<Scenario, Outcome>;

const row = (...outcomes: Outcome[]): Row => Object.fromEntries(SCENARIOS.map((s, i) => [s, outcomes[i]])) as Row;
//                        no key  unknown  no token expired revoked  user   lacking  admin
const OPEN = row('ok', 401, 'ok', 'ok', 'ok', 'ok', 'ok', 'ok');
const ROLE = row(401, 401, 401, 401, 401, 'ok', 403, 'ok');
const ADMIN = row(401, 401, 401, 401, 401, 403, 403, 'ok');
/** Open, but about the caller's own session or profile: the handler needs a valid session. */
const ADMIN_SESSION = row(401, 401, 401, 401, 401, 401, 401, 'ok');
const USER_SESSION = row(401, 401, 401, 401, 401, 'ok', 'ok', 'ok');
const USER_REFRESH = row(401, 401, 401, 'ok', 401, 'ok', 'ok', 'ok');
const OWN_PROFILE = row(401, 401, 401, 401, 401, 'ok', 'ok', 'ok');
/** The root listing is open, but a token sent must be valid. */
const ROOT = row('ok', 401, 'ok', 401, 401, 'ok', 'ok', 'ok');

/** Accounts are for administrators only (spec); the other record resources follow role grants. */
const ADMIN_RECORD_RESOURCES = ['admin', 'user'];
const ROLE_RECORD_RESOURCES = ['app', 'cors', 'custom', 'email_template', 'limit', 'lookup', 'role', 'scheduler', 'service'];

/** The decided routes of the runtime's own services, as `METHOD /service/path`. */
const DECIDED: Record<string, Row> = {
  'GET /': ROOT,
  'GET /system': ROLE,
  'GET /system/service_type': ROLE,
  'GET /system/service_type/{name}': ROLE,
  'GET /system/event': ROLE,
  'GET /system/event_script': ROLE,
  'GET /system/event_script/{name}': ROLE,
  'GET /system/access_usage': ROLE,
  'GET /system/script_type': ROLE,
  'GET /system/script_type/{name}': ROLE,
  // Written by the platform: read and deleted through the API, as the other record resources by role grants.
  'GET /system/service_report': ROLE,
  'DELETE /system/service_report': ROLE,
  'GET /system/service_report/{id}': ROLE,
  'DELETE /system/service_report/{id}': ROLE,
  'GET /system/constant': ROLE,
  'GET /system/constant/{name}': ROLE,
  'GET /system/environment': OPEN,
  'POST /system/admin/session': OPEN,
  'GET /system/admin/session': ADMIN_SESSION,
  // The expired token is a user's: refreshable (within the refresh window), but not here.
  'PUT /system/admin/session': ADMIN_SESSION,
  'DELETE /system/admin/session': OPEN,
  'POST /system/admin/password': OPEN,
  'GET /system/admin/profile': ADMIN,
  'POST /system/admin/profile': ADMIN,
  'PUT /system/admin/profile': ADMIN,
  'PATCH /system/admin/profile': ADMIN,
  'GET /system/cache': ROLE,
  'DELETE /system/cache': ROLE,
  'DELETE /system/cache/{service}': ROLE,
  'GET /system/limit_cache': ROLE,
  'DELETE /system/limit_cache': ROLE,
  'GET /system/limit_cache/{id}': ROLE,
  'DELETE /system/limit_cache/{id}': ROLE,
  'GET /system/package': ADMIN,
  'POST /system/package': ADMIN,
  ...Object.fromEntries(
    [...ADMIN_RECORD_RESOURCES.map((r) => [r, ADMIN] as const), ...ROLE_RECORD_RESOURCES.map((r) => [r, ROLE] as const)].flatMap(
      ([r, rule]) => [
        ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [`${m} /system/${r}`, rule]),
        ...['GET', 'PUT', 'PATCH', 'DELETE'].map((m) => [`${m} /system/${r}/{id}`, rule]),
      ],
    ),
  ),
  'GET /user': OPEN,
  'POST /user/session': OPEN,
  'GET /user/session': USER_SESSION,
  'PUT /user/session': USER_REFRESH,
  'DELETE /user/session': OPEN,
  'POST /user/register': OPEN,
  'POST /user/password': OPEN,
  'GET /user/profile': OWN_PROFILE,
  'POST /user/profile': OWN_PROFILE,
  'PUT /user/profile': OWN_PROFILE,
  'PATCH /user/profile': OWN_PROFILE,
  'GET /api_docs': ROLE,
  'GET /api_docs/{service}': ROLE,
};

/** Services whose routes are decided above; every other service's routes follow its role (DESIGN 4). */
const INTERNAL_SERVICES = new Set(['system', 'user', 'api_docs']);

const PATH_VALUES: Record<string, string> = { name: 'verb', service: 'email', table_name: 'item', field_name: 'title', id: '999999' };
const METHODS: Verb[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const BIT: Record<Verb, number> = { GET: 1, POST: 2, PUT: 4, PATCH: 8, DELETE: 16 };

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};
let server: TestServer;
let api: Api;
let adminId: number;
let userId: number;
const lackingUser: Partial<Record<Verb, number>> = {};
let appKey: string;
let routes: Array<{ method: Verb; template: string; service: string }> = [];

beforeAll(async () => {
  server = await startTestServer(minimalModel({ settings: { ...minimalModel().settings, allowOpenRegistration: true } }), {
    clock: clock as Clock,
  });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const db = new Database(path.join(server.dir, 'matrix.sqlite'));
  db.exec('create table item (id integer primary key autoincrement, title text not null)');
  db.close();
  await api('POST', '/system/service', { resource: [{ name: 'db', label: 'DB', type: 'sqlite', config: { database: 'matrix.sqlite' } }] });
  // A service of every other served type; the remote ones point at a closed port (their handlers
  // then answer 503, which is still access granted).
  const closed = 'http://127.0.0.1:1';
  const created = await api('POST', '/system/service', {
    resource: [
      { name: 'm_local', label: 'Local', type: 'local_file', config: { container: 'matrix-files' } },
      { name: 'm_ftp', label: 'FTP', type: 'ftp_file', config: { host: '127.0.0.1', port: 1, container: '/x', timeout: 2 } },
      { name: 'm_sftp', label: 'SFTP', type: 'sftp_file', config: { host: '127.0.0.1', port: 1, container: '/x', timeout: 2 } },
      { name: 'm_dav', label: 'WebDAV', type: 'webdav_file', config: { base_uri: closed, timeout: 2 } },
      { name: 'm_smtp', label: 'SMTP', type: 'smtp_email', config: { host: '127.0.0.1', port: 1, timeout: 2 } },
      { name: 'm_rws', label: 'HTTP', type: 'rws', config: { base_url: `${closed}/api`, timeout: 2 } },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  appKey = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'matrix' }] })).body.resource[0].api_key;
  const appId = (await api('GET', '/system/app?filter=name=matrix&fields=id')).body.resource[0].id;
  const userWithRole = async (email: string, mask: number) => {
    const role = (
      await api('POST', '/system/role', {
        resource: [{ name: `role-${email}`, role_service_access_by_role_id: [{ service_id: null, component: '*', verb_mask: mask }] }],
      })
    ).body.resource[0].id;
    const created = await api('POST', '/system/user', {
      resource: [{ name: email, email, user_to_app_to_role_by_user_id: [{ app_id: appId, role_id: role }] }],
    });
    return created.body.resource[0].id as number;
  };
  userId = await userWithRole('all@x.io', 31);
  for (const verb of METHODS) lackingUser[verb] = await userWithRole(`no-${verb.toLowerCase()}@x.io`, 31 & ~BIT[verb]);
  adminId = (await api('GET', '/system/admin/session')).body.id;

  // The route table, from what the server documents.
  const docs = await api('GET', '/api_docs');
  for (const [template, item] of Object.entries(docs.body.paths as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      if (item[method.toLowerCase()] !== undefined) routes.push({ method, template, service: template.split('/')[1] });
    }
  }
  const services = (await api('GET', '/api/v2?fields=name')).body.services as Array<{ name: string }>;
  routes.push({ method: 'GET', template: '/', service: '' });
  for (const { name } of services) routes.push({ method: 'GET', template: `/${name}/_spec`, service: name });
  routes = routes.sort((a, b) => (a.template + a.method < b.template + b.method ? -1 : 1));
});
afterAll(async () => server.close());

function expected(route: { method: Verb; template: string; service: string }): Row | undefined {
  const key = `${route.method} ${route.template}`;
  if (DECIDED[key]) return DECIDED[key];
  if (route.template === `/${route.service}/_spec`) return ROLE;
  return INTERNAL_SERVICES.has(route.service) ? undefined : ROLE;
}

/** Credentials of a scenario, with fresh tokens (a logout in one call must not end the next). */
async function credentials(scenario: Scenario, verb: Verb): Promise<Record<string, string>> {
  const ctx = server.app.portico;
  const holder = async (id: number) => (await ctx.directory.user(id))!;
  const token = async (id: number) => ctx.tokens.issue(await holder(id), 60).token;
  switch (scenario) {
    case 'no key':
      return {};
    case 'unknown key':
      return { 'x-service-api-key': 'f'.repeat(64) };
    case 'no token':
      return { 'x-service-api-key': appKey };
    case 'expired token': {
      const now = clock.time;
      clock.time -= 3 * 3600_000;
      const old = await token(userId);
      clock.time = now;
      return { 'x-service-api-key': appKey, 'x-service-session-token': old };
    }
    case 'revoked token': {
      const issued = ctx.tokens.issue(await holder(userId), 60);
      await ctx.directory.revoke(issued.claims.jti, issued.claims.exp);
      return { 'x-service-api-key': appKey, 'x-service-session-token': issued.token };
    }
    case 'non-admin user':
      return { 'x-service-api-key': appKey, 'x-service-session-token': await token(userId) };
    case 'role lacking the verb':
      return { 'x-service-api-key': appKey, 'x-service-session-token': await token(lackingUser[verb] as number) };
    case 'administrator':
      return { 'x-service-api-key': appKey, 'x-service-session-token': await token(adminId) };
  }
}

describe('access matrix', () => {
  it('covers the documented routes of every service', () => {
    expect(routes.length).toBeGreaterThan(100);
    for (const service of [
      'system',
      'user',
      'api_docs',
      'db',
      'email',
      'files',
      'logs',
      'm_local',
      'm_ftp',
      'm_sftp',
      'm_dav',
      'm_smtp',
      'm_rws',
    ]) {
      expect(
        routes.some((r) => r.service === service),
        service,
      ).toBe(true);
    }
  });

  it('decides every route for every caller', async () => {
    const undecided = routes.filter((route) => expected(route) === undefined).map((r) => `${r.method} ${r.template}`);
    expect(undecided, 'routes without an expected decision: add them to DECIDED').toEqual([]);
    const failures: string[] = [];
    for (const route of routes) {
      const decision = expected(route) as Row;
      const url = route.template.replace(/\{(\w+)\}/g, (_m, name: string) => PATH_VALUES[name] ?? name);
      for (const scenario of SCENARIOS) {
        const headers = await credentials(scenario, route.method);
        const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
        const response = await api(route.method, `/api/v2${url === '/' ? '' : url}`, body, null, headers);
        const want = decision[scenario];
        const ok = want === 'ok' ? response.status !== 401 && response.status !== 403 : response.status === want;
        if (!ok)
          failures.push(
            `${route.method} ${route.template} as ${scenario}: got ${response.status} (${response.body?.error?.message}), want ${want}`,
          );
      }
    }
    expect(failures).toEqual([]);
  });
});
