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

// df-admin-app: the reference's legacy AngularJS console posts its forms' whole records.
describe("the reference's legacy admin app", () => {
  it('creates a role with its default_app_id, then replaces and removes grants as its editor does', async () => {
    const serviceId = await emailServiceId();
    const query = '?fields=*&related=role_service_access_by_role_id,lookup_by_role_id';
    const grant = { verb_mask: 1, requestor_mask: 1, component: '*', service_id: serviceId, filters: [], filter_op: 'AND' };
    const created = await api('POST', `/system/role${query}`, {
      resource: [
        {
          name: 'aa-role',
          description: null,
          is_active: false,
          default_app_id: null,
          role_service_access_by_role_id: [grant],
          id: null,
          lookup_by_role_id: [],
        },
      ],
    });
    expect(created.status).toBe(201);
    const role = created.body.resource[0];
    // The edited record goes back whole: the grant removed is sent with role_id null, a new one without id.
    role.role_service_access_by_role_id[0].role_id = null;
    role.role_service_access_by_role_id.push({ ...grant, component: 'send', service_id: null });
    const updated = await api('PUT', `/system/role/${role.id}${query}`, role);
    expect(updated.status).toBe(200);
    expect(updated.body.role_service_access_by_role_id.map((g: { component: string }) => g.component)).toEqual(['send']);
    expect((await api('DELETE', `/system/role/${role.id}`)).status).toBe(200);
  });

  it('creates users and administrators with its user_source and user_data fields', async () => {
    const form = { first_name: null, last_name: null, phone: null, confirmed: false, is_active: true, user_source: 0, user_data: [] };
    const user = await api('POST', '/system/user?fields=*&related=user_to_app_to_role_by_user_id,lookup_by_user_id', {
      resource: [
        {
          ...form,
          name: 'AA User',
          email: 'aa-user@x.io',
          default_app_id: null,
          password: null,
          lookup_by_user_id: [],
          user_to_app_to_role_by_user_id: [],
        },
      ],
    });
    expect(user.status).toBe(201);
    const admin = await api('POST', '/system/admin?fields=*&related=lookup_by_user_id', {
      resource: [{ ...form, name: 'AA Admin', email: 'aa-admin@x.io', password: 'aa-admin-password-0123', lookup_by_user_id: [] }],
    });
    expect(admin.status).toBe(201);
    expect((await api('DELETE', `/system/user/${user.body.resource[0].id}`)).status).toBe(200);
    expect((await api('DELETE', `/system/admin/${admin.body.resource[0].id}`)).status).toBe(200);
  });

  it('creates an email template from its blank form (null lists, its replay_to fields) and a limit with its counters', async () => {
    const template = await api('POST', '/system/email_template', {
      resource: [
        {
          bcc: null,
          body_html: null,
          body_text: null,
          cc: null,
          defaults: [],
          description: null,
          from_email: null,
          from_name: null,
          id: null,
          name: 'AA TEMPLATE',
          replay_to_email: null,
          replay_to_name: null,
          subject: null,
          to: null,
        },
      ],
    });
    expect(template.status).toBe(201);
    expect((await api('DELETE', `/system/email_template/${template.body.resource[0].id}`)).status).toBe(200);
    const limit = await api('POST', '/system/limit', {
      resource: [
        {
          is_active: true,
          description: null,
          name: 'aa-limit',
          period: 'minute',
          rate: '10',
          role_id: null,
          service_id: null,
          type: 'instance',
          endpoint: null,
          user_id: null,
          cacheData: {},
          verb: null,
        },
      ],
    });
    expect(limit.status).toBe(201);
    expect((await api('DELETE', `/system/limit/${limit.body.resource[0].id}`)).status).toBe(200);
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

  it("reads a service by its name where the id goes, as its get_service did before it looked names up (writes by name stay the reference's 404)", async () => {
    const id = await emailServiceId();
    expect((await api('GET', '/system/service/email?fields=id,name')).body).toEqual({ id, name: 'email' });
    expect((await api('GET', `/system/service/${id}?fields=name`)).body).toEqual({ name: 'email' });
    const missing = { error: { code: 404, message: "Record with identifier 'no-such-service' not found." } };
    expect((await api('GET', '/system/service/no-such-service')).body).toEqual(missing);
    for (const [verb, body] of [
      ['PATCH', { label: 'x' }],
      ['DELETE', undefined],
    ] as const)
      expect((await api(verb, '/system/service/email', body)).body).toEqual({
        error: { code: 404, message: "Record with identifier 'email' not found." },
      });
    // Other resources keep the reference's 404 for a name.
    expect((await api('GET', '/system/app/admin')).status).toBe(404);
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

// The same by-id writes the Terraform provider, df-system-mcp-server and the admin apps send (rows 17, 18, 30),
// with the body lost on the way: a missing or null body is the data API's 400, not a write of nothing that
// answers 200 and moves last_modified_date.
describe('by-id system writes without a body', () => {
  it('are a 400 in the error shape for PATCH and PUT, and leave the record alone', async () => {
    const created = await api('POST', '/system/app', { resource: [{ name: 'bodyless', type: 0, description: 'kept' }] });
    const id = created.body.resource[0].id;
    const before = (await api('GET', `/system/app/${id}`)).body;
    for (const [verb, body] of [
      ['PATCH', undefined],
      ['PUT', undefined],
      ['PATCH', 'null'],
    ] as const) {
      const answer = await api(verb, `/system/app/${id}`, body);
      expect([verb, body, answer.status, answer.body]).toEqual([
        verb,
        body,
        400,
        { error: { code: 400, message: 'The request body must be a JSON object of field values.' } },
      ]);
    }
    expect((await api('PATCH', `/system/service/${await emailServiceId()}`)).status).toBe(400);
    expect((await api('GET', `/system/app/${id}`)).body).toEqual(before);
    expect((await api('DELETE', `/system/app/${id}`)).status).toBe(200);
  });
});

// A login form whose fields a client typed as numbers (or sent as objects): the email or password is there, of the
// wrong type. It said the email was missing; it says what is wrong with it, in the error shape, at both endpoints.
describe('a login whose email or password is not a string', () => {
  it('is a 400 saying the field must be a string', async () => {
    for (const endpoint of ['/system/admin/session', '/user/session']) {
      for (const [body, field] of [
        [{ email: 5, password: 'secret-password' }, 'email'],
        [{ email: ['admin@test.local'], password: 'secret-password' }, 'email'],
        [{ email: 'admin@test.local', password: 123456 }, 'password'],
        [{ email: 'admin@test.local', password: { text: 'x' } }, 'password'],
      ] as const) {
        const answer = await api('POST', endpoint, body, null);
        expect([endpoint, body, answer.status, answer.body]).toEqual([
          endpoint,
          body,
          400,
          { error: { code: 400, message: `Field '${field}' must be a string.`, context: { field } } },
        ]);
      }
      // Missing (or null, or empty) is still said so.
      const missing = await api('POST', endpoint, { email: null, password: 'secret-password' }, null);
      expect([missing.status, missing.body.error.message]).toEqual([400, 'Login request is missing required email.']);
    }
  });
});
