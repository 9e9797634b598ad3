/**
 * CREATE TABLE from `_schema` table definitions through Kysely's schema builder. The dialect
 * decides the column types; keys, NULL/NOT NULL, defaults, unique keys, foreign keys
 * (`fk_{table}_{field}`) and indexes (`ndx_{table}_{field}`) are the same everywhere.
 */
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import { BadRequestError, PorticoError } from '../../../core/errors.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { parseTableDefinitions, type FieldDefinition, type TableDefinition } from './table-definition.js';

const ID_TYPES = new Set(['id', 'bigid', 'mediumid', 'smallid']);

/** Referenced tables first, so that every dialect can check foreign keys at creation; cycles keep input order. */
function inDependencyOrder(tables: TableDefinition[]): TableDefinition[] {
  const byName = new Map(tables.map((table) => [table.name.toLowerCase(), table]));
  const ordered: TableDefinition[] = [];
  const visiting = new Set<TableDefinition>();
  const visit = (table: TableDefinition) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const field of table.fields) {
      const target = field.refTable === null ? undefined : byName.get(field.refTable.toLowerCase());
      if (target !== undefined && target !== table) visit(target);
    }
    ordered.push(table);
  };
  tables.forEach(visit);
  return ordered;
}

function defaultOf(field: FieldDefinition, dialect: SqlDialectModule): unknown {
  const value = field.default;
  if (value === undefined) {
    return field.type === 'timestamp_on_create' || field.type === 'timestamp_on_update' ? sql`CURRENT_TIMESTAMP` : undefined;
  }
  if (value !== null && typeof value === 'object') return sql.raw(value.expression);
  if (typeof value === 'boolean') return dialect.bindBoolean(value);
  return value;
}

function addColumn(
  builder: CreateTableBuilder<string, never>,
  field: FieldDefinition,
  singlePrimaryKey: boolean,
  dialect: SqlDialectModule,
): CreateTableBuilder<string, never> {
  return builder.addColumn(field.name, sql.raw(dialect.columnType(field)), (column: ColumnDefinitionBuilder) => {
    let c = field.allowNull ? column : column.notNull();
    const value = defaultOf(field, dialect);
    if (value !== undefined) c = c.defaultTo(value);
    if (singlePrimaryKey && field.isPrimaryKey) {
      c = c.primaryKey();
      if (field.autoIncrement && dialect.autoIncrementKeyword) c = c.autoIncrement();
    } else if (field.isUnique) {
      c = c.unique();
    }
    return c;
  });
}

function refFieldOf(field: FieldDefinition, tables: TableDefinition[]): string {
  if (field.refField !== null) return field.refField;
  const target = tables.find((table) => table.name.toLowerCase() === field.refTable?.toLowerCase());
  return target?.fields.find((f) => f.isPrimaryKey)?.name ?? 'id';
}

async function createTable(db: Kysely<any>, table: TableDefinition, all: TableDefinition[], dialect: SqlDialectModule): Promise<void> {
  const keys = table.fields.filter((field) => field.isPrimaryKey);
  let builder = db.schema.createTable(table.name);
  for (const field of table.fields) builder = addColumn(builder, field, keys.length === 1, dialect);
  if (keys.length > 1) builder = builder.addPrimaryKeyConstraint(`pk_${table.name}`, keys.map((field) => field.name) as never[]);
  for (const field of table.fields) {
    if (field.refTable === null) continue;
    builder = builder.addForeignKeyConstraint(
      `fk_${table.name}_${field.name}`, [field.name] as never[], field.refTable, [refFieldOf(field, all)],
      (fk) => {
        let constraint = fk;
        if (field.refOnDelete) constraint = constraint.onDelete(field.refOnDelete);
        if (field.refOnUpdate) constraint = constraint.onUpdate(field.refOnUpdate);
        return constraint;
      },
    );
  }
  await builder.execute();
  for (const field of table.fields) {
    if (!field.isIndex || field.isPrimaryKey || field.isUnique || ID_TYPES.has(field.type)) continue;
    await db.schema.createIndex(`ndx_${table.name}_${field.name}`).on(table.name).column(field.name).execute();
  }
}

/**
 * Creates the tables of `_schema` body records (reference 3.2) in one transaction where the
 * database allows it; returns their names in input order. Bad definitions and failed DDL are 400s
 * (409 when a table exists).
 */
export async function createTables(db: Kysely<any>, dialect: SqlDialectModule, tableDefs: readonly unknown[]): Promise<string[]> {
  const tables = parseTableDefinitions(tableDefs);
  await db.transaction().execute(async (trx) => {
    for (const table of inDependencyOrder(tables)) {
      try {
        await createTable(trx, table, tables, dialect);
      } catch (error) {
        if (error instanceof PorticoError) throw error;
        throw dialect.translateError(error, null) ?? new BadRequestError(`Failed to create table '${table.name}': ${(error as Error).message}`);
      }
    }
  });
  return tables.map((table) => table.name);
}
