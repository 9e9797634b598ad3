/**
 * The reference platform's third-party system clients, call by call as they send them
 * (/work/shared/reference/real-client-surface.md): the Terraform provider's bodies (Go structs
 * encoded whole: zero ids, zero masks, empty strings, nulls, and fields of the early reference),
 * df-system-mcp-server's service tools, and the admin apps' root listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

const emailServiceId = async () =>
  (await api('GET', `/system/service?filter=${encodeURIComponent("name='email'")}&fields=id`)).body.resource[0].id as number;

describe('the Terraform provider', () => {
  // Its RoleAccess struct has no omitempty: a grant it adds comes with id 0, role_id 0, filter_op "" and, by a bug
  // of its own (`mask &= bit`), verb_mask and requestor_mask 0; the role carries the early reference's lookups name.
  const grant = (serviceId: number, component: string) => ({
    id: 0,
    role_id: 0,
    service_id: serviceId,
    component,
    verb_mask: 0,
    requestor_mask: 0,
    filters: [],
    filter_op: '',
  });

  it('creates and updates a role with its grants as the provider encodes them (201, then 200)', async () => {
    const serviceId = await emailServiceId();
    const role = { id: 0, name: 'tf-role', description: 'd', is_active: true, role_lookup_by_role_id: [] };
    const created = await api('POST', '/system/role', { resource: [{ ...role, role_service_access_by_role_id: [grant(serviceId, '*')] }] });
    expect([created.status, created.body]).toEqual([201, { resource: [{ id: expect.any(Number) }] }]);
    const id = created.body.resource[0].id;

    const updated = await api('PATCH', `/system/role/${id}`, {
      ...role,
      description: 'changed',
      role_service_access_by_role_id: [grant(serviceId, 'send')],
    });
    expect([updated.status, updated.body]).toEqual([200, { id }]);
    const read = await api('GET', `/system/role/${id}?related=role_service_access_by_role_id`);
    expect(read.body.description).toBe('changed');
    // A zero parent id is this role (the reference's empty()); zero masks and "" are stored as sent.
    expect(
      read.body.role_service_access_by_role_id.map((g: Record<string, unknown>) => [g.role_id, g.component, g.requestor_mask, g.filter_op]),
    ).toEqual([
      [id, '*', 0, ''],
      [id, 'send', 0, ''],
    ]);
    expect((await api('DELETE', `/system/role/${id}`)).status).toBe(200);
  });

  it('creates a service with its doc, mutable and deletable fields', async () => {
    const created = await api('POST', '/system/service', {
      resource: [
        {
          name: 'tf_mail',
          label: 'TF',
          is_active: true,
          type: 'local_email',
          mutable: true,
          deletable: true,
          doc: { format: 0, content: '' },
          config: {},
        },
      ],
    });
    expect(created.status).toBe(201);
    expect((await api('DELETE', `/system/service/${created.body.resource[0].id}`)).status).toBe(200);
  });

  it('creates an administrator with its confirmation code and lookups of the early reference', async () => {
    const created = await api('POST', '/system/admin', {
      resource: [{ name: 'TF Admin', email: 'tf-admin@x.io', is_active: true, confirm_code: 'x', user_lookup_by_user_id: [] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    // Read back and sent again, as the provider refreshes its state.
    const read = (await api('GET', `/system/admin/${id}`)).body;
    expect(read).toMatchObject({ confirmed: expect.any(Boolean), expired: expect.any(Boolean) });
    expect((await api('PATCH', `/system/admin/${id}`, { ...read, user_lookup_by_user_id: [] })).status).toBe(200);
    expect((await api('DELETE', `/system/admin/${id}`)).status).toBe(200);
  });

  it('creates an email template with null address lists and its from, reply_to and Cc objects', async () => {
    const created = await api('POST', '/system/email_template', {
      resource: [{ name: 'tf-template', description: '', to: null, Cc: [], subject: 'Hi', from: {}, reply_to: {}, defaults: [] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    expect((await api('GET', `/system/email_template/${id}?fields=to,cc,bcc`)).body).toEqual({ to: [], cc: [], bcc: [] });
    expect((await api('DELETE', `/system/email_template/${id}`)).status).toBe(200);
  });

  it("keeps an email template's addresses as {name, email} objects, and an email service sends to them", async () => {
    const to = [{ name: 'Ann', email: 'ann@x.io' }];
    const created = await api('POST', '/system/email_template', {
      resource: [{ name: 'tf-objects', description: '', to, subject: 'Hi', body_text: 'Hello', from: {}, reply_to: {}, defaults: [] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    expect((await api('GET', `/system/email_template/${id}?fields=to`)).body).toEqual({ to });
    expect((await api('POST', '/email', { template: 'tf-objects', from_email: 'app@x.io' })).body).toEqual({ count: 1 });
    expect((await api('DELETE', `/system/email_template/${id}`)).status).toBe(200);
  });
});

describe('df-system-mcp-server', () => {
  it("resolves a service's name with filter=name='…', then reads, patches and deletes it by id", async () => {
    const created = await api('POST', '/system/service', { resource: [{ name: 'rest-api', label: 'R', type: 'local_email', config: {} }] });
    const id = created.body.resource[0].id;
    const lookup = await api('GET', `/system/service?filter=${encodeURIComponent("name='rest-api'")}`);
    expect(lookup.body.resource.map((s: { id: number }) => s.id)).toEqual([id]);
    expect((await api('GET', `/system/service?filter=${encodeURIComponent("name='no-such-service'")}`)).body).toEqual({ resource: [] });
    expect((await api('PATCH', `/system/service/${id}`, { label: 'REST API' })).body).toEqual({ id });
    expect((await api('DELETE', `/system/service/${id}`)).body).toEqual({ id });
  });
});

describe('the root listing of the admin apps', () => {
  it('takes group= before type=, as the reference does', async () => {
    const both = (await api('GET', '/api/v2?group=File&type=local_email&fields=name')).body;
    expect(both.services.map((s: { name: string }) => s.name)).toEqual(['files', 'logs']);
    expect(both.service_types.every((t: { group: string }) => t.group === 'File')).toBe(true);
    expect(both.service_types.length).toBeGreaterThan(1);
  });
});
