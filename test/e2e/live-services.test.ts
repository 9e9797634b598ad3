/**
 * Services created, changed and deleted through /system/service take effect at once; services,
 * roles and apps declared in platform.yaml are listed but refuse changes; a declared app may fix
 * its API key from the environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '#runtime/http/create-server.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const FIXED_KEY = 'c'.repeat(64);
const declared = minimalModel({
  services: [
    ...minimalModel().services,
    {
      id: 8,
      name: 'declared_db',
      type: 'sqlite',
      label: 'Declared',
      description: '',
      is_active: true,
      config: { database: 'declared.sqlite' },
      origin: 'platform',
      kind: 'plain',
    },
    {
      id: 9,
      name: 'declared_mail',
      type: 'smtp_email',
      label: 'Declared mail',
      description: '',
      is_active: true,
      config: { host: '127.0.0.1', port: 2525, username: 'mailer', password: 'declared-secret' },
      origin: 'platform',
      kind: 'plain',
    },
  ],
  roles: [
    {
      name: 'declared-role',
      description: '',
      is_active: true,
      origin: 'platform',
      grants: [{ service: 'declared_db', component: '*', verbs: ['GET'], requestor: ['api'], filters: [], filterOp: 'and' }],
    },
  ],
  apps: [
    {
      name: 'declared-app',
      label: 'Declared',
      description: '',
      is_active: true,
      apiKey: '${env:DECLARED_APP_KEY}',
      role: 'declared-role',
      origin: 'platform',
    },
  ],
});

function makeDatabase(file: string, table: string): void {
  const db = new Database(file);
  db.exec(`create table ${table} (id integer primary key autoincrement, title text not null)`);
  db.prepare(`insert into ${table} (title) values (?)`).run('first');
  db.close();
}

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer(declared, { env: { DECLARED_APP_KEY: FIXED_KEY } });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

describe('services created through the API', () => {
  it('serves a new sqlite service on _table and _schema at once, and follows updates and deletes', async () => {
    makeDatabase(path.join(server.dir, 'live.sqlite'), 'thing');
    makeDatabase(path.join(server.dir, 'other.sqlite'), 'other_thing');
    const created = await api('POST', '/system/service', {
      resource: [{ name: 'live', label: 'Live', type: 'sqlite', config: { database: 'live.sqlite' } }],
    });
    expect(created.status).toBe(201);
    const id = created.body.resource[0].id;
    expect((await api('GET', '/live/_table')).body).toEqual({ resource: [{ name: 'thing' }] });
    expect((await api('GET', '/live/_table/thing')).body.resource).toEqual([{ id: 1, title: 'first' }]);
    expect((await api('POST', '/live/_table/thing', { resource: [{ title: 'second' }] })).body).toEqual({ resource: [{ id: 2 }] });
    expect((await api('GET', '/live/_schema/thing')).body).toMatchObject({
      name: 'thing',
      field: expect.arrayContaining([expect.objectContaining({ name: 'title' })]),
    });
    expect(Object.keys((await api('GET', '/live/_spec')).body.paths)).toContain('/_table/thing');
    expect((await api('GET', '/api/v2?fields=name')).body.services).toContainEqual(expect.objectContaining({ name: 'live' }));

    // Another database, then a new name: each takes effect on the next request.
    await api('PATCH', `/system/service/${id}`, { config: { database: 'other.sqlite' } });
    expect((await api('GET', '/live/_table')).body).toEqual({ resource: [{ name: 'other_thing' }] });
    await api('PATCH', `/system/service/${id}`, { name: 'renamed' });
    expect((await api('GET', '/live/_table')).status).toBe(404);
    expect((await api('GET', '/renamed/_table/other_thing')).body.resource).toHaveLength(1);

    // Deactivated: refused to everyone, administrators included (reference 1.1), to non-administrators whose role grants it.
    const role = (
      await api('POST', '/system/role', {
        resource: [{ name: 'live-reader', role_service_access_by_role_id: [{ service_id: id, component: '*', verb_mask: 1 }] }],
      })
    ).body.resource[0].id;
    const key = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'live-app', role_id: role }] })).body.resource[0]
      .api_key;
    expect((await api('GET', '/renamed/_table/other_thing', undefined, { key })).status).toBe(200);
    await api('PATCH', `/system/service/${id}`, { is_active: false });
    const inactive = await api('GET', '/renamed/_table/other_thing', undefined, { key });
    expect(inactive.body.error).toEqual({ code: 403, message: 'Service renamed is deactivated.' });
    for (const [verb, url] of [
      ['GET', '/renamed/_table/other_thing'],
      ['GET', '/renamed'],
      ['GET', '/renamed/_schema'],
      ['DELETE', '/renamed/_table/other_thing/1'],
    ] as const) {
      expect((await api(verb, url)).body.error, `${verb} ${url} as the administrator`).toEqual({
        code: 403,
        message: 'Service renamed is deactivated.',
      });
    }
    // Discovery agrees: its document is refused through api_docs as through _spec, and the lists leave it out.
    for (const url of ['/renamed/_spec', '/api_docs/renamed']) {
      expect((await api('GET', url)).body.error, url).toEqual({ code: 403, message: 'Service renamed is deactivated.' });
    }
    expect((await api('GET', '/api_docs?as_list=true')).body.resource).not.toContain('renamed');
    const combined = (await api('GET', '/api_docs')).body;
    expect(Object.keys(combined.paths).filter((p) => p.startsWith('/renamed'))).toEqual([]);
    expect(combined.tags.map((tag: { name: string }) => tag.name)).not.toContain('renamed');
    expect((await api('GET', '/api/v2?fields=name')).body.services).not.toContainEqual(expect.objectContaining({ name: 'renamed' }));
    // Nothing was deleted; reactivated, it serves again.
    await api('PATCH', `/system/service/${id}`, { is_active: true });
    expect((await api('GET', '/renamed/_table/other_thing')).body.resource).toHaveLength(1);
    expect((await api('GET', '/api_docs?as_list=true')).body.resource).toContain('renamed');

    expect((await api('DELETE', `/system/service/${id}`)).body).toEqual({ id });
    expect((await api('GET', '/renamed/_table')).body.error.message).toBe('Could not find a service for renamed');
  });

  it('refuses an unknown type, a bad config or a database that cannot be opened, writing nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'bad1', label: 'Bad', type: 'nosuch' }, 'type'],
      [{ name: 'bad2', label: 'Bad', type: 'sqlite', config: {} }, 'config.database'],
      [{ name: 'bad3', label: 'Bad', type: 'sqlite', config: { database: 7 } }, 'config.database'],
      [{ name: 'bad4', label: 'Bad', type: 'sqlite', config: { database: 'missing-dir/x/../../' } }, 'config'],
      [{ name: 'bad5', label: 'Bad', type: 'system' }, 'type'],
    ];
    for (const [record, field] of cases) {
      const response = await api('POST', '/system/service', { resource: [record] });
      expect(response.status, JSON.stringify(record)).toBe(400);
      expect(response.body.error.context.field).toBe(field);
    }
    expect((await api('GET', `/system/service?filter=${encodeURIComponent("name like 'bad%'")}`)).body.resource).toEqual([]);
  });

  it('keeps API-created services across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-restart-'));
    try {
      makeDatabase(path.join(dir, 'kept.sqlite'), 'kept');
      const options = { baseDir: dir, systemDatabase: path.join(dir, 'system.sqlite'), env: {} };
      const first = await createServer(minimalModel(), options);
      const firstApi = apiClient(first, () => ({}));
      const login = await firstApi('POST', '/system/admin/session', { email: 'admin@test.local', password: 'admin-password-12345' });
      await firstApi(
        'POST',
        '/system/service',
        { resource: [{ name: 'kept', label: 'Kept', type: 'sqlite', config: { database: 'kept.sqlite' } }] },
        { token: login.body.session_token },
      );
      await first.close();
      const second = await createServer(minimalModel(), options);
      const secondApi = apiClient(second, () => ({ token: login.body.session_token }));
      expect((await secondApi('GET', '/kept/_table')).body).toEqual({ resource: [{ name: 'kept' }] });
      expect(Object.keys((await secondApi('GET', '/kept/_spec')).body.paths)).toContain('/_table/kept');
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('services, roles and apps declared in platform.yaml', () => {
  it('are listed like the others', async () => {
    expect((await api('GET', '/system/service?fields=name,origin&filter=name=declared_db')).body.resource).toEqual([
      { name: 'declared_db', origin: 'platform' },
    ]);
    expect((await api('GET', "/system/role?fields=name,origin&filter=name='declared-role'")).body.resource).toEqual([
      { name: 'declared-role', origin: 'platform' },
    ]);
    expect((await api('GET', "/system/app?fields=name,api_key&filter=name='declared-app'")).body.resource).toEqual([
      { name: 'declared-app', api_key: FIXED_KEY },
    ]);
  });

  it.each([
    ['service', 'declared_db', 'name=declared_db'],
    // Its password reads masked: the record sent back with the mask is unchanged all the same.
    ['service', 'declared_mail', 'name=declared_mail'],
    ['role', 'declared-role', "name='declared-role'"],
  ])('refuse changes to the %s %s with a 400 saying to change platform.yaml', async (resource, name, filter) => {
    const id = (await api('GET', `/system/${resource}?fields=id&filter=${encodeURIComponent(filter)}`)).body.resource[0].id;
    for (const method of ['PATCH', 'PUT'] as const) {
      const response = await api(method, `/system/${resource}/${id}`, { description: 'x' });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(
        `The ${resource} '${name}' is declared in platform.yaml and cannot be changed through the API: change platform.yaml and rebuild.`,
      );
    }
    // Sending the record back unchanged (as a form does) is not a change.
    const unchanged = await api('GET', `/system/${resource}/${id}`);
    expect((await api('PUT', `/system/${resource}/${id}`, unchanged.body)).status).toBe(200);
    const deleted = await api('DELETE', `/system/${resource}/${id}`);
    expect(deleted.status).toBe(400);
    expect(deleted.body.error.message).toBe(
      `The ${resource} '${name}' is declared in platform.yaml and cannot be deleted through the API: remove it from platform.yaml and rebuild.`,
    );
    const byFilter = await api('DELETE', `/system/${resource}?filter=${encodeURIComponent(filter)}`);
    expect(byFilter.status).toBe(400);
  });

  it.each([
    [
      'declared-app',
      "name='declared-app'",
      'is declared in platform.yaml and cannot be deleted through the API: remove it from platform.yaml and rebuild.',
    ],
    ['admin', 'name=admin', 'is built into every platform and cannot be deleted through the API.'],
  ])('let the app %s change everything but its name, and refuse its deletion', async (name, filter, deleteMessage) => {
    const id = (await api('GET', `/system/app?fields=id&filter=${encodeURIComponent(filter)}`)).body.resource[0].id;
    expect((await api('PATCH', `/system/app/${id}`, { description: 'changed through the API' })).status).toBe(200);
    expect((await api('GET', `/system/app/${id}`)).body.description).toBe('changed through the API');
    const renamed = await api('PATCH', `/system/app/${id}`, { name: 'renamed' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error.message).toMatch(
      new RegExp(
        `^The app '${name}' is (declared in platform.yaml|built into every platform): only label, description, is_active, api_key, role_id, type, path, url can be changed through the API`,
      ),
    );
    const deleted = await api('DELETE', `/system/app/${id}`);
    expect(deleted.status).toBe(400);
    expect(deleted.body.error.message).toBe(`The app '${name}' ${deleteMessage}`);
  });

  it('lets a declared app fix its API key from the environment', async () => {
    const response = await api('GET', '/api/v2?fields=name', undefined, { key: FIXED_KEY });
    expect(response.status).toBe(200);
    expect(response.body.services.map((s: { name: string }) => s.name)).toEqual(['declared_db']);
  });
});
