/**
 * `gen dev` with a hook module (issue 17), as a user runs it (the `gen` command in a child
 * process, on a temp SQLite platform): the hooks are served from the first build, an edit of the
 * hook file rebuilds and reloads with the new hooks, and a hook file that loses its export keeps
 * the last good build serving with a positioned diagnostic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-fixtures.js';
import { SOURCE_NODE_ARGS } from '#test/helpers/source-node.js';

const KEY = 'cd'.repeat(32);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-dev-hooks-'));
let child: ChildProcess | null = null;
let output = '';

afterAll(async () => {
  if (child !== null && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

const PLATFORM = [
  'platform:',
  '  name: dev-hooks',
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
  'hooks:',
  '  - file: hooks/notes.ts',
  'system:',
  '  database: data/system.sqlite',
  '',
].join('\n');

/** A hook module stamping created notes (no import: the temp directory has no portico package). */
const hooks = (stamp: string) =>
  `export default {\n  'db._table.note.post.pre_process': (records: Array<{ body: string }>) => records.map((r) => ({ ...r, body: \`${stamp}: \${r.body}\` })),\n};\n`;

function waitFor(pattern: RegExp, from: number, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const match = pattern.exec(output.slice(from));
      if (match) {
        clearInterval(timer);
        resolve(match);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in the output of gen dev:\n${output.slice(from)}`));
      }
    }, 50);
  });
}

async function create(url: string, body: string): Promise<unknown> {
  const response = await fetch(`${url}/api/v2/db/_table/note?fields=body`, {
    method: 'POST',
    headers: { 'x-service-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ resource: [{ body }] }),
  });
  return response.json();
}

it('serves the hooks, reloads when the hook file changes, and keeps the last good build when it breaks', async () => {
  fs.mkdirSync(path.join(dir, 'data'));
  fs.mkdirSync(path.join(dir, 'hooks'));
  const db = new Database(path.join(dir, 'data', 'app.sqlite'));
  db.exec('create table note (id integer primary key, body text not null)');
  db.close();
  fs.writeFileSync(path.join(dir, 'platform.yaml'), PLATFORM);
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), hooks('first'));

  child = spawn(process.execPath, [...SOURCE_NODE_ARGS, path.join(REPO_ROOT, 'bin', 'gen.ts'), 'dev', '--poll', 'off'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });

  const [, url] = await waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v2/, 0);
  expect(output).toContain('Watching platform.yaml, hooks/notes.ts; database schemas not polled.');
  expect(await create(url, 'one')).toEqual({ resource: [{ body: 'first: one' }] });

  let mark = output.length;
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), hooks('second'));
  await waitFor(/Reloaded: /, mark);
  expect(output.slice(mark)).toContain('hooks/notes.ts changed: rebuilding');
  expect(output.slice(mark)).toContain('  change  hooks/notes.mjs\n');
  expect(await create(url, 'two')).toEqual({ resource: [{ body: 'second: two' }] });

  mark = output.length;
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), 'export const notes = {};\n');
  await waitFor(/Still serving the last build that worked\./, mark);
  expect(output.slice(mark)).toMatch(/platform\.yaml:16:11: The hook module 'hooks\/notes\.ts' has no default export: .* \[PCO114\]/);
  expect(await create(url, 'three')).toEqual({ resource: [{ body: 'second: three' }] });

  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}, 180_000);
