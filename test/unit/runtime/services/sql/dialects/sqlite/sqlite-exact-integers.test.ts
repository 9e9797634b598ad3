import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SqlConnection } from '#runtime/services/sql/dialects/sql-dialect.js';
import { openSqliteDatabase } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { tempDir } from '../../sql-test-helpers.js';

// Reads run without better-sqlite3's safeIntegers and again with them when a row may hold a rounded integer.
let env: ReturnType<typeof tempDir>;
let connection: SqlConnection;

beforeEach(async () => {
  env = tempDir();
  connection = openSqliteDatabase(path.join(env.dir, 'n.sqlite'));
  await sql`create table n (id integer primary key, i integer, r real)`.execute(connection.db);
  await sql`insert into n (id, i, r) values (1, 42, 1.5), (2, 9007199254740993, 1e20), (3, -9223372036854775808, -2.5), (4, 9007199254740992, 0)`.execute(
    connection.db,
  );
});
afterEach(async () => {
  await connection.close();
  env.cleanup();
});

const read = async (id: number) => (await sql`select i, r from n where id = ${id}`.execute(connection.db)).rows[0];

it('reads integers beyond 2^53 exactly as text, others (and reals of any size) as numbers, with the same statement in turn', async () => {
  expect(await read(1)).toEqual({ i: 42, r: 1.5 });
  expect(await read(2)).toEqual({ i: '9007199254740993', r: 1e20 });
  expect(await read(1)).toEqual({ i: 42, r: 1.5 });
  expect(await read(3)).toEqual({ i: '-9223372036854775808', r: -2.5 });
  expect(await read(4)).toEqual({ i: '9007199254740992', r: 0 });
  const all = await sql`select id, i from n order by id`.execute(connection.db);
  expect(all.rows).toEqual([
    { id: 1, i: 42 },
    { id: 2, i: '9007199254740993' },
    { id: 3, i: '-9223372036854775808' },
    { id: 4, i: '9007199254740992' },
  ]);
});

it('runs a write that returns rows once, its integers exact', async () => {
  const returned = await sql`insert into n (id, i, r) values (5, 9223372036854775807, 2) returning id, i`.execute(connection.db);
  expect(returned.rows).toEqual([{ id: 5, i: '9223372036854775807' }]);
  const count = await sql`select count(*) as c from n where id = 5`.execute(connection.db);
  expect(count.rows).toEqual([{ c: 1 }]);
});
