/**
 * Bad input to the system endpoints: unknown fields, wrong types, missing required fields,
 * duplicates, oversized and malformed bodies. Each ends in the spec's error shape naming the
 * field (400, 409 or 413), and nothing is half-written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer(minimalModel(), { bodyLimit: 4096 });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

/** A valid record of each resource, and the field whose value must be unique. */
const VALID: Record<string, { record: Record<string, unknown>; unique: string; wrongType: [string, unknown]; required: string }> = {
  admin: {
    record: { name: 'A', email: 'a@bad.io', password: 'a-long-enough-password' },
    unique: 'email',
    wrongType: ['is_active', 'yes'],
    required: 'email',
  },
  user: { record: { name: 'U', email: 'u@bad.io' }, unique: 'email', wrongType: ['phone', 5], required: 'name' },
  app: { record: { name: 'bad-app' }, unique: 'name', wrongType: ['role_id', 'one'], required: 'name' },
  role: { record: { name: 'bad-role' }, unique: 'name', wrongType: ['description', ['x']], required: 'name' },
  service: {
    record: { name: 'badsvc', label: 'Bad', type: 'local_email' },
    unique: 'name',
    wrongType: ['config', 'text'],
    required: 'type',
  },
  cors: { record: { path: 'bad/*', origin: '*' }, unique: 'path', wrongType: ['max_age', -1], required: 'origin' },
  lookup: { record: { name: 'bad_lookup', value: 'v' }, unique: 'name', wrongType: ['private', 'no'], required: 'name' },
  email_template: { record: { name: 'Bad template' }, unique: 'name', wrongType: ['subject', 7], required: 'name' },
  custom: { record: { name: 'bad_custom', value: 1 }, unique: 'name', wrongType: ['name', 3], required: 'name' },
};

async function count(resource: string): Promise<number> {
  return (await api('GET', `/system/${resource}?count_only=true`)).body.meta.count;
}

describe.each(Object.entries(VALID))('/system/%s', (resource, { record, unique, wrongType, required }) => {
  const refuse = async (body: unknown, status: number | number[], field: string | null, url = `/system/${resource}`, method = 'POST') => {
    const before = await count(resource);
    const response = await api(method, url, body);
    expect([status].flat(), JSON.stringify(response.body)).toContain(response.status);
    status = response.status;
    expect(response.body).toEqual({
      error: { code: status, message: expect.any(String), ...(field === null ? {} : { context: expect.anything() }) },
    });
    if (field !== null) expect(JSON.stringify(response.body.error.context) + response.body.error.message).toContain(field);
    expect(await count(resource), 'nothing written').toBe(before);
    return response;
  };

  it('refuses an unknown field', async () => {
    const response = await refuse({ resource: [{ ...record, nosuch_field: 1 }] }, 400, 'nosuch_field');
    expect(response.body.error.context).toMatchObject({
      field: 'nosuch_field',
      errors: [{ index: 0, message: response.body.error.message, code: 400 }],
    });
  });

  it('refuses a wrong type', async () => {
    await refuse({ resource: [{ ...record, [wrongType[0]]: wrongType[1] }] }, 400, wrongType[0]);
  });

  it('refuses a missing required field', async () => {
    const { [required]: _missing, ...rest } = record;
    const response = await refuse({ resource: [rest] }, 400, required);
    expect(response.body.error.message).toBe(`Field '${required}' is required.`);
  });

  it('refuses fields naming no field of the answer before writing anything', async () => {
    const response = await refuse({ resource: [record] }, 400, 'nosuch', `/system/${resource}?fields=${unique},nosuch`);
    expect(response.body.error.message).toBe('Invalid field requested: nosuch');
  });

  it('refuses a duplicate with 409 naming the field, in a batch writing nothing', async () => {
    // In one batch: a batch error (or the resource's own duplicate check), and nothing written.
    await refuse({ resource: [record, record] }, [400, 409], unique);
    expect((await api('POST', `/system/${resource}`, { resource: [record] })).status).toBe(201);
    const duplicate = await refuse({ resource: [record] }, 409, unique);
    expect(duplicate.body.error.message).toContain(unique);
  });

  it('refuses a bare object, a non-object record, an empty list and a create by id', async () => {
    await refuse(record, 400, null);
    await refuse({ resource: [record, 'x'] }, 400, 'Record 1');
    await refuse({ resource: [] }, 400, null);
    await refuse({ resource: [record] }, 400, null, `/system/${resource}/1`);
  });

  it('takes one record given as {"resource": {...}} and refuses the same record bare (reference 1.3)', async () => {
    const one = { ...record, [unique]: `one-${String(record[unique])}` };
    await refuse(one, 400, null);
    const created = await api('POST', `/system/${resource}`, { resource: one });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.resource).toHaveLength(1);
  });

  it('refuses a bad change by id', async () => {
    await refuse({ resource: [{ [wrongType[0]]: wrongType[1] }] }, 400, wrongType[0], `/system/${resource}?ids=1`, 'PATCH');
    await refuse({ nosuch_field: 1 }, 400, 'nosuch_field', `/system/${resource}/1`, 'PATCH');
  });

  it('refuses an oversized body with 413', async () => {
    const response = await api('POST', `/system/${resource}`, { resource: [{ ...record, description: 'x'.repeat(5000) }] });
    expect(response.body).toEqual({ error: { code: 413, message: 'Request body is too large.' } });
  });

  it('refuses malformed JSON', async () => {
    const response = await api('POST', `/system/${resource}`, '{"resource": [');
    expect(response.body).toEqual({ error: { code: 400, message: 'Invalid or malformed JSON.' } });
  });
});

describe("the spec's Resources tables", () => {
  it('refuse a create without each field the spec marks required', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['admin', { email: 'no-name@x.io', password: 'a-long-enough-password' }, 'name'],
      ['admin', { name: 'No Email', password: 'a-long-enough-password' }, 'email'],
      ['user', { email: 'no-name@x.io' }, 'name'],
      ['user', { name: 'No Email' }, 'email'],
      ['app', { label: 'No name' }, 'name'],
      ['role', { description: 'No name' }, 'name'],
      ['service', { label: 'No name', type: 'local_email' }, 'name'],
      ['service', { name: 'no_type', label: 'No type' }, 'type'],
      ['service', { name: 'no_wsdl', label: 'No WSDL', type: 'soap', config: {} }, 'config.wsdl'],
    ];
    for (const [resource, record, field] of cases) {
      const response = await api('POST', `/system/${resource}`, { resource: [record] });
      expect([resource, field, response.status, response.body.error.message]).toEqual([
        resource,
        field,
        400,
        `Field '${field}' is required.`,
      ]);
    }
  });

  it("refuse a service name that is not lowercase letters, digits, '_' and '-', and a type the type list does not name", async () => {
    for (const name of ['UpperCase', 'has space', 'dot.ted', 'slash/ed', '']) {
      const response = await api('POST', '/system/service', { resource: [{ name, label: 'x', type: 'local_email' }] });
      expect([name, response.status, response.body.error.context?.field]).toEqual([name, 400, 'name']);
    }
    const types = (await api('GET', '/system/service_type?fields=name')).body.resource.map((t: { name: string }) => t.name);
    expect(types).not.toContain('sql_db');
    const unknown = await api('POST', '/system/service', { resource: [{ name: 'odd_type', label: 'x', type: 'sql_db' }] });
    expect(unknown.body.error).toMatchObject({ code: 400, message: "Service type 'sql_db' not found.", context: { field: 'type' } });
    const id = (await api('POST', '/system/service', { resource: [{ name: 'retype_me', label: 'x', type: 'local_email' }] })).body
      .resource[0].id;
    expect((await api('PATCH', `/system/service/${id}`, { type: 'sql_db' })).status).toBe(400);
    expect((await api('PATCH', `/system/service/${id}`, { name: 'Retype' })).status).toBe(400);
    expect((await api('GET', `/system/service/${id}?fields=name,type`)).body).toEqual({ name: 'retype_me', type: 'local_email' });
    await api('DELETE', `/system/service/${id}`);
  });
});

describe('nested records and queries', () => {
  it('writes nothing when a nested record is bad', async () => {
    const cases: Array<[unknown, string]> = [
      [{ verb_mask: 99 }, 'role_service_access_by_role_id[0].verb_mask'],
      [{ service_id: 12345, verb_mask: 1 }, 'role_service_access_by_role_id[0].service_id'],
      [{ verb_mask: 1, nosuch: true }, 'role_service_access_by_role_id[0].nosuch'],
      [{ id: 98765, verb_mask: 1 }, 'role_service_access_by_role_id[0].id'],
    ];
    for (const [grant, field] of cases) {
      const response = await api('POST', '/system/role', {
        resource: [{ name: 'nested-bad', role_service_access_by_role_id: [{ component: '*', ...(grant as object) }] }],
      });
      expect([400, 404]).toContain(response.status);
      expect(JSON.stringify(response.body.error.context)).toContain(field);
      expect((await api('GET', "/system/role?filter=name='nested-bad'")).body.resource).toEqual([]);
    }
  });

  it('changes nothing when the fields an update asks back name no field', async () => {
    const id = (await api('POST', '/system/role', { resource: [{ name: 'fields-role', description: 'before' }] })).body.resource[0].id;
    for (const [url, body] of [
      [`/system/role/${id}?fields=nosuch`, { description: 'after' }],
      [`/system/role?ids=${id}&fields=*,nosuch`, { description: 'after' }],
      ['/system/role?fields=nosuch', { resource: [{ id, description: 'after' }] }],
    ] as const) {
      const response = await api('PATCH', url, body);
      expect(response.status, url).toBe(400);
      expect(response.body.error).toEqual({ code: 400, message: 'Invalid field requested: nosuch', context: { field: 'nosuch' } });
    }
    expect((await api('GET', `/system/role/${id}?fields=description`)).body).toEqual({ description: 'before' });
  });

  it('refuses filters and fields on unknown or secret columns', async () => {
    for (const url of [
      '/system/admin?filter=password%20like%20%27%242%25%27',
      '/system/admin?fields=password',
      '/system/admin?filter=nosuch=1',
      '/system/admin?order=password',
    ]) {
      const response = await api('GET', url);
      expect(response.status, url).toBe(400);
    }
  });

  it.each([
    'related=constructor',
    'related=__proto__',
    'filter=constructor.x%20%3D%201',
    'order=constructor.x',
    'order=__proto__.x',
    'group=hasOwnProperty.x',
  ])('refuses %s (a name every object inherits, no relation) with a 400, not a 500', async (query) => {
    for (const resource of ['user', 'role', 'app', 'service']) {
      const response = await api('GET', `/system/${resource}?${query}`);
      expect(response.status, `${resource}: ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.error).toMatchObject({ code: 400, message: expect.any(String) });
    }
  });

  it('answers 404 Record not found to an id no record can have (a name where the id goes), as the reference does', async () => {
    const resources = [
      'admin',
      'user',
      'app',
      'role',
      'service',
      'cors',
      'lookup',
      'email_template',
      'limit',
      'scheduler',
      'service_report',
    ];
    // `system` names an existing service: addressed by name, it is still not a record's id (but for a service's read,
    // which takes a name: test/e2e/real-clients/system-clients.test.ts).
    for (const id of ['system', 'abc', '1.5', '-1', '1e3', '99999999999', '2147483648']) {
      for (const resource of resources) {
        for (const verb of ['GET', 'PATCH', 'DELETE']) {
          const url = `/system/${resource}/${id}`;
          if (verb === 'PATCH' && resource === 'service_report') continue; // reports are not written
          if (verb === 'GET' && resource === 'service' && id === 'system') continue;
          const response = await api(verb, url, verb === 'PATCH' ? {} : undefined);
          expect(response.status, `${verb} ${url}`).toBe(404);
          expect(response.body, `${verb} ${url}`).toEqual({ error: { code: 404, message: `Record with identifier '${id}' not found.` } });
        }
      }
    }
    // Nothing was touched, and a real id still serves.
    const system = await api('GET', "/system/service?filter=name%3D'system'&fields=id,name");
    expect(system.body.resource).toHaveLength(1);
    expect((await api('GET', `/system/service/${system.body.resource[0].id}?fields=name`)).body).toEqual({ name: 'system' });
    expect((await api('POST', '/system/role/abc', { name: 'x' })).body.error.message).toBe(
      'Create record by identifier not currently supported.',
    );
  });

  it("never tells a masked secret: a private lookup's value, a service's config", async () => {
    await api('POST', '/system/lookup', { resource: [{ name: 'masked_lookup', value: 'hunter2', private: true }] });
    await api('POST', '/system/role', {
      resource: [{ name: 'masked-role', lookup_by_role_id: [{ name: 'role_secret', value: 'hunter3', private: true }] }],
    });
    // Read with or without the `private` flag among the fields: masked.
    for (const fields of ['value', 'name,value', '*']) {
      const read = await api('GET', `/system/lookup?fields=${fields}&filter=name='masked_lookup'`);
      expect(read.body.resource, fields).toEqual([expect.objectContaining({ value: '**********' })]);
    }
    // Filtered, sorted, grouped or identified by: a 400 naming the field, whatever the verb (an update by filter tells its matches too).
    const refused: Array<[string, string, unknown, string]> = [
      ['GET', "/system/lookup?filter=value like 'h%'", undefined, 'value'],
      ['GET', "/system/lookup?where=(VALUE = 'hunter2')", undefined, 'VALUE'],
      ['GET', '/system/lookup?order=value desc', undefined, 'value'],
      ['GET', '/system/lookup?group=value&fields=name', undefined, 'value'],
      ['GET', '/system/lookup?id_field=value&ids=hunter2', undefined, 'value'],
      ['PATCH', "/system/lookup?filter=value='hunter2'", { resource: [{ description: 'found' }] }, 'value'],
      ['DELETE', "/system/lookup?filter=value='hunter2'", undefined, 'value'],
      ['GET', "/system/role?filter=lookup_by_role_id.value like 'h%'", undefined, 'lookup_by_role_id.value'],
      ['GET', "/system/service?filter=config like '%password%'", undefined, 'config'],
      ['GET', "/system/limit?filter=service_by_service_id.config like '%a%'", undefined, 'service_by_service_id.config'],
    ];
    for (const [method, url, body, field] of refused) {
      const response = await api(
        method,
        url
          .replace(/ /g, '%20')
          .replace(/'/g, '%27')
          .replace(/%(?![0-9A-F]{2})/g, '%25'),
        body,
      );
      expect(response.status, url).toBe(400);
      expect(response.body.error.context, url).toEqual({ field });
    }
    expect((await api('GET', "/system/lookup?filter=name%3D'masked_lookup'&fields=description")).body.resource).toEqual([
      { description: '' },
    ]);
  });

  it('refuses bad bodies to the other system endpoints', async () => {
    const cases: Array<[string, string, unknown, number, string | null]> = [
      ['POST', '/system/package?import=true', { version: 2, records: {} }, 400, 'version'],
      ['POST', '/system/package?import=true', { records: [] }, 400, 'records'],
      ['POST', '/system/package', { service: { system: { nosuch: [] } } }, 400, 'nosuch'],
      ['POST', '/system/admin/profile', { phone: 5 }, 400, 'phone'],
      ['POST', '/system/admin/password', { old_password: 'x' }, 400, 'new_password'],
      ['DELETE', '/system/cache/nosuch', undefined, 404, null],
      ['GET', '/system/constant/nosuch', undefined, 404, null],
      ['GET', '/system/service_type/nosuch', undefined, 404, null],
      ['POST', '/system/environment', {}, 400, null],
      ['GET', '/system/nosuch', undefined, 404, null],
      ['POST', '/email', { to: 'not an address' }, 400, 'to'],
      ['POST', '/email', { subject: 'no recipient' }, 400, 'to'],
      // Ids and counts beyond the system tables' 32-bit integer columns (PostgreSQL refuses even to compare them).
      ['POST', '/system/user', { resource: [{ name: 'U', email: 'big@x.io', default_app_id: 2 ** 31 }] }, 400, 'default_app_id'],
      [
        'POST',
        '/system/role',
        { resource: [{ name: 'big', role_service_access_by_role_id: [{ service_id: 2 ** 31, component: '*', verb_mask: 1 }] }] },
        400,
        'role_service_access_by_role_id[0].service_id',
      ],
      [
        'POST',
        '/system/user',
        { resource: [{ name: 'U', email: 'big2@x.io', user_to_app_to_role_by_user_id: [{ app_id: 2 ** 31, role_id: 1 }] }] },
        400,
        'user_to_app_to_role_by_user_id[0].app_id',
      ],
      ['POST', '/system/limit', { resource: [{ name: 'big', type: 'instance', rate: 2 ** 31 }] }, 400, 'rate'],
      ['POST', '/system/cors', { resource: [{ path: 'big/*', origin: '*', max_age: 2 ** 31 }] }, 400, 'max_age'],
      ['POST', '/system/admin/profile', { default_app_id: 2 ** 31 }, 400, 'default_app_id'],
      ['PATCH', '/system/service/7', { config: { open_reg_role_id: 2 ** 31 } }, 400, 'config.open_reg_role_id'],
      ['GET', `/system/limit_cache/${2 ** 31}`, undefined, 404, null],
      ['DELETE', `/system/limit_cache/${2 ** 31}`, undefined, 404, null],
      ['GET', `/system/limit_cache?user_id=${2 ** 31}`, undefined, 404, null],
      // A record by such an id is one that does not exist, on every database (PostgreSQL refused the id: 400).
      ['GET', `/system/role/${2 ** 31}`, undefined, 404, null],
      ['GET', `/system/user/${2 ** 31}?fields=name`, undefined, 404, null],
      ['PATCH', `/system/app/${2 ** 31}`, { description: 'x' }, 404, null],
      ['DELETE', `/system/cors/${2 ** 31}`, undefined, 404, null],
      ['DELETE', `/system/role?ids=${2 ** 31}`, undefined, 404, null],
      ['GET', `/system/role?ids=${2 ** 31},1`, undefined, 400, `Record with identifier '${2 ** 31}' not found.`],
      ['GET', '/system/role/9999999999999999999', undefined, 404, null],
      // So is a custom setting by a name longer than the column (MySQL answered 400 'Field name value is too long').
      ['GET', `/system/custom/${'n'.repeat(300)}`, undefined, 404, null],
      ['PATCH', `/system/custom/${'n'.repeat(300)}`, { value: 1 }, 404, null],
      ['DELETE', `/system/custom?ids=${'n'.repeat(300)}`, undefined, 404, null],
    ];
    for (const [method, url, body, status, field] of cases) {
      const response = await api(method, url, body);
      expect(response.status, `${method} ${url}`).toBe(status);
      expect(response.body.error.code).toBe(status);
      if (field !== null) expect(JSON.stringify(response.body.error.context), `${method} ${url}`).toContain(field);
    }
  });
});

describe('a SQLite service on the system database', () => {
  it("is refused: its tables (password hashes, the signing secret, role assignments) are no service's to serve", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-system-file-'));
    const own = await startTestServer(minimalModel(), { systemDatabase: path.join(dir, 'system.sqlite') });
    try {
      const token = await own.adminToken();
      const call = apiClient(own.app, () => ({ key: own.apiKey, token }));
      const record = (database: string) => ({ resource: [{ name: 'sys', label: 'S', type: 'sqlite', config: { database } }] });
      // Absolute, and relative to the platform directory.
      for (const database of [path.join(dir, 'system.sqlite'), path.relative(own.dir, path.join(dir, 'system.sqlite'))]) {
        const refused = await call('POST', '/system/service', record(database));
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({
          message: "Field 'config.database' names the system database, which no service may serve.",
          context: { field: 'config.database' },
        });
      }
      const other = await call('POST', '/system/service', record(path.join(dir, 'other.sqlite')));
      expect(other.status).toBe(201);
      const moved = await call('PATCH', `/system/service/${other.body.resource[0].id}`, {
        config: { database: path.join(dir, 'system.sqlite') },
      });
      expect(moved.status).toBe(400);
      expect((await call('GET', '/sys/_table/user')).status).toBe(404);
    } finally {
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
