/**
 * The admin console's pages beside services (reference df-admin-interface): GET
 * /system/script_type, the kinds of script the platform runs, and /system/service_report, written
 * by every service change made through the API. Runs on SQLite here and on PostgreSQL and MariaDB
 * through system-suite.*.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '#runtime/auth/clock.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

describe('console resources', () => {
  const clock = {
    time: Date.UTC(2026, 0, 1, 12, 0, 0),
    now() {
      return this.time;
    },
  };
  let server: TestServer;
  let admin: Api;

  beforeAll(async () => {
    server = await startTestServer(minimalModel(), { clock: clock as Clock });
    const token = await server.adminToken();
    admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => server.close());

  it('GET /system lists the resources', async () => {
    const names = (await admin('GET', '/system?as_list=true')).body.resource;
    expect(names).toEqual(expect.arrayContaining(['script_type', 'service_report']));
  });

  describe('GET /system/script_type', () => {
    it('lists the hook modules as the one script type, the type event scripts name', async () => {
      const list = await admin('GET', '/system/script_type');
      expect(list.status).toBe(200);
      expect(list.body.resource).toEqual([
        {
          name: 'typescript',
          label: 'TypeScript (Node.js)',
          description: expect.stringContaining('platform.yaml'),
          sandboxed: false,
          supports_inline_execution: false,
        },
      ]);
      expect((await admin('GET', '/system/script_type?fields=name,label')).body.resource).toEqual([
        { name: 'typescript', label: 'TypeScript (Node.js)' },
      ]);
      expect((await admin('GET', '/system/script_type?as_list=true')).body).toEqual({ resource: ['typescript'] });
      expect((await admin('GET', '/system/script_type/typescript')).body).toMatchObject({ name: 'typescript', sandboxed: false });
    });

    it('answers an unknown name with a 404 and a write with a 400, in the error shape', async () => {
      const missing = await admin('GET', '/system/script_type/php');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: { code: 404, message: "Script type 'php' not found." } });
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const write = await admin(method, '/system/script_type', method === 'DELETE' ? undefined : { resource: [{ name: 'x' }] });
        expect(write.status, method).toBe(400);
        expect(write.body.error).toMatchObject({ code: 400, message: expect.stringContaining('not currently supported') });
      }
    });
  });

  describe('/system/service_report', () => {
    it('records each service created, changed and deleted through the API, with who and how', async () => {
      const before = (await admin('GET', '/system/service_report?include_count=true&limit=1')).body.meta.count as number;
      const created = await admin('POST', '/system/service', {
        resource: [{ name: 'reported', label: 'Reported', type: 'local_email', config: {} }],
      });
      const id = created.body.resource[0].id;
      await admin('PATCH', `/system/service/${id}`, { description: 'changed' });
      await admin('DELETE', `/system/service/${id}`);
      const reports = await admin('GET', `/system/service_report?filter=service_id=${id}&order=id&include_count=true`);
      expect(reports.status).toBe(200);
      expect(reports.body.meta.count).toBe(3);
      expect(reports.body.resource).toEqual(
        ['Service created', 'Service modified', 'Service deleted'].map((action, index) => ({
          id: expect.any(Number),
          service_id: id,
          service_name: 'reported',
          user_email: 'admin@test.local',
          action,
          request_method: ['POST', 'PATCH', 'DELETE'][index],
          created_date: '2026-01-01 12:00:00',
          last_modified_date: '2026-01-01 12:00:00',
        })),
      );
      const all = await admin('GET', '/system/service_report?include_count=true&order=id desc&limit=2&fields=action,service_name');
      expect(all.body.meta.count).toBe(before + 3);
      expect(all.body.resource).toEqual([
        { action: 'Service deleted', service_name: 'reported' },
        { action: 'Service modified', service_name: 'reported' },
      ]);
      const one = await admin('GET', `/system/service_report/${reports.body.resource[0].id}`);
      expect(one.body).toMatchObject({ action: 'Service created', service_id: id });
    });

    it('writes no report for a service change that fails', async () => {
      const before = (await admin('GET', '/system/service_report?count_only=true')).body;
      const refused = await admin('POST', '/system/service', { resource: [{ name: 'bad', label: 'Bad', type: 'no_such_type' }] });
      expect(refused.status).toBe(400);
      expect((await admin('GET', '/system/service_report?count_only=true')).body).toEqual(before);
    });

    it("is the restricted administrators' reports tab", async () => {
      const password = 'reports-password-1234';
      const created = await admin('POST', '/system/admin', {
        resource: [{ name: 'Reporter', email: 'reports@x.io', password, is_restricted_admin: true, access_by_tabs: ['reports'] }],
      });
      expect(created.status).toBe(201);
      const session = (await admin('POST', '/system/admin/session', { email: 'reports@x.io', password }, { key: server.apiKey })).body;
      expect((await admin('GET', `/system/role/${session.role_id}?accessible_tabs=true`)).body.accessible_tabs).toEqual([
        'config',
        'reports',
      ]);
      const reporter = apiClient(server.app, () => ({ key: server.apiKey, token: session.session_token }));
      expect((await reporter('GET', '/system/service_report?include_count=true')).status).toBe(200);
      expect((await reporter('GET', '/system/service')).status).toBe(403);
    });

    it('is read only, except that old reports may be deleted', async () => {
      const post = await admin('POST', '/system/service_report', { resource: [{ service_name: 'forged', action: 'Service created' }] });
      expect(post.status).toBe(400);
      expect(post.body.error.message).toBe(
        "POST requests for resource 'service_report' are not currently supported by the 'system' service.",
      );
      const first = (await admin('GET', '/system/service_report?order=id&limit=1')).body.resource[0];
      expect((await admin('PATCH', `/system/service_report/${first.id}`, { action: 'forged' })).status).toBe(400);
      expect((await admin('GET', `/system/service_report/${first.id}`)).body.action).toBe(first.action);
      const deleted = await admin('DELETE', `/system/service_report?filter=service_name=reported`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.resource).toHaveLength(3);
      expect((await admin('GET', '/system/service_report?filter=service_name=reported')).body.resource).toEqual([]);
      expect((await admin('GET', '/system/service_report/999999')).status).toBe(404);
    });
  });
});
