/**
 * The system service's resources over HTTP (app.inject): CRUD with the common query parameters
 * and the envelope rules, nested related records, the read-only resources, the package round
 * trip, cache, profile and password.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminContext } from '#runtime/auth/auth-context.js';
import type { Clock } from '#runtime/auth/clock.js';
import { serveResource } from '#runtime/system/record-resources/resource-handler.js';
import { adminBehaviour } from '#runtime/system/resources/record-behaviours.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};
let server: TestServer;
let api: Api;
let token: string;

beforeAll(async () => {
  server = await startTestServer(minimalModel(), { clock: clock as Clock });
  token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

describe('record resources: CRUD and the envelope', () => {
  it.each([
    ['role', { name: 'crud-role', description: 'd' }, { description: 'changed' }],
    ['app', { name: 'crud-app' }, { label: 'Changed' }],
    ['user', { name: 'Crud User', email: 'crud@x.io' }, { first_name: 'Changed' }],
    ['admin', { name: 'Crud Admin', email: 'crud-admin@x.io', password: 'a-long-enough-password' }, { last_name: 'Changed' }],
    ['cors', { path: 'api/v2/crud/*', origin: 'https://a.example' }, { description: 'changed' }],
    ['lookup', { name: 'crud_lookup', value: 'v' }, { description: 'changed' }],
    ['email_template', { name: 'Crud Template', subject: 'Hi' }, { subject: 'Changed' }],
    ['service', { name: 'crud_svc', label: 'Crud', type: 'local_email', config: {} }, { label: 'Changed' }],
  ])('%s: create 201, get by id bare, PATCH and PUT, list wrapped, delete', async (resource, record, change) => {
    const created = await api('POST', `/system/${resource}`, { resource: [record] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ resource: [{ id: expect.any(Number) }] });
    const id = created.body.resource[0].id;

    const one = await api('GET', `/system/${resource}/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, ...Object.fromEntries(Object.entries(record).filter(([k]) => k !== 'password')) });
    expect(one.body).not.toHaveProperty('resource');
    expect(one.body).not.toHaveProperty('password');

    const patched = await api('PATCH', `/system/${resource}/${id}`, change);
    expect(patched).toMatchObject({ status: 200, body: { id } });
    expect((await api('GET', `/system/${resource}/${id}`)).body).toMatchObject(change);
    const put = await api('PUT', `/system/${resource}/${id}?fields=*`, { ...one.body, ...change });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, ...change });

    const list = await api('GET', `/system/${resource}?ids=${id}`);
    expect(list.body.resource).toHaveLength(1);

    const deleted = await api('DELETE', `/system/${resource}/${id}`);
    expect(deleted).toMatchObject({ status: 200, body: { id } });
    const gone = await api('GET', `/system/${resource}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toBe(`Record with identifier '${id}' not found.`);
  });

  it('custom settings are keyed by name and GET by name returns the value alone', async () => {
    expect((await api('POST', '/system/custom', { resource: [{ name: 'theme', value: { dark: true } }] })).body).toEqual({
      resource: [{ name: 'theme' }],
    });
    expect((await api('GET', '/system/custom/theme')).body).toEqual({ dark: true });
    await api('PATCH', '/system/custom/theme', { value: [1, 2] });
    expect((await api('GET', '/system/custom')).body.resource).toContainEqual(expect.objectContaining({ name: 'theme', value: [1, 2] }));
    expect((await api('DELETE', '/system/custom/theme')).body).toEqual({ name: 'theme' });
  });

  it('applies fields, filter, limit, offset, order and their aliases, include_count, count_only and ids', async () => {
    const names = ['p-alpha', 'p-bravo', 'p-charlie', 'p-delta'];
    const created = await api('POST', '/system/role', { resource: names.map((name) => ({ name })) });
    const ids = created.body.resource.map((r: { id: number }) => r.id);
    const page = await api(
      'GET',
      `/system/role?fields=name&filter=${encodeURIComponent("name like 'p-%'")}&order=name desc&limit=2&offset=1&include_count=true`,
    );
    expect(page.body).toEqual({ resource: [{ name: 'p-charlie' }, { name: 'p-bravo' }], meta: { count: 4, next: 3 } });
    const aliases = await api('GET', `/system/role?select=name&where=${encodeURIComponent("name like 'p-%'")}&sort=name+DESC&top=1&skip=0`);
    expect(aliases.body.resource).toEqual([{ name: 'p-delta' }]);
    expect(
      (await api('GET', `/system/role?order_by=name asc&fields=name&filter=${encodeURIComponent("name like 'p-%'")}&limit=1`)).body
        .resource,
    ).toEqual([{ name: 'p-alpha' }]);
    expect((await api('GET', `/system/role?count_only=true&filter=${encodeURIComponent("name like 'p-%'")}`)).body).toEqual({
      meta: { count: 4 },
    });
    expect((await api('GET', `/system/role?ids=${ids[1]},${ids[0]}&fields=name`)).body.resource).toEqual([
      { name: 'p-bravo' },
      { name: 'p-alpha' },
    ]);
    // Batch update by filter, then delete by ids.
    const renamed = await api('PATCH', `/system/role?filter=${encodeURIComponent("name like 'p-%'")}`, {
      resource: [{ description: 'batch' }],
    });
    expect(renamed.body.resource).toHaveLength(4);
    expect(
      (await api('GET', `/system/role?fields=description&ids=${ids.join(',')}`)).body.resource.every(
        (r: { description: string }) => r.description === 'batch',
      ),
    ).toBe(true);
    const removed = await api('DELETE', `/system/role?ids=${ids.join(',')}`);
    expect(removed.body.resource.map((r: { id: number }) => r.id)).toEqual(ids);
  });

  it('takes the query forms real clients send to system lists (compatibility findings 7)', async () => {
    const names = async (url: string) => (await api('GET', url)).body.resource?.map((r: { name: string }) => r.name);
    const all = await names('/system/service?fields=name');
    expect(all.length).toBeGreaterThan(2);
    expect(await names('/system/service/?filter=name%3Demail&fields=name')).toEqual(['email']);
    expect(await names('/system/service?&fields=name&limit=1')).toEqual([all[0]]);
    expect(await names('/system/service?fields=name&limit=&offset=&related=')).toEqual(all);
    expect(await names('/system/service?fields=name&limit=0')).toEqual(all);
    expect((await api('GET', '/system/service?fields=name&include_count=true&limit=0')).body.meta).toEqual({ count: all.length });
    expect((await api('GET', '/system/service?fields=name,%20label&limit=1')).body.resource[0]).toEqual({
      name: all[0],
      label: expect.any(String),
    });
    expect(await names('/system/service?fields=name&order=name+asc')).toEqual([...all].sort());
    expect(await names('/system/service?fields=name&sort=name%20desc')).toEqual([...all].sort().reverse());
    expect(await names('/system/service?fields=name&filter=name%20in%20(%22email%22,%22user%22)')).toEqual(['email', 'user']);
    expect(await names("/system/service?fields=name&filter=(name%20like%20'%25mai%25')")).toEqual(['email']);
    expect(await names('/system/app?fields=name&skip=1&top=1')).toEqual(['api_docs']);
    // The admin console's boot read of a lookup, the value double-quoted.
    await api('POST', '/system/lookup', { resource: [{ name: 'boot_lookup', value: 'v' }] });
    expect(await names('/system/lookup?filter=name=%22boot_lookup%22&fields=name')).toEqual(['boot_lookup']);
    await api('DELETE', `/system/lookup?filter=${encodeURIComponent("name='boot_lookup'")}`);
  });

  it('updates by a list of records carrying their ids and returns asked fields', async () => {
    const created = await api('POST', '/system/role?fields=id,name', { resource: [{ name: 'l-1' }, { name: 'l-2' }] });
    expect(created.body.resource).toEqual([
      { id: expect.any(Number), name: 'l-1' },
      { id: expect.any(Number), name: 'l-2' },
    ]);
    const [a, b] = created.body.resource;
    const updated = await api('PATCH', '/system/role?fields=name,is_active', {
      resource: [
        { id: a.id, is_active: false },
        { id: b.id, name: 'l-2b' },
      ],
    });
    expect(updated.body.resource).toEqual([
      { name: 'l-1', is_active: false },
      { name: 'l-2b', is_active: true },
    ]);
    expect((await api('DELETE', '/system/role', { resource: [{ id: a.id }, { id: b.id }] })).status).toBe(200);
    expect((await api('DELETE', '/system/role')).status).toBe(400);
  });

  it('returns only the asked fields of users and admins: confirmed and expired come with all fields only', async () => {
    const created = await api('POST', '/system/user?fields=id,username', { resource: [{ name: 'F', email: 'f@x.io', username: 'fu' }] });
    expect(created.body.resource).toEqual([{ id: expect.any(Number), username: 'fu' }]);
    const id = created.body.resource[0].id;
    expect((await api('GET', `/system/user/${id}?fields=name`)).body).toEqual({ name: 'F' });
    expect((await api('PATCH', `/system/user/${id}?fields=name`, { name: 'G' })).body).toEqual({ name: 'G' });
    expect((await api('GET', `/system/user?fields=email&filter=id=${id}`)).body).toEqual({ resource: [{ email: 'f@x.io' }] });
    expect((await api('GET', '/system/admin?fields=id&limit=1')).body.resource[0]).toEqual({ id: expect.any(Number) });
    expect((await api('GET', `/system/user/${id}`)).body).toMatchObject({ confirmed: true, expired: false });
    expect((await api('GET', `/system/user/${id}?fields=*`)).body).toMatchObject({ confirmed: true, expired: false });
    expect((await api('DELETE', `/system/user/${id}`)).status).toBe(200);
  });

  it('deletes services by ids', async () => {
    const created = await api('POST', '/system/service', {
      resource: [
        { name: 'mail_a', label: 'A', type: 'local_email' },
        { name: 'mail_b', label: 'B', type: 'local_email' },
      ],
    });
    const ids = created.body.resource.map((r: { id: number }) => r.id);
    expect((await api('DELETE', `/system/service?ids=${ids.join(',')}`)).body.resource).toEqual(ids.map((id: number) => ({ id })));
    expect((await api('GET', '/mail_a')).status).toBe(404);
  });

  it("changes a service's config key by key: the keys a PATCH or PUT does not name are kept", async () => {
    const config = { base_url: 'https://a.example/api', headers: [{ name: 'X-Key', value: 'k' }], cache_enabled: true, cache_ttl: 60 };
    const id = (await api('POST', '/system/service', { resource: [{ name: 'keyed_rws', label: 'R', type: 'rws', config }] })).body
      .resource[0].id;
    const patched = await api('PATCH', `/system/service/${id}?fields=config`, { config: { cache_ttl: 120 } });
    expect(patched.status).toBe(200);
    expect(patched.body.config).toEqual({ ...config, cache_ttl: 120 });
    const put = await api('PUT', `/system/service/${id}?fields=config`, { label: 'R', config: { base_url: 'https://b.example/api' } });
    expect(put.body.config).toEqual({ ...config, cache_ttl: 120, base_url: 'https://b.example/api' });
    // A key sent as null is unset (its default applies); a new type starts from the config sent.
    expect((await api('PATCH', `/system/service/${id}?fields=config`, { config: { cache_ttl: null } })).body.config).not.toHaveProperty(
      'cache_ttl',
    );
    const retyped = await api('PATCH', `/system/service/${id}?fields=type,config`, { type: 'local_email', config: {} });
    expect(retyped.body).toMatchObject({ type: 'local_email' });
    expect(retyped.body.config).not.toHaveProperty('base_url');
    await api('DELETE', `/system/service/${id}`);
  });

  it('shows config secrets masked, and keeps the stored one when the mask comes back (reference 5.1)', async () => {
    const config = { host: '127.0.0.1', port: 2525, username: 'mailer', password: 'smtp-secret' };
    const created = await api('POST', '/system/service?fields=id,config', {
      resource: [{ name: 'masked_smtp', label: 'M', type: 'smtp_email', config }],
    });
    const id = created.body.resource[0].id;
    expect(created.body.resource[0].config).toMatchObject({ username: 'mailer', password: '**********' });
    for (const url of [`/system/service/${id}`, '/system/service?filter=name=masked_smtp', `/system/service?ids=${id}&fields=*`]) {
      expect(JSON.stringify((await api('GET', url)).body)).not.toContain('smtp-secret');
    }
    // The console saves the whole record back, mask included: the password stays what it was.
    const record = (await api('GET', `/system/service/${id}`)).body;
    expect((await api('PUT', `/system/service/${id}`, { ...record, label: 'Renamed' })).status).toBe(200);
    const stored = await server.app.portico.db.selectFrom('service').select('config').where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.config)).toMatchObject({ password: 'smtp-secret' });
    await api('PATCH', `/system/service/${id}`, { config: { password: 'new-secret' } });
    const changed = await server.app.portico.db.selectFrom('service').select('config').where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(changed.config)).toMatchObject({ password: 'new-secret', username: 'mailer' });
    await api('DELETE', `/system/service/${id}`);
  });
});

describe('related records', () => {
  it('creates a role with nested grants, reads them with related, changes and deletes them nested', async () => {
    const db = (await api('GET', '/system/service?filter=name=email&fields=id')).body.resource[0].id;
    const created = await api('POST', '/system/role', {
      resource: [
        {
          name: 'nested',
          is_active: true,
          role_service_access_by_role_id: [
            {
              service_id: db,
              component: '_table/*',
              verb_mask: 1,
              requestor_mask: 1,
              filters: [{ name: 'owner_id', operator: '=', value: '{user.id}' }],
              filter_op: 'AND',
            },
            { service_id: null, component: '*', verb_mask: 31 },
          ],
          lookup_by_role_id: [{ name: 'role_lookup', value: 'x' }],
        },
      ],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    const read = await api('GET', `/system/role/${id}?related=role_service_access_by_role_id,lookup_by_role_id`);
    const grants = read.body.role_service_access_by_role_id;
    expect(grants).toEqual([
      {
        id: expect.any(Number),
        role_id: id,
        service_id: db,
        component: '_table/*',
        verb_mask: 1,
        requestor_mask: 1,
        filters: [{ name: 'owner_id', operator: '=', value: '{user.id}' }],
        filter_op: 'AND',
      },
      {
        id: expect.any(Number),
        role_id: id,
        service_id: null,
        component: '*',
        verb_mask: 31,
        requestor_mask: 1,
        filters: [],
        filter_op: 'and',
      },
    ]);
    expect(read.body.lookup_by_role_id).toEqual([expect.objectContaining({ name: 'role_lookup', value: 'x', role_id: id })]);
    // Change the first, delete the second (its role_id sent as null), add a third.
    await api('PUT', `/system/role/${id}`, {
      role_service_access_by_role_id: [
        { id: grants[0].id, verb_mask: 3 },
        { id: grants[1].id, role_id: null },
        { service_id: db, component: '_schema', verb_mask: 1 },
      ],
    });
    const after = (await api('GET', `/system/role/${id}?related=*`)).body;
    expect(after.role_service_access_by_role_id.map((g: { component: string; verb_mask: number }) => [g.component, g.verb_mask])).toEqual([
      ['_table/*', 3],
      ['_schema', 1],
    ]);
    expect(after).toHaveProperty('user_to_app_to_role_by_role_id', []);
    // The directory follows: the role's grants are what access decisions read.
    expect(server.app.portico.directory.roles.get(id)?.grants.map((g) => g.component)).toEqual(['_table/*', '_schema']);
  });

  it('assigns roles per app to users and reads them, with lookups', async () => {
    const role = (await api('POST', '/system/role', { resource: [{ name: 'per-app' }] })).body.resource[0].id;
    const app = (await api('POST', '/system/app', { resource: [{ name: 'per-app-app', role_id: role }] })).body.resource[0].id;
    const user = await api('POST', '/system/user?related=user_to_app_to_role_by_user_id,lookup_by_user_id', {
      resource: [
        {
          name: 'Per App',
          email: 'perapp@x.io',
          user_to_app_to_role_by_user_id: [{ app_id: app, role_id: role }],
          lookup_by_user_id: [{ name: 'u', value: 1, private: true }],
        },
      ],
    });
    expect(user.body.resource[0].user_to_app_to_role_by_user_id).toEqual([
      { id: expect.any(Number), user_id: user.body.resource[0].id, app_id: app, role_id: role },
    ]);
    expect(user.body.resource[0].lookup_by_user_id[0]).toMatchObject({ name: 'u', value: '**********', private: true });
    const duplicate = await api('PATCH', `/system/user/${user.body.resource[0].id}`, {
      user_to_app_to_role_by_user_id: [{ app_id: app, role_id: role }],
    });
    expect(duplicate.status).toBe(409);
    const apps = await api('GET', `/system/app/${app}?related=role_by_role_id&fields=name`);
    expect(apps.body).toEqual({ name: 'per-app-app', role_by_role_id: expect.objectContaining({ id: role, name: 'per-app' }) });
    expect((await api('GET', '/system/role?related=nosuch')).status).toBe(400);
    // Filters reach related records' fields by dot notation, on every system database (PostgreSQL knew no relation).
    const filtered = async (url: string) => (await api('GET', url.replace(/ /g, '%20').replace(/'/g, '%27'))).body;
    expect(await filtered("/system/app?filter=role_by_role_id.name = 'per-app'&fields=name")).toEqual({
      resource: [{ name: 'per-app-app' }],
    });
    expect(await filtered(`/system/user?filter=user_to_app_to_role_by_user_id.app_id = ${app}&fields=email`)).toEqual({
      resource: [{ email: 'perapp@x.io' }],
    });
    expect(await filtered("/system/user?filter=lookup_by_user_id.name = 'u'&fields=email")).toEqual({
      resource: [{ email: 'perapp@x.io' }],
    });
    // A relation to a table the system does not serve as records is unknown there (a 500 'table service_doc is not in the schema').
    expect(await filtered('/system/service?filter=service_doc_by_service_id.format = 1')).toEqual({
      error: {
        code: 400,
        message: "Invalid or unknown relationship in filter request: 'service_doc_by_service_id'",
        context: { relation: 'service_doc_by_service_id', position: 1 },
      },
    });
  });

  it("changes, takes or deletes no other record's children, and moves a child only to a parent the API may change", async () => {
    const related = '?related=role_service_access_by_role_id,lookup_by_role_id';
    const grant = { service_id: null, component: '*', verb_mask: 1 };
    const [mine, theirs] = (
      await api('POST', `/system/role${related}`, {
        resource: [
          { name: 'mine', role_service_access_by_role_id: [grant] },
          { name: 'theirs', role_service_access_by_role_id: [grant], lookup_by_role_id: [{ name: 'theirs_lookup', value: 't' }] },
        ],
      })
    ).body.resource;
    const global = (await api('POST', '/system/lookup', { resource: [{ name: 'not_a_role_lookup', value: 'g' }] })).body.resource[0].id;
    const theirGrant = theirs.role_service_access_by_role_id[0].id;
    // Named by id through another role: not found there, whether changed, taken (no role_id) or deleted (role_id null).
    for (const child of [{ id: theirGrant, verb_mask: 31 }, { id: theirGrant }, { id: theirGrant, role_id: null }]) {
      const refused = await api('PATCH', `/system/role/${mine.id}`, { role_service_access_by_role_id: [child] });
      expect(refused.status).toBe(404);
      expect(refused.body.error).toMatchObject({
        message: `Record with identifier '${theirGrant}' not found.`,
        context: { field: 'role_service_access_by_role_id[0].id' },
      });
    }
    // Ids no child can have (on a PostgreSQL system database these were 500s): not found either.
    for (const id of ['x', 2 ** 31, -1, 1.5]) {
      const refused = await api('PATCH', `/system/role/${mine.id}`, { role_service_access_by_role_id: [{ id, verb_mask: 1 }] });
      expect(refused.status, String(id)).toBe(404);
    }
    for (const id of [theirs.lookup_by_role_id[0].id, global]) {
      expect((await api('PATCH', `/system/role/${mine.id}`, { lookup_by_role_id: [{ id, value: 'stolen' }] })).status).toBe(404);
    }
    expect((await api('GET', `/system/role/${theirs.id}${related}`)).body).toMatchObject({
      role_service_access_by_role_id: [{ id: theirGrant, verb_mask: 1 }],
      lookup_by_role_id: [{ name: 'theirs_lookup', value: 't' }],
    });
    expect((await api('GET', `/system/lookup/${global}`)).body).toMatchObject({ value: 'g' });
    // A child of this record moves to another record when its foreign key names it (reference 5.1)...
    const myGrant = mine.role_service_access_by_role_id[0].id;
    const moved = await api('PATCH', `/system/role/${mine.id}${related}`, {
      role_service_access_by_role_id: [{ id: myGrant, role_id: theirs.id }],
    });
    expect(moved.status).toBe(200);
    expect(moved.body.role_service_access_by_role_id).toEqual([]);
    expect(
      (await api('GET', `/system/role/${theirs.id}${related}`)).body.role_service_access_by_role_id.map((g: { id: number }) => g.id).sort(),
    ).toEqual([theirGrant, myGrant].sort());
    // ...but not to a record that does not exist, nor to one the API may not change (a built-in app).
    const app = (await api('POST', '/system/app', { resource: [{ name: 'lookup-owner', lookup_by_app_id: [{ name: 'a', value: 1 }] }] }))
      .body.resource[0].id;
    const lookup = (await api('GET', `/system/app/${app}?related=lookup_by_app_id`)).body.lookup_by_app_id[0].id;
    const builtin = (await api('GET', '/system/app?filter=name=admin&fields=id')).body.resource[0].id;
    const nowhere = await api('PATCH', `/system/app/${app}`, { lookup_by_app_id: [{ id: lookup, app_id: 99999 }] });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.error.context).toEqual({ field: 'lookup_by_app_id[0].app_id' });
    const toBuiltin = await api('PATCH', `/system/app/${app}`, { lookup_by_app_id: [{ id: lookup, app_id: builtin }] });
    expect(toBuiltin.status).toBe(400);
    expect(toBuiltin.body.error.message).toMatch(/^The app 'admin' is built into every platform/);
    expect((await api('GET', `/system/app/${app}?related=lookup_by_app_id`)).body.lookup_by_app_id).toEqual([
      expect.objectContaining({ id: lookup, app_id: app }),
    ]);
  });
});

describe('apps', () => {
  it("deleting an app clears it as users' default app, so a user read and saved back whole is still taken", async () => {
    const app = (await api('POST', '/system/app', { resource: [{ name: 'default-app' }] })).body.resource[0].id;
    const user = (await api('POST', '/system/user', { resource: [{ name: 'D', email: 'default-app@x.io', default_app_id: app }] })).body
      .resource[0].id;
    expect((await api('DELETE', `/system/app/${app}`)).status).toBe(200);
    const read = (await api('GET', `/system/user/${user}`)).body;
    expect(read.default_app_id).toBeNull();
    const saved = await api('PUT', `/system/user/${user}`, { ...read, first_name: 'Dee' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  });

  it('generates a 64-hex API key, keeps a given one and regenerates on request', async () => {
    const given = 'a'.repeat(64);
    const created = await api('POST', '/system/app?fields=name,api_key', {
      resource: [{ name: 'keyed' }, { name: 'fixed', api_key: given }],
    });
    expect(created.body.resource[0].api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(created.body.resource[1].api_key).toBe(given);
    const id = (await api('GET', '/system/app?filter=name=fixed&fields=id')).body.resource[0].id;
    const regenerated = await api('PATCH', `/system/app/${id}?regenerate=true&fields=api_key`, {});
    expect(regenerated.body.api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(regenerated.body.api_key).not.toBe(given);
    // The old key no longer identifies the app, the new one does.
    expect((await api('GET', '/system/environment', undefined, { key: given })).status).toBe(401);
    expect((await api('GET', '/system/environment', undefined, { key: regenerated.body.api_key })).status).toBe(200);
  });
});

describe('read-only resources', () => {
  it('lists service types from the registry, with fields, group and by name', async () => {
    const all = await api('GET', '/system/service_type');
    expect(all.body.resource.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['sqlite', 'local_email', 'system', 'user', 'swagger']),
    );
    expect(all.body.resource.find((t: { name: string }) => t.name === 'sqlite')).toMatchObject({
      label: 'SQLite',
      group: 'Database',
      config_schema: expect.any(Object),
    });
    expect((await api('GET', '/system/service_type?fields=name')).body.resource[0]).toEqual({ name: expect.any(String) });
    const email = await api('GET', '/system/service_type?group=Email&fields=name,group');
    expect(email.body.resource).toEqual([
      { name: 'local_email', group: 'Email' },
      { name: 'smtp_email', group: 'Email' },
    ]);
    expect((await api('GET', '/system/service_type/sqlite?fields=name,group')).body).toEqual({ name: 'sqlite', group: 'Database' });
    expect((await api('GET', '/system/service_type/nosuch')).body.error.message).toBe("Service type 'nosuch' not found.");
  });

  it('lists events derived from the routes', async () => {
    const events = (await api('GET', '/system/event?as_list=true')).body.resource as string[];
    expect(events).toEqual(
      expect.arrayContaining(['system.admin.session.post', 'system.role.{id}.patch', 'user.session.post', 'email.post']),
    );
    const byService = (await api('GET', '/system/event?service=user')).body;
    expect(Object.keys(byService)).toEqual(['user']);
    expect(byService.user['user/session']).toEqual({
      type: 'api',
      endpoints: ['user.session.get', 'user.session.post', 'user.session.put', 'user.session.delete'],
      parameter: null,
    });
    expect((await api('GET', '/system/event?services_only=true')).body.resource).toContain('system');
  });

  it('scriptable=true adds the pre_process, post_process and queued phases after each event', async () => {
    const byService = (await api('GET', '/system/event?service=user&scriptable=true')).body;
    expect(byService.user['user/session'].endpoints).toEqual(
      ['get', 'post', 'put', 'delete'].flatMap((verb) => [
        `user.session.${verb}`,
        `user.session.${verb}.pre_process`,
        `user.session.${verb}.post_process`,
        `user.session.${verb}.queued`,
      ]),
    );
    const events = (await api('GET', '/system/event?as_list=true&scriptable=true')).body.resource as string[];
    expect(events).toEqual(expect.arrayContaining(['system.role.{id}.patch', 'system.role.{id}.patch.pre_process', 'email.post.queued']));
    // Without it, the events alone.
    expect((await api('GET', '/system/event?as_list=true')).body.resource).not.toContain('email.post.queued');
  });

  it('serves constants, the environment and the resource list', async () => {
    expect((await api('GET', '/system/constant')).body.resource).toContainEqual({ name: 'verb' });
    expect((await api('GET', '/system/constant/verb')).body).toEqual({ GET: 1, POST: 2, PUT: 4, PATCH: 8, DELETE: 16 });
    expect((await api('GET', '/system/environment')).body.platform).toMatchObject({ version: expect.any(String), is_hosted: false });
    expect((await api('GET', '/system')).body.resource).toContainEqual({ name: 'service_type' });
    // as_list=true: the names alone, as on every other service root (reference 1.4).
    expect((await api('GET', '/system?as_list=true')).body.resource).toEqual(
      expect.arrayContaining(['admin', 'admin/session', 'service_type']),
    );
    expect((await api('GET', '/user?as_list=true')).body).toEqual({ resource: ['password', 'profile', 'register', 'session'] });
  });

  it('lists the services the caller may reach and the service types at /api/v2', async () => {
    const root = await api('GET', '/api/v2?fields=name');
    expect(root.body.services.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['system', 'user', 'email']));
    expect(root.body.service_types).toContainEqual(expect.objectContaining({ name: 'sqlite', group: 'Database' }));
    expect((await api('GET', '/api/v2?group=Email')).body.service_types.map((t: { name: string }) => t.name)).toEqual([
      'local_email',
      'smtp_email',
    ]);
    // Several groups, in any case: the reference's legacy admin app picks storage services so.
    const storage = (await api('GET', '/api/v2?group=source%20control,file')).body;
    expect(storage.services.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['files']));
    expect(storage.service_types.map((t: { group: string }) => t.group)).toEqual(expect.arrayContaining(['File']));
    expect(storage.service_types.every((t: { group: string }) => ['File', 'Source Control'].includes(t.group))).toBe(true);
    // type= as the reference's admin apps send it: one type or several, filtering both lists (reference 1.1).
    const email = (await api('GET', '/api/v2?type=local_email&fields=name,type')).body;
    expect(email).toEqual({
      services: [{ name: 'email', type: 'local_email', spec_url: '/api/v2/email/_spec' }],
      service_types: [expect.objectContaining({ name: 'local_email', group: 'Email' })],
    });
    const two = (await api('GET', '/api/v2?type=local_file,user&fields=name')).body;
    expect(two.services.map((s: { name: string }) => s.name)).toEqual(['files', 'logs', 'user']);
    expect(two.service_types.map((t: { name: string }) => t.name)).toEqual(['local_file', 'user']);
    expect((await api('GET', '/api/v2?type=nosuch')).body).toEqual({ services: [], service_types: [] });
    // The names api_docs documents, alone (reference 8.2).
    const names = (await api('GET', '/api_docs?as_list=true')).body;
    expect(names.resource).toEqual(root.body.services.map((s: { name: string }) => s.name));
  });
});

describe('cache', () => {
  it("clears every cache, one service's, and answers 404/501 where it cannot", async () => {
    expect((await api('DELETE', '/system/cache')).body).toEqual({ success: true });
    expect((await api('DELETE', '/system/cache/system')).body).toEqual({ success: true });
    expect((await api('DELETE', '/system/cache/nosuch')).status).toBe(404);
    expect((await api('DELETE', '/system/cache/email')).status).toBe(501);
  });

  it('calls clearCache on handlers that have one', async () => {
    const handler = await server.app.portico.services.handler('email');
    let cleared = 0;
    Object.assign(handler, {
      clearCache: () => {
        cleared++;
      },
    });
    expect((await api('DELETE', '/system/cache/email')).body).toEqual({ success: true });
    await api('DELETE', '/system/cache');
    expect(cleared).toBe(2);
    delete (handler as { clearCache?: unknown }).clearCache;
  });
});

describe('admin profile and password', () => {
  it('reads and changes the profile; a new email needs the current password', async () => {
    expect((await api('GET', '/system/admin/profile')).body).toMatchObject({ email: 'admin@test.local', first_name: 'Ada' });
    expect((await api('POST', '/system/admin/profile', { phone: '123' })).body).toEqual({ success: true });
    expect((await api('GET', '/system/admin/profile')).body.phone).toBe('123');
    expect((await api('POST', '/system/admin/profile', { email: 'new@test.local' })).status).toBe(400);
    expect((await api('POST', '/system/admin/profile', { nosuch: 1 })).body.error.context).toEqual({ field: 'nosuch' });
    // Another account's email or username: a 409 naming it, on every system database kind (was a 500 on PostgreSQL and MySQL).
    await api('POST', '/system/admin', {
      resource: [{ name: 'Taken', email: 'taken@test.local', username: 'taken-name', password: 'a-long-enough-password' }],
    });
    const password = { current_password: 'admin-password-12345' };
    for (const [change, field] of [
      [{ email: 'TAKEN@test.local', ...password }, 'email'],
      [{ username: 'taken-name' }, 'username'],
    ] as const) {
      const taken = await api('POST', '/system/admin/profile', change);
      expect(taken.status, field).toBe(409);
      expect(taken.body.error.context.fields, field).toEqual([field]);
    }
  });

  it('changes the password: old sessions end, the new password logs in', async () => {
    const password = 'admin-password-12345';
    const other = (await api('POST', '/system/admin', { resource: [{ name: 'Pw', email: 'pw@test.local', password }] })).body.resource[0]
      .id;
    const login = async (pw: string) => api('POST', '/system/admin/session', { email: 'pw@test.local', password: pw }, null);
    const session = (await login(password)).body.session_token;
    clock.time += 1000;
    const bad = await api(
      'POST',
      '/system/admin/password',
      { old_password: 'wrong', new_password: 'another-long-password' },
      { token: session },
    );
    expect(bad.body.error.message).toBe('The password supplied does not match.');
    const short = await api('POST', '/system/admin/password', { old_password: password, new_password: 'short' }, { token: session });
    expect(short.body.error).toMatchObject({ code: 400, context: { field: 'new_password' } });
    const changed = await api(
      'POST',
      '/system/admin/password?login=true',
      { old_password: password, new_password: 'another-long-password' },
      { token: session },
    );
    expect(changed.body).toEqual({ success: true, session_token: expect.any(String) });
    expect((await api('GET', '/system/admin', undefined, { token: session })).status).toBe(401);
    expect((await api('GET', '/system/admin', undefined, { token: changed.body.session_token })).status).toBe(200);
    expect((await login('another-long-password')).status).toBe(200);
    expect((await login(password)).status).toBe(401);
    await api('DELETE', `/system/admin/${other}`);
  });

  it("refuses to delete one's own account", async () => {
    const me = (await api('GET', '/system/admin/session')).body.id;
    expect((await api('DELETE', `/system/admin/${me}`)).body.error).toEqual({ code: 403, message: 'Cannot delete your account.' });
  });

  it("refuses to deactivate one's own account, in every form of update, and changes nothing", async () => {
    const me = (await api('GET', '/system/admin/session')).body.id;
    const other = (await api('POST', '/system/admin', { resource: [{ name: 'Other', email: 'other-admin@test.local' }] })).body.resource[0]
      .id;
    const refusal = { code: 403, message: 'Cannot deactivate your account.', context: { field: 'is_active' } };
    const writes: Array<[string, string, unknown]> = [
      ['PATCH', `/system/admin/${me}`, { is_active: false }],
      ['PATCH', `/system/admin/${me}`, { is_active: 0 }],
      ['PUT', `/system/admin/${me}`, { name: 'Me', email: 'admin@test.local', is_active: false }],
      [
        'PATCH',
        '/system/admin',
        {
          resource: [
            { id: other, is_active: false },
            { id: me, is_active: false },
          ],
        },
      ],
      ['PATCH', `/system/admin?ids=${other},${me}`, { resource: [{ is_active: false }] }],
      ['PATCH', `/system/admin?filter=${encodeURIComponent(`id in (${other}, ${me})`)}`, { resource: [{ is_active: false }] }],
    ];
    for (const [method, url, body] of writes) expect((await api(method, url, body)).body.error, `${method} ${url}`).toEqual(refusal);
    const after = await api('GET', `/system/admin?ids=${me},${other}&fields=id,is_active`);
    expect(after.body.resource).toEqual([
      { id: me, is_active: true },
      { id: other, is_active: true },
    ]);
    // Another administrator's account can still be deactivated.
    expect((await api('PATCH', `/system/admin/${other}`, { is_active: false })).status).toBe(200);
    await api('DELETE', `/system/admin/${other}`);
  });

  it('refuses to delete or deactivate the last active administrators, batch forms included', async () => {
    // A call made with no account (a package import or the platform's own call: no self to refuse) that would leave no
    // active administrator; over HTTP the caller is one, so this also stands for two administrators deactivating
    // each other at once.
    const extra = (await api('POST', '/system/admin', { resource: [{ name: 'Extra', email: 'extra-admin@test.local' }] })).body.resource[0]
      .id;
    const activeIds = async () =>
      (await api('GET', `/system/admin?filter=${encodeURIComponent('is_active = true')}&fields=id&order=id`)).body.resource.map(
        (row: { id: number }) => row.id,
      );
    const active: number[] = await activeIds();
    expect(active).toContain(extra);
    const internal = (verb: 'PATCH' | 'DELETE', query: Record<string, string>, body: unknown, id?: number) =>
      serveResource(
        server.app.portico,
        adminBehaviour,
        {
          verb,
          resource: [],
          trailingSlash: false,
          query,
          body,
          headers: {},
          auth: adminContext(),
          session: null,
          tokenError: null,
          host: 'localhost',
          clientIp: '127.0.0.1',
        },
        id === undefined ? undefined : String(id),
      );
    const every = active.map((id) => ({ id }));
    const refusals: Array<[() => Promise<unknown>, string]> = [
      [() => internal('DELETE', { ids: active.join(',') }, undefined), 'delete'],
      [() => internal('DELETE', {}, { resource: every }), 'delete'],
      [() => internal('DELETE', { filter: 'is_active = true' }, undefined), 'delete'],
      [() => internal('PATCH', {}, { resource: every.map((row) => ({ ...row, is_active: false })) }), 'deactivate'],
      [() => internal('PATCH', { ids: active.join(',') }, { resource: [{ is_active: 0 }] }), 'deactivate'],
      [() => internal('PATCH', { filter: 'is_active = true' }, { resource: [{ is_active: false }] }), 'deactivate'],
    ];
    for (const [write, action] of refusals) {
      await expect(write()).rejects.toMatchObject({
        status: 403,
        message: `Cannot ${action} the last active administrator: at least one administrator must stay active.`,
      });
    }
    expect(await activeIds()).toEqual(active);
    // One that leaves another active administrator goes through.
    await internal('PATCH', {}, { is_active: false }, extra);
    expect(await activeIds()).toEqual(active.filter((id) => id !== extra));
    await internal('DELETE', {}, undefined, extra);
    expect((await api('GET', `/system/admin/${extra}`)).status).toBe(404);
  });

  it('keeps administrators and users apart', async () => {
    const sneaky = await api('POST', '/system/user', { resource: [{ name: 'Sneaky', email: 'sneaky@x.io', is_sys_admin: true }] });
    expect((await api('GET', `/system/admin/${sneaky.body.resource[0].id}`)).status).toBe(404);
    expect((await api('GET', `/system/user/${sneaky.body.resource[0].id}`)).body).not.toHaveProperty('is_sys_admin');
    const me = (await api('GET', '/system/admin/session')).body.id;
    expect((await api('GET', `/system/user/${me}`)).status).toBe(404);
    expect((await api('PATCH', `/system/user/${me}`, { name: 'x' })).status).toBe(404);
  });
});

describe('packages', () => {
  it('exports the configuration and imports it into another platform (round trip)', async () => {
    const dir = path.join(server.dir, 'pkgdb');
    fs.mkdirSync(dir);
    await api('POST', '/system/service', {
      resource: [{ name: 'pkg_mail', label: 'Package mail', type: 'local_email', config: { directory: 'mail2' } }],
    });
    const serviceId = (await api('GET', '/system/service?filter=name=pkg_mail&fields=id')).body.resource[0].id;
    const roleId = (
      await api('POST', '/system/role', {
        resource: [
          {
            name: 'pkg-role',
            role_service_access_by_role_id: [{ service_id: serviceId, component: '*', verb_mask: 2 }],
            lookup_by_role_id: [{ name: 'rl', value: 'v' }],
          },
        ],
      })
    ).body.resource[0].id;
    const appId = (await api('POST', '/system/app', { resource: [{ name: 'pkg-app', role_id: roleId, api_key: 'b'.repeat(64) }] })).body
      .resource[0].id;
    await api('POST', '/system/user', {
      resource: [{ name: 'Pkg', email: 'pkg@x.io', user_to_app_to_role_by_user_id: [{ app_id: appId, role_id: roleId }] }],
    });
    await api('POST', '/system/cors', { resource: [{ path: 'pkg/*', origin: '*', method: ['GET'] }] });
    await api('POST', '/system/lookup', { resource: [{ name: 'pkg_secret', value: 's3cret', private: true }] });
    await api('POST', '/system/custom', { resource: [{ name: 'pkg_custom', value: { a: 1 } }] });
    const task = await api('POST', '/system/scheduler', {
      resource: [{ name: 'pkg-task', service_id: serviceId, component: '', verb: 'POST', frequency: 90, payload: { subject: 'hi' } }],
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const userId = (await api('GET', '/system/user?filter=email=pkg@x.io&fields=id')).body.resource[0].id;
    const limits = await api('POST', '/system/limit', {
      resource: [
        { name: 'pkg-limit-role', type: 'instance.role', rate: 50, period: 'hour', role_id: roleId },
        {
          name: 'pkg-limit-user',
          type: 'instance.user.service.endpoint',
          rate: 5,
          period: 'minute',
          user_id: userId,
          service_id: serviceId,
          endpoint: 'a/*',
          verb: 'POST',
          description: 'Slow down.',
          is_active: false,
        },
      ],
    });
    expect(limits.status, JSON.stringify(limits.body)).toBe(201);

    const manifest = (await api('GET', '/system/package')).body;
    expect(manifest.service.system.role).toContain('pkg-role');
    const exported = (await api('GET', '/system/package?export=true')).body;
    expect(exported.records.role.find((r: { name: string }) => r.name === 'pkg-role').grants).toEqual([
      { service: 'pkg_mail', component: '*', verbs: ['POST'], requestor_mask: 1, filters: [], filter_op: 'and' },
    ]);
    expect(manifest.service.system.scheduler).toEqual(['pkg-task']);
    // A scheduled task names its service, as a grant does.
    expect(exported.records.scheduler).toEqual([
      {
        name: 'pkg-task',
        description: '',
        is_active: true,
        service: 'pkg_mail',
        component: '',
        verb: 'POST',
        frequency: 90,
        payload: '{"subject":"hi"}',
      },
    ]);
    // Rate limits travel too (they were left out), naming their user by email, role and service by name.
    expect(manifest.service.system.limit).toEqual(['pkg-limit-role', 'pkg-limit-user']);
    expect(exported.records.limit).toEqual([
      {
        name: 'pkg-limit-role',
        description: null,
        is_active: true,
        type: 'instance.role',
        rate: 50,
        period: 'hour',
        user: null,
        role: 'pkg-role',
        service: null,
        endpoint: null,
        verb: null,
      },
      {
        name: 'pkg-limit-user',
        description: 'Slow down.',
        is_active: false,
        type: 'instance.user.service.endpoint',
        rate: 5,
        period: 'minute',
        user: 'pkg@x.io',
        role: null,
        service: 'pkg_mail',
        endpoint: 'a/*',
        verb: 'POST',
      },
    ]);
    const partial = (await api('POST', '/system/package', { service: { system: { role: ['pkg-role'] } } })).body;
    expect(partial.records.role.map((r: { name: string }) => r.name)).toEqual(['pkg-role']);
    expect(partial.records.app).toEqual([]);

    const target = await startTestServer(minimalModel());
    try {
      const targetApi = apiClient(target.app, () => ({ key: target.apiKey }));
      const targetToken = await target.adminToken();
      const imported = await targetApi('POST', '/system/package?import=true', exported, { token: targetToken });
      expect(imported.status).toBe(201);
      expect(imported.body.log).toContainEqual({ kind: 'role', name: 'pkg-role', action: 'created' });
      expect(imported.body.log).toContainEqual({ kind: 'scheduler', name: 'pkg-task', action: 'created' });
      expect(imported.body.log).toContainEqual({ kind: 'limit', name: 'pkg-limit-user', action: 'created' });
      const importedLimit = (await targetApi('GET', '/system/limit?filter=name=pkg-limit-user', undefined, { token: targetToken })).body
        .resource[0];
      expect(importedLimit).toMatchObject({ type: 'instance.user.service.endpoint', rate: 5, period: 'minute', endpoint: 'a/*' });
      const again = (await targetApi('GET', '/system/package?export=true', undefined, { token: targetToken })).body;
      expect({ ...again, platform: null }).toEqual({ ...exported, platform: null });
      // The imported app keeps its key and serves at once; a second import skips, overwrite updates.
      expect((await targetApi('GET', '/system/environment', undefined, { key: 'b'.repeat(64) })).status).toBe(200);
      const skipped = await targetApi('POST', '/system/package?import=true', exported, { token: targetToken });
      expect(skipped.body.log.every((entry: { action: string }) => entry.action === 'skipped')).toBe(true);
      const overwritten = await targetApi('POST', '/system/package?import=true&overwrite=true', exported, { token: targetToken });
      expect(overwritten.body.log.every((entry: { action: string }) => entry.action === 'updated')).toBe(true);
      expect((await targetApi('GET', '/system/package?export=true', undefined, { token: targetToken })).body.records).toEqual(
        exported.records,
      );
      const broken = await targetApi(
        'POST',
        '/system/package?import=true',
        { version: 1, records: { role: [{ name: 'bad', nosuch: 1 }] } },
        { token: targetToken },
      );
      expect(broken.body.error).toMatchObject({ code: 400, context: { field: 'nosuch' } });
    } finally {
      await target.close();
    }
  });
});
