/**
 * A caller governed by a role (a restricted administrator given a role that writes roles, users,
 * administrators, apps and packages; a regular user whose role writes roles and apps) gives no
 * access wider than its own role: no role created or changed to reach further (verbs,
 * components, a carve-out of the caller's dropped, looser row filters), no such role assigned to
 * a user, an administrator or an app, no restricted administrator given tabs it lacks, and no
 * change at all to the grants of a role that governs it. 403 saying why, nothing written, by
 * id, ids=, filter=, batch, nested records or package. What it leaves as it was stays allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api, type ApiResponse } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

const kinds: Array<'sqlite' | 'postgres'> = ['sqlite', ...((await requireService('postgres')) ? (['postgres'] as const) : [])];

const PASSWORD = 'role-width-password-1234';
const ALL = 31;
const SYSTEM = 1;
type GrantRecord = { service_id: number | null; component: string; verb_mask: number; requestor_mask?: number; filters?: unknown[] };
/** A grant on the system service, for calls and scripts alike (as the console's tabs make them). */
const grant = (component: string, verb_mask: number, extra: Partial<GrantRecord> = {}): GrantRecord => ({
  service_id: SYSTEM,
  component,
  verb_mask,
  requestor_mask: 3,
  ...extra,
});
const corsFilter = { name: 'path', operator: 'like', value: 'm/%' };

describe.each(kinds)('a caller governed by a role gives no access wider than its own (%s system database)', (kind) => {
  let server: TestServer;
  let database: TestDatabase | null = null;
  let root: Api;
  let asManager: Api;
  let asRoler: Api;
  let adminApp: number;
  let sideApp: number;
  let sideKey: string;
  /** The manager's role (for the admin app) and its other one (for the side app). */
  let managerRole: number;
  let managerSide: number;
  let rolerRole: number;
  let broad: number;
  let targetUser: number;

  const role = async (name: string, grants: GrantRecord[]) => {
    const created = await root('POST', '/system/role', { resource: [{ name, role_service_access_by_role_id: grants }] });
    expect(created.status).toBe(201);
    return created.body.resource[0].id as number;
  };
  /** A role's grants as stored, to see that nothing changed. */
  const grantsOf = async (id: number) =>
    (
      (await root('GET', `/system/role/${id}?related=role_service_access_by_role_id`)).body.role_service_access_by_role_id as Array<
        Record<string, unknown>
      >
    ).map(({ id: _id, created_date: _c, last_modified_date: _m, ...rest }) => rest);
  const names = async (resource: string, filter: string) =>
    (await root('GET', `/system/${resource}?filter=${encodeURIComponent(filter)}`)).body.resource.map((r: { name: string }) => r.name);
  const expectRefused = (response: ApiResponse, why: RegExp) => {
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe(403);
    expect(response.body.error.message).toMatch(why);
  };
  const WIDER =
    /^Access Forbidden\. Role '.+' would allow .+, which the caller's role does not: a caller governed by a role may give a role no access/;
  const ASSIGNED =
    /which the caller's role does not: a caller governed by a role may assign \(to a user, an administrator, an app or open registration\) only roles no wider than its own/;
  const OWN = /governs the caller: a caller governed by a role cannot change its own role's grants/;

  beforeAll(async () => {
    database = kind === 'sqlite' ? null : await createTestDatabase(kind);
    server = await startTestServer(minimalModel(), { systemDatabase: database?.url ?? ':memory:' });
    const rootToken = await server.adminToken();
    root = apiClient(server.app, () => ({ key: server.apiKey, token: rootToken }));
    adminApp = (await root('GET', '/system/app?filter=name=admin')).body.resource[0].id;
    const side = (await root('POST', '/system/app?fields=id,api_key', { resource: [{ name: 'side' }] })).body.resource[0];
    sideApp = side.id;
    sideKey = side.api_key;
    // Roles, users, administrators, apps and packages, but the admin app read-only, and CORS rules of its own paths only.
    managerRole = await role('manager', [
      grant('role/*', ALL),
      grant('user/*', ALL),
      grant('admin/*', ALL),
      grant('app/*', ALL),
      grant(`app/${adminApp}`, 1),
      grant('package/*', ALL),
      // Its calls' only: not the scripts' they set off.
      grant('service/*', 1, { requestor_mask: 1 }),
      grant('cors/*', 1, { filters: [corsFilter] }),
    ]);
    managerSide = await role('manager side', [grant('role/*', 1)]);
    rolerRole = await role('roler', [grant('role/*', ALL), grant('app/*', ALL)]);
    broad = await role('broad', [grant('*', ALL)]);
    const created = await root('POST', '/system/admin', {
      resource: [
        {
          name: 'Manager',
          email: 'manager@x.io',
          password: PASSWORD,
          user_to_app_to_role_by_user_id: [
            { app_id: adminApp, role_id: managerRole },
            { app_id: sideApp, role_id: managerSide },
          ],
        },
      ],
    });
    expect(created.status).toBe(201);
    const users = await root('POST', '/system/user', {
      resource: [
        { name: 'Target', email: 'target@x.io', password: PASSWORD },
        {
          name: 'Roler',
          email: 'roler@x.io',
          password: PASSWORD,
          user_to_app_to_role_by_user_id: [{ app_id: sideApp, role_id: rolerRole }],
        },
      ],
    });
    expect(users.status).toBe(201);
    targetUser = users.body.resource[0].id;
    const managerToken = (
      await root('POST', '/system/admin/session', { email: 'manager@x.io', password: PASSWORD }, { key: server.apiKey })
    ).body.session_token;
    asManager = apiClient(server.app, () => ({ key: server.apiKey, token: managerToken }));
    const rolerToken = (await root('POST', '/user/session', { email: 'roler@x.io', password: PASSWORD }, { key: sideKey })).body
      .session_token;
    asRoler = apiClient(server.app, () => ({ key: sideKey, token: rolerToken }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('cannot change the grants of a role that governs it, not even to narrow them; its other fields it can', async () => {
    const before = await grantsOf(managerRole);
    const everything = [grant('*', ALL)];
    for (const id of [managerRole, managerSide]) {
      expectRefused(await asManager('PATCH', `/system/role/${id}`, { role_service_access_by_role_id: everything }), OWN);
      expectRefused(await asManager('PATCH', '/system/role', { resource: [{ id, role_service_access_by_role_id: everything }] }), OWN);
    }
    const own = (await root('GET', `/system/role/${managerRole}?related=role_service_access_by_role_id`)).body
      .role_service_access_by_role_id;
    const carveOut = own.find((g: { component: string }) => g.component === `app/${adminApp}`);
    // Dropping its carve-out would let it change the admin app.
    expectRefused(
      await asManager('PATCH', `/system/role/${managerRole}`, { role_service_access_by_role_id: [{ id: carveOut.id, role_id: null }] }),
      OWN,
    );
    // A grant of another role moved into its own.
    const narrow = (
      await asManager('POST', '/system/role?related=role_service_access_by_role_id', {
        resource: [{ name: 'width-narrow', role_service_access_by_role_id: [grant('role/*', 1)] }],
      })
    ).body.resource[0];
    expectRefused(
      await asManager('PATCH', `/system/role/${narrow.id}`, {
        role_service_access_by_role_id: [{ id: narrow.role_service_access_by_role_id[0].id, role_id: managerRole }],
      }),
      OWN,
    );
    expect(await grantsOf(managerRole)).toEqual(before);
    expect(await grantsOf(narrow.id)).toHaveLength(1);
    expect((await asManager('POST', `/system/app/${adminApp}`)).status).not.toBe(201);
    // Its description, and the record saved back whole as read (the console's edit form), are no change of grants.
    expect((await asManager('PATCH', `/system/role/${managerRole}`, { description: 'mine' })).status).toBe(200);
    const whole = (await asManager('GET', `/system/role/${managerRole}?related=role_service_access_by_role_id`)).body;
    expect((await asManager('PUT', `/system/role/${managerRole}`, whole)).status).toBe(200);
    expect(await grantsOf(managerRole)).toEqual(before);
  });

  it('creates and changes roles only within its own: verbs, components, carve-outs, row filters; by id, ids=, filter=, batch', async () => {
    const post = (name: string, grants: GrantRecord[]) =>
      asManager('POST', '/system/role', { resource: [{ name, role_service_access_by_role_id: grants }] });
    expectRefused(await post('width-all', [grant('*', ALL)]), /would allow GET on the root of service 'system'/);
    expectRefused(
      await post('width-every-service', [{ ...grant('*', 1), service_id: null }]),
      /would allow GET on the root of every service/,
    );
    expectRefused(await post('width-verbs', [grant('role/*', ALL), grant('service/*', 3)]), /would allow POST on component 'service'/);
    expectRefused(await post('width-carve', [grant('app/*', ALL)]), new RegExp(`would allow POST on component 'app/${adminApp}'`));
    expectRefused(
      await post('width-filters', [grant('cors/*', 1)]),
      /would allow GET on component 'cors' of service 'system' with looser row filters/,
    );
    expectRefused(await post('width-script', [grant('service/*', 1)]), /would allow GET to scripts on component 'service'/);
    expect(WIDER.test((await post('width-all', [grant('*', ALL)])).body.error.message)).toBe(true);
    const batch = await asManager('POST', '/system/role', {
      resource: [
        { name: 'width-fine', role_service_access_by_role_id: [grant('role/*', 1)] },
        { name: 'width-wide', role_service_access_by_role_id: [grant('service/*', ALL)] },
      ],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.context.errors).toEqual([{ index: 1, code: 403, message: expect.stringMatching(WIDER) }]);
    expect(await names('role', "name like 'width-%' and name != 'width-narrow'")).toEqual([]);
    // Within: fewer verbs, a component inside a wildcard, the caller's row filters with more on top.
    const fine = await asManager('POST', '/system/role', {
      resource: [
        { name: 'width-a', role_service_access_by_role_id: [grant('role/*', 1)] },
        {
          name: 'width-b',
          role_service_access_by_role_id: [
            grant('app/5', ALL),
            grant('cors/*', 1, { filters: [corsFilter, { name: 'enabled', operator: '=', value: true }] }),
          ],
        },
      ],
    });
    expect(fine.status).toBe(201);
    const [a, b] = fine.body.resource.map((r: { id: number }) => r.id);
    const before = [await grantsOf(a), await grantsOf(b)];
    const wide = { role_service_access_by_role_id: [grant('service/*', ALL)] };
    expectRefused(await asManager('PATCH', `/system/role/${a}`, wide), WIDER);
    expectRefused(await asManager('PUT', `/system/role/${a}`, { name: 'width-a', ...wide }), WIDER);
    expectRefused(await asManager('PATCH', `/system/role?ids=${a},${b}`, { resource: [wide] }), WIDER);
    expectRefused(
      await asManager('PATCH', `/system/role?filter=${encodeURIComponent("name like 'width-%'")}`, { resource: [wide] }),
      WIDER,
    );
    expectRefused(
      await asManager('PATCH', '/system/role', {
        resource: [
          { id: a, description: 'fine' },
          { id: b, ...wide },
        ],
      }),
      WIDER,
    );
    expect([await grantsOf(a), await grantsOf(b)]).toEqual(before);
    expect((await root('GET', `/system/role/${a}`)).body.description).toBe('');
    expect((await asManager('PATCH', `/system/role/${a}`, { role_service_access_by_role_id: [grant('user/*', 1)] })).status).toBe(200);
  });

  it('assigns to users, administrators and apps only roles no wider than its own, and gives no restricted administrator a tab it lacks', async () => {
    const within = await role('width-within', [grant('role/*', 1)]);
    const assign = (role_id: number) => ({ user_to_app_to_role_by_user_id: [{ app_id: sideApp, role_id }] });
    expectRefused(await asManager('PATCH', `/system/user/${targetUser}`, assign(broad)), ASSIGNED);
    expectRefused(await asManager('PATCH', `/system/user?ids=${targetUser}`, { resource: [assign(broad)] }), ASSIGNED);
    expectRefused(await asManager('POST', '/system/user', { resource: [{ name: 'New', email: 'new@x.io', ...assign(broad) }] }), ASSIGNED);
    expect(
      (await root('GET', `/system/user/${targetUser}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id,
    ).toEqual([]);
    expect(await names('user', "email = 'new@x.io'")).toEqual([]);
    expect((await asManager('PATCH', `/system/user/${targetUser}`, assign(within))).status).toBe(200);
    // An assignment changed to a broad role, and one moved to another user.
    const theirs = (await root('GET', `/system/user/${targetUser}?related=user_to_app_to_role_by_user_id`)).body
      .user_to_app_to_role_by_user_id[0];
    expectRefused(
      await asManager('PATCH', `/system/user/${targetUser}`, { user_to_app_to_role_by_user_id: [{ id: theirs.id, role_id: broad }] }),
      ASSIGNED,
    );
    // Restricted administrators: tabs its role lacks, or a broad role; none (the defaults, within its own) it may give.
    expectRefused(
      await asManager('POST', '/system/admin', {
        resource: [{ name: 'Tabs', email: 'tabs@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['services'] }],
      }),
      ASSIGNED,
    );
    const restricted = await asManager('POST', '/system/admin', {
      resource: [{ name: 'Tabs', email: 'tabs@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: [] }],
    });
    expect(restricted.status).toBe(201);
    const tabsId = restricted.body.resource[0].id;
    const tabsRole = (await root('GET', `/system/admin/${tabsId}?related=user_to_app_to_role_by_user_id`)).body
      .user_to_app_to_role_by_user_id[0];
    for (const change of [
      { is_restricted_admin: true, access_by_tabs: ['services'] },
      { is_restricted_admin: true, access_by_tabs: ['apps'] },
      { user_to_app_to_role_by_user_id: [{ id: tabsRole.id, role_id: broad }] },
      { user_to_app_to_role_by_user_id: [{ app_id: sideApp, role_id: broad }] },
    ])
      expectRefused(await asManager('PATCH', `/system/admin/${tabsId}`, change), ASSIGNED);
    expect((await root('GET', `/system/role/${tabsRole.role_id}?accessible_tabs=true`)).body.accessible_tabs).toEqual(['config']);
    // Apps: a broad default role is refused on create and update.
    expectRefused(await asManager('POST', '/system/app', { resource: [{ name: 'width-app', role_id: broad }] }), ASSIGNED);
    expectRefused(await asManager('PATCH', `/system/app/${sideApp}`, { role_id: broad }), ASSIGNED);
    expect(await names('app', "name = 'width-app'")).toEqual([]);
    expect((await root('GET', `/system/app/${sideApp}`)).body.role_id).toBeNull();
    expect((await asManager('PATCH', `/system/app/${sideApp}`, { role_id: within })).status).toBe(200);
    // Packages write through the same resources, and are refused before any of their records is written.
    const everything = { service: 'system', component: '*', verbs: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], requestor_mask: 1 };
    for (const records of [
      { role: [{ name: 'width-package', is_active: true, grants: [everything] }] },
      { user: [{ name: 'Packed', email: 'packed@x.io', roles: [{ app: 'side', role: 'broad' }] }] },
      { app: [{ name: 'width-packed-app', role: 'broad' }] },
      {
        role: [{ name: 'width-package', is_active: true, grants: [{ ...everything, component: 'role/*', verbs: ['GET'] }] }],
        app: [{ name: 'width-packed-app', role: 'width-package' }],
        user: [{ name: 'Packed', email: 'packed@x.io', roles: [{ app: 'side', role: 'broad' }] }],
      },
    ]) {
      const refused = await asManager('POST', '/system/package?import=true', { version: 1, records });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/^Access Forbidden\. Role '.+' would allow/);
    }
    expect(await names('role', "name = 'width-package'")).toEqual([]);
    expect(await names('user', "email = 'packed@x.io'")).toEqual([]);
    expect(await names('app', "name = 'width-packed-app'")).toEqual([]);
    const readRoles = { ...everything, component: 'role/*', verbs: ['GET'] };
    const imported = await asManager('POST', '/system/package?import=true', {
      version: 1,
      records: {
        role: [{ name: 'width-package', is_active: true, grants: [readRoles] }],
        app: [{ name: 'width-packed-app', role: 'width-package' }],
        user: [{ name: 'Packed', email: 'packed@x.io', roles: [{ app: 'side', role: 'width-package' }] }],
      },
    });
    expect(imported.status).toBe(201);
  });

  it('leaves alone what it does not change: a wider role someone else assigned stays, and the record saves back whole', async () => {
    const wideTabs = await root('POST', '/system/admin', {
      resource: [
        { name: 'Wide tabs', email: 'wide-tabs@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['services'] },
      ],
    });
    const id = wideTabs.body.resource[0].id;
    expect((await asManager('PATCH', `/system/admin/${id}`, { phone: '123' })).status).toBe(200);
    expect(
      (
        await asManager('PUT', `/system/admin/${id}`, {
          name: 'Wide tabs',
          email: 'wide-tabs@x.io',
          is_restricted_admin: true,
          access_by_tabs: ['services'],
        })
      ).status,
    ).toBe(200);
    await root('PATCH', `/system/user/${targetUser}`, {
      user_to_app_to_role_by_user_id: [{ app_id: adminApp, role_id: broad }],
    });
    const whole = (await asManager('GET', `/system/user/${targetUser}?related=user_to_app_to_role_by_user_id`)).body;
    expect((await asManager('PUT', `/system/user/${targetUser}`, whole)).status).toBe(200);
    expect((await asManager('PATCH', `/system/user/${targetUser}`, { phone: '456' })).status).toBe(200);
  });

  it('holds for a regular user whose role writes roles and apps', async () => {
    expectRefused(await asRoler('PATCH', `/system/role/${rolerRole}`, { role_service_access_by_role_id: [grant('*', ALL)] }), OWN);
    expectRefused(
      await asRoler('POST', '/system/role', {
        resource: [{ name: 'roler-wide', role_service_access_by_role_id: [grant('admin/*', ALL)] }],
      }),
      WIDER,
    );
    expectRefused(await asRoler('PATCH', `/system/app/${sideApp}`, { role_id: broad }), ASSIGNED);
    const made = await asRoler('POST', '/system/role', {
      resource: [{ name: 'roler-narrow', role_service_access_by_role_id: [grant('app/*', 1)] }],
    });
    expect(made.status).toBe(201);
    expect(await names('role', "name like 'roler-%'")).toEqual(['roler-narrow']);
    expect(
      (await root('GET', `/system/role/${rolerRole}?related=role_service_access_by_role_id`)).body.role_service_access_by_role_id,
    ).toHaveLength(2);
  });

  it("gives self-registered users (the user service's open registration role and app role map) no role wider than its own", async () => {
    const servicesRole = await role('services manager', [grant('service/*', ALL), grant('service_type/*', 1), grant('role/*', 1)]);
    const within = await role('width-registration', [grant('role/*', 1)]);
    await root('POST', '/system/admin', {
      resource: [
        {
          name: 'Services',
          email: 'services@x.io',
          password: PASSWORD,
          user_to_app_to_role_by_user_id: [{ app_id: adminApp, role_id: servicesRole }],
        },
      ],
    });
    const token = (await root('POST', '/system/admin/session', { email: 'services@x.io', password: PASSWORD }, { key: server.apiKey })).body
      .session_token;
    const asServices = apiClient(server.app, () => ({ key: server.apiKey, token }));
    const userService = (await root('GET', '/system/service?filter=name=user')).body.resource[0];
    const before = userService.config;
    for (const config of [
      { allow_open_registration: true, open_reg_role_id: broad },
      { allow_open_registration: true, app_role_map: [{ app_id: sideApp, role_id: broad }] },
    ])
      expectRefused(await asServices('PATCH', `/system/service/${userService.id}`, { config }), ASSIGNED);
    expect((await root('GET', `/system/service/${userService.id}`)).body.config).toEqual(before);
    const allowed = await asServices('PATCH', `/system/service/${userService.id}`, {
      config: { allow_open_registration: true, open_reg_role_id: within },
    });
    expect(allowed.status).toBe(200);
    // The service saved back whole with what it already gives is no new assignment.
    await root('PATCH', `/system/service/${userService.id}`, { config: { app_role_map: [{ app_id: sideApp, role_id: broad }] } });
    const whole = (await asServices('GET', `/system/service/${userService.id}`)).body;
    expect((await asServices('PUT', `/system/service/${userService.id}`, whole)).status).toBe(200);
  });
});
