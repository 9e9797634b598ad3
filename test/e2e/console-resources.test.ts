/**
 * The admin console's pages beside services (reference df-admin-interface): GET
 * /system/script_type, the kinds of script the platform runs. Runs on SQLite here and on
 * PostgreSQL and MariaDB through system-suite.*.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

describe('console resources', () => {
  let server: TestServer;
  let admin: Api;

  beforeAll(async () => {
    server = await startTestServer(minimalModel());
    const token = await server.adminToken();
    admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => server.close());

  it('GET /system lists script_type', async () => {
    const names = (await admin('GET', '/system?as_list=true')).body.resource;
    expect(names).toEqual(expect.arrayContaining(['script_type']));
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
});
