/**
 * CREATE TABLE from `_schema` table definitions through Kysely's schema builder. The dialect
 * decides the column types; keys, NULL/NOT NULL, defaults, unique keys, foreign keys
 * (`fk_{table}_{field}`) and indexes (`ndx_{table}_{field}`) are the same everywhere.
 */
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import { PorticoError } from '../../../core/errors.js';
import type { AbstractType, DatabaseSchema } from '../../../model/platform-model.js';
import { bareField, encoderFor, TRUE_TEXT } from '../query/value-codec.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { assertNewIdentifier } from './identifiers.js';
import { parseTableDefinitions, type FieldDefinition, type TableDefinition } from './table-definition.js';
import { databaseError } from '../dialects/driver-errors.js';
import { schemaMessages, shownName } from './schema-messages.js';

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

/**
 * The DEFAULT of a column as Kysely takes it (timestamps default to the clock), or undefined for
 * none: a NOT NULL column's default null is none (MySQL refused `not null default null`, which
 * PostgreSQL and SQLite took).
 */
export function columnDefault(field: FieldDefinition, dialect: SqlDialectModule): unknown {
  const value = field.default;
  if (value === undefined || (value === null && !field.allowNull)) {
    return field.type === 'timestamp_on_create' || field.type === 'timestamp_on_update' ? sql`CURRENT_TIMESTAMP` : undefined;
  }
  if (value !== null && typeof value === 'object') return sql.raw(dialect.defaultExpression?.(value.expression) ?? value.expression);
  if (typeof value === 'boolean') return dialect.bindBoolean(value);
  // A boolean's default given as text or 0/1 (checked by assertDefaultFits): MySQL's tinyint takes no 'yes'.
  if (field.type === 'boolean' && !field.native) return dialect.bindBoolean(TRUE_TEXT.has(String(value).trim().toLowerCase()));
  return value;
}

/** The clauses of a column after its type: NOT NULL, DEFAULT, PRIMARY KEY / UNIQUE, the dialect's suffix. */
export function columnClauses(
  field: FieldDefinition,
  singlePrimaryKey: boolean,
  dialect: SqlDialectModule,
): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (column) => {
    let c = field.allowNull ? column : column.notNull();
    const value = columnDefault(field, dialect);
    if (value !== undefined) c = c.defaultTo(value);
    if (singlePrimaryKey && field.isPrimaryKey) {
      c = c.primaryKey();
      if (field.autoIncrement && dialect.capabilities.autoIncrementKeyword) c = c.autoIncrement();
    } else if (field.isUnique) {
      c = c.unique();
    }
    const suffix = dialect.columnSuffix(field);
    return suffix === null ? c : c.modifyEnd(sql.raw(suffix));
  };
}

/** Tables a new table may reference: those created with it, and those the database has. */
export interface KnownTables {
  created: readonly TableDefinition[];
  existing: DatabaseSchema | null;
}

/**
 * A field's foreign key with the referenced table and field named as the database names them
 * (`ref_table` is matched case-insensitively, as table names are everywhere else). Refuses a key
 * to a table that is neither the table itself, nor created with it, nor in the database, or to a
 * field that table lacks (SQLite would create it, dangling).
 */
/** `ownType`: the abstract type of a field the database has whose definition keeps its native type. */
export function resolveReference<T extends FieldDefinition>(field: T, table: string, known: KnownTables, ownType?: string): T {
  if (field.refTable === null) return field;
  const wanted = field.refTable.toLowerCase();
  const created = known.created.find((t) => t.name.toLowerCase() === wanted);
  const existing = known.existing?.tables.find((t) => t.sourceName.toLowerCase() === wanted || t.name.toLowerCase() === wanted);
  const fields = created?.fields.map((f) => f.name) ?? existing?.fields.map((f) => f.sourceName);
  if (fields === undefined) {
    if (known.existing === null || wanted === table.toLowerCase()) return field;
    throw schemaMessages.referencedTableMissing.error(field.name, table, field.refTable);
  }
  const refField = field.refField === null ? null : fields.find((f) => f.toLowerCase() === field.refField?.toLowerCase());
  if (refField === undefined) throw schemaMessages.referencedFieldMissing.error(field.name, table, field.refTable, field.refField);
  // Only a key can be referenced: PostgreSQL and MySQL refused the table, SQLite created it and
  // then failed every write to it (a 500, "foreign key mismatch").
  if (refField !== null) {
    const keyed = created
      ? created.fields.some(
          (f) => f.name === refField && (f.isUnique || (f.isPrimaryKey && created.fields.filter((k) => k.isPrimaryKey).length === 1)),
        )
      : existing?.fields.some((f) => f.sourceName === refField && (f.isUnique || (f.isPrimaryKey && existing.primaryKey.length === 1)));
    if (!keyed) throw schemaMessages.referencedFieldNotKey.error(field.name, table, field.refTable, refField);
  }
  // The referencing field must be of the referenced one's kind: PostgreSQL and MySQL refused a
  // string referencing an integer key ('Failed to update table'), SQLite took it and then found
  // the records' values missing in the other table (a 409).
  const target = created
    ? created.fields.find((f) => (refField === null ? f.isPrimaryKey : f.name === refField))
    : existing?.fields.find((f) => (refField === null ? f.isPrimaryKey : f.sourceName === refField));
  const type = ownType ?? (field.native ? null : field.type);
  const targetType = target === undefined || ('native' in target && target.native) ? null : target.type;
  if (type !== null && targetType !== null && typeFamily(type) !== typeFamily(targetType)) {
    const name = target !== undefined && 'sourceName' in target ? target.sourceName : target?.name;
    throw schemaMessages.referenceTypeMismatch.error(field.name, table, type, field.refTable, name, targetType);
  }
  return { ...field, refTable: created?.name ?? existing?.sourceName ?? field.refTable, refField };
}

const INTEGER_FAMILY = new Set([
  'id',
  'bigid',
  'mediumid',
  'smallid',
  'reference',
  'user_id',
  'integer',
  'bigint',
  'smallint',
  'tinyint',
  'mediumint',
]);
const TEXT_FAMILY = new Set(['string', 'text', 'mediumtext', 'longtext']);

/** Abstract types whose values a foreign key can compare: integers with integers, text with text. */
function typeFamily(type: string): string {
  return INTEGER_FAMILY.has(type) ? 'integer' : TEXT_FAMILY.has(type) ? 'text' : type;
}

/**
 * Refuses a constant default the field could not hold, as a written value would be refused (SQLite
 * kept `'abc'` as an integer's default, PostgreSQL and MySQL failed with their own words).
 */
/** Native character types a length applies to (a field changed without its type keeps the one read). */
const CHARACTER_TYPE = /^(character varying|varchar|character|char|bpchar|nvarchar|nchar)$/i;

/** A string's `length` within what the database takes, where its own refusal would name no field (PostgreSQL). */
export function assertLengthFits(field: FieldDefinition, dialect: SqlDialectModule): void {
  const max = dialect.capabilities.maxStringLength;
  if (max === null || field.length === null || field.length <= max) return;
  if (field.native ? CHARACTER_TYPE.test(field.type.trim()) : field.type === 'string')
    throw schemaMessages.stringLengthTooLarge.error(field.name, max);
}

export function assertDefaultFits(field: FieldDefinition, table: string, dialect: SqlDialectModule): void {
  const value = field.default;
  if (field.native || value === undefined || value === null || typeof value === 'object') return;
  // A string without a length is a varchar(255); a JSON default goes into the DDL as it is, so it
  // must be JSON text. Else the table was created and every record left to its default refused
  // (PostgreSQL: a 300-character default; MariaDB: default 'x' of a json field).
  const length = field.type === 'string' ? (field.length ?? 255) : field.length;
  const model = bareField(field.name, field.type as AbstractType, { ...field, length });
  try {
    encoderFor(model, dialect)(value);
    if ((field.type === 'json' || field.type === 'jsonb') && typeof value === 'string') JSON.parse(value);
  } catch (error) {
    if (error instanceof SyntaxError) throw schemaMessages.defaultNotJson.error(field.name, table);
    if (!(error instanceof PorticoError)) throw error;
    throw schemaMessages.defaultUnfit.error(field.name, table, error.message);
  }
}

/** The referenced field of a single-field foreign key: as given, else the referenced table's key. */
function refFieldOf(field: FieldDefinition, known: KnownTables): string {
  if (field.refField !== null) return field.refField;
  const wanted = field.refTable?.toLowerCase();
  const created = known.created.find((table) => table.name.toLowerCase() === wanted);
  if (created !== undefined) return created.fields.find((f) => f.isPrimaryKey)?.name ?? 'id';
  const existing = known.existing?.tables.find((table) => table.sourceName.toLowerCase() === wanted || table.name.toLowerCase() === wanted);
  const key = existing?.fields.find((f) => f.isPrimaryKey);
  return key?.sourceName ?? 'id';
}

/**
 * What a column's definition written by a rebuild keeps of the one it had (SQLite): the whole
 * text after the name (`verbatim`, a generated column), or clauses added after the ones the
 * definition makes (`end`: CHECK, COLLATE).
 */
export interface KeptColumnText {
  verbatim?: string;
  end?: string;
}

/**
 * The CREATE TABLE `sqlName` (default: the definition's name) statement with its keys.
 * Constraint names always use the definition's name.
 */
export function createTableStatement(
  db: Kysely<any>,
  table: TableDefinition,
  known: KnownTables,
  dialect: SqlDialectModule,
  sqlName = table.name,
  kept: (field: FieldDefinition) => KeptColumnText | undefined = () => undefined,
): CreateTableBuilder<string, never> {
  const keys = table.fields.filter((field) => field.isPrimaryKey);
  let builder = db.schema.createTable(sqlName);
  for (const field of table.fields) {
    const text = kept(field);
    if (text?.verbatim !== undefined) {
      builder = builder.addColumn(field.name, sql.raw(text.verbatim));
      continue;
    }
    const clauses = columnClauses(field, keys.length === 1, dialect);
    builder = builder.addColumn(field.name, sql.raw(dialect.columnType(field)), (column) =>
      text?.end === undefined ? clauses(column) : clauses(column).modifyEnd(sql.raw(text.end)),
    );
  }
  if (keys.length > 1) builder = builder.addPrimaryKeyConstraint(`pk_${table.name}`, keys.map((field) => field.name) as never[]);
  for (const unique of table.uniqueKeys ?? [])
    builder = builder.addUniqueConstraint(`undx_${table.name}_${unique.join('_')}`, unique as never[]);
  const references = [
    ...table.fields
      .filter((field) => field.refTable !== null)
      .map((field) => ({
        fields: [field.name],
        refTable: field.refTable as string,
        refFields: [refFieldOf(field, known)],
        onUpdate: field.refOnUpdate,
        onDelete: field.refOnDelete,
      })),
    ...(table.foreignKeys ?? []),
  ];
  for (const fk of references) {
    builder = builder.addForeignKeyConstraint(
      `fk_${table.name}_${fk.fields.join('_')}`,
      fk.fields as never[],
      fk.refTable,
      fk.refFields,
      (constraint) => {
        let c = constraint;
        if (fk.onDelete) c = c.onDelete(fk.onDelete);
        if (fk.onUpdate) c = c.onUpdate(fk.onUpdate);
        return c;
      },
    );
  }
  return builder;
}

/** CREATE TABLE `sqlName` (default: the definition's name) with its keys, then its indexes. */
export async function createTable(
  db: Kysely<any>,
  table: TableDefinition,
  known: KnownTables,
  dialect: SqlDialectModule,
  sqlName = table.name,
): Promise<void> {
  await createTableStatement(db, table, known, dialect, sqlName).execute();
  await createIndexes(db, table, table.fields, sqlName);
}

/** `ndx_{table}_{field}` for fields marked is_index that no key indexes already. */
export async function createIndexes(
  db: Kysely<any>,
  table: TableDefinition,
  fields: readonly FieldDefinition[],
  sqlName = table.name,
): Promise<void> {
  for (const field of indexedFields(fields)) {
    await db.schema.createIndex(`ndx_${table.name}_${field.name}`).on(sqlName).column(field.name).execute();
  }
}

/** The fields marked is_index that no key indexes already. */
export function indexedFields(fields: readonly FieldDefinition[]): FieldDefinition[] {
  return fields.filter((field) => field.isIndex && !field.isPrimaryKey && !field.isUnique && !ID_TYPES.has(field.type));
}

/**
 * The table definitions of a `_schema` body, checked as far as can be before any table is made
 * (MySQL's DDL is not transactional): names, lengths, defaults, references. Bad ones are 400s.
 */
export function checkedTableDefinitions(
  dialect: SqlDialectModule,
  tableDefs: readonly unknown[],
  existing: DatabaseSchema | null,
): { tables: TableDefinition[]; resolved: TableDefinition[] } {
  const tables = parseTableDefinitions(tableDefs);
  for (const table of tables) {
    assertNewIdentifier(dialect.dialect, table.name, `table '${shownName(table.name)}'`, { table: table.name });
    for (const field of table.fields) {
      assertNewIdentifier(dialect.dialect, field.name, `field '${shownName(field.name)}' of table '${shownName(table.name)}'`, {
        table: table.name,
        field: field.name,
      });
    }
  }
  const given: KnownTables = { created: tables, existing };
  for (const table of tables) {
    for (const field of table.fields) {
      assertLengthFits(field, dialect);
      assertDefaultFits(field, table.name, dialect);
    }
  }
  const resolved = tables.map((table) => ({ ...table, fields: table.fields.map((field) => resolveReference(field, table.name, given)) }));
  return { tables, resolved };
}

/**
 * Creates the tables of `_schema` body records (reference 3.2), referenced tables first; returns
 * their names in input order. All or none: in one transaction where DDL is transactional, else
 * the tables created before a failure are dropped again. Bad definitions and failed DDL are 400s
 * (409 when a table exists).
 */
export async function createTables(
  db: Kysely<any>,
  dialect: SqlDialectModule,
  tableDefs: readonly unknown[],
  existing: DatabaseSchema | null = null,
): Promise<string[]> {
  const { tables, resolved } = checkedTableDefinitions(dialect, tableDefs, existing);
  const known: KnownTables = { created: resolved, existing };
  const createAll = async (conn: Kysely<any>, done: TableDefinition[]) => {
    for (const table of inDependencyOrder(resolved)) {
      try {
        await createTable(conn, table, known, dialect);
        done.push(table);
      } catch (error) {
        throw databaseError(error, dialect, null, schemaMessages.schemaChangeFailed.error('create', table.name));
      }
    }
  };
  if (dialect.capabilities.transactionalDdl) {
    await db.transaction().execute((trx) => createAll(trx, []));
  } else {
    const done: TableDefinition[] = [];
    try {
      await createAll(db, done);
    } catch (error) {
      for (const table of done.reverse())
        await db.schema
          .dropTable(table.name)
          .ifExists()
          .execute()
          .catch(() => undefined);
      throw error;
    }
  }
  return tables.map((table) => table.name);
}
