import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlConnection, SqlDialectModule } from '#runtime/services/sql/dialects/sql-dialect.js';
import { openSqliteDatabase, sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import {
  deleteRows,
  insertRow,
  insertValues,
  updateRowByKey,
  updateRows,
  updateValues,
} from '#runtime/services/sql/query/record-writer.js';
import { buildTablePlan, MAX_MEMOS, selectionOf, type TablePlan } from '#runtime/services/sql/query/table-plan.js';
import { readDatabaseSchema } from '#runtime/services/sql/sql-service-kind.js';
import { tempDir } from '../sql-test-helpers.js';

// The same writes with and without RETURNING (MySQL has none): results must not differ.
const dialects: Array<[string, SqlDialectModule]> = [
  ['with RETURNING', sqliteDialect],
  ['without RETURNING', { ...sqliteDialect, capabilities: { ...sqliteDialect.capabilities, supportsReturning: false } }],
];

let env: ReturnType<typeof tempDir>;
let connection: SqlConnection;

beforeEach(async () => {
  env = tempDir();
  connection = openSqliteDatabase(path.join(env.dir, 'w.sqlite'));
  await sql`create table item (id integer primary key, name text not null, qty integer not null default 0, made timestamp default CURRENT_TIMESTAMP)`.execute(
    connection.db,
  );
});
afterEach(async () => {
  await connection.close();
  env.cleanup();
});

async function plan(dialect: SqlDialectModule): Promise<TablePlan> {
  const schema = await readDatabaseSchema(connection.db, dialect, false);
  return buildTablePlan(schema.tables[0], dialect);
}

describe.each(dialects)('record writes %s', (_name, dialect) => {
  it('insert returns the output columns of the new row', async () => {
    const p = await plan(dialect);
    const target = { plan: p, dialect, output: p.keys };
    expect(await insertRow(connection.db, target, insertValues(p, { name: 'a' }))).toEqual({ id: 1 });
    expect(
      await insertRow(connection.db, { ...target, output: p.all }, insertValues(p, { id: 10, name: 'b', qty: '3', made: 'ignored' })),
    ).toMatchObject({ id: 10, name: 'b', qty: 3 });
    const made = (await sql<{ made: string }>`select made from item where id = 10`.execute(connection.db)).rows[0].made;
    expect(made).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('update returns rows after the update, even those it moved out of the condition', async () => {
    const p = await plan(dialect);
    const target = { plan: p, dialect, output: p.all };
    for (const name of ['a', 'b', 'c']) await insertRow(connection.db, target, insertValues(p, { name }));
    const where = sql<boolean>`${sql.id('qty')} = 0 and ${sql.id('name')} != 'c'`;
    const rows = await updateRows(connection.db, target, where, updateValues(p, { qty: 5, id: 99 }, p.primaryKey));
    expect(rows.map((r) => [r.id, r.qty])).toEqual([
      [1, 5],
      [2, 5],
    ]);
    expect(await updateRows(connection.db, target, where, updateValues(p, { qty: 6 }, p.primaryKey))).toEqual([]);
  });

  it('writes of one table reuse no statement of another shape (column order, output, key fields)', async () => {
    const p = await plan(dialect);
    const [id, name] = p.fields;
    const keys = { plan: p, dialect, output: p.keys };
    const all = { plan: p, dialect, output: p.all };
    expect(await insertRow(connection.db, keys, insertValues(p, { name: 'a', qty: 1 }))).toEqual({ id: 1 });
    expect(await insertRow(connection.db, all, insertValues(p, { qty: 2, name: 'b' }))).toMatchObject({ id: 2, name: 'b', qty: 2 });
    expect(await insertRow(connection.db, all, insertValues(p, { name: 'c', qty: 3 }))).toMatchObject({ id: 3, name: 'c', qty: 3 });
    expect(await updateRowByKey(connection.db, keys, [id], [1], updateValues(p, { qty: 7 }, [id]))).toEqual([{ id: 1 }]);
    expect(await updateRowByKey(connection.db, all, [id], [1], updateValues(p, { qty: 8 }, [id]))).toMatchObject([
      { id: 1, name: 'a', qty: 8 },
    ]);
    const nameOnly = { plan: p, dialect, output: selectionOf([name]) };
    expect(await updateRowByKey(connection.db, nameOnly, [id], [2], updateValues(p, { qty: 9 }, [id]))).toEqual([{ name: 'b' }]);
    expect(await updateRowByKey(connection.db, all, [name], ['c'], updateValues(p, { qty: 4 }, [name]))).toMatchObject([
      { id: 3, name: 'c', qty: 4 },
    ]);
    expect(await updateRowByKey(connection.db, all, [id], [3], updateValues(p, { qty: 5, name: 'd' }, [id]))).toMatchObject([
      { id: 3, name: 'd', qty: 5 },
    ]);
    expect(await updateRowByKey(connection.db, all, [id], [3], updateValues(p, { name: 'e', qty: 6 }, [id]))).toMatchObject([
      { id: 3, name: 'e', qty: 6 },
    ]);
  });

  it('delete returns the rows as they were', async () => {
    const p = await plan(dialect);
    const target = { plan: p, dialect, output: p.all };
    await insertRow(connection.db, target, insertValues(p, { name: 'a', qty: 2 }));
    expect(await deleteRows(connection.db, target, sql<boolean>`${sql.id('qty')} = 2`)).toMatchObject([{ id: 1, name: 'a', qty: 2 }]);
    expect(await deleteRows(connection.db, target, null)).toEqual([]);
  });
});

describe('record values', () => {
  it('checks NULL and required fields on insert, and ignores keys on update', async () => {
    const p = await plan(sqliteDialect);
    expect(() => insertValues(p, { name: null })).toThrow("Field 'name' can not be NULL.");
    expect(() => insertValues(p, { qty: 1 })).toThrow("Required field 'name' can not be NULL.");
    expect(insertValues(p, { NAME: 'x', id: null })).toMatchObject({ name: 'x' });
    expect(updateValues(p, { id: 3 }, p.primaryKey)).toEqual({});
    expect(() => updateValues(p, { qty: null }, p.primaryKey)).toThrow("Field 'qty' can not be NULL.");
  });
});

it('keeps at most MAX_MEMOS statements per table; writes of shapes beyond them still run, and grow the tree no further', async () => {
  // Hundreds of commits: not each flushed to disk.
  await sql`pragma synchronous = off`.execute(connection.db);
  await sql`create table wide (id integer primary key, a integer, b integer, c integer, d integer, e integer, f integer)`.execute(
    connection.db,
  );
  const schema = await readDatabaseSchema(connection.db, sqliteDialect, false);
  const p = buildTablePlan(schema.tables.find((t) => t.name === 'wide')!, sqliteDialect);
  const [id] = p.fields;
  const target = { plan: p, dialect: sqliteDialect, output: p.keys };
  await insertRow(connection.db, target, insertValues(p, { id: 1 }));
  const nodes = (node: { next: Map<unknown, unknown> }): number =>
    [...node.next.values()].reduce<number>((sum, next) => sum + 1 + nodes(next as { next: Map<unknown, unknown> }), 0);
  // Each order of four of the six columns is a shape of its own: 360 of them.
  const columns = ['a', 'b', 'c', 'd', 'e', 'f'];
  const orders: string[][] = [];
  for (const w of columns)
    for (const x of columns)
      for (const y of columns) for (const z of columns) if (new Set([w, x, y, z]).size === 4) orders.push([w, x, y, z]);
  const kept = MAX_MEMOS - p.writes.size;
  let n = 0;
  const write = async (order: string[]) => {
    n++;
    const record = Object.fromEntries(order.map((column, i) => [column, n * 10 + i]));
    expect(await updateRowByKey(connection.db, target, [id], [1], updateValues(p, record, [id]))).toEqual([{ id: 1 }]);
    const row = (await sql<Record<string, number>>`select * from wide where id = 1`.execute(connection.db)).rows[0];
    expect(row).toMatchObject(record);
  };
  for (const order of orders.slice(0, kept)) await write(order);
  expect(p.writes.size).toBe(MAX_MEMOS);
  const grown = nodes(p.writes.root);
  // Past the bound: written as before, nothing kept; the shapes kept still serve.
  for (const order of orders.slice(kept)) await write(order);
  for (const order of orders.slice(0, 3)) await write(order);
  expect(p.writes.size).toBe(MAX_MEMOS);
  expect(nodes(p.writes.root)).toBe(grown);
});
