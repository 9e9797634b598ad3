import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlConnection, SqlDialectModule } from '#runtime/services/sql/dialects/sql-dialect.js';
import { openSqliteDatabase, sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { deleteRows, insertRow, insertValues, updateRows, updateValues } from '#runtime/services/sql/query/record-writer.js';
import { buildTablePlan, type TablePlan } from '#runtime/services/sql/query/table-plan.js';
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
