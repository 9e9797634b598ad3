/**
 * /system/package import is all or nothing, on SQLite, PostgreSQL and MariaDB system databases: a
 * package refused at its fifth record (by validation, by a reference to nothing, or by the
 * database's own unique key) keeps none of the first four, changes none of the records an
 * overwrite had updated already, opens none of its services, and names the record it was refused at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer, useSystemDatabase } from '#test/helpers/platform-fixtures.js';
import { requireService } from '#test/helpers/require-service.js';

const roles = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i + 1}`, description: `role ${i + 1}`, is_active: true, grants: [] }));

function importSuite(kind: 'sqlite' | 'postgres' | 'mysql') {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    useSystemDatabase(kind);
    server = await startTestServer();
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => {
    await server?.close();
    useSystemDatabase('sqlite');
  });

  const names = async (resource: string, prefix: string, field = 'name') =>
    (await api('GET', `/system/${resource}?filter=${encodeURIComponent(`${field} like '${prefix}%'`)}&fields=${field}`)).body.resource.map(
      (r: Record<string, string>) => r[field],
    );
  const imported = (records: Record<string, unknown[]>, overwrite = false) =>
    api('POST', `/system/package?import=true${overwrite ? '&overwrite=true' : ''}`, { version: 1, records });

  it('keeps none of the first four records when the fifth is refused, and names it', async () => {
    const refused = await imported({ role: [...roles('five', 4), { name: 'five-5', nosuch: 1 }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^Import of role 'five-5' \(records\.role\[4\]\) failed: .*Nothing of the package was imported\.$/,
    );
    expect(refused.body.error.context).toMatchObject({ field: 'nosuch', record: 'records.role[4]' });
    expect(await names('role', 'five-')).toEqual([]);
    // The same records without the bad one import.
    const fine = await imported({ role: roles('five', 4) });
    expect(fine.status).toBe(201);
    expect(await names('role', 'five-')).toEqual(['five-1', 'five-2', 'five-3', 'five-4']);
  });

  it('keeps nothing of earlier kinds either, and opens none of the services, when a later record refers to nothing', async () => {
    const service = { name: 'pkgsvc', label: 'Package service', type: 'local_file', is_active: true, config: { root: '.' } };
    const refused = await imported({
      service: [service],
      role: roles('kinds', 2),
      app: [{ name: 'kinds-app', is_active: true, role: 'kinds-none' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(
      "Import of app 'kinds-app' (records.app[0]) failed: The package refers to no role named 'kinds-none'",
    );
    expect(await names('service', 'pkgsvc')).toEqual([]);
    expect(await names('role', 'kinds-')).toEqual([]);
    expect((await api('GET', '/pkgsvc')).status).toBe(404);
    // The after-commit work of a package that is stored: its service serves at once.
    const fine = await imported({
      service: [service],
      role: roles('kinds', 2),
      app: [{ name: 'kinds-app', is_active: true, role: 'kinds-1' }],
    });
    expect(fine.status).toBe(201);
    expect((await api('GET', '/pkgsvc')).status).toBe(200);
  });

  it('keeps nothing when the database refuses a record (a duplicate API key), and undoes what an overwrite changed', async () => {
    expect((await imported({ role: [{ name: 'kept-1', description: 'old', is_active: true, grants: [] }] })).status).toBe(201);
    const key = 'c'.repeat(64);
    const refused = await imported(
      {
        role: [{ name: 'kept-1', description: 'new', is_active: true, grants: [] }, ...roles('dup', 2)],
        app: [
          { name: 'dup-app-1', is_active: true, api_key: key },
          { name: 'dup-app-2', is_active: true, api_key: key },
        ],
      },
      true,
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.body.error.message).toMatch(/^Import of app 'dup-app-2' \(records\.app\[1\]\) failed: /);
    expect(await names('app', 'dup-app')).toEqual([]);
    expect(await names('role', 'dup-')).toEqual([]);
    const kept = (await api('GET', `/system/role?filter=${encodeURIComponent("name = 'kept-1'")}`)).body.resource[0];
    expect(kept.description).toBe('old');
  });
}

describe('package import on a SQLite system database', () => importSuite('sqlite'));

describe.skipIf(!(await requireService('postgres')))('package import on a PostgreSQL system database', () => importSuite('postgres'));

describe.skipIf(!(await requireService('mysql')))('package import on a MariaDB system database', () => importSuite('mysql'));
