/**
 * Restricted administrators (issue 12; reference 6.3 and the reference console's "access by
 * tabs"): an administrator with role assignments is governed by that role. The console's
 * `is_restricted_admin` and `access_by_tabs` give an administrator a role of their own granting
 * the tabs' system resources; `accessible_tabs=true` on the role names the tabs back; rate limits
 * count restricted administrators; unrestricting removes the role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

describe('restricted administrators', () => {
  const PASSWORD = 'restricted-password-1234';
  let server: TestServer;
  let root: Api;
  let adminId: number;
  let roleId: number;
  let token: string;
  /** Calls as the restricted administrator, with the admin app's key as the console sends it. */
  let asRestricted: Api;

  const login = async (email: string) => {
    const response = await root('POST', '/system/admin/session', { email, password: PASSWORD }, { key: server.apiKey });
    expect(response.status).toBe(200);
    return response;
  };

  beforeAll(async () => {
    server = await startTestServer(minimalModel());
    const rootToken = await server.adminToken();
    root = apiClient(server.app, () => ({ key: server.apiKey, token: rootToken }));
  });
  afterAll(async () => server.close());

  describe('an administrator saved with is_restricted_admin and access_by_tabs', () => {
    it('gets a role of their own granting those tabs, assigned for the admin app, which the role names back as accessible_tabs', async () => {
      const created = await root('POST', '/system/admin?send_invite=false', {
        resource: [
          {
            username: '',
            email: 'tabs@x.io',
            first_name: 'Tab',
            last_name: 'Bed',
            name: 'Tab Bed',
            phone: '',
            is_active: true,
            access_by_tabs: ['apps', 'users', 'scheduler'],
            is_restricted_admin: true,
            lookup_by_user_id: [],
            password: PASSWORD,
          },
        ],
      });
      expect(created.status).toBe(201);
      adminId = created.body.resource[0].id;
      // As the console's admin editor reads it.
      const admin = (await root('GET', `/system/admin/${adminId}?related=user_to_app_to_role_by_user_id,lookup_by_user_id`)).body;
      const adminApp = (await root('GET', '/system/app?filter=name=admin')).body.resource[0].id;
      expect(admin.user_to_app_to_role_by_user_id).toEqual([
        expect.objectContaining({ user_id: adminId, app_id: adminApp, role_id: expect.any(Number) }),
      ]);
      roleId = admin.user_to_app_to_role_by_user_id[0].role_id;
      const role = (
        await root('GET', `/system/role/${roleId}?related=role_service_access_by_role_id,lookup_by_role_id&accessible_tabs=true`)
      ).body;
      expect(role).toMatchObject({
        name: "tabs@x.io's role",
        description: "tabs@x.io's admin role",
        is_active: true,
        accessible_tabs: ['apps', 'users', 'config', 'scheduler'],
      });
      const grants = role.role_service_access_by_role_id
        .map((g: { component: string; verb_mask: number }) => `${g.component}:${g.verb_mask}`)
        .sort();
      // Each tab's grants as the reference makes them (the users tab's read of apps beside the apps tab's full access;
      // the system listing for the scheduler tab, whose pages read it).
      expect(grants).toEqual([
        ':1',
        'admin/*:1',
        'admin/password:31',
        'admin/profile:31',
        'app/*:1',
        'app/*:31',
        'role/*:1',
        'scheduler/*:31',
        'service/*:1',
        'service/:1',
        'user/*:31',
      ]);
    });

    it('logs in at system/admin/session as an administrator who is not the root administrator, with that role in the session', async () => {
      const session = (await login('tabs@x.io')).body;
      expect(session).toMatchObject({ is_sys_admin: true, is_root_admin: false, role_id: roleId, role: "tabs@x.io's role" });
      token = session.session_token;
      asRestricted = apiClient(server.app, () => ({ key: server.apiKey, token }));
      expect((await asRestricted('GET', '/user/session')).body).toMatchObject({ is_root_admin: false, role_id: roleId });
      // The console's side navigation reads the tabs with the administrator's own session.
      expect(
        (await asRestricted('GET', `/system/role/${roleId}?related=role_service_access_by_role_id&accessible_tabs=true`)).body
          .accessible_tabs,
      ).toEqual(['apps', 'users', 'config', 'scheduler']);
      expect((await root('GET', '/user/session')).body).toMatchObject({ is_root_admin: true, role_id: null });
    });

    it('reaches the system resources the tabs grant, and nothing else', async () => {
      const status = async (method: string, url: string, body?: unknown) => (await asRestricted(method, url, body)).status;
      expect(await status('GET', '/system/app')).toBe(200);
      expect(await status('POST', '/system/app', { resource: [{ name: 'made-by-restricted' }] })).toBe(201);
      expect(await status('GET', '/system/user')).toBe(200);
      expect(await status('POST', '/system/user', { resource: [{ name: 'U', email: 'u-by-restricted@x.io' }] })).toBe(201);
      expect(await status('GET', '/system/service')).toBe(200);
      expect(await status('GET', '/system/role')).toBe(200);
      expect(await status('GET', '/system/admin')).toBe(200);
      expect(await status('GET', '/system/admin/profile')).toBe(200);
      expect(await status('GET', '/system/scheduler?related=task_log_by_task_id')).toBe(200);
      expect(await status('GET', '/system/service_report')).toBe(403);
      const refused = await asRestricted('POST', '/system/service', { resource: [{ name: 'nope', type: 'local_email', config: {} }] });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toBe(
        "Access Forbidden. POST access to component 'service' of service 'system' is not allowed by this user's role.",
      );
      expect(await status('PATCH', `/system/role/${roleId}`, { description: 'mine now' })).toBe(403);
      expect(await status('POST', '/system/admin', { resource: [{ name: 'A', email: 'a-by-restricted@x.io', password: PASSWORD }] })).toBe(
        403,
      );
      expect(await status('GET', '/system/cors')).toBe(403);
      expect(await status('GET', '/system/limit')).toBe(403);
      expect(await status('GET', '/api_docs')).toBe(403);
      expect(await status('GET', '/files')).toBe(403);
      // A role belongs to an app: without an API key there is none.
      expect((await asRestricted('GET', '/system/app', undefined, { token })).status).toBe(401);
    });

    it("cannot shed its restriction through a user's nested records, nor restrict another administrator so", async () => {
      const own = (await root('GET', `/system/admin/${adminId}?related=user_to_app_to_role_by_user_id`)).body
        .user_to_app_to_role_by_user_id[0].id;
      const adminApp = (await root('GET', '/system/app?filter=name=admin')).body.resource[0].id;
      const user = (
        await root('POST', '/system/user?related=user_to_app_to_role_by_user_id', {
          resource: [
            { name: 'Bystander', email: 'bystander@x.io', user_to_app_to_role_by_user_id: [{ app_id: adminApp, role_id: roleId }] },
          ],
        })
      ).body.resource[0];
      // Its own assignment, deleted (user_id null) or taken over by the user: not the user's, so not found.
      for (const child of [{ id: own, user_id: null }, { id: own }]) {
        const refused = await asRestricted('PATCH', `/system/user/${user.id}`, { user_to_app_to_role_by_user_id: [child] });
        expect(refused.status).toBe(404);
      }
      // The user's assignment moved to an administrator (not a record of /system/user).
      const moved = await asRestricted('PATCH', `/system/user/${user.id}`, {
        user_to_app_to_role_by_user_id: [{ id: user.user_to_app_to_role_by_user_id[0].id, user_id: 1 }],
      });
      expect(moved.status).toBe(400);
      expect(moved.body.error.context).toEqual({ field: 'user_to_app_to_role_by_user_id[0].user_id' });
      expect(
        (await asRestricted('POST', '/system/service', { resource: [{ name: 'still_no', type: 'local_email', config: {} }] })).status,
      ).toBe(403);
      expect((await root('GET', '/system/admin/1?related=user_to_app_to_role_by_user_id')).body.user_to_app_to_role_by_user_id).toEqual([]);
      expect(
        (await root('GET', `/system/admin/${adminId}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id,
      ).toEqual([expect.objectContaining({ id: own })]);
      await root('DELETE', `/system/user/${user.id}`);
    });

    it('is counted by rate limits, as administrators are not', async () => {
      const limit = (
        await root('POST', '/system/limit', {
          resource: [{ name: 'each admin too', type: 'instance.each_user.service', service_id: 1, rate: 2 }],
        })
      ).body.resource[0];
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await asRestricted('GET', '/system/app')).status);
      expect(statuses).toEqual([200, 200, 429]);
      for (let i = 0; i < 3; i++) expect((await root('GET', '/system/app')).status).toBe(200);
      expect((await root('GET', `/system/limit_cache/${limit.id}?user_id=${adminId}`)).body).toMatchObject({
        user_id: adminId,
        attempts: 2,
        remaining: 0,
      });
      await root('DELETE', `/system/limit/${limit.id}`);
    });

    it('gets other tabs when saved with other tab choices (same role, its grants replaced)', async () => {
      const saved = await root('PUT', `/system/admin/${adminId}`, {
        name: 'Tab Bed',
        email: 'tabs@x.io',
        is_active: true,
        access_by_tabs: ['config', 'limits'],
        is_restricted_admin: true,
        lookup_by_user_id: [],
      });
      expect(saved.status).toBe(200);
      const role = (await root('GET', `/system/role/${roleId}?accessible_tabs=true`)).body;
      expect(role.accessible_tabs).toEqual(['config', 'limits']);
      expect((await asRestricted('GET', '/system/cors')).status).toBe(200);
      expect((await asRestricted('GET', '/system/limit')).status).toBe(200);
      expect((await asRestricted('GET', '/logs')).status).not.toBe(403);
      expect((await asRestricted('POST', '/system/app', { resource: [{ name: 'refused-now' }] })).status).toBe(403);
    });

    it('is an administrator again when saved with is_restricted_admin false: the assignments and the role are gone', async () => {
      const saved = await root('PUT', `/system/admin/${adminId}`, {
        name: 'Tab Bed',
        email: 'tabs@x.io',
        is_active: true,
        access_by_tabs: [],
        is_restricted_admin: false,
        lookup_by_user_id: [],
      });
      expect(saved.status).toBe(200);
      expect(
        (await root('GET', `/system/admin/${adminId}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id,
      ).toEqual([]);
      expect((await root('GET', `/system/role/${roleId}`)).status).toBe(404);
      expect(
        (await asRestricted('POST', '/system/service', { resource: [{ name: 'allowed_now', type: 'local_email', config: {} }] })).status,
      ).toBe(201);
      expect((await login('tabs@x.io')).body).toMatchObject({ is_root_admin: true, role_id: null });
    });

    it('changes nothing about restriction when the record does not mention it', async () => {
      await root('PUT', `/system/admin/${adminId}`, { email: 'tabs@x.io', access_by_tabs: ['users'], is_restricted_admin: true });
      await root('PATCH', `/system/admin/${adminId}`, { phone: '123' });
      expect(
        (await root('GET', `/system/admin/${adminId}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id,
      ).toHaveLength(1);
      await root('PATCH', `/system/admin/${adminId}`, { is_restricted_admin: false });
    });
  });

  describe('an administrator assigned a role directly', () => {
    it('is restricted to that role too (reference 6.3)', async () => {
      const reader = (
        await root('POST', '/system/role', {
          resource: [
            {
              name: 'reads roles',
              role_service_access_by_role_id: [{ service_id: 1, component: 'role/*', verb_mask: 1, requestor_mask: 1 }],
            },
          ],
        })
      ).body.resource[0].id;
      const adminApp = (await root('GET', '/system/app?filter=name=admin')).body.resource[0].id;
      const created = await root('POST', '/system/admin', {
        resource: [
          {
            name: 'Direct',
            email: 'direct@x.io',
            password: PASSWORD,
            user_to_app_to_role_by_user_id: [{ app_id: adminApp, role_id: reader }],
          },
        ],
      });
      expect(created.status).toBe(201);
      const direct = (await login('direct@x.io')).body;
      expect(direct).toMatchObject({ is_sys_admin: true, is_root_admin: false, role_id: reader });
      const asDirect = apiClient(server.app, () => ({ key: server.apiKey, token: direct.session_token }));
      expect((await asDirect('GET', '/system/role')).status).toBe(200);
      expect((await asDirect('GET', '/system/user')).status).toBe(403);
      expect((await asDirect('GET', '/system/admin/profile')).status).toBe(403);
      // A role made for others stays when the administrator goes.
      await root('DELETE', `/system/admin/${created.body.resource[0].id}`);
      expect((await root('GET', `/system/role/${reader}`)).status).toBe(200);
    });

    it('takes their own role along when deleted', async () => {
      const created = await root('POST', '/system/admin', {
        resource: [{ name: 'Gone', email: 'gone@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['apps'] }],
      });
      const id = created.body.resource[0].id;
      const own = (await root('GET', `/system/admin/${id}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id[0]
        .role_id;
      expect((await root('DELETE', `/system/admin/${id}`)).status).toBe(200);
      expect((await root('GET', `/system/role/${own}`)).status).toBe(404);
    });
  });

  describe('an administrator with the packages tab', () => {
    it('exports and imports through /system/package only what their role lets them read and write', async () => {
      const created = await root('POST', '/system/admin', {
        resource: [
          { name: 'Packer', email: 'packer@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['packages', 'apps'] },
        ],
      });
      const id = created.body.resource[0].id;
      const own = (await root('GET', `/system/admin/${id}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id[0]
        .role_id;
      await root('POST', '/system/cors', { resource: [{ path: 'packer/*', origin: '*' }] });
      await root('POST', '/system/service', {
        resource: [{ name: 'packer_smtp', label: 'S', type: 'smtp_email', config: { host: '127.0.0.1', password: 'smtp-secret' } }],
      });
      await root('POST', '/system/role', {
        resource: [{ name: 'packer-seen', lookup_by_role_id: [{ name: 'k', value: 'role-secret', private: true }] }],
      });
      const token = (await login('packer@x.io')).body.session_token;
      const call = apiClient(server.app, () => ({ key: server.apiKey, token }));
      // Roles and services are readable (the apps tab reads services), CORS rules are not; secrets show masked, as the resources show them.
      const exported = (await call('GET', '/system/package?export=true')).body.records;
      expect(exported.role.map((r: { name: string }) => r.name)).toContain("packer@x.io's role");
      expect(exported.cors).toEqual([]);
      expect(JSON.stringify(exported)).not.toMatch(/smtp-secret|role-secret/);
      expect(exported.service.find((r: { name: string }) => r.name === 'packer_smtp').config.password).toBe('**********');
      expect((await call('POST', '/system/package', { service: { system: { cors: ['packer/*'] } } })).status).toBe(403);
      // Its own role overwritten with every grant on the system service, a new role, a new service: refused, nothing written.
      const everything = { service: 'system', component: '*', verbs: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], requestor_mask: 3 };
      for (const records of [
        { role: [{ name: "packer@x.io's role", is_active: true, grants: [everything] }] },
        { role: [{ name: 'packer-made', is_active: true, grants: [everything] }] },
        { service: [{ name: 'packer_mail', label: 'M', type: 'local_email', config: {} }] },
      ]) {
        const refused = await call('POST', '/system/package?import=true&overwrite=true', { version: 1, records });
        expect(refused.status).toBe(403);
        expect(refused.body.error.message).toMatch(
          /^Access Forbidden\. (POST|PATCH) access to component '(role|service)[/0-9]*' of service 'system'/,
        );
      }
      expect((await root('GET', '/system/role?filter=name=packer-made')).body.resource).toEqual([]);
      expect((await root('GET', '/system/service?filter=name=packer_mail')).body.resource).toEqual([]);
      expect((await root('GET', `/system/role/${own}?accessible_tabs=true`)).body.accessible_tabs).toEqual(['apps', 'config', 'packages']);
      expect(
        (await call('POST', '/system/admin', { resource: [{ name: 'B', email: 'b-by-packer@x.io', password: PASSWORD }] })).status,
      ).toBe(403);
      await root('DELETE', `/system/admin/${id}`);
    });
  });
});

/**
 * A caller governed by a role (here a restricted administrator with the Admins tab, and one given a
 * role reaching apps and roles) cannot make itself or anyone unrestricted, nor touch an
 * unrestricted administrator, by any way in: 403 naming why, nothing written.
 */
const escalationKinds: Array<'sqlite' | 'postgres'> = ['sqlite', ...((await requireService('postgres')) ? (['postgres'] as const) : [])];

describe.each(escalationKinds)('a restricted administrator cannot lift a restriction (%s system database)', (kind) => {
  const PASSWORD = 'restricted-password-1234';
  let server: TestServer;
  let database: TestDatabase | null = null;
  let root: Api;
  let asKeeper: Api;
  let keeperId: number;
  let ownAssignment: number;
  let plainId: number;
  let adminApp: number;

  const create = async (record: Record<string, unknown>) => {
    const created = await root('POST', '/system/admin', { resource: [{ password: PASSWORD, ...record }] });
    expect(created.status).toBe(201);
    return created.body.resource[0].id as number;
  };
  const assignments = async (id: number) =>
    (await root('GET', `/system/admin/${id}?related=user_to_app_to_role_by_user_id`)).body.user_to_app_to_role_by_user_id as Array<{
      id: number;
      role_id: number;
    }>;
  const loginAs = async (email: string) => {
    const token = (await root('POST', '/system/admin/session', { email, password: PASSWORD }, { key: server.apiKey })).body.session_token;
    return apiClient(server.app, () => ({ key: server.apiKey, token }));
  };
  /** Still governed by its role: the services tab it lacks stays refused. */
  const stillRestricted = async (call: Api) =>
    expect((await call('POST', '/system/service', { resource: [{ name: 'not_mine', type: 'local_email', config: {} }] })).status).toBe(403);
  const expectRefused = (response: { status: number; body: { error: { code: number; message: string } } }, why: RegExp) => {
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe(403);
    expect(response.body.error.message).toMatch(why);
  };

  beforeAll(async () => {
    database = kind === 'sqlite' ? null : await createTestDatabase(kind);
    server = await startTestServer(minimalModel(), { systemDatabase: database?.url ?? ':memory:' });
    const rootToken = await server.adminToken();
    root = apiClient(server.app, () => ({ key: server.apiKey, token: rootToken }));
    adminApp = (await root('GET', '/system/app?filter=name=admin')).body.resource[0].id;
    keeperId = await create({ name: 'Keeper', email: 'keeper@x.io', is_restricted_admin: true, access_by_tabs: ['admins'] });
    ownAssignment = (await assignments(keeperId))[0].id;
    plainId = await create({ name: 'Plain', email: 'plain@x.io' });
    asKeeper = await loginAs('keeper@x.io');
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('cannot change its own assignments or restriction (PATCH, PUT, batch): only its other fields', async () => {
    const otherRole = (await root('POST', '/system/role', { resource: [{ name: 'wider' }] })).body.resource[0].id;
    for (const change of [
      { user_to_app_to_role_by_user_id: [{ id: ownAssignment, user_id: null }] },
      { user_to_app_to_role_by_user_id: [{ id: ownAssignment, role_id: otherRole }] },
      { user_to_app_to_role_by_user_id: [{ id: ownAssignment, user_id: 1 }] },
      { is_restricted_admin: false },
      { is_restricted_admin: true, access_by_tabs: ['admins', 'services'] },
    ]) {
      expectRefused(await asKeeper('PATCH', `/system/admin/${keeperId}`, change), /cannot change its own role assignments/);
      expectRefused(
        await asKeeper('PUT', `/system/admin/${keeperId}`, { name: 'Keeper', email: 'keeper@x.io', ...change }),
        /cannot change its own role assignments/,
      );
      expectRefused(
        await asKeeper('PATCH', '/system/admin', { resource: [{ id: keeperId, ...change }] }),
        /cannot change its own role assignments/,
      );
    }
    expect(await assignments(keeperId)).toEqual([expect.objectContaining({ id: ownAssignment })]);
    expect((await root('GET', '/system/admin/1?related=user_to_app_to_role_by_user_id')).body.user_to_app_to_role_by_user_id).toEqual([]);
    await stillRestricted(asKeeper);
    expect((await asKeeper('PATCH', `/system/admin/${keeperId}`, { phone: '555' })).status).toBe(200);
  });

  it('cannot create, change or delete an unrestricted administrator, by id, ids=, filter= or batch', async () => {
    for (const id of [1, plainId]) {
      expectRefused(await asKeeper('PATCH', `/system/admin/${id}`, { name: 'Taken' }), new RegExp(`Administrator ${id} is unrestricted`));
      expectRefused(await asKeeper('PUT', `/system/admin/${id}`, { name: 'Taken', email: 'taken@x.io' }), /is unrestricted/);
      expectRefused(await asKeeper('DELETE', `/system/admin/${id}`), /is unrestricted/);
      // Restricting it is changing it too.
      expectRefused(
        await asKeeper('PATCH', `/system/admin/${id}`, { is_restricted_admin: true, access_by_tabs: ['apps'] }),
        /is unrestricted/,
      );
    }
    expectRefused(await asKeeper('PATCH', `/system/admin?ids=${keeperId},${plainId}`, { resource: [{ phone: '1' }] }), /is unrestricted/);
    expectRefused(
      await asKeeper('PATCH', `/system/admin?filter=${encodeURIComponent("email like 'plain%'")}`, { resource: [{ phone: '1' }] }),
      /is unrestricted/,
    );
    expectRefused(
      await asKeeper('PATCH', '/system/admin', {
        resource: [
          { id: keeperId, phone: '2' },
          { id: plainId, password: 'hijacked-password-1234' },
        ],
      }),
      /is unrestricted/,
    );
    expectRefused(await asKeeper('DELETE', `/system/admin?filter=${encodeURIComponent("email like 'plain%'")}`), /is unrestricted/);
    expectRefused(await asKeeper('DELETE', '/system/admin?force=true'), /is unrestricted/);
    const plain = (await root('GET', `/system/admin/${plainId}`)).body;
    expect(plain).toMatchObject({ name: 'Plain', email: 'plain@x.io' });
    expect(plain.phone ?? null).toBeNull();
    expect((await root('GET', `/system/admin/${keeperId}`)).body.phone).toBe('555');
    expect((await root('POST', '/system/admin/session', { email: 'plain@x.io', password: PASSWORD }, { key: server.apiKey })).status).toBe(
      200,
    );
    expect((await root('GET', '/system/admin/1')).body.name).not.toBe('Taken');
    // Created without a role, or with every tab (no restriction): refused, alone or in a batch, nothing created.
    for (const resource of [
      [{ name: 'Free', email: 'free@x.io', password: PASSWORD }],
      [{ name: 'Free', email: 'free@x.io', password: PASSWORD, is_restricted_admin: false }],
      [
        {
          name: 'Free',
          email: 'free@x.io',
          password: PASSWORD,
          is_restricted_admin: true,
          access_by_tabs: [
            'apps',
            'admins',
            'users',
            'services',
            'apidocs',
            'schema/data',
            'files',
            'scripts',
            'config',
            'packages',
            'limits',
            'scheduler',
            'reports',
          ],
        },
      ],
    ]) {
      const refused = await asKeeper('POST', '/system/admin', { resource });
      expectRefused(refused, /may create only restricted administrators/);
    }
    const batch = await asKeeper('POST', '/system/admin', {
      resource: [
        { name: 'Fine', email: 'fine@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['admins'] },
        { name: 'Free', email: 'free@x.io', password: PASSWORD },
      ],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.context.errors).toEqual([
      { index: 1, code: 403, message: expect.stringMatching(/may create only restricted/) },
    ]);
    expect((await root('GET', `/system/admin?filter=${encodeURIComponent("email in ('free@x.io','fine@x.io')")}`)).body.resource).toEqual(
      [],
    );
  });

  it("manages restricted administrators' fields and roles, but does not lift their restriction", async () => {
    const otherId = (
      await asKeeper('POST', '/system/admin', {
        resource: [{ name: 'Other', email: 'other@x.io', password: PASSWORD, is_restricted_admin: true, access_by_tabs: ['admins'] }],
      })
    ).body.resource[0].id as number;
    const [theirs] = await assignments(otherId);
    for (const change of [
      { is_restricted_admin: false },
      { user_to_app_to_role_by_user_id: [{ id: theirs.id, user_id: null }] },
      { user_to_app_to_role_by_user_id: [{ id: theirs.id, user_id: plainId }] },
    ])
      expectRefused(await asKeeper('PATCH', `/system/admin/${otherId}`, change), /(no role assignments|is unrestricted)/);
    // Its assignment handed to the caller is a change of the caller's own.
    expectRefused(
      await asKeeper('PATCH', `/system/admin/${otherId}`, { user_to_app_to_role_by_user_id: [{ id: theirs.id, user_id: keeperId }] }),
      /cannot change its own role assignments/,
    );
    expect(await assignments(otherId)).toEqual([expect.objectContaining({ id: theirs.id })]);
    expect(await assignments(plainId)).toEqual([]);
    const asOther = await loginAs('other@x.io');
    await stillRestricted(asOther);
    // What the Admins tab is for: other fields, other tabs (none wider than its own), another role, deleting.
    const reader = (await root('POST', '/system/role', { resource: [{ name: 'reader of roles' }] })).body.resource[0].id;
    expect((await asKeeper('PATCH', `/system/admin/${otherId}`, { phone: '777' })).status).toBe(200);
    expect(
      (
        await asKeeper('PUT', `/system/admin/${otherId}`, {
          name: 'Other',
          email: 'other@x.io',
          is_restricted_admin: true,
          access_by_tabs: [],
        })
      ).status,
    ).toBe(200);
    const [now] = await assignments(otherId);
    expect(
      (await asKeeper('PATCH', `/system/admin/${otherId}`, { user_to_app_to_role_by_user_id: [{ id: now.id, role_id: reader }] })).status,
    ).toBe(200);
    expect(await assignments(otherId)).toEqual([expect.objectContaining({ role_id: reader, app_id: adminApp })]);
    expect((await asKeeper('DELETE', `/system/admin/${otherId}`)).status).toBe(200);
  });

  it('cannot lift a restriction by deleting the app or role its assignments are for', async () => {
    const sideApp = (await root('POST', '/system/app', { resource: [{ name: 'side' }] })).body.resource[0].id;
    const wide = (
      await root('POST', '/system/role', {
        resource: [
          {
            name: 'apps and roles',
            role_service_access_by_role_id: ['app/*', 'role/*', 'admin/*'].map((component) => ({
              service_id: 1,
              component,
              verb_mask: 31,
              requestor_mask: 1,
            })),
          },
        ],
      })
    ).body.resource[0].id;
    const spare = (await root('POST', '/system/role', { resource: [{ name: 'spare' }] })).body.resource[0].id;
    await create({ name: 'Wide', email: 'wide@x.io', user_to_app_to_role_by_user_id: [{ app_id: sideApp, role_id: wide }] });
    const victim = await create({
      name: 'Victim',
      email: 'victim@x.io',
      user_to_app_to_role_by_user_id: [{ app_id: sideApp, role_id: spare }],
    });
    const asWide = await loginAs('wide@x.io');
    await stillRestricted(asWide);
    expectRefused(await asWide('DELETE', `/system/app/${sideApp}`), /cannot change its own role assignments/);
    expectRefused(await asWide('DELETE', `/system/role/${wide}`), /cannot change its own role assignments/);
    expectRefused(await asWide('DELETE', `/system/role/${spare}`), new RegExp(`administrator ${victim} with no role assignments`));
    expect((await root('GET', `/system/app/${sideApp}`)).status).toBe(200);
    expect((await root('GET', `/system/role/${spare}`)).status).toBe(200);
    expect(await assignments(victim)).toHaveLength(1);
    await stillRestricted(asWide);
    // An app or role no administrator depends on alone is the caller's to delete.
    const loose = (await asWide('POST', '/system/role', { resource: [{ name: 'loose' }] })).body.resource[0].id;
    expect((await asWide('DELETE', `/system/role/${loose}`)).status).toBe(200);
  });
});
