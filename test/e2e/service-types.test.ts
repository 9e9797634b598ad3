/**
 * GET /system/service_type lists every type id the spec names, each in the spec's group with a
 * config_schema, and a service of each served type can be created through /system/service.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer();
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

const SPEC_TYPES: Array<[string, string]> = [
  ['sqlite', 'Database'],
  ['local_file', 'File'],
  ['ftp_file', 'File'],
  ['sftp_file', 'File'],
  ['webdav_file', 'File'],
  ['mcp', 'MCP'],
  ['local_email', 'Email'],
  ['smtp_email', 'Email'],
  ['amqp', 'IoT'],
  ['mqtt', 'IoT'],
  ['cache_redis', 'Cache'],
  ['soap', 'Remote Service'],
  ['rws', 'Remote Service'],
  ['swagger', 'API Doc'],
  ['user', 'User'],
  ['system', 'System'],
];

it('lists every type the spec names, in its group, with a config schema', async () => {
  const listed = (await api('GET', '/system/service_type')).body.resource as Array<{
    name: string;
    group: string;
    config_schema: unknown[];
  }>;
  for (const [name, group] of SPEC_TYPES) {
    const type = listed.find((t) => t.name === name);
    expect(type, name).toBeDefined();
    expect(type?.group, name).toBe(group);
    expect(Array.isArray(type?.config_schema), name).toBe(true);
  }
  const sftp = (await api('GET', '/system/service_type/sftp_file')).body;
  expect(sftp.config_schema.map((f: { name: string }) => f.name)).toEqual(
    expect.arrayContaining(['host', 'port', 'username', 'password', 'host_fingerprint', 'private_key', 'container']),
  );
  expect(sftp.config_schema.find((f: { name: string }) => f.name === 'password').type).toBe('password');
  expect(sftp.config_schema.find((f: { name: string }) => f.name === 'host').required).toBe(true);
});

it("describes the databases' data retrieval cache with the reference's labels", async () => {
  for (const type of ['sqlite', 'pgsql', 'mysql']) {
    const fields = (await api('GET', `/system/service_type/${type}`)).body.config_schema as Array<Record<string, unknown>>;
    const field = (name: string) => fields.find((f) => f.name === name);
    expect(field('cache_enabled'), type).toMatchObject({ label: 'Data Retrieval Caching Enabled', type: 'boolean', default: false });
    expect(field('cache_ttl'), type).toMatchObject({ label: 'Cache Time To Live (seconds)', type: 'integer', default: 0 });
    expect(field('cache_service'), type).toMatchObject({ type: 'string', required: false });
  }
});

it('refuses a file service config without its required fields', async () => {
  const refused = await api('POST', '/system/service', {
    resource: [{ name: 'no_host', label: 'x', type: 'ftp_file', config: { container: '/x' } }],
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(/host/);
});
