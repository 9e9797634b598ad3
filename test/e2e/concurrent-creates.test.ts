/**
 * Many creates at once on the system resources, on each kind of system database: creates of one
 * unique name give one 201 and 400/409 errors in the spec's shape for the rest (never a 500, never
 * two rows), and creates of different names all succeed (a service's id is chosen by the runtime,
 * past the last one: two creates at once chose the same one, and the later failed with 409).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api, type ApiResponse } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, useSystemDatabase, type TestServer } from '#test/helpers/platform-fixtures.js';
import { requireService } from '#test/helpers/require-service.js';

const PASSWORD = 'user-password-123456';

const kinds = [
  ['SQLite', 'sqlite', true],
  ['PostgreSQL', 'postgres', await requireService('postgres')],
  ['MariaDB/MySQL', 'mysql', await requireService('mysql')],
] as const;

const atOnce = (count: number, request: (i: number) => Promise<ApiResponse>) =>
  Promise.all(Array.from({ length: count }, (_, i) => request(i)));

for (const [label, kind, reachable] of kinds) {
  describe.skipIf(!reachable)(`creates at once on a ${label} system database`, () => {
    let server: TestServer;
    let admin: Api;
    beforeAll(async () => {
      useSystemDatabase(kind);
      server = await startTestServer(minimalModel());
      useSystemDatabase('sqlite');
      const token = await server.adminToken();
      admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
    });
    afterAll(async () => server?.close());

    it('30 services of different names: all created, each with its own id, all served', async () => {
      const created = await atOnce(30, (i) =>
        admin('POST', '/system/service', { resource: [{ name: `many${i}`, label: `Many ${i}`, type: 'local_email', config: {} }] }),
      );
      expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
      const ids = created.map((r) => r.body.resource[0].id);
      expect(new Set(ids).size).toBe(30);
      const listed = await admin('GET', `/system/service?fields=id,name&filter=${encodeURIComponent("name like 'many%'")}`);
      expect(listed.body.resource).toHaveLength(30);
      for (const i of [0, 29]) expect(server.app.portico.services.get(`many${i}`)).toBeDefined();
    });

    it.each([
      ['role', { name: 'one-role' }],
      ['app', { name: 'one-app' }],
      ['service', { name: 'oneservice', label: 'One', type: 'local_email', config: {} }],
      ['lookup', { name: 'one_lookup', value: 'x' }],
      ['limit', { name: 'one limit', type: 'instance', rate: 100 }],
      ['cors', { path: 'api/v2/one', origin: 'https://one.example' }],
      ['user', { name: 'One', email: 'one@x.io', password: PASSWORD }],
    ] as const)('50 creates of one %s: one 201, the others 400 or 409 in the spec shape, one row', async (resource, record) => {
      const count = resource === 'user' ? 20 : 50;
      const responses = await atOnce(count, () => admin('POST', `/system/${resource}`, { resource: [record] }));
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      for (const refused of responses.filter((r) => r.status !== 201)) {
        expect([400, 409]).toContain(refused.status);
        expect(refused.body.error).toMatchObject({ code: refused.status, message: expect.any(String) });
      }
      const [field, value] = Object.entries(record)[0];
      const rows = await admin('GET', `/system/${resource}?filter=${encodeURIComponent(`${field}='${value}'`)}`);
      expect(rows.body.resource).toHaveLength(1);
    });

    it("a role's lookup of one name added by many writes at once: added once, beside a global one of that name", async () => {
      const role = (await admin('POST', '/system/role', { resource: [{ name: 'scoped-role' }] })).body.resource[0].id;
      const [global, ...responses] = await atOnce(41, (i) =>
        i === 0
          ? admin('POST', '/system/lookup', { resource: [{ name: 'scoped_lookup', value: 'g' }] })
          : admin('PATCH', `/system/role/${role}`, { lookup_by_role_id: [{ name: 'scoped_lookup', value: 'r' }] }),
      );
      expect(global.status).toBe(201);
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      for (const refused of responses.filter((r) => r.status !== 200)) expect(refused.body.error).toMatchObject({ code: 409 });
      const read = await admin('GET', `/system/role/${role}?related=lookup_by_role_id`);
      expect(read.body.lookup_by_role_id.map((l: { name: string }) => l.name)).toEqual(['scoped_lookup']);
    });
  });
}
