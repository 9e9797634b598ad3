/**
 * MySQL/MariaDB column changes in place, as one ALTER TABLE: MySQL commits every DDL statement,
 * so a change made of several stopped part-way (a unique key the values break) left the earlier
 * parts made; one statement is all or nothing. MODIFY COLUMN restates the whole column, so it
 * restates what the change leaves as it was and the model does not hold: the collation, the
 * comment and (MariaDB) the column's CHECK constraint, which it dropped.
 */
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema, TableModel } from '../../../../model/platform-model.js';
import { alterInPlace, type DdlStatement, type FieldChange, type TableChanges } from '../../schema/table-alter.js';
import { columnDefault } from '../../schema/table-ddl.js';
import type { SqlDialectModule } from '../sql-dialect.js';

interface ColumnExtras {
  collation: string | null;
  comment: string;
  /** MariaDB's CHECK constraint of the column (MySQL keeps them as table constraints, which MODIFY leaves). */
  check: string | null;
}

async function columnExtras(db: Kysely<any>, table: string, column: string): Promise<ColumnExtras> {
  const row = (
    await sql<{ collation: string | null; comment: string | null }>`
    select collation_name as collation, column_comment as comment from information_schema.columns
    where table_schema = database() and table_name = ${table} and column_name = ${column}`.execute(db)
  ).rows[0];
  // MariaDB names a column's CHECK constraint after the column, at LEVEL 'Column'; MySQL has no such column (the query fails).
  const checks = await sql<Record<string, unknown>>`
    select * from information_schema.check_constraints
    where constraint_schema = database() and table_name = ${table} and constraint_name = ${column} and level = 'Column'`
    .execute(db)
    .then((result) => result.rows)
    .catch(() => []);
  const clause = checks.map((c) => c.CHECK_CLAUSE ?? c.check_clause).find((c) => typeof c === 'string');
  return { collation: row?.collation ?? null, comment: row?.comment ?? '', check: typeof clause === 'string' ? clause : null };
}

const CHARACTER = /char|text|enum|set\s*\(/i;

/** The column's type, NULL/NOT NULL, default, auto-increment and `on update`; its keys stay. */
async function modifyColumn(
  db: Kysely<any>,
  table: TableModel,
  { definition, current }: FieldChange,
  dialect: SqlDialectModule,
  run: (statement: DdlStatement) => Promise<void>,
): Promise<void> {
  const type = dialect.columnType(definition);
  const extras = await columnExtras(db, table.sourceName, current.sourceName);
  const kept = [
    ...(extras.collation !== null && /^\w+$/.test(extras.collation) && CHARACTER.test(type)
      ? [sql`collate ${sql.raw(extras.collation)}`]
      : []),
    ...(extras.comment !== '' ? [sql`comment ${sql.lit(extras.comment)}`] : []),
    ...(extras.check !== null ? [sql`check (${sql.raw(extras.check)})`] : []),
  ];
  await run(
    db.schema.alterTable(table.sourceName).modifyColumn(definition.name, sql.raw(type), (column) => {
      let c = definition.allowNull ? column : column.notNull();
      const value = columnDefault(definition, dialect);
      if (value !== undefined) c = c.defaultTo(value);
      if (definition.autoIncrement) c = c.autoIncrement();
      const suffix = dialect.columnSuffix(definition);
      if (suffix !== null) c = c.modifyEnd(sql.raw(suffix));
      for (const clause of kept) c = c.modifyEnd(clause);
      return c;
    }),
  );
}

/** The changes as one ALTER TABLE: each gathered statement is `alter table <name> <clause>`. */
export async function alterMysqlTable(
  db: Kysely<any>,
  _schema: DatabaseSchema,
  table: TableModel,
  changes: TableChanges,
  dialect: SqlDialectModule,
): Promise<void> {
  const prefix = sql`alter table ${sql.id(table.sourceName)} `.compile(db).sql;
  const clauses: string[] = [];
  const gather = async (statement: DdlStatement) => {
    const compiled = statement.compile();
    if (!compiled.sql.startsWith(prefix) || compiled.parameters.length > 0)
      throw new Error(`A MySQL table change is not one ALTER TABLE clause: ${compiled.sql}`);
    clauses.push(compiled.sql.slice(prefix.length));
  };
  await alterInPlace(db, dialect, table, changes, modifyColumn, gather, 'add index');
  if (clauses.length > 0) await sql.raw(`${prefix}${clauses.join(', ')}`).execute(db);
}
