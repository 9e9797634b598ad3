/**
 * Build-time checks as a user meets them with `gen build`: one platform.yaml with several mistakes
 * (a grant on a misspelt table, a row filter on a missing column and one with an invalid list, a
 * grant on a misspelt SOAP operation, an app naming a missing role, a database password from an
 * unset variable) reports every one at once, positioned, with its code. `${env:...}` references
 * are needed only where introspection reads them: the others stay references in the generated
 * files and resolve when the server starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { createServer } from '#runtime/http/create-server.js';
import { loadModel } from '#runtime/http/run-server.js';
import { captureIo } from './cli-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-build-checks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

fs.mkdirSync(path.join(dir, 'data'));
const db = new Database(path.join(dir, 'data', 'shop.sqlite'));
db.exec(`
  create table customer (id integer primary key, name text not null, owner_id integer);
  create table orders (id integer primary key, customer_id integer references customer(id), total real, owner_id integer);
  insert into customer (name, owner_id) values ('Ada', 1), ('Bob', 2);
`);
db.close();
fs.copyFileSync(
  path.resolve(import.meta.dirname, '../golden/scenarios/soap-calculator/calculator.wsdl'),
  path.join(dir, 'calculator.wsdl'),
);

const SERVICES = [
  'platform: { name: shop }',
  'services:',
  '  - name: db',
  '    config: { database: data/shop.sqlite }',
  '  - name: calc',
  '    type: soap',
  '    config: { wsdl: calculator.wsdl }',
];
/** References the build does not read: they stay as written and resolve at start. */
const RUNTIME_REFERENCES = [
  'admins:',
  '  - email: ada@example.com',
  '    password: ${env:ADA_PASSWORD}',
  'system:',
  '  database: ${env:SYSTEM_DB}',
  '  jwt_secret: ${env:JWT_SECRET}',
];

const env = (extra: Record<string, string> = {}) => {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !['ADA_PASSWORD', 'SYSTEM_DB', 'JWT_SECRET', 'WEB_API_KEY', 'CRM_DB_PASSWORD'].includes(name),
    ),
  );
  return { ...clean, ...extra };
};

it('reports every mistake of one platform.yaml at once, each at its place with its code', async () => {
  fs.writeFileSync(
    path.join(dir, 'platform.yaml'),
    [
      ...SERVICES,
      /* 8 */ '  - name: crm',
      '    type: pgsql',
      '    config:',
      '      host: 127.0.0.1',
      '      database: crm',
      /* 13 */ '      password: ${env:CRM_DB_PASSWORD}',
      'roles:',
      '  - name: clerk',
      '    grants:',
      /* 17 */ '      - { service: db, component: _table/custmer, verbs: [GET] }',
      '      - service: db',
      '        component: _table/orders',
      '        filters:',
      /* 21 */ '          - { name: ownr_id, operator: "=", value: "{user.id}" }',
      /* 22 */ '          - { name: total, operator: in, value: "(1,,2)" }',
      /* 23 */ '      - { service: calc, component: Ad }',
      '      - { service: crm, component: _table/anything }',
      'apps:',
      '  - name: web',
      /* 27 */ '    role: clerck',
      '    api_key: ${env:WEB_API_KEY}',
      ...RUNTIME_REFERENCES,
      '',
    ].join('\n'),
  );
  const { io, out } = captureIo(dir);
  io.env = env();
  expect(await runCli(['build'], io)).toBe(1);
  const lines = out.stderr.split('\n').filter((line) => line.startsWith('platform.yaml:'));
  expect(lines).toEqual([
    'platform.yaml:13:17: Environment variable CRM_DB_PASSWORD is not set; the build needs it to read the service (set it, or write ${env:CRM_DB_PASSWORD:-default}). [PCO111]',
    "platform.yaml:17:35: Unknown table 'custmer' in roles[0].grants[0] (role 'clerk'): service 'db' has no such table. Did you mean 'customer'? [PCO202]",
    "platform.yaml:21:21: Row filter field 'ownr_id' in roles[0].grants[1] (role 'clerk') is not a column of table 'orders' of service 'db'. Did you mean 'owner_id'? [PCO203]",
    "platform.yaml:22:49: Row filter 'total in (1,,2)' in roles[0].grants[1] (role 'clerk') is invalid: the list has an empty item. [PCO204]",
    "platform.yaml:23:37: Unknown operation 'ad' in roles[0].grants[2] (role 'clerk'): service 'calc' has no such operation. Did you mean 'Add'? [PCO202]",
    "platform.yaml:27:11: Unknown role 'clerck' in apps[0].role. Did you mean 'clerk'? [PCO109]",
  ]);
  expect(out.stderr).toContain('6 problems found.');
  // The variables only the server reads are not asked for; the grant on crm waits for crm to be readable.
  expect(out.stderr).not.toMatch(/ADA_PASSWORD|SYSTEM_DB|JWT_SECRET|WEB_API_KEY|anything/);
  expect(fs.existsSync(path.join(dir, 'server'))).toBe(false);
});

it('builds without the variables the server reads, keeps them as references, and the server resolves them at start', async () => {
  fs.writeFileSync(
    path.join(dir, 'platform.yaml'),
    [
      ...SERVICES,
      'roles:',
      '  - name: clerk',
      '    grants:',
      '      - service: db',
      '        component: "_table/*"',
      '        verbs: [GET]',
      '        filters: [{ name: owner_id, operator: "=", value: 2 }]',
      '      - { service: calc, component: Add }',
      'apps:',
      '  - name: web',
      '    role: clerk',
      '    api_key: ${env:WEB_API_KEY}',
      ...RUNTIME_REFERENCES,
      '',
    ].join('\n'),
  );
  const { io, out } = captureIo(dir);
  io.env = env();
  expect(await runCli(['build'], io), out.stderr).toBe(0);
  const text = fs.readFileSync(path.join(dir, 'server', 'model.json'), 'utf8');
  for (const reference of ['${env:ADA_PASSWORD}', '${env:SYSTEM_DB}', '${env:JWT_SECRET}', '${env:WEB_API_KEY}'])
    expect(text).toContain(reference);

  const key = 'cd'.repeat(32);
  const app = await createServer(loadModel(new URL(`file://${path.join(dir, 'server', 'model.json')}`)), {
    baseDir: dir,
    env: env({ ADA_PASSWORD: 'a-long-enough-password', SYSTEM_DB: 'state/system.sqlite', JWT_SECRET: 'j'.repeat(40), WEB_API_KEY: key }),
  });
  try {
    // The system database is where SYSTEM_DB says, the app's key is WEB_API_KEY and its role's row filter holds.
    expect(fs.existsSync(path.join(dir, 'state', 'system.sqlite'))).toBe(true);
    const rows = await app.inject({ method: 'GET', url: '/api/v2/db/_table/customer', headers: { 'x-service-api-key': key } });
    expect(rows.statusCode, rows.body).toBe(200);
    expect(rows.json().resource.map((row: { name: string }) => row.name)).toEqual(['Bob']);
    const login = await app.inject({
      method: 'POST',
      url: '/api/v2/system/admin/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'ada@example.com', password: 'a-long-enough-password' }),
    });
    expect(login.statusCode, login.body).toBe(200);
  } finally {
    await app.close();
  }
});
