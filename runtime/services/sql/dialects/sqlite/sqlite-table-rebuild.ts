/**
 * SQLite table changes. Adding a plain column is an ALTER TABLE ADD COLUMN; anything else
 * (changing or dropping columns, keys on new columns) rebuilds the table the way SQLite's
 * documentation describes (lang_altertable.html, "other kinds of table schema changes"): with
 * foreign keys off, in one transaction, create the new table, copy the rows, drop the old one,
 * rename the new one, restore its indexes and triggers, check the foreign keys, commit.
 */
import { sql, type Kysely } from 'kysely';
import { BadRequestError, ConflictError } from '../../../../core/errors.js';
import type { DatabaseSchema, TableModel } from '../../../../model/platform-model.js';
import { currentDefinition, rebuiltDefinition } from '../../schema/model-definitions.js';
import type { TableChanges } from '../../schema/table-alter.js';
import { columnClauses, createIndexes, createTableStatement, type KeptColumnText } from '../../schema/table-ddl.js';
import type { FieldDefinition, TableDefinition } from '../../schema/table-definition.js';
import type { SqlDialectModule } from '../sql-dialect.js';
import { parseCreateTable, type CheckText, type CreateTableText } from './sqlite-create-text.js';

/** What ALTER TABLE ADD COLUMN takes here: no key, and NOT NULL only with a constant default. */
function addableInPlace(field: FieldDefinition): boolean {
  if (field.isPrimaryKey || field.isUnique || field.autoIncrement || field.refTable !== null) return false;
  const constant = field.default === undefined || field.default === null || typeof field.default !== 'object';
  if (!constant || field.type === 'timestamp_on_create' || field.type === 'timestamp_on_update') return false;
  return field.allowNull || (field.default !== undefined && field.default !== null);
}

export async function alterSqliteTable(
  db: Kysely<any>,
  schema: DatabaseSchema,
  table: TableModel,
  changes: TableChanges,
  dialect: SqlDialectModule,
): Promise<void> {
  if (
    changes.modify.length > 0 ||
    changes.drop.length > 0 ||
    (changes.dropForeignKeys ?? []).length > 0 ||
    !changes.add.every(addableInPlace)
  ) {
    await rebuild(db, schema, table, changes, dialect);
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const field of changes.add) {
      await trx.schema
        .alterTable(table.sourceName)
        .addColumn(field.name, sql.raw(dialect.columnType(field)), columnClauses(field, false, dialect))
        .execute();
    }
    await createIndexes(trx, { name: table.sourceName, label: null, description: null, fields: changes.add }, changes.add);
  });
}

/** The CHECK constraints that stay: those naming no dropped field (PostgreSQL and MariaDB drop the others with the field). */
function staying(checks: readonly CheckText[], dropped: ReadonlySet<string>): string[] {
  return checks.filter((check) => ![...check.names].some((name) => dropped.has(name))).map((check) => check.text);
}

/**
 * The new table's CREATE TABLE text: the definition, with what the table's own text says that
 * the model does not hold (CHECK constraints, collations, generated columns, WITHOUT ROWID and
 * STRICT); a rebuild dropped them all, so that a refused value was taken afterwards.
 */
function rebuiltStatement(
  conn: Kysely<any>,
  schema: DatabaseSchema,
  definition: TableDefinition,
  text: CreateTableText | null,
  dropped: ReadonlySet<string>,
  dialect: SqlDialectModule,
  sqlName: string,
): string {
  const kept = (field: FieldDefinition): KeptColumnText | undefined => {
    const column = text?.columns.get(field.name.toLowerCase());
    if (column === undefined) return undefined;
    if (column.generated !== null) return { verbatim: column.rest };
    const end = [...(column.collate === null ? [] : [column.collate]), ...staying(column.checks, dropped)].join(' ');
    return end === '' ? undefined : { end };
  };
  const compiled = createTableStatement(conn, definition, { created: [definition], existing: schema }, dialect, sqlName, kept).compile();
  if (compiled.parameters.length > 0) throw new Error('A rebuilt table definition has parameters.');
  const checks = text === null ? [] : staying(text.checks, dropped);
  const statement = checks.length === 0 ? compiled.sql : `${compiled.sql.slice(0, -1)}, ${checks.join(', ')})`;
  return text === null || text.options === '' ? statement : `${statement} ${text.options}`;
}

async function rebuild(
  db: Kysely<any>,
  schema: DatabaseSchema,
  table: TableModel,
  changes: TableChanges,
  dialect: SqlDialectModule,
): Promise<void> {
  const dropped = new Set(changes.drop.map((f) => f.name));
  const droppedSources = new Set(changes.drop.map((f) => f.sourceName.toLowerCase()));
  const modified = new Map(changes.modify.map((c) => [c.current.name, c.definition]));
  const own = (
    await sql<{ sql: string | null }>`select sql from sqlite_master where type = 'table' and name = ${table.sourceName}`.execute(db)
  ).rows[0]?.sql;
  const text = own ? parseCreateTable(own) : null;
  // A generated field is kept as written; it can not be changed, nor outlive a field it is computed from.
  const computed = table.fields.filter((f) => f.computed === true && !dropped.has(f.name));
  const changedComputed = computed.filter((f) => modified.has(f.name) || text?.columns.get(f.sourceName.toLowerCase())?.generated == null);
  if (changedComputed.length > 0)
    throw new BadRequestError(
      `Table '${table.name}' can not be changed so on SQLite: generated field(s) ${changedComputed.map((f) => `'${f.name}'`).join(', ')} can not be changed.`,
      { table: table.name, fields: changedComputed.map((f) => f.name) },
    );
  for (const field of computed) {
    const uses = text?.columns.get(field.sourceName.toLowerCase())?.generated;
    const source = changes.drop.find((f) => uses?.has(f.sourceName.toLowerCase()));
    if (source !== undefined)
      throw new BadRequestError(
        `Field '${source.name}' of table '${table.name}' can not be dropped: generated field '${field.name}' is computed from it.`,
        {
          table: table.name,
          field: source.name,
        },
      );
  }
  // The table as it will be: its foreign keys but the dropped ones.
  const kept = { ...table, foreignKeys: table.foreignKeys.filter((fk) => !(changes.dropForeignKeys ?? []).includes(fk.name)) };
  const fields = [
    ...table.fields.filter((f) => !dropped.has(f.name)).map((f) => modified.get(f.name) ?? currentDefinition(schema, kept, f)),
    ...changes.add,
  ];
  const definition = rebuiltDefinition(schema, kept, fields);
  const copied = table.fields.filter((f) => !dropped.has(f.name) && f.computed !== true).map((f) => f.sourceName);
  const temporary = `portico_rebuild_${table.sourceName}`;
  await db.connection().execute(async (conn) => {
    const extras = (
      await sql<{ sql: string }>`
      select sql from sqlite_master where tbl_name = ${table.sourceName} and type in ('index', 'trigger') and sql is not null
      order by type, name`.execute(conn)
    ).rows.map((row) => row.sql);
    await sql`pragma foreign_keys = off`.execute(conn);
    await sql`pragma legacy_alter_table = on`.execute(conn);
    try {
      // The write lock at once: a deferred transaction that has read cannot wait for it (sqlite-busy.ts).
      await sql`begin immediate`.execute(conn);
      try {
        await sql.raw(rebuiltStatement(conn, schema, definition, text, droppedSources, dialect, temporary)).execute(conn);
        await createIndexes(conn, definition, definition.fields, temporary);
        const columns = sql.join(copied.map((name) => sql.id(name)));
        await sql`insert into ${sql.id(temporary)} (${columns}) select ${columns} from ${sql.id(table.sourceName)}`.execute(conn);
        await sql`drop table ${sql.id(table.sourceName)}`.execute(conn);
        await sql`alter table ${sql.id(temporary)} rename to ${sql.id(table.sourceName)}`.execute(conn);
        // Indexes and triggers on dropped columns cannot come back; the others must.
        for (const extra of extras)
          await sql
            .raw(extra)
            .execute(conn)
            .catch(() => undefined);
        const broken = await sql`select 1 from pragma_foreign_key_check(${table.sourceName}) limit 1`.execute(conn);
        if (broken.rows.length > 0) throw new ConflictError(`Records of table '${table.name}' do not satisfy the changed foreign keys.`);
        await sql`commit`.execute(conn);
      } catch (error) {
        await sql`rollback`.execute(conn);
        throw error;
      }
    } finally {
      await sql`pragma legacy_alter_table = off`.execute(conn);
      await sql`pragma foreign_keys = on`.execute(conn);
    }
  });
}
