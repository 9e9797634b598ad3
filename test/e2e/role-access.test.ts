/**
 * Role-based access over HTTP: the user's role for the calling app, else the app's default role;
 * the most specific component wins; verb sets; row filters as bound parameters; inactive roles,
 * apps, users and services refused.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { coreMessages } from '#runtime/core/messages.js';

let server: TestServer;
let api: Api;
const ids: Record<string, number> = {};
const keys: Record<string, string> = {};
const tokens: Record<string, string> = {};
const PASSWORD = 'role-password-123456';

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  const admin = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token: admin }));
  const db = new Database(path.join(server.dir, 'docs.sqlite'));
  db.exec('create table doc (id integer primary key autoincrement, owner_id integer not null, title text not null)');
  db.exec("insert into doc (owner_id, title) values (1, 'admin doc'), (2, 'x'), (3, 'y')");
  db.exec(
    'create table note (id integer primary key autoincrement, doc_id integer not null references doc(id), owner_id integer not null, body text)',
  );
  db.close();
  ids.docs = (
    await api('POST', '/system/service', {
      resource: [{ name: 'docs', label: 'Docs', type: 'sqlite', config: { database: 'docs.sqlite' } }],
    })
  ).body.resource[0].id;
  const role = async (name: string, grants: unknown[], extra: Record<string, unknown> = {}) =>
    (await api('POST', '/system/role', { resource: [{ name, ...extra, role_service_access_by_role_id: grants }] })).body.resource[0]
      .id as number;
  ids.reader = await role('reader', [{ service_id: ids.docs, component: '_table/*', verb_mask: 1 }]);
  ids.owner = await role('owner', [
    { service_id: ids.docs, component: '_table/*', verb_mask: 1 | 2, filters: [{ name: 'owner_id', operator: '=', value: '{user.id}' }] },
    {
      service_id: ids.docs,
      component: '_table/doc/*',
      verb_mask: 1 | 2 | 8,
      filters: [{ name: 'owner_id', operator: '=', value: '{user.id}' }],
    },
  ]);
  ids.docOnly = await role('doc-only', [{ service_id: ids.docs, component: '_table/doc', verb_mask: 1 | 2 }]);
  ids.specific = await role('specific', [
    { service_id: ids.docs, component: '*', verb_mask: 31 },
    { service_id: ids.docs, component: '_table/doc', verb_mask: 1 },
  ]);
  ids.inactive = await role('inactive', [{ service_id: null, component: '*', verb_mask: 31 }], { is_active: false });
  const app = async (name: string, roleId: number | null, extra: Record<string, unknown> = {}) => {
    const created = (await api('POST', '/system/app?fields=id,api_key', { resource: [{ name, role_id: roleId, ...extra }] })).body
      .resource[0];
    ids[name] = created.id;
    keys[name] = created.api_key;
  };
  await app('reading', ids.reader);
  await app('owning', null);
  await app('doc-only-app', ids.docOnly);
  await app('inactive-app', ids.reader, { is_active: false });
  await app('inactive-role-app', ids.inactive);
  const user = async (email: string, roles: Array<[string, number]>) => {
    const created = await api('POST', '/system/user', {
      resource: [
        {
          name: email,
          email,
          password: PASSWORD,
          user_to_app_to_role_by_user_id: roles.map(([appName, roleId]) => ({ app_id: ids[appName], role_id: roleId })),
        },
      ],
    });
    ids[email] = created.body.resource[0].id;
    tokens[email] = (await api('POST', '/user/session', { email, password: PASSWORD }, null)).body.session_token;
  };
  await user('two@x.io', [['owning', ids.owner]]);
  await user('spec@x.io', [['owning', ids.specific]]);
  await user('plain@x.io', []);
  // The seeded documents belong to users 2 and 3: make them ours.
  const conn = new Database(path.join(server.dir, 'docs.sqlite'));
  conn.prepare('update doc set owner_id = ? where id = 2').run(ids['two@x.io']);
  conn.prepare("insert into note (doc_id, owner_id, body) values (2, ?, 'mine'), (2, 1, 'not mine')").run(ids['two@x.io']);
  conn.close();
});
afterAll(async () => server.close());

describe('role resolution', () => {
  it("uses the app's default role without a user, and 401 when it does not allow", async () => {
    expect((await api('GET', '/docs/_table/doc', undefined, { key: keys.reading })).body.resource).toHaveLength(3);
    const write = await api('POST', '/docs/_table/doc', { resource: [{ owner_id: 1, title: 't' }] }, { key: keys.reading });
    expect(write.body.error).toEqual({ code: 401, message: coreMessages.noSessionToken.text() });
    expect(write.body.error.message).toMatch(/^No session token \(JWT\) provided/);
  });

  it("uses the user's role for the app, else the app's default role", async () => {
    // plain@x.io has no role for `reading`: the app's default role (reader) applies.
    expect((await api('GET', '/docs/_table/doc', undefined, { key: keys.reading, token: tokens['plain@x.io'] })).status).toBe(200);
    // ... and none for `owning`, which has no default role.
    const none = await api('GET', '/docs/_table/doc', undefined, { key: keys.owning, token: tokens['plain@x.io'] });
    expect(none.body.error).toEqual({ code: 403, message: 'Role not found. A role may not be assigned to you or your application.' });
  });

  it('lets the most specific component win and checks the verb', async () => {
    const auth = { key: keys.owning, token: tokens['spec@x.io'] };
    expect((await api('GET', '/docs/_table/doc', undefined, auth)).status).toBe(200);
    const post = await api('POST', '/docs/_table/doc', { resource: [{ owner_id: 1, title: 't' }] }, auth);
    expect(post.body.error).toEqual({
      code: 403,
      message: "Access Forbidden. POST access to component '_table/doc' of service 'docs' is not allowed by this user's role.",
    });
    // The component covers its records (DESIGN 4), so its verbs win there over the service-wide grant's.
    expect((await api('GET', '/docs/_table/doc/1', undefined, auth)).status).toBe(200);
    const remove = await api('DELETE', '/docs/_table/doc/999', undefined, auth);
    expect(remove.body.error).toEqual({
      code: 403,
      message: "Access Forbidden. DELETE access to component '_table/doc/999' of service 'docs' is not allowed by this user's role.",
    });
    expect((await api('DELETE', '/docs/_table/note/999', undefined, auth)).status).toBe(404);
  });
});

describe('discovery (spec, Discovery)', () => {
  it("answers a service's document 403 to a role without GET on its _spec component, 200 to one with it", async () => {
    const asUser = (url: string, email: string) => api('GET', url, undefined, { key: keys.owning, token: tokens[email] });
    // two@x.io's role at `owning` grants _table/* only; spec@x.io's grants * on the service.
    const refused = await asUser('/docs/_spec', 'two@x.io');
    expect(refused.body.error).toEqual({ code: 403, message: expect.stringMatching(/_spec/) });
    // Its options change nothing: the refusal is the same error, in JSON, whatever format is asked for.
    for (const options of ['model=true&format=yaml', 'compact=true&tables=true', 'resource_name=doc&format=yml']) {
      const refusedView = await asUser(`/docs/_spec?${options}`, 'two@x.io');
      expect(refusedView.status, options).toBe(403);
      expect(refusedView.body, options).toEqual(refused.body);
    }
    expect((await asUser('/docs/_spec', 'spec@x.io')).status).toBe(200);
    // A grant of the _spec component alone is enough.
    await api('PATCH', `/system/role/${ids.owner}`, {
      role_service_access_by_role_id: [{ service_id: ids.docs, component: '_spec', verb_mask: 1 }],
    });
    try {
      const document = await asUser('/docs/_spec', 'two@x.io');
      expect(document.status).toBe(200);
      expect(Object.keys(document.body.paths)).toContain('/_table/doc');
      expect((await asUser('/docs/_table/doc', 'two@x.io')).status).toBe(200);
    } finally {
      const grants = (await api('GET', `/system/role/${ids.owner}?related=role_service_access_by_role_id`)).body
        .role_service_access_by_role_id as Array<{ id: number; component: string }>;
      const added = grants.find((g) => g.component === '_spec');
      if (added) await api('PATCH', `/system/role/${ids.owner}`, { role_service_access_by_role_id: [{ id: added.id, role_id: null }] });
    }
    expect((await asUser('/docs/_spec', 'two@x.io')).status).toBe(403);
  });

  it('answers 404 to a service name in another case: names are case-sensitive', async () => {
    for (const url of ['/Docs/_spec', '/DOCS/_spec', '/api_docs/Docs', '/Docs/_table/doc']) {
      const response = await api('GET', url);
      expect([url, response.status, response.body.error.message]).toEqual([
        url,
        404,
        `Could not find a service for ${url.split('/')[url.startsWith('/api_docs') ? 2 : 1]}`,
      ]);
    }
    expect((await api('GET', '/docs/_spec')).status).toBe(200);
    expect((await api('GET', '/api_docs/docs')).body.paths).toEqual((await api('GET', '/docs/_spec')).body.paths);
  });
});

describe('row filters', () => {
  const auth = () => ({ key: keys.owning, token: tokens['two@x.io'] });

  it("limits reads, by-id reads and updates to the user's rows", async () => {
    const list = await api('GET', '/docs/_table/doc', undefined, auth());
    expect(list.body.resource.map((r: { id: number }) => r.id)).toEqual([2]);
    expect((await api('GET', '/docs/_table/doc/1', undefined, auth())).status).toBe(404);
    expect((await api('PATCH', '/docs/_table/doc/1', { title: 'stolen' }, auth())).status).toBe(404);
    expect((await api('PATCH', '/docs/_table/doc/2', { title: 'mine' }, auth())).status).toBe(200);
  });

  it("applies the related table's row filters to `related` reads", async () => {
    const doc = await api('GET', '/docs/_table/doc/2?related=note_by_doc_id', undefined, auth());
    expect(doc.status).toBe(200);
    expect(doc.body.note_by_doc_id.map((n: { body: string }) => n.body)).toEqual(['mine']);
    // The administrator sees every note.
    expect((await api('GET', '/docs/_table/doc/2?related=note_by_doc_id')).body.note_by_doc_id).toHaveLength(2);
  });

  it('refuses `related` reads and nested writes into tables the role does not grant', async () => {
    const keyOnly = { key: keys['doc-only-app'] };
    expect((await api('GET', '/docs/_table/doc', undefined, keyOnly)).status).toBe(200);
    const related = await api('GET', '/docs/_table/doc?related=note_by_doc_id', undefined, keyOnly);
    expect(related.status).toBe(403);
    expect(related.body.error.message).toContain("'_table/note'");
    const nested = await api(
      'POST',
      '/docs/_table/doc',
      { resource: [{ owner_id: 1, title: 'n', note_by_doc_id: [{ owner_id: 1, body: 'b' }] }] },
      keyOnly,
    );
    expect(nested.status).toBe(403);
    // A nested write into a table whose grant filters rows is refused too: the filter is not checked on nested rows.
    const filtered = await api(
      'POST',
      '/docs/_table/doc',
      { resource: [{ owner_id: ids['two@x.io'], title: 'n', note_by_doc_id: [{ owner_id: 1, body: 'b' }] }] },
      auth(),
    );
    expect(filtered.status).toBe(403);
    const notes = new Database(path.join(server.dir, 'docs.sqlite'), { readonly: true });
    expect(notes.prepare("select count(*) as n from doc where title = 'n'").get()).toEqual({ n: 0 });
    expect(notes.prepare('select count(*) as n from note').get()).toEqual({ n: 2 });
    notes.close();
  });

  it('refuses creating or moving records outside the filter (403, nothing written)', async () => {
    const me = ids['two@x.io'];
    const other = await api('POST', '/docs/_table/doc', { resource: [{ owner_id: 1, title: 'not mine' }] }, auth());
    expect(other.body.error).toMatchObject({ code: 403, message: 'Denied access to some of the requested fields.' });
    // On create a filter field the record leaves out counts as a mismatch.
    expect((await api('POST', '/docs/_table/doc', { resource: [{ title: 'whose?' }] }, auth())).status).toBe(403);
    const mine = await api('POST', '/docs/_table/doc?fields=id,owner_id', { resource: [{ owner_id: me, title: 'mine too' }] }, auth());
    expect(mine.body.resource).toEqual([{ id: expect.any(Number), owner_id: me }]);
    // On update it is skipped; a value moving the record out is refused.
    expect((await api('PATCH', '/docs/_table/doc/2', { owner_id: 1 }, auth())).status).toBe(403);
    expect((await api('PATCH', '/docs/_table/doc/2', { title: 'renamed' }, auth())).status).toBe(200);
    const docs = new Database(path.join(server.dir, 'docs.sqlite'), { readonly: true });
    expect(
      docs.prepare("select owner_id, title from doc where title in ('not mine', 'whose?', 'mine too') or id = 2 order by id").all(),
    ).toEqual([
      { owner_id: me, title: 'renamed' },
      { owner_id: me, title: 'mine too' },
    ]);
    docs.close();
  });

  it('binds lookup values as data, never as SQL', async () => {
    const sneaky = (
      await api('POST', '/system/role', {
        resource: [
          {
            name: 'sneaky',
            role_service_access_by_role_id: [
              { service_id: ids.docs, component: '*', verb_mask: 1, filters: [{ name: 'title', operator: '=', value: "x' or '1'='1" }] },
            ],
          },
        ],
      })
    ).body.resource[0].id;
    await api('PATCH', `/system/user/${ids['plain@x.io']}`, { user_to_app_to_role_by_user_id: [{ app_id: ids.owning, role_id: sneaky }] });
    const response = await api('GET', '/docs/_table/doc', undefined, { key: keys.owning, token: tokens['plain@x.io'] });
    expect(response.status).toBe(200);
    expect(response.body.resource).toEqual([]);
  });

  it('takes a filter value as a JSON number, boolean or null (compared as its text), and refuses an unusable filter on save', async () => {
    const grantWith = (filter: Record<string, unknown>) => ({
      service_id: ids.docs,
      component: '_table/*',
      verb_mask: 1,
      filters: [filter],
    });
    const typed = (
      await api('POST', '/system/role?related=role_service_access_by_role_id', {
        resource: [{ name: 'typed-filter', role_service_access_by_role_id: [grantWith({ name: 'owner_id', operator: '=', value: 2 })] }],
      })
    ).body.resource[0];
    // What was written reads back as written.
    expect(typed.role_service_access_by_role_id[0].filters).toEqual([{ name: 'owner_id', operator: '=', value: 2 }]);
    const key = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'typed-app', role_id: typed.id }] })).body.resource[0]
      .api_key;
    const read = await api('GET', '/docs/_table/doc?fields=owner_id', undefined, { key });
    expect(read.status).toBe(200);
    expect(read.body.resource.length).toBeGreaterThan(0);
    expect(read.body.resource.every((doc: { owner_id: number }) => doc.owner_id === 2)).toBe(true);
    for (const value of [true, null]) {
      await api('PATCH', `/system/role/${typed.id}`, {
        role_service_access_by_role_id: [
          { id: typed.role_service_access_by_role_id[0].id, filters: [{ name: 'title', operator: '=', value }] },
        ],
      });
      expect((await api('GET', '/docs/_table/doc', undefined, { key })).status, String(value)).toBe(200);
    }
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ name: 'owner_id', operator: 'nonsense', value: '1' }, "'nonsense' is not a row filter operator"],
      [{ name: 'owner_id', operator: '>', value: null }, 'null can only be compared with = or !=, not >'],
      [{ name: 'owner_id', operator: 'in', value: '(1,,2)' }, 'the list has an empty item'],
    ];
    for (const [filter, reason] of refused) {
      const response = await api('POST', '/system/role', {
        resource: [{ name: 'unusable-filter', role_service_access_by_role_id: [grantWith(filter)] }],
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        message: `Invalid row filter in 'role_service_access_by_role_id[0].filters[0]': ${reason}.`,
        context: { field: 'role_service_access_by_role_id[0].filters[0]' },
      });
    }
    expect((await api('GET', "/system/role?filter=name='unusable-filter'")).body.resource).toEqual([]);
  });
});

describe('inactive principals', () => {
  it.each([
    ['an inactive app', () => ({ key: keys['inactive-app'] }), 403, 'App is not active.'],
    [
      'an inactive role',
      () => ({ key: keys['inactive-role-app'], token: tokens['plain@x.io'] }),
      403,
      'Access Forbidden. The role assigned to you or your application or the default role of your application is not active.',
    ],
  ])('refuses %s', async (_name, auth, status, message) => {
    expect((await api('GET', '/docs/_table/doc', undefined, auth())).body.error).toEqual({ code: status, message });
  });

  it("refuses a login whose own role at the calling app is inactive (reference 6.3), not one whose app's default role is", async () => {
    const email = 'dormant@x.io';
    await api('POST', '/system/user', {
      resource: [
        { name: email, email, password: PASSWORD, user_to_app_to_role_by_user_id: [{ app_id: ids.reading, role_id: ids.inactive }] },
      ],
    });
    const login = (key?: string) => api('POST', '/user/session', { email, password: PASSWORD }, key ? { key } : null);
    expect((await login(keys.reading)).body.error).toEqual({ code: 403, message: 'Role is not active.' });
    // Wrong credentials are still a 401 first; without an app, or at an app where the role is not theirs, no role to check.
    const wrong = await api('POST', '/user/session', { email, password: 'not-the-password' }, { key: keys.reading });
    expect(wrong.body.error).toEqual({ code: 401, message: 'Invalid credentials supplied.' });
    expect((await login()).status).toBe(200);
    expect((await login(keys.owning)).status).toBe(200);
    expect((await login(keys['inactive-role-app'])).status).toBe(200);
  });

  it('refuses the session of a user made inactive, and an inactive service', async () => {
    const email = 'gone@x.io';
    await api('POST', '/system/user', {
      resource: [
        { name: email, email, password: PASSWORD, user_to_app_to_role_by_user_id: [{ app_id: ids.reading, role_id: ids.reader }] },
      ],
    });
    const token = (await api('POST', '/user/session', { email, password: PASSWORD }, null)).body.session_token;
    expect((await api('GET', '/docs/_table/doc', undefined, { key: keys.reading, token })).status).toBe(200);
    const id = (await api('GET', `/system/user?filter=${encodeURIComponent(`email='${email}'`)}&fields=id`)).body.resource[0].id;
    await api('PATCH', `/system/user/${id}`, { is_active: false });
    expect((await api('GET', '/docs/_table/doc', undefined, { key: keys.reading, token })).status).toBe(401);
    await api('PATCH', `/system/service/${ids.docs}`, { is_active: false });
    expect((await api('GET', '/docs/_table/doc', undefined, { key: keys.reading })).body.error).toEqual({
      code: 403,
      message: 'Service docs is deactivated.',
    });
    await api('PATCH', `/system/service/${ids.docs}`, { is_active: true });
  });
});
