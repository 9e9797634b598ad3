/**
 * `gen dev` as a user runs it (the `gen` command in a child process, on a temp copy of a small
 * SQLite platform): a table added to the database (found by polling), an edit of platform.yaml and
 * an edit of a WSDL file each rebuild, print the generated files that changed and are served on the same port; a request
 * in flight while the server reloads completes on the build it started on.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-fixtures.js';
import { GenDev } from './gen-dev-process.js';

const KEY = 'ab'.repeat(32);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-dev-'));
let dev: GenDev | null = null;

afterAll(async () => {
  await dev?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const PLATFORM = [
  'platform:',
  '  name: dev-test',
  'services:',
  '  - name: db',
  '    config:',
  '      database: data/app.sqlite',
  'roles:',
  '  - name: everything',
  '    grants:',
  '      - { service: "*", component: "*" }',
  'apps:',
  '  - name: web',
  '    role: everything',
  `    api_key: ${KEY}`,
  'system:',
  '  database: data/system.sqlite',
  '',
].join('\n');

/** platform.yaml edited while serving: a second database and a SOAP service from a local WSDL. */
const EDITED = PLATFORM.replace(
  'roles:',
  [
    '  - name: extra',
    '    type: sqlite',
    '    config:',
    '      database: data/extra.sqlite',
    '  - name: calc',
    '    type: soap',
    '    config:',
    '      wsdl: calculator.wsdl',
    'roles:',
  ].join('\n'),
);

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { 'x-service-api-key': KEY } });
  return { status: response.status, body: await response.json() };
}

it('rebuilds on a new table and on an edit of platform.yaml, prints the changed files, and reloads without dropping a request', async () => {
  fs.mkdirSync(path.join(dir, 'data'));
  const db = new Database(path.join(dir, 'data', 'app.sqlite'));
  db.exec('create table contact (id integer primary key, name text not null)');
  db.close();
  fs.writeFileSync(path.join(dir, 'platform.yaml'), PLATFORM);
  fs.copyFileSync(path.join(REPO_ROOT, 'test/golden/scenarios/soap-calculator/calculator.wsdl'), path.join(dir, 'calculator.wsdl'));

  dev = new GenDev(dir, ['--poll', '300ms']);
  const output = dev;
  const url = await output.listening();
  expect(output.text).toMatch(/Built server\/ in \d+ ms: 7 services, 1 table, 0 operations; \d+ added/);
  expect(output.text).toContain('Watching platform.yaml; database schemas polled every 300 ms.');
  expect((await get(`${url}/api/v2/db/_table/contact`)).status).toBe(200);
  expect((await get(`${url}/api/v2/db/_table/note`)).status).toBe(404);

  // A table added to the database: the poll finds it, the build adds it, the server serves it.
  let mark = output.text.length;
  const change = new Database(path.join(dir, 'data', 'app.sqlite'));
  change.exec("create table note (id integer primary key, body text not null); insert into note (body) values ('first')");
  change.close();
  await output.waitFor(/Reloaded: /, mark);
  const rebuilt = output.text.slice(mark);
  expect(rebuilt).toContain("Database schema of 'db' changed: rebuilding");
  for (const file of ['model.json', 'services/db/types.ts', 'services/db/routes.json', 'openapi/db.json', 'prisma/db.prisma'])
    expect(rebuilt).toContain(`  change  ${file}\n`);
  expect(rebuilt).toMatch(/Built server\/ in \d+ ms: 7 services, 2 tables, 0 operations; 0 added, \d+ changed/);
  expect(await get(`${url}/api/v2/db/_table/note`)).toEqual({ status: 200, body: { resource: [{ id: 1, body: 'first' }] } });

  // A request in flight (its body half sent) while platform.yaml changes: the server reloads, the
  // request finishes on the build it started on, and the next ones see the change.
  const body = JSON.stringify({ resource: [{ body: 'sent slowly' }] });
  let answered!: (value: { status: number; text: string }) => void;
  const slow = new Promise<{ status: number; text: string }>((resolve) => {
    answered = resolve;
  });
  const request = http.request(
    `${url}/api/v2/db/_table/note`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-api-key': KEY },
    },
    (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => answered({ status: response.statusCode!, text }));
    },
  );
  request.write(body.slice(0, 8));
  await new Promise((resolve) => setTimeout(resolve, 200));

  mark = output.text.length;
  fs.writeFileSync(path.join(dir, 'platform.yaml'), EDITED);
  await output.waitFor(/Reloaded: .*\(1 request finishing on the previous one\)/, mark);
  const edited = output.text.slice(mark);
  expect(edited).toContain('platform.yaml changed: rebuilding');
  expect(edited).toContain('  add     openapi/extra.json\n');
  expect(edited).toContain('  add     openapi/calc.json\n');
  expect(edited).toContain('  change  model.json\n');
  const services = await get(`${url}/api/v2`);
  expect(JSON.stringify(services.body)).toContain('"extra"');
  expect((await get(`${url}/api/v2/extra/_table`)).status).toBe(200);

  request.end(body.slice(8));
  const finished = await slow;
  expect(finished.status, finished.text).toBe(200);
  expect(JSON.parse(finished.text)).toEqual({ resource: [{ id: 2 }] });
  expect(await get(`${url}/api/v2/db/_table/note/2`)).toMatchObject({ status: 200, body: { body: 'sent slowly' } });

  // The WSDL file of a SOAP service: an operation renamed in it is served under its new name.
  expect(JSON.stringify((await get(`${url}/api/v2/calc?as_list=true`)).body)).toContain('"Divide"');
  mark = output.text.length;
  fs.writeFileSync(
    path.join(dir, 'calculator.wsdl'),
    fs.readFileSync(path.join(dir, 'calculator.wsdl'), 'utf8').replaceAll('Divide', 'Quotient'),
  );
  await output.waitFor(/Reloaded: /, mark);
  expect(output.text.slice(mark)).toContain('calculator.wsdl changed: rebuilding');
  expect(output.text.slice(mark)).toContain('  change  openapi/calc.json\n');
  const operations = JSON.stringify((await get(`${url}/api/v2/calc?as_list=true`)).body);
  expect(operations).toContain('"Quotient"');
  expect(operations).not.toContain('"Divide"');

  // A mistake keeps the last good build serving and says so.
  mark = output.text.length;
  fs.writeFileSync(
    path.join(dir, 'platform.yaml'),
    EDITED.replace('component: "*" }', 'component: "*" }\n      - { service: db, component: _table/nots }'),
  );
  await output.waitFor(/Still serving the last build that worked\./, mark);
  expect(output.text.slice(mark)).toContain(
    "Unknown table 'nots' in roles[0].grants[1] (role 'everything'): service 'db' has no such table. Did you mean 'note'? [PCO202]",
  );
  expect((await get(`${url}/api/v2/db/_table/note`)).status).toBe(200);

  expect(await dev.stop()).toBe(0);
}, 180_000);
