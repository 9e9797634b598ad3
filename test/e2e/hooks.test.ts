/**
 * Typed pre/post-process hooks (issue 17) on the quickstart platform, in process: a pre_process
 * hook changes a field on create, a post_process hook filters a read, a thrown PorticoError is the
 * spec's envelope with its status, any other exception a generic 500, and GET /system/event lists
 * the hooks attached. A deliberately wrong hook does not compile against the generated types.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '#runtime/http/run-server.js';
import { BadRequestError } from '#runtime/core/errors.js';
import { defineHooks, type TableEvents } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { copyQuickstart, repoRoot } from '#test/helpers/quickstart-copy.js';
import type { TableInserts, TableUpdates, Tables } from '../../examples/quickstart/server/services/db/types.js';

type DbEvents = TableEvents<'db', Tables, TableInserts, TableUpdates>;

const hooks = defineHooks<DbEvents>({
  'db._table.contact.post.pre_process': (records) => {
    if (records.some((r) => r.first_name === 'Refused')) throw new BadRequestError('No contact may be called Refused.');
    if (records.some((r) => r.first_name === 'Broken')) throw new Error('secret internals');
    return records.map((r) => ({ ...r, last_name: r.last_name.toUpperCase() }));
  },
  'db._table.contact.get.post_process': (records) => records.filter((r) => r.notes !== 'hidden'),
});

let dir: string;
let server: TestServer;
let api: Api;

beforeAll(async () => {
  dir = copyQuickstart();
  const model = { ...loadModel(new URL(`file://${dir}/server/model.json`)), admins: minimalModel().admins };
  server = await startTestServer(model, { baseDir: dir, hooks: [hooks] });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('hooks on the _table path', () => {
  it('a pre_process hook changes the records a create writes', async () => {
    const created = await api('POST', '/db/_table/contact?fields=*', { resource: [{ first_name: 'Ada', last_name: 'Lovelace' }] });
    expect(created.status).toBe(200);
    expect(created.body.resource[0]).toMatchObject({ first_name: 'Ada', last_name: 'LOVELACE' });
    const read = await api('GET', `/db/_table/contact/${created.body.resource[0].id}`);
    expect(read.body.last_name).toBe('LOVELACE');
  });

  it('a post_process hook filters the records a read answers with', async () => {
    await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Secret', last_name: 'Agent', notes: 'hidden' }] });
    const list = await api('GET', '/db/_table/contact?filter=first_name%3DSecret');
    expect(list.status).toBe(200);
    expect(list.body.resource).toEqual([]);
  });

  it('a thrown PorticoError is the spec envelope with its status; anything else a generic 500', async () => {
    const refused = await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Refused', last_name: 'X' }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { code: 400, message: 'No contact may be called Refused.' } });
    const broken = await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Broken', last_name: 'X' }] });
    expect(broken.status).toBe(500);
    expect(JSON.stringify(broken.body)).not.toContain('secret internals');
    expect(broken.body.error.code).toBe(500);
    expect((await api('GET', '/db/_table/contact?filter=first_name%3DRefused')).body.resource).toEqual([]);
  });

  it('GET /system/event lists the hooks attached to each event', async () => {
    const events = await api('GET', '/system/event?service=db');
    expect(events.status).toBe(200);
    expect(events.body.db['db/_table/contact'].hooks).toEqual(['db._table.contact.get.post_process', 'db._table.contact.post.pre_process']);
    expect(events.body.db['db/_table/contact_group']?.hooks).toBeUndefined();
  });
});

it('a hook that reads a column that does not exist, or returns the wrong shape, fails tsc', { timeout: 300_000 }, async () => {
  // Inside the repository, so that `portico/runtime` resolves through the package's self-reference.
  const project = fs.mkdtempSync(path.join(repoRoot, '.tmp-hooks-'));
  try {
    fs.cpSync(path.join(repoRoot, 'examples/quickstart/server/services'), path.join(project, 'server/services'), { recursive: true });
    fs.mkdirSync(path.join(project, 'hooks'));
    const header = [
      "import { defineHooks, type TableEvents } from 'portico/runtime';",
      "import type { TableInserts, TableUpdates, Tables } from '../server/services/db/types.js';",
      "type DbEvents = TableEvents<'db', Tables, TableInserts, TableUpdates>;",
    ].join('\n');
    fs.writeFileSync(
      path.join(project, 'hooks/good.ts'),
      `${header}\nexport default defineHooks<DbEvents>({\n  'db._table.contact.post.pre_process': (records) => records.map((r) => ({ ...r, first_name: r.first_name.trim() })),\n  'db._table.contact.get.post_process': (records) => records.filter((r) => r.twitter !== null),\n});\n`,
    );
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
    const tsc = () =>
      execa(path.join(repoRoot, 'node_modules/.bin/tsc'), ['--noEmit', '-p', path.join(project, 'tsconfig.json')], {
        cwd: repoRoot,
        reject: false,
      });
    fs.writeFileSync(
      path.join(project, 'hooks/wrong.ts'),
      `${header}\nexport default defineHooks<DbEvents>({\n  'db._table.contact.post.pre_process': (records) => records.map((r) => ({ ...r, nickname: r.nick_name })),\n  'db._table.contact.get.post_process': (records) => records.map((r) => r.id),\n  'db._table.nope.get.post_process': (records) => records,\n});\n`,
    );
    // One tsc run (it checks the runtime's source too): the good hook compiles, the wrong one does not.
    const wrong = await tsc();
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stdout).not.toContain('good.ts');
    expect(wrong.stdout).toContain("Property 'nick_name' does not exist on type 'ContactInsert'");
    expect(wrong.stdout).toContain("Type 'number' is not assignable to type 'Contact'");
    // An event the platform does not have gives its hook no record type.
    expect(wrong.stdout).toMatch(/hooks\/wrong\.ts\(7,\d+\): error TS/);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
