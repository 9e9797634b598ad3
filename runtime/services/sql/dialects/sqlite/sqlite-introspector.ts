/**
 * Reads a SQLite catalog: sqlite_master for tables and views, then pragma table_xinfo,
 * foreign_key_list, index_list and index_info per table, every query ordered.
 */
import { sql, type Kysely } from 'kysely';
import type { FieldModel } from '../../../../model/platform-model.js';
import { referentialAction, type CatalogForeignKey, type CatalogTable } from '../../schema/catalog.js';
import { nativeTypeInfo } from '../../schema/native-types.js';

interface ColumnRow {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
  /** pragma table_xinfo: 0 a plain column, 1 a virtual table's hidden one, 2 and 3 generated (VIRTUAL, STORED). */
  hidden: number;
}
interface ForeignKeyRow {
  id: number;
  seq: number;
  table: string;
  from: string;
  to: string | null;
  on_update: string;
  on_delete: string;
}
interface IndexRow {
  name: string;
  unique: number;
  origin: string;
  partial: number;
}

/** A default's SQL text as a value: literals unquoted, numbers as numbers, anything else an expression. */
export function parseSqliteDefault(text: string | null): FieldModel['default'] {
  if (text === null) return null;
  const value = text.trim();
  if (/^null$/i.test(value)) return null;
  const quoted = /^'([\s\S]*)'$/.exec(value) ?? /^"([\s\S]*)"$/.exec(value);
  if (quoted) return quoted[1].replace(value[0] === "'" ? /''/g : /""/g, value[0]);
  if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  return { expression: /^current_(timestamp|date|time)$/i.test(value) ? value.toUpperCase() : value };
}

async function readTable(db: Kysely<any>, name: string, isView: boolean): Promise<CatalogTable> {
  const columns =
    // table_xinfo: table_info leaves generated columns out.
    (
      await sql<ColumnRow>`select cid, name, type, "notnull", dflt_value, pk, hidden from pragma_table_xinfo(${name}) where hidden <> 1 order by cid`.execute(
        db,
      )
    ).rows;
  const fkRows = (
    await sql<ForeignKeyRow>`select id, seq, "table", "from", "to", on_update, on_delete from pragma_foreign_key_list(${name}) order by id, seq`.execute(
      db,
    )
  ).rows;
  const indexes = (await sql<IndexRow>`select name, "unique", origin, partial from pragma_index_list(${name}) order by name`.execute(db))
    .rows;

  const primaryKey = columns
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  const uniqueKeys: string[][] = [];
  for (const index of indexes) {
    if (index.unique !== 1 || index.origin === 'pk' || index.partial === 1) continue;
    const parts = (await sql<{ name: string | null }>`select name from pragma_index_info(${index.name}) order by seqno`.execute(db)).rows;
    // Indexes on expressions have no column name: they are not unique keys of fields.
    if (parts.every((part) => part.name !== null)) uniqueKeys.push(parts.map((part) => part.name as string));
  }

  const foreignKeys: CatalogForeignKey[] = [];
  for (const row of fkRows) {
    let fk = foreignKeys[foreignKeys.length - 1];
    if (row.seq === 0 || fk === undefined) {
      fk = {
        name: null,
        columns: [],
        refTable: row.table,
        refColumns: [],
        onUpdate: referentialAction(row.on_update),
        onDelete: referentialAction(row.on_delete),
      };
      foreignKeys.push(fk);
    }
    fk.columns.push(row.from);
    if (row.to !== null) fk.refColumns.push(row.to);
  }

  // SQLite's affinity rule: any other declared type naming INT (`point`, `mediumint unsigned`) holds integers.
  const typeOf = (dbType: string) => (nativeTypeInfo(dbType).type === 'string' && /int/.test(dbType) ? ('integer' as const) : undefined);
  // INTEGER PRIMARY KEY aliases the rowid (auto-assigned) unless the table is WITHOUT ROWID, which has a pk index.
  const rowidAlias = primaryKey.length === 1 && !indexes.some((index) => index.origin === 'pk');
  return {
    name,
    schema: null,
    isView,
    columns: columns.map((column) => ({
      name: column.name,
      dbType: column.type.trim().toLowerCase(),
      nullable: column.notnull === 0,
      default: parseSqliteDefault(column.dflt_value),
      autoIncrement: rowidAlias && column.pk === 1 && column.type.trim().toLowerCase() === 'integer',
      type: typeOf(column.type.trim().toLowerCase()),
      ...(column.hidden === 2 || column.hidden === 3 ? { computed: true as const } : {}),
    })),
    primaryKey,
    foreignKeys,
    uniqueKeys,
  };
}

/**
 * The tables virtual tables keep their data in (an FTS5 table's `docs_data`, `docs_idx`...): the
 * virtual table's own, which refuse writes ('may not be modified'); pragma table_list (SQLite 3.37).
 */
async function shadowTables(db: Kysely<any>): Promise<Set<string>> {
  const rows = await sql<{ name: string }>`select name from pragma_table_list where schema = 'main' and type = 'shadow'`
    .execute(db)
    .then((result) => result.rows)
    .catch(() => []);
  return new Set(rows.map((row) => row.name));
}

function unreadableView(name: string, error: unknown): CatalogTable {
  const reason = error instanceof Error ? error.message : String(error);
  return { name, schema: null, isView: true, columns: [], primaryKey: [], foreignKeys: [], uniqueKeys: [], unreadable: reason };
}

/** Tables and views sorted by name, SQLite's own tables left out. */
export async function readSqliteCatalog(db: Kysely<any>): Promise<CatalogTable[]> {
  const objects = (
    await sql<{ name: string; type: string }>`
    select name, type from sqlite_master
    where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\'
    order by name`.execute(db)
  ).rows;
  const shadows = await shadowTables(db);
  const tables: CatalogTable[] = [];
  for (const object of objects) {
    if (shadows.has(object.name)) continue;
    const isView = object.type === 'view';
    // A view naming a table or column dropped since can not be described (SQLite checks views when they are used).
    const table = await readTable(db, object.name, isView).catch((error: unknown) => {
      if (!isView) throw error;
      return unreadableView(object.name, error);
    });
    tables.push(table);
  }
  return tables;
}
