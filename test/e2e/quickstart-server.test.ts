/**
 * The generated quickstart server, listening on a real port, driven over HTTP as a client would:
 * admin login, the address book through _table and _schema, discovery, the error rules, and the
 * platform's own TypeScript compiled into the server (the contact_info hook and the stats endpoint).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';

const ADMIN = { email: 'e2e@portico.local', password: 'e2e-password-0123456789' };
let server: RunningQuickstart;
let token: string;

async function call(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; auth?: boolean } = {},
) {
  const headers: Record<string, string> = {
    ...(options.auth === false ? {} : { 'X-Service-API-Key': server.apiKey, 'X-Service-Session-Token': token }),
    ...options.headers,
  };
  if (options.body !== undefined || options.raw !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(server.url + path, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  server = await startQuickstart(copyQuickstart(), { PORTICO_ADMIN_EMAIL: ADMIN.email, PORTICO_ADMIN_PASSWORD: ADMIN.password });
  const login = await call('POST', '/api/v2/system/admin/session', {
    body: ADMIN,
    auth: false,
    headers: { 'X-Service-API-Key': server.apiKey },
  });
  expect(login.status).toBe(200);
  token = login.body.session_token;
});

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

describe('the generated quickstart server', () => {
  it('prints the admin login and the admin app key at start', () => {
    expect(server.output).toContain(`first administrator: ${ADMIN.email}`);
    expect(server.apiKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('has the fresh-install built-in services with their ids and types', async () => {
    const { body } = await call('GET', '/api/v2?fields=id,name,type');
    expect(body.services.map((s: { id: number; name: string; type: string }) => [s.id, s.name, s.type])).toEqual([
      [1, 'system', 'system'],
      [2, 'api_docs', 'swagger'],
      [3, 'files', 'local_file'],
      [4, 'logs', 'local_file'],
      [5, 'db', 'sqlite'],
      [6, 'email', 'local_email'],
      [7, 'user', 'user'],
      [8, 'audit', 'sqlite'],
      [9, 'stats', 'custom'],
    ]);
  });

  it('lists the built-in apps with their API keys', async () => {
    const { status, body } = await call('GET', '/api/v2/system/app?fields=id,name,api_key,is_active');
    expect(status).toBe(200);
    expect(body.resource.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['admin', 'api_docs', 'file_manager', 'addressbook']),
    );
  });

  it('lists, filters, orders and pages the seeded address book', async () => {
    const tables = await call('GET', '/api/v2/db/_table');
    expect(tables.body.resource.map((t: { name: string }) => t.name)).toEqual([
      'contact',
      'contact_group',
      'contact_group_relationship',
      'contact_info',
    ]);
    const page = await call(
      'GET',
      `/api/v2/db/_table/contact?fields=id,last_name&filter=${encodeURIComponent("last_name like 'S%' or id = 1")}&order=last_name desc&limit=3&offset=1&include_count=true`,
    );
    expect(page.status).toBe(200);
    expect(page.body.meta.count).toBe(7);
    expect(page.body.resource).toHaveLength(3);
    expect(Object.keys(page.body.resource[0])).toEqual(['id', 'last_name']);
    const names = page.body.resource.map((r: { last_name: string }) => r.last_name);
    expect([...names].sort().reverse()).toEqual(names);
    const ids = await call('GET', '/api/v2/db/_table/contact?ids=3,1&fields=id');
    expect(ids.body.resource).toEqual([{ id: 3 }, { id: 1 }]);
  });

  it('tags a record read through the generated route with an ETag that If-Match checks', async () => {
    const read = await fetch(`${server.url}/api/v2/db/_table/contact/1`, {
      headers: { 'X-Service-API-Key': server.apiKey, 'X-Service-Session-Token': token },
    });
    const etag = read.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    await read.text();
    expect(
      (await call('PATCH', '/api/v2/db/_table/contact/1', { body: { notes: 'x' }, headers: { 'If-Match': 'W/"stale"' } })).status,
    ).toBe(412);
    expect(
      (
        await call('PATCH', '/api/v2/db/_table/contact/1', {
          body: { notes: (await call('GET', '/api/v2/db/_table/contact/1')).body.notes },
          headers: { 'If-Match': etag! },
        })
      ).status,
    ).toBe(200);
  });

  it('creates, reads, patches and deletes a record', async () => {
    const created = await call('POST', '/api/v2/db/_table/contact', {
      body: { resource: [{ first_name: 'Grace', last_name: 'Hopper', notes: 'COBOL' }] },
    });
    expect(created.status).toBe(200);
    const id = created.body.resource[0].id;
    expect(typeof id).toBe('number');
    expect((await call('GET', `/api/v2/db/_table/contact/${id}`)).body).toMatchObject({ id, first_name: 'Grace', last_name: 'Hopper' });
    expect((await call('PATCH', `/api/v2/db/_table/contact/${id}`, { body: { notes: 'compilers' } })).body).toEqual({ id });
    expect((await call('GET', `/api/v2/db/_table/contact/${id}?fields=notes`)).body).toEqual({ notes: 'compilers' });
    expect((await call('DELETE', `/api/v2/db/_table/contact/${id}`)).body).toEqual({ id });
    const gone = await call('GET', `/api/v2/db/_table/contact/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toEqual({ code: 404, message: `Record with identifier '${id}' not found.` });
  });

  it('describes the schema', async () => {
    const list = await call('GET', '/api/v2/db/_schema');
    expect(list.body.resource).toContainEqual({ name: 'contact_info' });
    const table = await call('GET', '/api/v2/db/_schema/contact_info');
    expect(table.body.name).toBe('contact_info');
    const contactId = table.body.field.find((f: { name: string }) => f.name === 'contact_id');
    expect(contactId).toMatchObject({ type: 'reference', is_foreign_key: true, ref_table: 'contact', ref_field: 'id' });
  });

  it('serves OpenAPI discovery', async () => {
    const spec = await call('GET', '/api/v2/db/_spec');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.body.paths)).toContain('/_table/contact');
    const docs = await call('GET', '/api/v2/api_docs/db');
    expect(docs.body.paths).toEqual(spec.body.paths);
    const all = await call('GET', '/api/v2/api_docs');
    expect(Object.keys(all.body.paths)).toContain('/db/_table/contact');
  });

  it('answers errors in the spec shape', async () => {
    const cases: Array<[string, string, Parameters<typeof call>[2], number]> = [
      ['GET', '/api/v2/db/_table/contact', { auth: false }, 401],
      ['GET', '/api/v2/db/_table/contact', { auth: false, headers: { 'X-Service-API-Key': 'f'.repeat(64) } }, 401],
      [
        'GET',
        '/api/v2/db/_table/contact',
        { auth: false, headers: { 'X-Service-API-Key': 'x', 'X-Service-Session-Token': 'not.a.jwt' } },
        401,
      ],
      ['GET', '/api/v2/nosuch/_table', {}, 404],
      ['GET', '/api/v2/db/_table/nosuch', {}, 404],
      ['GET', '/api/v2/db/_table/contact/99999', {}, 404],
      ['GET', `/api/v2/db/_table/contact?filter=${encodeURIComponent('last_name = ')}`, {}, 400],
      ['GET', `/api/v2/db/_table/contact?filter=${encodeURIComponent('nosuch = 1')}`, {}, 400],
      ['POST', '/api/v2/db/_table/contact', { raw: '{"resource": [' }, 400],
    ];
    for (const [method, path, options, status] of cases) {
      const response = await call(method, path, options);
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.body.error.code).toBe(status);
      expect(typeof response.body.error.message).toBe('string');
    }
  });

  it('lets the addressbook app read with its role and refuses writes', async () => {
    const apps = await call('GET', '/api/v2/system/app?fields=name,api_key');
    const key = apps.body.resource.find((a: { name: string }) => a.name === 'addressbook').api_key;
    const read = await call('GET', '/api/v2/db/_table/contact_group', { auth: false, headers: { 'X-Service-API-Key': key } });
    expect(read.status).toBe(200);
    expect(read.body.resource).toHaveLength(9);
    const write = await call('POST', '/api/v2/db/_table/contact_group', {
      auth: false,
      headers: { 'X-Service-API-Key': key },
      body: { resource: [{ name: 'x' }] },
    });
    expect(write.status).toBe(401);
  });

  it("runs the platform's hook: phone numbers normalised, an audit entry per write", async () => {
    const info = { contact_id: 2, info_type: 'home', email: 'e@x.io', address: '1 Way', city: 'C', state: 'S', zip: '1', country: 'X' };
    const created = await call('POST', '/api/v2/db/_table/contact_info?fields=id,phone', {
      body: { resource: [{ ...info, phone: '+1 (500) 555.0142' }] },
    });
    expect(created.status).toBe(200);
    const { id, phone } = created.body.resource[0];
    expect(phone).toBe('500 555-0142');
    const audit = await call('GET', `/api/v2/audit/_table/entry?filter=${encodeURIComponent(`record_ids = '${id}'`)}`);
    expect(audit.body.resource).toEqual([
      expect.objectContaining({ event: 'db._table.contact_info.post.post_process', actor: ADMIN.email, at: expect.any(String) }),
    ]);
    const refused = await call('PATCH', `/api/v2/db/_table/contact_info/${id}`, { body: { phone: 'ask reception' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^Phone number 'ask reception' is not valid/);
  });

  it("takes the phone numbers the reference's javascript-sdk sends as numbers (its parseInt), and a missing one as null", async () => {
    // Its contact form: `phone: parseInt(...)`, `zip: parseInt(...)`, NaN (an empty field) as null.
    const info = { contact_id: 2, info_type: 'work', email: 'e@x.io', address: '1 Way', city: 'C', state: 'S', country: 'X', ordinal: 0 };
    const created = await call('POST', '/api/v2/db/_table/contact_info?fields=phone,zip', {
      body: { resource: [{ ...info, phone: 5005550143, zip: 58467 }] },
    });
    expect([created.status, created.body]).toEqual([200, { resource: [{ phone: '500 555-0143', zip: '58467' }] }]);
    const blank = await call('POST', '/api/v2/db/_table/contact_info', { body: { resource: [{ ...info, phone: null, zip: null }] } });
    expect([blank.status, blank.body.error.message]).toEqual([400, expect.stringContaining("'phone'")]);
  });

  it('serves the stats endpoint, documented, to the addressbook app through its role', async () => {
    const apps = await call('GET', '/api/v2/system/app?fields=name,api_key');
    const key = apps.body.resource.find((a: { name: string }) => a.name === 'addressbook').api_key;
    const stats = await call('GET', '/api/v2/stats/contacts', { auth: false, headers: { 'X-Service-API-Key': key } });
    expect(stats.status).toBe(200);
    expect(stats.body.total).toBe(100);
    expect(stats.body.groups).toHaveLength(9);
    expect(stats.body.groups[0]).toEqual({ id: expect.any(Number), name: expect.any(String), contacts: expect.any(Number) });
    const spec = await call('GET', '/api/v2/stats/_spec');
    expect(spec.body.paths['/contacts'].get.responses['200'].content['application/json'].schema.required).toEqual(['total', 'groups']);
  });
});
