/**
 * `gen dev` with a hook module (issue 17), as a user runs it (the `gen` command in a child
 * process, on a temp SQLite platform): the hooks are served from the first build, an edit of the
 * hook file rebuilds and reloads with the new hooks, and a hook file that loses its export keeps
 * the last good build serving with a positioned diagnostic.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { GenDev } from './gen-dev-process.js';

const KEY = 'cd'.repeat(32);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-dev-hooks-'));
let dev: GenDev | null = null;

afterAll(async () => {
  await dev?.stop();
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

/** The first hook module, which also starts a call it never awaits, failing after the answer went (for a note named 'stray'). */
const strayHooks = `export default {\n  'db._table.note.post.pre_process': (records: Array<{ body: string }>) => {\n    if (records.some((r) => r.body === 'stray')) void Promise.reject(new Error('stray rejection of the hook'));\n    return records.map((r) => ({ ...r, body: \`first: \${r.body}\` }));\n  },\n};\n`;

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
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), strayHooks);

  dev = new GenDev(dir, ['--poll', 'off']);
  const output = dev;
  const url = await dev.listening();
  expect(output.text).toContain('Watching platform.yaml, hooks/notes.ts; database schemas not polled.');
  expect(await create(url, 'one')).toEqual({ resource: [{ body: 'first: one' }] });
  // A stray rejection is reported, and gen dev serves on.
  expect(await create(url, 'stray')).toEqual({ resource: [{ body: 'first: stray' }] });
  await dev.waitFor(/rejected with nothing waiting for it .*stray rejection of the hook/, 0);
  expect(await create(url, 'after')).toEqual({ resource: [{ body: 'first: after' }] });

  let mark = output.text.length;
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), hooks('second'));
  await dev.waitFor(/Reloaded: /, mark);
  expect(output.text.slice(mark)).toContain('hooks/notes.ts changed: rebuilding');
  expect(output.text.slice(mark)).toContain('  change  hooks/notes.mjs\n');
  expect(await create(url, 'two')).toEqual({ resource: [{ body: 'second: two' }] });

  mark = output.text.length;
  fs.writeFileSync(path.join(dir, 'hooks/notes.ts'), 'export const notes = {};\n');
  await dev.waitFor(/Still serving the last build that worked\./, mark);
  expect(output.text.slice(mark)).toMatch(/platform\.yaml:16:11: The hook module 'hooks\/notes\.ts' has no default export: .* \[PCO114\]/);
  expect(await create(url, 'three')).toEqual({ resource: [{ body: 'second: three' }] });

  expect(await dev.stop()).toBe(0);
}, 180_000);
