/**
 * PostgreSQL: a table changed by another process (psql, another worker, a migration) under the
 * statements the pool's connections keep prepared. PostgreSQL answers such a statement "cached
 * plan must not change result type" (0A000); the request that meets it still gets its answer, a
 * read run again, a write's own transaction run again (it stored nothing), and every connection
 * of the pool prepares its statements afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget } from './database-api/database-targets.js';
import { requireService } from '#test/helpers/require-service.js';

describe.skipIf(!(await requireService('postgres')))('a PostgreSQL table changed by another process', () => {
  let target: DatabaseTarget;
  let api: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget('postgres');
    await target.exec('create table item (id serial primary key, label text not null)');
    await target.exec("insert into item (label) values ('one'), ('two')");
    api = await startApi(target, { max_connections: 3 });
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await api.call(method, path, body);
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  };
  const labels = async () => (await ok('GET', '_table/item?order=id')).resource.map((r: { label: string }) => r.label);

  it('reads after a column changed type, on every connection of the pool', async () => {
    // Several at once: each of the pool's connections prepares the statements.
    const reads = () => Promise.all([1, 2, 3].flatMap(() => [labels(), ok('GET', '_table/item/1')]));
    for (const answer of await reads()) expect(answer).toEqual(expect.anything());
    await target.exec('alter table item alter column label type varchar(100)');
    const answers = await reads();
    expect(answers.filter((_, i) => i % 2 === 0)).toEqual([1, 2, 3].map(() => ['one', 'two']));
    expect(answers.filter((_, i) => i % 2 === 1).map((r) => r.label)).toEqual(['one', 'one', 'one']);
  });

  it('writes after a column changed type, the first of them in a transaction', async () => {
    const writes = async (n: number) => {
      // In a transaction of their own (rollback=true): the stale statement is not the transaction's first.
      await ok('POST', '_table/item?fields=*&rollback=true', { resource: [{ label: `a${n}` }, { label: `b${n}` }] });
      await ok('PATCH', '_table/item?fields=*&rollback=true', {
        resource: [
          { id: 1, label: `one${n}` },
          { id: 2, label: `two${n}` },
        ],
      });
      await ok('POST', '_table/item?fields=*', { resource: [{ label: `c${n}` }] });
      await ok('PATCH', '_table/item/1?fields=*', { label: 'one' });
      await ok('PATCH', '_table/item/2?fields=*', { label: 'two' });
      await ok('DELETE', `_table/item?fields=*&filter=${encodeURIComponent(`label = 'c${n}'`)}`);
    };
    await writes(1);
    await target.exec('alter table item alter column label type varchar(200)');
    await writes(2);
    await writes(3);
    // Each transaction stored its records once.
    expect(await labels()).toEqual(['one', 'two', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });
});
