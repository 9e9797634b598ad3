/** PostgreSQL prepared statements: named, reused per connection and bounded, read back from pg_prepared_statements. */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '#runtime/services/sql/dialects/postgres/postgres-dialect.js';
import { translatePostgresError } from '#runtime/services/sql/dialects/postgres/postgres-errors.js';
import { preparingClient, type SchemaGeneration } from '#runtime/services/sql/dialects/postgres/postgres-prepared.js';
import { runCompiled } from '#runtime/services/sql/query/run-compiled.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

interface Prepared {
  name: string;
  statement: string;
  runs: number;
}

/** The statements the connection's session holds prepared (the query itself has no values, so it is not one of them). */
const preparedIn = async (query: (text: string) => Promise<{ rows: unknown[] }>) =>
  (
    await query(
      'select name, statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements order by prepare_time, name',
    )
  ).rows as Prepared[];

describe.skipIf(!(await requireService('postgres')))('PostgreSQL prepared statements', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('create table item (id integer primary key, label text); insert into item values (1, $$one$$), (2, $$two$$)');
    await client.end();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('prepares a statement once per connection and reuses it, through the pool and through Kysely', async () => {
    const connection = await openPostgresDatabase(
      { ...database.config, maxConnections: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 },
      'public',
    );
    try {
      const { db } = connection;
      const byId = db.selectFrom('item').selectAll().where('id', '=', 0).compile();
      for (const id of [1, 2, 1]) expect((await runCompiled(db, byId, [id])).rows).toEqual([{ id, label: id === 1 ? 'one' : 'two' }]);
      await db.updateTable('item').set({ label: 'uno' }).where('id', '=', 1).execute();
      await db.updateTable('item').set({ label: 'one' }).where('id', '=', 1).execute();
      // A statement the server refuses keeps the connection, and with it the prepared statements.
      const insert = db.insertInto('item').values({ id: 0, label: '' }).compile();
      await expect(runCompiled(db, insert, [1, 'again'])).rejects.toThrow('duplicate key');
      const prepared = (await preparedIn((text) => sql.raw(text).execute(db))).filter((p) => p.statement.includes('item'));
      expect(prepared.map(({ statement, runs }) => [statement, runs])).toEqual([
        [byId.sql, 3],
        ['update "item" set "label" = $1 where "id" = $2', 2],
        [insert.sql, 1],
      ]);
      expect(prepared.every(({ name }) => name.startsWith('portico_'))).toBe(true);
    } finally {
      await connection.close();
    }
  });

  /** One connection of a preparing pool, held for the whole test. */
  async function withClient(
    maxPrepared: number | undefined,
    test: (client: pg.PoolClient) => Promise<void>,
    generation: SchemaGeneration = { value: 0 },
  ) {
    const pool = new pg.Pool({ connectionString: database.url, max: 1, Client: preparingClient(maxPrepared, generation) });
    const client = await pool.connect();
    try {
      await test(client);
    } finally {
      client.release();
      await pool.end();
    }
  }

  it('keeps at most its bound per connection, closing the least recently used', () =>
    withClient(3, async (client) => {
      const texts = [1, 2, 3, 4, 5].map((n) => `select id from item where id = $1 and ${n} = ${n}`);
      for (const text of texts) await client.query(text, [1]);
      await client.query(texts[2], [1]); // used again: now the most recent
      await client.query('select $1::int as six', [6]);
      await client.query(texts[0], [1]); // closed earlier: prepared again, under a new name
      const prepared = await preparedIn((text) => client.query(text));
      expect(prepared.map((p) => p.statement)).toEqual([texts[2], 'select $1::int as six', texts[0]]);
      expect(new Set(prepared.map((p) => p.name)).size).toBe(3);
    }));

  it('prepares again when a table change made a statement stale, and recovers from a statement that fails to parse', () =>
    withClient(undefined, async (client) => {
      const text = 'select * from item where id = $1';
      try {
        expect((await client.query(text, [2])).rows).toEqual([{ id: 2, label: 'two' }]);
        await client.query('alter table item add column size integer default 7');
        expect((await client.query(text, [2])).rows).toEqual([{ id: 2, label: 'two', size: 7 }]);
        expect((await client.query(text, [2])).rows).toEqual([{ id: 2, label: 'two', size: 7 }]);
        await expect(client.query('select nope from item where id = $1', [1])).rejects.toThrow('column "nope" does not exist');
        await expect(client.query('select nope from item where id = $1', [1])).rejects.toThrow('column "nope" does not exist');
        const prepared = await preparedIn((t) => client.query(t));
        // The second run found the statement stale, closed it and ran unprepared; the third prepared it again.
        expect(prepared.map(({ name, statement, runs }) => [name, statement, runs])).toEqual([['portico_2', text, 1]]);
      } finally {
        await client.query('alter table item drop column if exists size');
      }
    }));

  it('inside a transaction block, a statement another client made stale fails the transaction, counted, in the 409 of the spec, and is prepared afresh', () => {
    const generation: SchemaGeneration = { value: 0 };
    return withClient(
      undefined,
      async (client) => {
        const text = 'select * from item where id = $1';
        const other = new pg.Client({ connectionString: database.url });
        await other.connect();
        try {
          expect((await client.query(text, [1])).rows).toEqual([{ id: 1, label: 'one' }]);
          await other.query('alter table item alter column label type varchar(50)');
          await client.query('begin');
          const error = await client.query(text, [1]).then(
            () => null,
            (e: unknown) => e,
          );
          await client.query('rollback');
          expect((error as { code?: string }).code).toBe('0A000');
          expect(generation.staleInTransaction).toBe(1);
          expect(translatePostgresError(error, null)?.toBody()).toEqual({
            error: { code: 409, message: 'The table was changed by another client while the request ran; nothing was stored. Try again.' },
          });
          await client.query('begin');
          expect((await client.query(text, [1])).rows).toEqual([{ id: 1, label: 'one' }]);
          await client.query('commit');
        } finally {
          await other.query('alter table item alter column label type text');
          await other.end();
        }
      },
      generation,
    );
  });
});
