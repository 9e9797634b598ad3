/**
 * Hooks and the write's transaction (issue 17), on SQLite, PostgreSQL and MariaDB/MySQL: a
 * pre_process hook that refuses a batch leaves nothing written. A module with `transaction: true`
 * (`note`): a post_process hook that throws after a batch write (or an update or delete) rolls the
 * write back, and the batch modes keep what they keep without hooks (default: the records before
 * the failing one; continue: all but the failing one; rollback: nothing). A module without it
 * (`memo`): the write has ended when its post_process hook runs (as in the reference), unless the
 * request is in rollback mode, whose transaction the hook joins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '#runtime/core/errors.js';
import { defineHooks } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { requireService } from '#test/helpers/require-service.js';
import { modelWithDatabase, openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

interface Note {
  id: number;
  body: string;
}

const TABLE: Record<TargetKind, string> = {
  sqlite: 'create table {t} (id integer primary key autoincrement, body varchar(40) not null unique)',
  postgres: 'create table {t} (id serial primary key, body varchar(40) not null unique)',
  mysql: 'create table {t} (id int auto_increment primary key, body varchar(40) not null unique)',
};

const refuseAfter = (query: Record<string, unknown>) => {
  if (query.refuse_after !== undefined) throw new BadRequestError('Refused after the write.');
};

const hooks = defineHooks<Record<string, Note[]>>({
  'db._table.note.post.pre_process': (records) => {
    if (records.some((record) => record.body === 'refuse-before')) throw new BadRequestError('Refused before the write.');
  },
  'db._table.note.post.post_process': (_records, context) => refuseAfter(context.query),
  'db._table.note.{id}.patch.post_process': (_records, context) => refuseAfter(context.query),
  'db._table.note.delete.post_process': (_records, context) => refuseAfter(context.query),
});

/** The same post_process hooks on `memo`, from a module that takes no transaction. */
const memoHooks = defineHooks<Record<string, Note[]>>({
  'db._table.memo.post.post_process': (_records, context) => refuseAfter(context.query),
  'db._table.memo.{id}.patch.post_process': (_records, context) => refuseAfter(context.query),
});

function defineSuite(kind: TargetKind): void {
  let target: DatabaseTarget;
  let server: TestServer;
  let api: Api;
  const bodies = async (table = 'note') => (await target.query(`select body from ${table} order by id`)).map((row) => row.body);

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    for (const table of ['note', 'memo']) await target.exec(TABLE[kind].replace('{t}', table));
    server = await startTestServer(modelWithDatabase(target), {
      hooks: [
        { file: 'hooks/notes.ts', transaction: true, hooks },
        { file: 'hooks/memos.ts', hooks: memoHooks },
      ],
    });
    const token = await server.adminToken();
    api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  });
  afterAll(async () => {
    await server?.close();
    await target?.close();
  });

  const three = (prefix: string) => ({ resource: [1, 2, 3].map((n) => ({ body: `${prefix}-${n}` })) });

  it('writes a batch its hooks let through', async () => {
    const written = await api('POST', '/db/_table/note', three('kept'));
    expect(written.status).toBe(200);
    expect(written.body.resource).toHaveLength(3);
    expect(await bodies()).toEqual(['kept-1', 'kept-2', 'kept-3']);
  });

  it('writes nothing of a batch a pre_process hook refuses', async () => {
    const refused = await api('POST', '/db/_table/note', {
      resource: [{ body: 'before-1' }, { body: 'refuse-before' }, { body: 'before-3' }],
    });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 400, message: 'Refused before the write.' } } });
    expect(await bodies()).toEqual(['kept-1', 'kept-2', 'kept-3']);
  });

  it('rolls back a batch, an update and a delete whose post_process hook throws', async () => {
    for (const mode of ['', '&continue=true', '&rollback=true']) {
      const refused = await api('POST', `/db/_table/note?refuse_after=1${mode}`, three(`after${mode}`));
      expect(refused).toMatchObject({ status: 400, body: { error: { message: 'Refused after the write.' } } });
    }
    const id = (await target.query("select id from note where body = 'kept-1'"))[0].id;
    expect((await api('PATCH', `/db/_table/note/${id}?refuse_after=1`, { body: 'changed' })).status).toBe(400);
    expect((await api('DELETE', `/db/_table/note?ids=${id}&refuse_after=1`)).status).toBe(400);
    expect(await bodies()).toEqual(['kept-1', 'kept-2', 'kept-3']);
  });

  it('keeps what each batch mode keeps when a record fails inside the hooks transaction', async () => {
    const batch = (prefix: string) => ({ resource: [{ body: `${prefix}-1` }, { body: 'kept-2' }, { body: `${prefix}-3` }] });
    const stopped = await api('POST', '/db/_table/note', batch('default'));
    expect(stopped.status).toBe(400);
    expect(stopped.body.error.context.errors).toEqual([expect.objectContaining({ index: 1 })]);
    const continued = await api('POST', '/db/_table/note?continue=true', batch('continue'));
    expect(continued.status).toBe(400);
    const rolledBack = await api('POST', '/db/_table/note?rollback=true', batch('rollback'));
    expect(rolledBack.status).toBe(400);
    expect(await bodies()).toEqual(['kept-1', 'kept-2', 'kept-3', 'default-1', 'continue-1', 'continue-3']);
    // And the hooks' transaction left the connection usable.
    expect((await api('POST', '/db/_table/note', { resource: [{ body: 'last' }] })).status).toBe(200);
  });

  it('without `transaction`, answers with the error of a post_process hook that throws and keeps the write', async () => {
    const refused = await api('POST', '/db/_table/memo?refuse_after=1', { resource: [{ body: 'memo-1' }] });
    expect(refused).toMatchObject({ status: 400, body: { error: { message: 'Refused after the write.' } } });
    const id = (await target.query("select id from memo where body = 'memo-1'"))[0].id;
    expect((await api('PATCH', `/db/_table/memo/${id}?refuse_after=1`, { body: 'memo-changed' })).status).toBe(400);
    expect(await bodies('memo')).toEqual(['memo-changed']);
  });

  it('without `transaction`, runs the post_process hook inside the transaction of a rollback-mode write', async () => {
    const refused = await api('POST', '/db/_table/memo?refuse_after=1&rollback=true', three('rolled'));
    expect(refused).toMatchObject({ status: 400, body: { error: { message: 'Refused after the write.' } } });
    expect(await bodies('memo')).toEqual(['memo-changed']);
    expect((await api('POST', '/db/_table/memo?rollback=true', three('kept'))).status).toBe(200);
    expect(await bodies('memo')).toEqual(['memo-changed', 'kept-1', 'kept-2', 'kept-3']);
  });
}

describe('on SQLite', () => defineSuite('sqlite'));
describe.skipIf(!(await requireService('postgres')))('on PostgreSQL', () => defineSuite('postgres'));
describe.skipIf(!(await requireService('mysql')))('on MariaDB/MySQL', () => defineSuite('mysql'));
