/**
 * Typed pre/post-process hooks (issue 17) on the quickstart platform, in process: a pre_process
 * hook changes a field on create, a post_process hook filters a read, a record path has events of
 * its own (`{id}`), a thrown PorticoError is the spec's envelope with its status, any other
 * exception a generic 500, a hook that never finishes is cut off with a 503 while other requests
 * are served, and GET /system/event lists the hooks attached. A deliberately wrong hook does not
 * compile against the generated `Events`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '#runtime/http/run-server.js';
import { BadRequestError } from '#runtime/core/errors.js';
import { defineHooks, type HookContext } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { copyQuickstart, repoRoot } from '#test/helpers/quickstart-copy.js';
import type { Events } from '../../examples/quickstart/server/events.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

const seen: Array<Pick<HookContext, 'event' | 'table' | 'resource' | 'phase'> & { logs: boolean }> = [];
let release: (() => void) | null = null;
/** What the queued hooks saw, and how a test lets the waiting one go on. */
const queued: Array<{ event: string; phase: string; records: unknown[]; answered: boolean }> = [];
let releaseQueued: (() => void) | null = null;
let answered = false;

const hooks = defineHooks<Events>({
  'db._table.contact.post.pre_process': (records) => {
    if (records.some((r) => r.first_name === 'Refused')) throw new BadRequestError('No contact may be called Refused.');
    if (records.some((r) => r.first_name === 'Broken')) throw new Error('secret internals');
    return records.map((r) => ({ ...r, last_name: r.last_name.toUpperCase() }));
  },
  'db._table.contact.get.post_process': (records) => records.filter((r) => r.notes !== 'hidden'),
  // Queued: after the answer, on the records it holds; waits when asked to, throws when asked to.
  'db._table.contact.post.queued': async (records, context) => {
    if (records.some((r) => r.first_name === 'Waits')) await new Promise<void>((resolve) => (releaseQueued = resolve));
    if (records.some((r) => r.first_name === 'Throws')) throw new Error('queued hook failure');
    queued.push({ event: context.event, phase: context.phase, records, answered });
    // What it returns changes nothing.
    return [];
  },
  // Keeps the links to a contact, with a field of its own.
  'db._table.contact_group_relationship.get.post_process': (records) =>
    records.filter((r) => r.contact_id !== null).map((r) => ({ ...r, link: `${r.contact_id}-${r.contact_group_id}` })),
  'db._table.contact.{id}.get.post_process': (records, context) => {
    seen.push({
      event: context.event,
      table: context.table,
      resource: context.resource,
      phase: context.phase,
      logs: typeof context.log.info === 'function',
    });
    // A field that is no column, and a column of another type (served through the compiled record serialiser).
    return records.map((r) => ({ ...r, notes: `seen by ${context.event}`, seen_by: context.phase, id: String(r.id) as unknown as number }));
  },
  // Changes the record it is given in place and returns nothing.
  'db._table.contact_info.{id}.get.post_process': (records) => {
    for (const record of records) record.info_type = 'changed in place';
  },
  'db._table.contact_group.get.pre_process': async (_records, context) => {
    // As a hook compiled without type checks may write them: a number and a boolean.
    if (context.query.paged !== undefined) Object.assign(context.query, { limit: 2, offset: 1, include_count: true });
    // Waits for the test to release it: longer than the module's timeout.
    if (context.query.filter !== "name = 'hang'") return;
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  },
});

let dir: string;
let server: TestServer;
let api: Api;

beforeAll(async () => {
  dir = copyQuickstart();
  const model = { ...loadModel(new URL(`file://${dir}/server/model.json`)), admins: minimalModel().admins };
  // With the generated record routes, as main.mjs starts the server: a single record is serialised by its schema.
  const routes = [JSON.parse(fs.readFileSync(path.join(dir, 'server/services/db/routes.json'), 'utf8'))];
  server = await startTestServer(model, { baseDir: dir, routes, hooks: [{ file: 'hooks/contact.ts', timeoutMs: 1000, hooks }] });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => {
  release?.();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('hooks on the _table path', () => {
  it('a pre_process hook changes the records a create writes', async () => {
    const created = await api('POST', '/db/_table/contact?fields=*', { resource: [{ first_name: 'Ada', last_name: 'Lovelace' }] });
    expect(created.status).toBe(200);
    expect(created.body.resource[0]).toMatchObject({ first_name: 'Ada', last_name: 'LOVELACE' });
  });

  it('a pre_process hook sees the one record of a {"resource": {...}} body as a record', async () => {
    const created = await api('POST', '/db/_table/contact?fields=first_name,last_name', {
      resource: { first_name: 'Grace', last_name: 'Hopper' },
    });
    expect(created.status).toBe(200);
    expect(created.body.resource).toEqual([{ first_name: 'Grace', last_name: 'HOPPER' }]);
  });

  it('a post_process hook filters the records a read answers with', async () => {
    await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Secret', last_name: 'Agent', notes: 'hidden' }] });
    const list = await api('GET', '/db/_table/contact?filter=first_name%3DSecret');
    expect(list.status).toBe(200);
    expect(list.body.resource).toEqual([]);
  });

  it('a count holds no records: a post_process hook on the read leaves it as it is', async () => {
    const links = await api('GET', '/db/_table/contact_group_relationship?limit=1');
    expect(links.body.resource[0].link).toMatch(/^\d+-\d+$/);
    for (const url of ['/db/_table/contact_group_relationship?count_only=true', '/db/_table/contact?count_only=true']) {
      const count = await api('GET', url);
      expect(count.status).toBe(200);
      expect(count.body).toEqual({ meta: { count: expect.any(Number) } });
    }
  });

  it('a record path raises its own event ({id}), with the table, the path and the request logger in the context; its answer is sent as the hook made it', async () => {
    const id = (await api('GET', '/db/_table/contact?filter=first_name%3DAda')).body.resource[0].id;
    const read = await api('GET', `/db/_table/contact/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: String(id),
      last_name: 'LOVELACE',
      notes: 'seen by db._table.contact.{id}.get.post_process',
      seen_by: 'post_process',
    });
    expect(seen).toEqual([
      {
        event: 'db._table.contact.{id}.get.post_process',
        table: 'contact',
        resource: ['_table', 'contact', String(id)],
        phase: 'post_process',
        logs: true,
      },
    ]);
  });

  it('a post_process hook that changes a record in place is answered with its change (the record is not sent as it was read)', async () => {
    const contact = (await api('GET', '/db/_table/contact?limit=1&fields=id')).body.resource[0].id;
    const created = await api('POST', '/db/_table/contact_info', {
      resource: [
        {
          contact_id: contact,
          info_type: 'home',
          phone: '1',
          email: 'a@b.c',
          address: 'here',
          city: 'c',
          state: 's',
          zip: 'z',
          country: 'c',
        },
      ],
    });
    const id = created.body.resource[0].id;
    const read = await api('GET', `/db/_table/contact_info/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, info_type: 'changed in place', phone: '1' });
    // The list's read has no hook of its own: the stored value is unchanged.
    expect((await api('GET', `/db/_table/contact_info?ids=${id}`)).body.resource[0].info_type).toBe('home');
  });

  it('a table named in another case raises the table own events: its hooks cannot be passed by', async () => {
    const refused = await api('POST', '/db/_table/CONTACT', { resource: [{ first_name: 'Refused', last_name: 'Case' }] });
    expect(refused).toMatchObject({ status: 400, body: { error: { message: 'No contact may be called Refused.' } } });
    expect((await api('GET', '/db/_table/contact?filter=last_name%3DCase')).body.resource).toEqual([]);
    const created = await api('POST', '/db/_table/Contact?fields=last_name', { resource: [{ first_name: 'Cased', last_name: 'Case' }] });
    expect(created.body.resource).toEqual([{ last_name: 'CASE' }]);
    seen.length = 0;
    const read = await api('GET', '/db/_table/CONTACT/1');
    expect(read.body.seen_by).toBe('post_process');
    // The context names the table as the event does.
    expect(seen).toMatchObject([
      { event: 'db._table.contact.{id}.get.post_process', table: 'contact', resource: ['_table', 'CONTACT', '1'] },
    ]);
  });

  it('a pre_process hook may set query parameters to numbers and booleans', async () => {
    const paged = await api('GET', '/db/_table/contact_group?paged=1&order=id&fields=id');
    expect(paged.status).toBe(200);
    expect(paged.body.resource).toEqual([{ id: 2 }, { id: 3 }]);
    expect(paged.body.meta.count).toBeGreaterThan(2);
  });

  it('a thrown PorticoError is the spec envelope with its status; anything else a generic 500', async () => {
    const refused = await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Refused', last_name: 'X' }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { code: 400, message: 'No contact may be called Refused.' } });
    const broken = await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Broken', last_name: 'X' }] });
    expect(broken.status).toBe(500);
    expect(broken.body).toEqual({ error: { code: 500, message: 'Internal server error.' } });
    expect((await api('GET', '/db/_table/contact?filter=first_name%3DRefused')).body.resource).toEqual([]);
  });

  it('a hook that does not finish in its module time is cut off with a 503, and other requests are served meanwhile', async () => {
    let cutOff = false;
    const hanging = api('GET', `/db/_table/contact_group?filter=${encodeURIComponent("name = 'hang'")}`).finally(() => {
      cutOff = true;
    });
    // While it waits: reads and writes of the same database, and another service, answer.
    const others = await Promise.all([
      api('GET', '/db/_table/contact_group'),
      api('POST', '/db/_table/contact_group', { resource: [{ name: 'While waiting' }] }),
      api('GET', '/system/role'),
    ]);
    expect(others.map((other) => other.status)).toEqual([200, 200, 200]);
    expect(cutOff).toBe(false);
    const cut = await hanging;
    expect(cut.status).toBe(503);
    expect(cut.body).toEqual({
      error: { code: 503, message: 'The request did not complete in time: a hook of the platform took too long.' },
    });
    expect(
      (await api('GET', `/db/_table/contact_group?filter=${encodeURIComponent("name = 'While waiting'")}`)).body.resource,
    ).toHaveLength(1);
  });

  it('a queued hook runs after the answer has gone, on the records answered; it cannot change or fail the answer', async () => {
    // Earlier tests' creates ran it too.
    queued.length = 0;
    answered = false;
    const created = await api('POST', '/db/_table/contact?fields=id,first_name', { resource: [{ first_name: 'Waits', last_name: 'Q' }] });
    answered = true;
    // The answer did not wait for the hook, which is still waiting.
    expect(created.status).toBe(200);
    expect(created.body.resource).toEqual([{ id: expect.any(Number), first_name: 'Waits' }]);
    expect(queued).toEqual([]);
    for (let tries = 0; releaseQueued === null && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    releaseQueued!();
    for (let tries = 0; queued.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queued).toEqual([{ event: 'db._table.contact.post.queued', phase: 'queued', records: created.body.resource, answered: true }]);
    // What it throws is the log's, never the answer's.
    const thrown = await api('POST', '/db/_table/contact?fields=first_name', { resource: [{ first_name: 'Throws', last_name: 'Q' }] });
    expect(thrown).toMatchObject({ status: 200, body: { resource: [{ first_name: 'Throws' }] } });
    // A refused request runs no queued hook.
    const refused = await api('POST', '/db/_table/contact', { resource: [{ first_name: 'Refused', last_name: 'Q' }] });
    expect(refused.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queued).toHaveLength(1);
  });

  it('GET /system/event lists the hooks attached to each event and the modules they come from', async () => {
    const events = await api('GET', '/system/event?service=db');
    expect(events.status).toBe(200);
    expect(events.body.db['db/_table/contact'].hooks).toEqual([
      'db._table.contact.get.post_process',
      'db._table.contact.post.pre_process',
      'db._table.contact.post.queued',
    ]);
    expect(events.body.db['db/_table/contact'].hook_modules).toEqual({
      'db._table.contact.get.post_process': ['hooks/contact.ts'],
      'db._table.contact.post.pre_process': ['hooks/contact.ts'],
      'db._table.contact.post.queued': ['hooks/contact.ts'],
    });
    expect(events.body.db['db/_table/contact/{id}'].hooks).toEqual(['db._table.contact.{id}.get.post_process']);
    expect(events.body.db['db/_table/{table_name}']?.hooks).toBeUndefined();
    expect(events.body.db['db/_table/contact_info']?.hooks).toBeUndefined();
  });
});

it('a hook that reads a column that does not exist, returns the wrong shape or names an unknown event fails tsc', {
  timeout: 300_000,
}, async () => {
  // Inside the repository, so that `portico/runtime` resolves through the package's self-reference.
  const project = fs.mkdtempSync(path.join(repoRoot, '.tmp-hooks-'));
  try {
    fs.cpSync(path.join(repoRoot, 'examples/quickstart/server/services'), path.join(project, 'server/services'), { recursive: true });
    fs.cpSync(path.join(repoRoot, 'examples/quickstart/server/events.ts'), path.join(project, 'server/events.ts'));
    fs.mkdirSync(path.join(project, 'hooks'));
    const header = [
      "import { BadRequestError, defineHooks } from 'portico/runtime';",
      "import type { Events } from '../server/events.js';",
    ].join('\n');
    fs.writeFileSync(
      path.join(project, 'hooks/good.ts'),
      [
        header,
        'export default defineHooks<Events>({',
        "  'db._table.contact.post.pre_process': (records) => records.map((r) => ({ ...r, first_name: r.first_name.trim() })),",
        "  'db._table.contact.get.post_process': (records) => records.filter((r) => r.twitter !== null),",
        "  'db._table.contact.{id}.patch.pre_process': (records) => records.map((r) => ({ ...r, notes: r.notes ?? null })),",
        "  'db._table.contact_info.post.post_process': (records, context) => { context.log.info({ count: records.length }, 'written'); },",
        // A queued hook sees what the post_process hook would; its answer is not used.
        "  'db._table.contact_info.post.queued': async (records) => { records.map((r) => r.id); },",
        "  'system.role.post.pre_process': (body, context) => { if (context.auth.isAdmin) return body; throw new BadRequestError('no'); },",
        // A custom endpoint's and a file service's events, on the paths of their documents.
        "  'stats.contacts.get.post_process': (body) => body,",
        "  'files.{folder_path}.post.pre_process': () => undefined,",
        '});',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
    fs.writeFileSync(
      path.join(project, 'hooks/wrong.ts'),
      [
        header,
        'export default defineHooks<Events>({',
        "  'db._table.contact.post.pre_process': (records) => records.map((r) => ({ ...r, nickname: r.nick_name })),",
        "  'db._table.contact.get.post_process': (records) => records.map((r) => r.id),",
        "  'db._table.contact.{id}.get.pre_process': () => [{ id: 1 }],",
        "  'db._table.contact.get.queued': (records) => records.map((r) => r.nick_name),",
        '});',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(project, 'hooks/unknown.ts'),
      `${header}\nexport default defineHooks<Events>({\n  'db._table.nope.get.post_process': (records: unknown[]) => records,\n});\n`,
    );
    fs.writeFileSync(
      path.join(project, 'hooks/misspelt.ts'),
      `${header}\nexport default defineHooks<Events>({\n  'stats.contact.get.post_process': (body: unknown) => body,\n});\n`,
    );
    // One tsc run: the good hooks compile, the wrong ones do not.
    const wrong = await typecheckProject(path.join(project, 'tsconfig.json'));
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stdout).not.toContain('good.ts');
    expect(wrong.stdout).toContain("Property 'nick_name' does not exist on type 'ContactInsert'");
    expect(wrong.stdout).toContain("Type 'number' is not assignable to type 'Contact'");
    // An event the platform does not have is an unknown key, a custom endpoint's as a table's.
    expect(wrong.stdout).toMatch(
      /hooks\/unknown\.ts\(4,\d+\): error TS2353: Object literal may only specify known properties, and ''db\._table\.nope\.get\.post_process''/,
    );
    expect(wrong.stdout).toMatch(/hooks\/misspelt\.ts\(4,\d+\): error TS2353: .*''stats\.contact\.get\.post_process''/);
    expect(wrong.stdout).toContain("Property 'nick_name' does not exist on type 'Contact'");
    // A read's pre_process hook has no records to give back.
    expect(wrong.stdout).toMatch(/hooks\/wrong\.ts\(6,\d+\): error TS2322/);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
