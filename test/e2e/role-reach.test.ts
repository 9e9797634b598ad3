/**
 * What a role reaches beyond the table it asks for, on SQLite, PostgreSQL and MariaDB/MySQL:
 * a related-field filter (`parent_by_parent_id.secret = 'x'`) sees only the related rows the role
 * could read itself (its row filter, a GET grant on that table), in lists, counts, by-filter
 * updates and `having`; nested writes into another table need the verb each write amounts to;
 * and a grant's component covers its records (`_table/parent` covers `_table/parent/1`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api, type Credentials } from '#test/helpers/api-client.js';
import { requireService } from '#test/helpers/require-service.js';
import { startApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

const PASSWORD = 'reach-password-123456';
const GET = 1;
const POST = 2;
const PATCH = 8;
const DELETE = 16;

const available: Record<TargetKind, boolean> = {
  sqlite: true,
  postgres: await requireService('postgres'),
  mysql: await requireService('mysql'),
};

describe.each((['sqlite', 'postgres', 'mysql'] as const).filter((kind) => available[kind]))('on %s', (kind) => {
  let target: DatabaseTarget;
  let client: ApiClient;
  let api: Api;
  const as: Record<string, Credentials> = {};

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec(`
      create table parent (id integer primary key, owner varchar(20) not null, secret varchar(40) not null)
      ;;
      create table child (id integer primary key, parent_id integer, label varchar(40), foreign key (parent_id) references parent (id))
      ;;
      insert into parent (id, owner, secret) values (1, 'alice', 'alpha'), (2, 'bob', 'guess')
      ;;
      insert into child (id, parent_id, label) values (1, 1, 'c1'), (2, 2, 'c2'), (3, 2, 'c3')
    `);
    client = await startApi(target);
    const admin = await client.server.adminToken();
    api = apiClient(client.server.app, () => ({ key: client.server.apiKey, token: admin }));
    const dbId = 5;
    const aliceOnly = [{ name: 'owner', operator: '=', value: 'alice' }];
    const roles: Record<string, unknown[]> = {
      // Sees every child, but only alice's parents.
      peeker: [
        { service_id: dbId, component: '_table/child', verb_mask: GET | PATCH | DELETE },
        { service_id: dbId, component: '_table/parent', verb_mask: GET, filters: aliceOnly },
      ],
      childOnly: [{ service_id: dbId, component: '_table/child', verb_mask: GET }],
      // Sees every parent, but only the children labelled c1.
      parentAll: [
        { service_id: dbId, component: '_table/parent', verb_mask: GET },
        { service_id: dbId, component: '_table/child', verb_mask: GET, filters: [{ name: 'label', operator: '=', value: 'c1' }] },
      ],
      writer: [
        { service_id: dbId, component: '_table/child', verb_mask: GET | POST },
        { service_id: dbId, component: '_table/parent', verb_mask: GET | POST },
      ],
      specific: [
        { service_id: dbId, component: '*', verb_mask: GET | POST | PATCH | DELETE },
        { service_id: dbId, component: '_table/parent', verb_mask: GET },
      ],
    };
    const assignments: Array<{ app_id: number; role_id: number }> = [];
    const keys: Record<string, string> = {};
    for (const [name, grants] of Object.entries(roles)) {
      const role = await api('POST', '/system/role', { resource: [{ name, role_service_access_by_role_id: grants }] });
      const app = await api('POST', '/system/app?fields=id,api_key', { resource: [{ name: `${name}-app` }] });
      assignments.push({ app_id: app.body.resource[0].id, role_id: role.body.resource[0].id });
      keys[name] = app.body.resource[0].api_key;
    }
    await api('POST', '/system/user', {
      resource: [{ name: 'U', email: 'u@x.io', password: PASSWORD, user_to_app_to_role_by_user_id: assignments }],
    });
    const token = (await api('POST', '/user/session', { email: 'u@x.io', password: PASSWORD }, null)).body.session_token;
    for (const name of Object.keys(roles)) as[name] = { key: keys[name], token };
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  const ids = (response: { body: { resource: Array<{ id: number }> } }) => response.body.resource.map((r) => Number(r.id)).sort();
  const list = (query: string, who: Credentials | undefined = undefined) => api('GET', `/db/_table/child?${query}`, undefined, who);
  const filter = (text: string) => `filter=${encodeURIComponent(text)}&fields=id`;

  describe('related-field filters', () => {
    it('see every related row for the administrator', async () => {
      expect(ids(await list(filter("parent_by_parent_id.secret = 'guess'")))).toEqual([2, 3]);
    });

    it.each([
      ["parent_by_parent_id.secret = 'guess'", "parent_by_parent_id.secret = 'nothing'", []],
      ["parent_by_parent_id.secret like 'gu%'", "parent_by_parent_id.secret like 'zz%'", []],
      ["parent_by_parent_id.secret in ('guess', 'x')", "parent_by_parent_id.secret in ('y', 'x')", []],
      ["not (parent_by_parent_id.secret = 'guess')", "not (parent_by_parent_id.secret = 'nothing')", [1, 2, 3]],
      ["parent_by_parent_id.secret = 'guess' or id = 1", "parent_by_parent_id.secret = 'nothing' or id = 1", [1]],
      ["parent_by_parent_id.owner = 'bob'", "parent_by_parent_id.owner = 'carol'", []],
    ])("cannot test values of rows the role's row filter hides: %s", async (probe, miss, want) => {
      const hit = await list(filter(probe), as.peeker);
      expect(hit.status).toBe(200);
      expect(ids(hit)).toEqual(want);
      expect(ids(await list(filter(miss), as.peeker))).toEqual(want);
    });

    it('still test the related rows the role sees', async () => {
      expect(ids(await list(filter("parent_by_parent_id.secret = 'alpha'"), as.peeker))).toEqual([1]);
    });

    it('cannot count hidden rows (count_only, include_count)', async () => {
      const probe = encodeURIComponent("parent_by_parent_id.secret = 'guess'");
      expect((await list(`filter=${probe}&count_only=true`, as.peeker)).body).toEqual({ meta: { count: 0 } });
      expect((await list(`filter=${probe}&include_count=true&limit=5`, as.peeker)).body).toEqual({ resource: [], meta: { count: 0 } });
    });

    it('are refused (403) when the role may not read the related table', async () => {
      const response = await list(filter("parent_by_parent_id.secret = 'guess'"), as.childOnly);
      expect(response.status).toBe(403);
      expect(response.body.error.message).toContain("'_table/parent'");
      const counted = await list(`filter=${encodeURIComponent('parent_by_parent_id.id > 0')}&count_only=true`, as.childOnly);
      expect(counted.status).toBe(403);
    });

    it('see through has_many relationships only the related rows the role sees', async () => {
      const parents = (text: string) => api('GET', `/db/_table/parent?${filter(text)}`, undefined, as.parentAll);
      expect(ids(await parents("child_by_parent_id.label = 'c2'"))).toEqual([]);
      expect(ids(await parents("child_by_parent_id.label = 'c1'"))).toEqual([1]);
      const admin = await api('GET', `/db/_table/parent?${filter("child_by_parent_id.label = 'c2'")}`);
      expect(ids(admin)).toEqual([2]);
    });

    it('do not change hidden rows through updates by filter', async () => {
      const response = await api(
        'PATCH',
        `/db/_table/child?${filter("parent_by_parent_id.secret = 'guess'")}`,
        { resource: [{ label: 'touched' }] },
        as.peeker,
      );
      expect(response.status).toBe(200);
      expect(response.body.resource).toEqual([]);
      expect(Number((await target.query("select count(*) as n from child where label = 'touched'"))[0].n)).toBe(0);
    });

    it('cannot be grouped, ordered on or put in `having`', async () => {
      const having = await list(`group=parent_id&having=${encodeURIComponent('parent_by_parent_id.id > 0')}`, as.peeker);
      expect(having.status).toBe(400);
      expect((await list('order=parent_by_parent_id.secret', as.peeker)).status).toBe(400);
      expect((await list('group=parent_by_parent_id.secret', as.peeker)).status).toBe(400);
      // Also when the related field shares a grouped field's name.
      expect((await list(`group=id&having=${encodeURIComponent('parent_by_parent_id.id = 2')}`)).status).toBe(400);
    });
  });

  describe('nested writes', () => {
    it('need PATCH on the other table to update a record there, even in a POST', async () => {
      const response = await api(
        'POST',
        '/db/_table/child',
        { resource: [{ id: 20, label: 'n', parent_by_parent_id: { id: 2, secret: 'overwritten' } }] },
        as.writer,
      );
      expect(response.status).toBe(403);
      expect(response.body.error.message).toContain("PATCH access to component '_table/parent'");
      expect(await target.query('select secret from parent where id = 2')).toEqual([{ secret: 'guess' }]);
      expect(await target.query('select id from child where id = 20')).toEqual([]);
    });

    it('may create records there with POST', async () => {
      const response = await api(
        'POST',
        '/db/_table/child',
        { resource: [{ id: 21, label: 'n', parent_by_parent_id: { id: 30, owner: 'w', secret: 's' } }] },
        as.writer,
      );
      expect(response.status).toBe(200);
      expect(await target.query('select owner from parent where id = 30')).toEqual([{ owner: 'w' }]);
    });
  });

  describe("a grant's component covers its records", () => {
    it('lets `_table/parent` read `_table/parent/{id}`, within the row filter', async () => {
      const one = await api('GET', '/db/_table/parent/1', undefined, as.peeker);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: 1, owner: 'alice' });
      expect((await api('GET', '/db/_table/parent/2', undefined, as.peeker)).status).toBe(404);
    });

    it("keeps the more specific grant's verbs for its records", async () => {
      expect((await api('GET', '/db/_table/parent/1', undefined, as.specific)).status).toBe(200);
      const denied = await api('DELETE', '/db/_table/parent/1', undefined, as.specific);
      expect(denied.body.error).toEqual({
        code: 403,
        message: "Access Forbidden. DELETE access to component '_table/parent/1' of service 'db' is not allowed by this user's role.",
      });
      expect((await api('PATCH', '/db/_table/parent/1', { secret: 'x' }, as.specific)).status).toBe(403);
      expect(await target.query('select secret from parent where id = 1')).toEqual([{ secret: 'alpha' }]);
      // The service-wide grant still covers the other tables.
      expect((await api('PATCH', '/db/_table/child/1', { label: 'c1' }, as.specific)).status).toBe(200);
    });
  });
});
