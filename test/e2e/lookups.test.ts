/**
 * Lookups (issue 9 item 16, reference 6.6): `{name}` in service configs (system lookups), role row filters and request filters
 * resolves to the caller's lookup, the user's over the role's over the app's over the system's;
 * values are always bound as data; private lookups are masked when read back.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;
let appKey: string;
const tokens: Record<string, string> = {};
const PASSWORD = 'lookup-password-123456';

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  const admin = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token: admin }));
  const db = new Database(path.join(server.dir, 'crm.sqlite'));
  db.exec('create table account (id integer primary key autoincrement, region text not null, tier text not null, name text not null)');
  db.exec(
    "insert into account (region, tier, name) values ('north', 'gold', 'n-gold'), ('north', 'basic', 'n-basic'), ('south', 'gold', 's-gold'), ('east', 'basic', 'e-basic')",
  );
  db.close();
  const serviceId = (
    await api('POST', '/system/service', { resource: [{ name: 'crm', label: 'CRM', type: 'sqlite', config: { database: 'crm.sqlite' } }] })
  ).body.resource[0].id;
  // The role sees the accounts of `{region}`, whatever the user's lookup says it is.
  const role = (
    await api('POST', '/system/role', {
      resource: [
        {
          name: 'regional',
          role_service_access_by_role_id: [
            { service_id: serviceId, component: '_table/*', verb_mask: 1, filters: [{ name: 'region', operator: '=', value: '{region}' }] },
          ],
          lookup_by_role_id: [{ name: 'tier', value: 'basic' }],
        },
      ],
    })
  ).body.resource[0].id;
  const app = (
    await api('POST', '/system/app?fields=id,api_key', {
      resource: [
        {
          name: 'crm-app',
          role_id: role,
          lookup_by_app_id: [
            { name: 'tier', value: 'gold' },
            { name: 'region', value: 'east' },
          ],
        },
      ],
    })
  ).body.resource[0];
  appKey = app.api_key;
  await api('POST', '/system/lookup', {
    resource: [
      { name: 'region', value: 'south' },
      { name: 'secret', value: 's3cr3t', private: true },
      { name: 'evil', value: "x' or '1'='1" },
    ],
  });
  for (const [email, region] of [
    ['north@x.io', 'north'],
    ['nobody@x.io', null],
  ] as const) {
    await api('POST', '/system/user', {
      resource: [{ name: email, email, password: PASSWORD, ...(region ? { lookup_by_user_id: [{ name: 'region', value: region }] } : {}) }],
    });
    tokens[email] = (await api('POST', '/user/session', { email, password: PASSWORD }, { key: appKey })).body.session_token;
  }
});
afterAll(async () => server?.close());

const names = (body: { resource: Array<{ name: string }> }) => body.resource.map((row) => row.name).sort();

describe('lookups', () => {
  it('substitute in role row filters with the user value over the app and system values', async () => {
    const north = await api('GET', '/crm/_table/account', undefined, { key: appKey, token: tokens['north@x.io'] });
    expect(north.status).toBe(200);
    expect(names(north.body)).toEqual(['n-basic', 'n-gold']);
    // No user lookup: the app's `region` (east) wins over the system's (south).
    const nobody = await api('GET', '/crm/_table/account', undefined, { key: appKey, token: tokens['nobody@x.io'] });
    expect(names(nobody.body)).toEqual(['e-basic']);
  });

  it('substitute in request filters, the role value over the app value', async () => {
    const response = await api('GET', `/crm/_table/account?filter=${encodeURIComponent("tier = '{tier}'")}`, undefined, {
      key: appKey,
      token: tokens['north@x.io'],
    });
    expect(names(response.body)).toEqual(['n-basic']);
    const bare = await api('GET', `/crm/_table/account?filter=${encodeURIComponent('tier = {tier}')}`, undefined, {
      key: appKey,
      token: tokens['north@x.io'],
    });
    expect(names(bare.body)).toEqual(['n-basic']);
  });

  it('bind values as data: a lookup holding SQL matches nothing', async () => {
    const response = await api('GET', `/crm/_table/account?filter=${encodeURIComponent("name = '{evil}'")}`);
    expect(response.status).toBe(200);
    expect(response.body.resource).toEqual([]);
    const unquoted = await api('GET', `/crm/_table/account?filter=${encodeURIComponent('name = {evil}')}`);
    expect(unquoted.status).toBe(200);
    expect(unquoted.body.resource).toEqual([]);
  });

  it('leave unknown names as written', async () => {
    const response = await api('GET', `/crm/_table/account?filter=${encodeURIComponent("name = '{nope}'")}`);
    expect(response.body.resource).toEqual([]);
  });

  it('never return a private value in clear, yet substitute it', async () => {
    const listed = (await api('GET', '/system/lookup?filter=name%3D%27secret%27')).body.resource[0];
    expect(listed.value).not.toBe('s3cr3t');
    await api('POST', '/crm/_table/account', { resource: [{ region: 'west', tier: 'x', name: 's3cr3t' }] });
    const found = await api('GET', `/crm/_table/account?filter=${encodeURIComponent("name = '{secret}'")}&fields=name`);
    expect(found.body.resource).toEqual([{ name: 's3cr3t' }]);
  });

  it('substitute system lookups in service configs', async () => {
    await api('POST', '/system/lookup', { resource: [{ name: 'crm_file', value: 'crm.sqlite' }] });
    const created = await api('POST', '/system/service', {
      resource: [{ name: 'crm2', label: 'CRM by lookup', type: 'sqlite', config: { database: '{crm_file}' } }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rows = await api('GET', '/crm2/_table/account?fields=name&filter=region%3D%27east%27');
    expect(rows.body.resource).toEqual([{ name: 'e-basic' }]);
    // The stored config keeps the template.
    expect((await api('GET', `/system/service/${created.body.resource[0].id}`)).body.config.database).toBe('{crm_file}');
  });

  it('take effect for the next request when changed through the API', async () => {
    const user = (await api('GET', '/system/user?filter=email%3D%27north%40x.io%27&related=lookup_by_user_id')).body.resource[0];
    await api('PATCH', `/system/user/${user.id}`, {
      lookup_by_user_id: [{ id: user.lookup_by_user_id[0].id, name: 'region', value: 'south' }],
    });
    const response = await api('GET', '/crm/_table/account', undefined, { key: appKey, token: tokens['north@x.io'] });
    expect(names(response.body)).toEqual(['s-gold']);
  });
});
