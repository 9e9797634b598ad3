/**
 * A hook or endpoint module that fails as it loads, as `gen build`, `gen check` and the generated
 * server meet it: one line naming the module, the line where it failed (the TypeScript's at build,
 * mapped back from the compiled copy; at start too, through the copy's inline source map, the
 * compiled copy's when it has none) and the reason, and exit 1;
 * never Node's stack trace. A hook that is no function or an event name with no phase is refused
 * alike, at build (PCO118) and at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '#generator/cli/program.js';
import { SOURCE_NODE_ARGS } from '#test/helpers/source-node.js';
import { captureIo, linkRuntime, makeSqlitePlatform } from './cli-fixtures.js';

const { dir, configPath, platformDir } = makeSqlitePlatform(
  [
    'platform: { name: failing, title: Failing modules }',
    'services:',
    '  - name: db',
    '    config: { database: data/app.sqlite }',
    '  - name: shop',
    '    type: custom',
    '    config: { module: endpoints/shop.ts }',
    'hooks:',
    /* 9 */ '  - file: hooks/audit.ts',
    'system:',
    '  database: data/system.sqlite',
    '',
  ].join('\n'),
);
linkRuntime(dir);
fs.mkdirSync(path.join(platformDir, 'hooks'));
fs.mkdirSync(path.join(platformDir, 'endpoints'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const GOOD_HOOKS =
  "import { defineHooks } from 'portico/runtime';\nexport default defineHooks({ 'db._table.contact.get.pre_process': () => undefined });\n";
const GOOD_ENDPOINTS =
  "import { defineEndpoints } from 'portico/runtime';\nexport default defineEndpoints({ routes: [{ method: 'GET', path: '/ping', handler: () => 'pong' }] });\n";

async function gen(command: 'build' | 'check', hooks: string): Promise<{ code: number; stderr: string }> {
  fs.writeFileSync(path.join(platformDir, 'hooks/audit.ts'), hooks);
  fs.writeFileSync(path.join(platformDir, 'endpoints/shop.ts'), GOOD_ENDPOINTS);
  const { io, out } = captureIo(dir);
  const code = await runCli([command, configPath], io);
  return { code, stderr: out.stderr };
}

const NO_SOURCE_MAPS = 'data:text/javascript,process.setSourceMapsEnabled(false)';

/** Starts the generated server with a compiled module replaced; answers its exit code and what it printed. */
async function start(
  replace: Record<string, string>,
  env: Record<string, string> = {},
): Promise<{ code: number | undefined; output: string }> {
  const saved = Object.fromEntries(
    Object.keys(replace).map((file) => [file, fs.readFileSync(path.join(platformDir, 'server', file), 'utf8')]),
  );
  for (const [file, text] of Object.entries(replace)) fs.writeFileSync(path.join(platformDir, 'server', file), text);
  try {
    // tsx turns Node's source maps on; `node main.mjs` runs with them off, as here.
    const run = await execa(
      process.execPath,
      [...SOURCE_NODE_ARGS, '--import', NO_SOURCE_MAPS, path.join(platformDir, 'server/main.mjs')],
      {
        cwd: dir,
        env: { PORT: '0', PORTICO_LOG_LEVEL: 'silent', ...env },
        reject: false,
        timeout: 60_000,
        all: true,
      },
    );
    return { code: run.exitCode, output: run.all ?? '' };
  } finally {
    for (const [file, text] of Object.entries(saved)) fs.writeFileSync(path.join(platformDir, 'server', file), text);
  }
}

it('gen build and gen check report a hook module that throws as it loads at its line, in one line, and exit 1', async () => {
  const throwing =
    "import { defineHooks } from 'portico/runtime';\ntype N = number;\nconst n: N = 1;\nif (n) throw new RangeError('no audit table');\nexport default defineHooks({});\n";
  for (const command of ['build', 'check'] as const) {
    const failed = await gen(command, throwing);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      "site/hooks/audit.ts:4:14: The hook module 'hooks/audit.ts' cannot be loaded: RangeError: no audit table [PCO118]\n1 problem found.\n",
    );
  }
});

it('gen build refuses a hook that is no function and an event name with no phase, at the module entry', async () => {
  const notFunction = await gen('build', "export default { 'db._table.contact.get.post_process': 5 };\n");
  expect(notFunction.code).toBe(1);
  expect(notFunction.stderr).toContain(
    "site/platform.yaml:9:11: The hook module 'hooks/audit.ts' cannot be used: the hook 'db._table.contact.get.post_process' is not a function. [PCO118]",
  );
  const noPhase = await gen('build', "export default { 'db._table.contact.get.preprocess': () => undefined };\n");
  expect(noPhase.stderr).toContain(
    "site/platform.yaml:9:11: The hook module 'hooks/audit.ts' cannot be used: the event 'db._table.contact.get.preprocess' does not end with .pre_process, .post_process or .queued (GET /api/v2/system/event lists the events). [PCO118]",
  );
});

it('gen build and gen check warn of an event the platform does not raise, whose hook would never run, and exit as without it', async () => {
  const hooks = [
    'export default {',
    "  'db._table.CONTACT.get.pre_process': () => undefined,",
    "  'db._table.contacts.post.queued': () => undefined,",
    "  'shop.ping.get.post_process': () => undefined,",
    "  'shop.pong.get.post_process': () => undefined,",
    "  'system.role.{id}.patch.pre_process': () => undefined,",
    '};',
    '',
  ].join('\n');
  const built = await gen('build', hooks);
  expect(built.code).toBe(0);
  const warning = (event: string) =>
    `site/platform.yaml:9:11: warning: the hook module 'hooks/audit.ts' names the event '${event}', which the platform does not raise (GET /api/v2/system/event lists its events): that hook never runs.\n`;
  // A table's events in another case are its own; a misspelt table and an endpoint path the service lacks are none.
  const warnings = warning('db._table.contacts.post.queued') + warning('shop.pong.get.post_process');
  expect(built.stderr).toBe(warnings);
  // gen check (CI's drift check) says the same: up to date, exit 0; out of date, exit 1 as ever.
  expect(await gen('check', hooks)).toEqual({ code: 0, stderr: warnings });
  const drifted = await gen('check', `${hooks}// changed\n`);
  expect(drifted.code).toBe(1);
  expect(drifted.stderr.slice(0, warnings.length)).toBe(warnings);
  expect(drifted.stderr.slice(warnings.length)).toMatch(/^site\/server\/ is out of date: 0 added, 1 changed/);
});

it('the generated server stops with one line when a compiled module fails to load, lacks its export or cannot serve', {
  timeout: 180_000,
}, async () => {
  const built = await gen('build', GOOD_HOOKS);
  expect(built.code, built.stderr).toBe(0);
  const expectOneLine = (run: { code: number | undefined; output: string }, line: string) => {
    expect(run.code).toBe(1);
    expect(run.output.trim()).toBe(line);
  };
  expectOneLine(
    await start({ 'hooks/audit.mjs': "const ready = false;\nif (!ready) throw new Error('hooks not ready');\nexport default {};\n" }),
    'Portico: the hook module hooks/audit.ts cannot be loaded: hooks not ready (at site/server/hooks/audit.mjs:2:19). Fix it and run `npx gen build`.',
  );
  expectOneLine(
    await start({ 'hooks/audit.mjs': "export default { 'db._table.contact.get.preprocess': () => undefined };\n" }),
    "Portico: the hook module hooks/audit.ts cannot be used: the event 'db._table.contact.get.preprocess' does not end with .pre_process, .post_process or .queued (GET /api/v2/system/event lists the events).",
  );
  expectOneLine(
    await start({ 'endpoints/shop.mjs': 'export const routes = [];\n' }),
    "Portico: the endpoint module endpoints/shop.ts (service 'shop') has no default export (site/server/endpoints/shop.mjs); run `npx gen build`.",
  );
  expectOneLine(
    await start({ 'endpoints/shop.mjs': "export default { routes: [{ method: 'FETCH', path: '/x', handler: () => 1 }] };\n" }),
    "Portico: the endpoint module endpoints/shop.ts (service 'shop') cannot serve: routes[0].method must be GET, POST, PUT, PATCH or DELETE.",
  );
  expectOneLine(
    await start({ 'endpoints/shop.mjs': "import { nothing } from 'portico/runtime';\nexport default nothing;\n" }),
    "Portico: the endpoint module endpoints/shop.ts (service 'shop') cannot be loaded: SyntaxError: The requested module 'portico/runtime' does not provide an export named 'nothing' (at site/server/endpoints/shop.mjs:1). Fix it and run `npx gen build`.",
  );
});

it('the generated server names the TypeScript line where a module built by gen build failed to load', { timeout: 120_000 }, async () => {
  // Loads at build; throws at start where the environment lacks what it needs. The interface's lines
  // are erased in the compiled copy, so the place there (8:11) is not the TypeScript's (10:38).
  const hooks = [
    "import { defineHooks } from 'portico/runtime';",
    'interface Audit {',
    '  table: string;',
    '  retries: number;',
    '  note?: string;',
    '  owner?: string;',
    '}',
    "const audit: Audit = { table: process.env.AUDIT_TABLE ?? 'audit', retries: 1 };",
    '// The audit table must exist.',
    "if (audit.table === 'missing') throw new Error('no audit table');",
    "export default defineHooks({ 'db._table.contact.get.pre_process': () => undefined });",
    '',
  ].join('\n');
  const built = await gen('build', hooks);
  expect(built.code, built.stderr).toBe(0);
  const run = await start({}, { AUDIT_TABLE: 'missing' });
  expect(run.code).toBe(1);
  expect(run.output.trim()).toBe(
    'Portico: the hook module hooks/audit.ts cannot be loaded: no audit table (at site/hooks/audit.ts:10:38). Fix it and run `npx gen build`.',
  );
});
