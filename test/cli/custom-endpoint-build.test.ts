/**
 * A `custom` service as `gen build` and `gen dev` meet it: the build loads the module named by
 * `config.module` (never writing it), reports a missing or unloadable module (PCO116), one inside
 * the generated directory (PCO116) and one without its default export or with a route that cannot
 * serve (PCO117) at the `module` entry, and otherwise compiles it to endpoints/<service>.mjs,
 * imports it in main.mjs and documents its routes in openapi/<service>.json. `gen dev` serves the
 * endpoints and reloads when the module changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { captureIo } from './cli-fixtures.js';
import { GenDev } from './gen-dev-process.js';

const KEY = 'cd'.repeat(32);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-custom-'));
let dev: GenDev | null = null;
afterAll(async () => {
  await dev?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

fs.mkdirSync(path.join(dir, 'data'));
fs.mkdirSync(path.join(dir, 'endpoints'));
const db = new Database(path.join(dir, 'data', 'app.sqlite'));
db.exec("create table item (id integer primary key, name text not null); insert into item (name) values ('tea'), ('cake')");
db.close();

const platform = (module: string) =>
  [
    'platform: { name: shop }',
    'services:',
    '  - name: db',
    '    config: { database: data/app.sqlite }',
    '  - name: shop',
    '    type: custom',
    '    config:',
    /* 8 */ `      module: ${module}`,
    'roles:',
    '  - name: everything',
    '    grants:',
    '      - { service: "*", component: "*", requestor: [api, script] }',
    'apps:',
    '  - name: web',
    '    role: everything',
    `    api_key: ${KEY}`,
    'system:',
    '  database: data/system.sqlite',
    '',
  ].join('\n');

const GOOD = `import { defineEndpoints } from 'portico/runtime';

export default defineEndpoints({
  routes: [
    {
      method: 'POST',
      path: '/orders',
      request: { type: 'object', required: ['item'], properties: { item: { type: 'string' } } },
      handler: (request) => ({ ordered: request.body.item }),
    },
    { method: 'GET', path: '/items', handler: async (_request, ctx) => ({ count: await ctx.api.table('db', 'item').count(), version: 1 }) },
  ],
});
`;

async function build(module: string, source?: string): Promise<{ code: number; stderr: string }> {
  fs.writeFileSync(path.join(dir, 'platform.yaml'), platform(module));
  if (source !== undefined) fs.writeFileSync(path.join(dir, module), source);
  const { io, out } = captureIo(dir);
  const code = await runCli(['build'], io);
  return { code, stderr: out.stderr };
}

it('reports a missing module, one inside the generated directory, one without its default export or with a bad route, at the module entry', async () => {
  const missing = await build('endpoints/nope.ts');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(
    /platform\.yaml:8:15: Service 'shop': The module 'endpoints\/nope\.ts' does not exist \(relative to .*\)\. \[PCO116\]/,
  );

  const noDefault = await build('endpoints/plain.ts', 'export const routes = [];\n');
  expect(noDefault.stderr).toContain(
    "platform.yaml:8:15: Service 'shop': the module 'endpoints/plain.ts' has no default export; it must `export default defineEndpoints({ routes: [...] })`. [PCO117]",
  );

  const badRoute = await build('endpoints/bad.ts', "export default { routes: [{ method: 'FETCH', path: '/x', handler: () => 1 }] };\n");
  expect(badRoute.stderr).toContain(
    "platform.yaml:8:15: Service 'shop': the module 'endpoints/bad.ts' cannot serve: routes[0].method must be GET, POST, PUT, PATCH or DELETE. [PCO117]",
  );

  // A module that throws as it loads: at its own line (mapped back from the compiled copy), in one line.
  const throwing = await build(
    'endpoints/throws.ts',
    "type T = number;\nconst n: T = 1;\nif (n) throw new TypeError('no config');\nexport default {};\n",
  );
  expect(throwing.stderr).toContain(
    "endpoints/throws.ts:3:14: Service 'shop': The module 'endpoints/throws.ts' cannot be loaded: TypeError: no config [PCO116]",
  );
  expect(throwing.stderr).not.toMatch(/^\s+at /m);
  const unparsable = await build('endpoints/throws.ts', 'export default { routes: [ };\n');
  expect(unparsable.stderr).toContain(
    "endpoints/throws.ts:1:28: Service 'shop': The module 'endpoints/throws.ts' does not parse: Expression or comma expected. [PCO116]",
  );

  fs.mkdirSync(path.join(dir, 'server'), { recursive: true });
  const inside = await build('server/mine.ts', GOOD);
  expect(inside.stderr).toContain(
    "platform.yaml:8:15: The module 'server/mine.ts' of service 'shop' is inside the generated directory, which gen build rewrites: keep it next to platform.yaml. [PCO116]",
  );
  fs.rmSync(path.join(dir, 'server'), { recursive: true, force: true });
  for (const file of ['plain.ts', 'bad.ts', 'throws.ts']) fs.rmSync(path.join(dir, 'endpoints', file));
});

it('compiles the module into the server, imports it in main.mjs and documents its routes, without writing the module', async () => {
  const { code, stderr } = await build('endpoints/shop.ts', GOOD);
  expect(code, stderr).toBe(0);
  expect(fs.readFileSync(path.join(dir, 'endpoints/shop.ts'), 'utf8')).toBe(GOOD);
  expect(fs.readdirSync(path.join(dir, 'endpoints'))).toEqual(['shop.ts']);
  const compiled = fs.readFileSync(path.join(dir, 'server/endpoints/shop.mjs'), 'utf8');
  expect(compiled).toContain('// Compiled from endpoints/shop.ts; edit that file, not this one.');
  expect(compiled).toContain("import { defineEndpoints } from 'portico/runtime';");
  expect(fs.readdirSync(path.join(dir, 'server/endpoints'))).toEqual(['shop.mjs']);
  const main = fs.readFileSync(path.join(dir, 'server/main.mjs'), 'utf8');
  expect(main).toContain(
    '  endpoints: {\n    "shop": { file: "endpoints/shop.ts", module: new URL("./endpoints/shop.mjs", import.meta.url) },\n  },',
  );
  const openapi = JSON.parse(fs.readFileSync(path.join(dir, 'server/openapi/shop.json'), 'utf8'));
  // The body is a component (spec, Discovery), named after its operation.
  const body = openapi.paths['/orders'].post.requestBody.content['application/json'].schema;
  expect(body).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\//) });
  expect(openapi.components.schemas[body.$ref.split('/').pop()].required).toEqual(['item']);
  expect(Object.keys(openapi.paths)).toEqual(['/items', '/orders']);
  const model = JSON.parse(fs.readFileSync(path.join(dir, 'server/model.json'), 'utf8'));
  expect(model.services.find((s: { name: string }) => s.name === 'shop')).toMatchObject({
    kind: 'custom',
    routes: [
      { method: 'GET', path: '/items' },
      { method: 'POST', path: '/orders' },
    ],
  });
  const { io, out } = captureIo(dir);
  expect(await runCli(['check'], io), out.stdout + out.stderr).toBe(0);
});

it('gen dev serves the endpoints and reloads when the module changes', { timeout: 120_000 }, async () => {
  dev = new GenDev(dir, ['--poll', 'off']);
  const url = await dev.listening();
  expect(dev.text).toContain('Watching platform.yaml, endpoints/shop.ts;');
  const get = async () => (await fetch(`${url}/api/v2/shop/items`, { headers: { 'x-service-api-key': KEY } })).json();
  expect(await get()).toEqual({ count: 2, version: 1 });
  const mark = dev.text.length;
  fs.writeFileSync(path.join(dir, 'endpoints/shop.ts'), GOOD.replace('version: 1', 'version: 2'));
  await dev.waitFor(/Reloaded: /, mark);
  expect(dev.text.slice(mark)).toContain('  change  endpoints/shop.mjs\n');
  expect(await get()).toEqual({ count: 2, version: 2 });
});
