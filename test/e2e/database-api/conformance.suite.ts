/**
 * Spec conformance of table and schema endpoints (issue 9 items 10, 13, 15, 17): stable primary-key
 * order without `order`, HEAD like GET without a body, 405 in the error envelope for methods no
 * route takes, the `_schema` field and relationship paths documented in `_spec`, and ETag /
 * If-Match on single records; the reference's `_spec` options.
 */
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { bodiesNotByReference, requestBodySchemas, unresolvedRefs } from '#test/golden/validators.js';
import type { ApiClient } from './api-client.js';

export function conformanceTests(api: () => ApiClient): void {
  it('lists without order in primary-key order, whatever fields are asked for', async () => {
    const all = await api().get('_table/contact_info', { limit: '5' });
    const ids = all.body.resource.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    for (const fields of ['email', 'city,email', 'contact_id,id']) {
      const page = await api().get('_table/contact_info', { limit: '3', fields: fields.includes('id') ? fields : `id,${fields}` });
      expect(page.body.resource.map((r: { id: number }) => r.id)).toEqual(ids.slice(0, 3));
    }
    const second = await api().get('_table/contact_info', { limit: '2', offset: '2', fields: 'id' });
    expect(second.body.resource.map((r: { id: number }) => r.id)).toEqual(ids.slice(2, 4));
  });

  it('counts a read by ids as any list: include_count adds meta.count, count_only answers it alone (both were ignored)', async () => {
    expect((await api().get('_table/contact', { ids: '3,1,2', fields: 'id', include_count: 'true' })).body).toEqual({
      resource: [{ id: 3 }, { id: 1 }, { id: 2 }],
      meta: { count: 3 },
    });
    expect((await api().get('_table/contact', { ids: '3,1', count_only: 'true' })).body).toEqual({ meta: { count: 2 } });
    expect((await api().get('_table/contact', { ids: '3,999', count_only: 'true' })).status).toBe(400);
    expect((await api().get('_table/contact', { ids: '1', fields: 'id' })).body).toEqual({ resource: [{ id: 1 }] });
  });

  it('pages an order on a field that is not unique without overlaps or gaps: ties come in primary-key order', async () => {
    const total = (await api().get('_table/contact_info', { count_only: 'true' })).body.meta.count;
    const ids: number[] = [];
    for (let offset = 0; offset < total; offset += 7) {
      const page = await api().get('_table/contact_info', {
        order: 'info_type desc',
        fields: 'id,info_type',
        limit: '7',
        offset: String(offset),
      });
      ids.push(...page.body.resource.map((r: { id: number }) => r.id));
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    const first = (await api().get('_table/contact_info', { order: 'info_type', fields: 'id', limit: '4' })).body.resource;
    expect(first.map((r: { id: number }) => r.id)).toEqual([1, 4, 7, 10]);
  });

  it('answers HEAD like GET, without a body', async () => {
    const get = await api().call('GET', '_table/contact?limit=1');
    const head = await api().call('HEAD', '_table/contact?limit=1');
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(get.status).toBe(200);
    expect((await api().call('HEAD', '_table/contact/1')).status).toBe(200);
    expect((await api().call('HEAD', '_table/no_such_table')).status).toBe(404);
  });

  it('refuses a method no route takes with 405 in the error envelope', async () => {
    const trace = await api().call('TRACE', '_table/contact');
    expect(trace.status).toBe(405);
    expect(trace.body).toEqual({ error: { code: 405, message: "Invalid or unsupported verb 'TRACE' used in request." } });
  });

  it('documents the _schema field and relationship paths it serves', async () => {
    const spec = (await api().call('GET', '_spec')).body;
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/_schema/{table_name}/_field',
        '/_schema/{table_name}/_field/{field_name}',
        '/_schema/{table_name}/_related',
        '/_schema/{table_name}/_related/{relationship_name}',
      ]),
    );
    expect(Object.keys(spec.paths['/_schema/{table_name}/_field/{field_name}'])).toEqual(
      expect.arrayContaining(['get', 'put', 'patch', 'delete']),
    );
    expect((await api().call('GET', '_schema/contact/_field')).status).toBe(200);
    expect((await api().call('GET', '_schema/contact/_field/first_name')).body).toMatchObject({ name: 'first_name' });
    expect((await api().call('GET', '_schema/contact_info/_related')).status).toBe(200);
  });

  it("takes the reference's _spec options its MCP clients send: resource_name, tables, compact, format=yaml (all were ignored)", async () => {
    const full = (await api().get('_spec')).body;
    const one = (await api().get('_spec', { resource_name: 'contact_info' })).body;
    expect(Object.keys(one.paths).sort()).toEqual(['/_table/contact_info', '/_table/contact_info/{id}']);
    expect(one.components).toEqual(full.components);

    const tables = (await api().get('_spec', { tables: 'true' })).body;
    // Earlier suites add tables of their own.
    const listed = tables['x-dreamfactory-resources'];
    expect(listed).toEqual({
      type: 'database',
      tables: expect.any(Array),
      count: listed.tables.length,
      note: 'Use these names with /_table/{table_name} endpoints',
    });
    expect(listed.tables).toEqual([...listed.tables].sort());
    expect(listed.tables).toEqual(expect.arrayContaining(['contact', 'contact_group', 'contact_group_relationship', 'contact_info']));
    expect(full).not.toHaveProperty('x-dreamfactory-resources');

    const compact = (await api().get('_spec', { compact: 'true', tables: 'true' })).body;
    expect(Object.keys(compact)).toEqual([
      'openapi',
      'info',
      'servers',
      'security',
      'x-dreamfactory-resources',
      'endpoints',
      'endpoint_count',
    ]);
    expect(compact.endpoint_count).toBe(compact.endpoints.length);
    const post = compact.endpoints.find((e: { path: string; method: string }) => e.path === '/_table/contact' && e.method === 'POST');
    expect(post).toMatchObject({ operationId: full.paths['/_table/contact'].post.operationId, has_request_body: true });
    expect(post.parameters).toEqual(expect.arrayContaining(['fields (query, string)']));

    const headers = await credentials();
    const yaml = await api().server.app.inject({ method: 'GET', url: '/api/v2/db/_spec?format=yaml&resource_name=contact_group', headers });
    expect(yaml.headers['content-type']).toBe('application/x-yaml; charset=utf-8');
    const json = (await api().get('_spec', { resource_name: 'contact_group' })).body;
    expect(parseYaml(yaml.body)).toEqual(json);
    const accepted = await api().server.app.inject({
      method: 'GET',
      url: '/api/v2/db/_spec',
      headers: { ...headers, accept: 'application/yaml' },
    });
    expect(parseYaml(accepted.body)).toEqual(full);
    // A client listing JSON beside YAML keeps getting JSON.
    const either = await api().server.app.inject({
      method: 'GET',
      url: '/api/v2/db/_spec',
      headers: { ...headers, accept: 'application/json, application/yaml' },
    });
    expect(either.headers['content-type']).toMatch(/^application\/json/);
    expect(either.json()).toEqual(full);
  });

  it("answers _spec?model=true with the reference's condensed data model: tables, columns, relationships, patterns (the document came back)", async () => {
    const model = (await api().get('_spec', { model: 'true' })).body;
    expect(Object.keys(model)).toEqual(['service', 'description', 'tables', 'relationships', 'patterns']);
    expect(model.service).toBe('db');
    expect(Object.keys(model.tables)).toEqual(
      expect.arrayContaining(['contact', 'contact_group', 'contact_group_relationship', 'contact_info']),
    );
    expect(model.tables.contact_info.columns).toEqual(
      expect.arrayContaining([
        { name: 'id', type: 'id', pk: true, required: true },
        expect.objectContaining({ name: 'contact_id', type: 'reference', fk: 'contact.id' }),
      ]),
    );
    expect(model.relationships.contact).toEqual(
      expect.arrayContaining([
        {
          name: 'contact_info_by_contact_id',
          type: 'has_many',
          field: 'id',
          ref_table: 'contact_info',
          ref_field: 'contact_id',
          junction_table: null,
          usage: 'related=contact_info_by_contact_id',
        },
      ]),
    );
    expect(model.patterns.junction_tables).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'contact', related_table: 'contact_group', junction: 'contact_group_relationship' }),
      ]),
    );
    const headers = await credentials();
    const system = await api().server.app.inject({ method: 'GET', url: '/api/v2/system/_spec?model=true', headers });
    expect(JSON.parse(system.body)).toMatchObject({
      service: 'system',
      tables: [],
      error: 'This service does not support schema introspection.',
    });
  });

  it('documents every request body by reference to a schema component that resolves (table writes and _schema bodies were inline)', async () => {
    const spec = (await api().call('GET', '_spec')).body;
    expect(requestBodySchemas(spec).length).toBeGreaterThan(20);
    expect(bodiesNotByReference(spec)).toEqual([]);
    expect(unresolvedRefs(spec)).toEqual([]);
    expect(spec.paths['/_table/contact'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/contact.insertRequest',
    });
  });

  it('tags a single record with an ETag that changes when the record does', async () => {
    const server = api().server;
    const get = async (query = '') =>
      server.app.inject({ method: 'GET', url: `/api/v2/db/_table/contact/1${query}`, headers: await credentials() });
    const first = await get();
    expect(first.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    // The tag hashes the record's JSON as it is sent.
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers.etag).toBe(`W/"${crypto.hash('sha1', first.body, 'base64url')}"`);
    expect(first.json()).toMatchObject({ id: 1 });
    expect((await get()).headers.etag).toBe(first.headers.etag);
    expect((await get('?fields=first_name')).headers.etag).toBeUndefined();
    await api().call('PATCH', '_table/contact/1', { notes: `noted ${Date.now()}` });
    expect((await get()).headers.etag).not.toBe(first.headers.etag);
  });

  it('honours If-Match on single-record PATCH, PUT and DELETE: 412 on a stale tag, nothing written', async () => {
    const server = api().server;
    const created = await api().call('POST', '_table/contact_group', { resource: [{ name: `etag group ${Date.now()}` }] });
    const id = created.body.resource[0].id;
    const read = await server.app.inject({ method: 'GET', url: `/api/v2/db/_table/contact_group/${id}`, headers: await credentials() });
    const etag = read.headers.etag as string;
    const write = async (method: 'PATCH' | 'PUT' | 'DELETE', ifMatch: string, body?: unknown) =>
      server.app.inject({
        method,
        url: `/api/v2/db/_table/contact_group/${id}`,
        headers: { ...(await credentials()), 'if-match': ifMatch, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
    const stale = await write('PATCH', 'W/"not-the-tag"', { name: 'stale write' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toEqual({
      error: { code: 412, message: `Record '${id}' has changed since it was read: its ETag no longer matches If-Match.` },
    });
    expect((await api().call('GET', `_table/contact_group/${id}`)).body.name).not.toBe('stale write');
    expect((await write('PATCH', etag, { name: `renamed ${id}` })).statusCode).toBe(200);
    expect((await write('PUT', etag, { name: 'old tag again' })).statusCode).toBe(412);
    expect((await write('DELETE', etag)).statusCode).toBe(412);
    expect((await write('DELETE', '*')).statusCode).toBe(200);
    expect((await write('PATCH', '*', { name: 'gone' })).statusCode).toBe(404);
  });

  it('lets 20 clients increment one value with If-Match and retries without losing an increment', async () => {
    const server = api().server;
    const { id: _id, ...template } = (await api().call('GET', '_table/contact_info?limit=1')).body.resource[0];
    const created = await api().call('POST', '_table/contact_info', { resource: [{ ...template, info_type: 'counter', ordinal: 0 }] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.resource[0].id;
    const headers = await credentials();
    const url = `/api/v2/db/_table/contact_info/${id}`;
    const increment = async () => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const read = await server.app.inject({ method: 'GET', url, headers });
        const record = read.json() as { ordinal: number };
        const write = await server.app.inject({
          method: 'PATCH',
          url,
          headers: { ...headers, 'if-match': read.headers.etag as string, 'content-type': 'application/json' },
          payload: JSON.stringify({ ordinal: record.ordinal + 1 }),
        });
        if (write.statusCode === 200) return;
        expect(write.statusCode).toBe(412);
      }
      throw new Error('too many retries');
    };
    await Promise.all(Array.from({ length: 20 }, increment));
    expect((await api().call('GET', `_table/contact_info/${id}`)).body.ordinal).toBe(20);
  });

  it('keeps the labels, plural, descriptions and declared types a client sets through _schema', async () => {
    const name = `labelled_${Date.now() % 100000}`;
    const created = await api().call('POST', '_schema', {
      resource: [
        {
          name,
          label: 'Labelled Thing',
          plural: 'Labelled Things',
          description: 'Things with labels.',
          field: [
            { name: 'id', type: 'id' },
            { name: 'seen_at', type: 'datetime', label: 'Seen at', description: 'When it was seen.' },
            { name: 'title', type: 'string', length: 40, label: 'Title' },
          ],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const described = (await api().call('GET', `_schema/${name}`)).body;
    expect(described).toMatchObject({ name, label: 'Labelled Thing', plural: 'Labelled Things', description: 'Things with labels.' });
    const fields = Object.fromEntries(described.field.map((field: { name: string }) => [field.name, field]));
    expect(fields.seen_at).toMatchObject({ label: 'Seen at', description: 'When it was seen.', type: 'datetime' });
    expect(fields.title).toMatchObject({ label: 'Title', type: 'string' });

    // Updates merge: a new label, the rest kept; a field's label through _field.
    expect((await api().call('PATCH', `_schema/${name}`, { label: 'Renamed Thing' })).status).toBe(200);
    expect((await api().call('PATCH', `_schema/${name}/_field/title`, { label: 'Heading' })).status).toBe(200);
    const updated = (await api().call('GET', `_schema/${name}`)).body;
    expect(updated).toMatchObject({ label: 'Renamed Thing', plural: 'Labelled Things', description: 'Things with labels.' });
    expect(updated.field.find((field: { name: string }) => field.name === 'title')).toMatchObject({ label: 'Heading' });
    expect((await api().call('GET', `_schema/${name}/_field/seen_at`)).body).toMatchObject({ label: 'Seen at', type: 'datetime' });

    // Dropped with the table: a new table of that name starts without them.
    expect((await api().call('DELETE', `_schema/${name}`)).status).toBe(200);
    await api().call('POST', '_schema', { resource: [{ name, field: [{ name: 'id', type: 'id' }] }] });
    expect((await api().call('GET', `_schema/${name}`)).body).not.toMatchObject({ label: 'Renamed Thing' });
    await api().call('DELETE', `_schema/${name}`);
  });

  it('limits a database service at service level: 429 with Retry-After and X-RateLimit-* once the rate is spent', async () => {
    const server = api().server;
    const admin = await credentials();
    const system = async (method: 'POST' | 'DELETE', path: string, body?: unknown) =>
      (
        await server.app.inject({
          method,
          url: `/api/v2/system/${path}`,
          headers: { ...admin, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        })
      ).json();
    // Administrators are never limited: an app whose role reads the service calls it with its API key.
    const suffix = Date.now() % 100000;
    const role = await system('POST', 'role', {
      resource: [{ name: `db-reader-${suffix}`, role_service_access_by_role_id: [{ service_id: 5, component: '*', verb_mask: 1 }] }],
    });
    const app = await system('POST', 'app?fields=id,api_key', {
      resource: [{ name: `db-app-${suffix}`, role_id: role.resource[0].id, is_active: true, type: 0 }],
    });
    const limit = await system('POST', 'limit', {
      resource: [{ name: `db-limit-${suffix}`, type: 'instance.service', service_id: 5, rate: 2, period: 'minute' }],
    });
    const read = () =>
      server.app.inject({ method: 'GET', url: '/api/v2/db/_table/contact/1', headers: { 'x-service-api-key': app.resource[0].api_key } });
    try {
      for (let i = 0; i < 2; i++) expect((await read()).statusCode).toBe(200);
      const refused = await read();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toMatchObject({ code: 429 });
      expect(refused.headers['x-ratelimit-limit']).toBe('2');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    } finally {
      await system('DELETE', `limit/${limit.resource[0].id}`);
    }
  });

  async function credentials(): Promise<Record<string, string>> {
    const server = api().server;
    return { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
  }
}
