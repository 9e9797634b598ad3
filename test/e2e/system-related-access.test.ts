/**
 * Related reads of the system resources follow the caller's role (found by the fuzzing of
 * system-api-fuzz.test.ts): a regular user granted only /system/limit read the users a limit names
 * through `related=user_by_user_id` (names, emails, phones of an administrators-only resource),
 * or tested their emails with `filter=user_by_user_id.email like ...`; a restricted administrator
 * granted only services read every role's grants through `role_service_access_by_service_id`.
 * Now each resource reached needs the role's GET grant (and an administrators-only one an
 * administrator's account), as related tables do on database services: 403 naming the relation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const PASSWORD = 'related-access-password-1';

describe('related reads of system resources follow the role', () => {
  let server: TestServer;
  let root: Api;
  let asUser: Api;
  let asRestricted: Api;
  let userRole: number;
  let restrictedRole: number;

  const grant = async (role: number, components: string[]) => {
    const current = (await root('GET', `/system/role/${role}?related=role_service_access_by_role_id`)).body;
    const old = current.role_service_access_by_role_id.map((g: { id: number }) => ({ id: g.id, role_id: null }));
    const fresh = components.map((component) => ({ service_id: 1, component, verb_mask: 1, requestor_mask: 1 }));
    expect((await root('PATCH', `/system/role/${role}`, { role_service_access_by_role_id: [...old, ...fresh] })).status).toBe(200);
  };

  beforeAll(async () => {
    server = await startTestServer(minimalModel());
    const rootToken = await server.adminToken();
    root = apiClient(server.app, () => ({ key: server.apiKey, token: rootToken }));
    const roles = await root('POST', '/system/role', { resource: [{ name: 'limits-reader' }, { name: 'services-reader' }] });
    [userRole, restrictedRole] = roles.body.resource.map((r: { id: number }) => r.id);
    const app = (await root('POST', '/system/app?fields=id,api_key', { resource: [{ name: 'client' }] })).body.resource[0];
    const adminApp = (await root('GET', '/system/app?filter=name=admin&fields=id')).body.resource[0].id;
    const user = await root('POST', '/system/user', {
      resource: [
        {
          name: 'Reader',
          email: 'reader@x.io',
          password: PASSWORD,
          user_to_app_to_role_by_user_id: [{ app_id: app.id, role_id: userRole }],
        },
      ],
    });
    expect(user.status).toBe(201);
    const restricted = await root('POST', '/system/admin', {
      resource: [
        {
          name: 'Restricted',
          email: 'restricted@x.io',
          password: PASSWORD,
          user_to_app_to_role_by_user_id: [{ app_id: adminApp, role_id: restrictedRole }],
        },
      ],
    });
    expect(restricted.status).toBe(201);
    const limit = await root('POST', '/system/limit', {
      resource: [{ name: 'per user', type: 'instance.user', user_id: user.body.resource[0].id, rate: 10, period: 'hour' }],
    });
    expect(limit.status).toBe(201);
    const userToken = (await root('POST', '/user/session', { email: 'reader@x.io', password: PASSWORD }, { key: app.api_key })).body
      .session_token;
    const restrictedToken = (
      await root('POST', '/system/admin/session', { email: 'restricted@x.io', password: PASSWORD }, { key: server.apiKey })
    ).body.session_token;
    asUser = apiClient(server.app, () => ({ key: app.api_key, token: userToken }));
    asRestricted = apiClient(server.app, () => ({ key: server.apiKey, token: restrictedToken }));
    await grant(userRole, ['limit']);
    await grant(restrictedRole, ['service']);
  });
  afterAll(async () => server.close());

  const refused = (relation: string, component: string) => ({
    error: { code: 403, message: expect.stringContaining(`component '${component}'`), context: { related: relation } },
  });

  it('a regular user granted limits reads them, but not the users they name', async () => {
    const plain = await asUser('GET', '/system/limit');
    expect(plain.status).toBe(200);
    expect(plain.body.resource).toHaveLength(1);
    const related = await asUser('GET', '/system/limit?related=user_by_user_id');
    expect(related.status).toBe(403);
    expect(related.body).toEqual(refused('user_by_user_id', 'user'));
    const everything = await asUser('GET', '/system/limit?related=*');
    expect(everything.status).toBe(403);
    const filtered = await asUser('GET', `/system/limit?filter=${encodeURIComponent("user_by_user_id.email like 'r%'")}`);
    expect(filtered.status).toBe(403);
    expect(filtered.body).toEqual(refused('user_by_user_id', 'user'));
    expect((await asUser('GET', '/system/limit?order=user_by_user_id.email')).status).toBe(403);
  });

  it('a regular user granted limits reads their counters, which are part of them', async () => {
    const counters = await asUser('GET', '/system/limit?related=limit_cache_by_limit_id');
    expect(counters.status).toBe(200);
    expect(counters.body.resource[0].limit_cache_by_limit_id).toEqual(expect.any(Array));
    const unknown = await asUser('GET', '/system/limit?related=nosuch');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^Invalid relationship 'nosuch'/);
  });

  it('a restricted administrator granted services reads the roles\u2019 grants on them only with a grant on roles', async () => {
    expect((await asRestricted('GET', '/system/service?related=service_doc_by_service_id')).status).toBe(200);
    const grants = await asRestricted('GET', '/system/service?related=role_service_access_by_service_id');
    expect(grants.status).toBe(403);
    expect(grants.body).toEqual(refused('role_service_access_by_service_id', 'role'));
    await grant(restrictedRole, ['service', 'role']);
    const allowed = await asRestricted('GET', '/system/service?related=role_service_access_by_service_id');
    expect(allowed.status).toBe(200);
    expect(allowed.body.resource.some((s: Record<string, unknown[]>) => s.role_service_access_by_service_id.length > 0)).toBe(true);
  });

  it('a restricted administrator granted users reads the users a limit names', async () => {
    await grant(restrictedRole, ['limit']);
    expect((await asRestricted('GET', '/system/limit?related=user_by_user_id')).status).toBe(403);
    await grant(restrictedRole, ['limit', 'user']);
    const allowed = await asRestricted('GET', '/system/limit?related=user_by_user_id');
    expect(allowed.status).toBe(200);
    expect(allowed.body.resource[0].user_by_user_id.email).toBe('reader@x.io');
  });
});
