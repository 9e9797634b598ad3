/**
 * Field and table definitions of tables the database already has, read from the model: the base
 * a partial field change is merged onto (`{name, allow_null: true}` keeps the type), and the
 * whole definition SQLite rebuilds a table from.
 */
import type { DatabaseSchema, FieldModel, TableModel } from '../../../model/platform-model.js';
import { lowerKeys, parseField, type FieldDefinition, type TableDefinition } from './table-definition.js';

function sourceTable(schema: DatabaseSchema, name: string): TableModel | undefined {
  return schema.tables.find((table) => table.name === name);
}

/** The field as a `_schema` field definition input (source names, native type). */
export function definitionInput(schema: DatabaseSchema, table: TableModel, field: FieldModel): Record<string, unknown> {
  const fk = table.foreignKeys.find((key) => key.fields.length === 1 && key.fields[0] === field.name);
  const target = fk === undefined ? undefined : sourceTable(schema, fk.refTable);
  const refField = fk === undefined ? undefined : target?.fields.find((f) => f.name === fk.refFields[0]);
  return {
    name: field.sourceName,
    // MySQL's automatic update lives in the abstract type; SQLite columns may have no declared type.
    ...(field.type === 'timestamp_on_update' ? { type: 'timestamp_on_update' } : { db_type: field.dbType === '' ? 'blob' : field.dbType }),
    allow_null: field.allowNull,
    ...(field.default === null ? {} : { default: field.default }),
    auto_increment: field.autoIncrement,
    is_primary_key: field.isPrimaryKey,
    is_unique: field.isUnique,
    ...(fk === undefined
      ? {}
      : {
          ref_table: target?.sourceName ?? fk.refTable,
          ref_field: refField?.sourceName ?? fk.refFields[0],
          ref_on_update: fk.onUpdate,
          ref_on_delete: fk.onDelete,
        }),
  };
}

const TYPE_KEYS = ['type', 'db_type'];
const SIZE_KEYS = ['length', 'size', 'precision', 'scale', 'decimals'];

/**
 * A client's (partial) definition of an existing field merged onto the field's own: what it
 * leaves out stays as it is. A new type replaces the old one; a new size alone resizes it.
 */
export function mergedDefinition(
  schema: DatabaseSchema,
  table: TableModel,
  field: FieldModel,
  raw: unknown,
  index: number,
): FieldDefinition {
  const input = lowerKeys(raw);
  const base = definitionInput(schema, table, field);
  const typeGiven = TYPE_KEYS.some((key) => input[key] !== undefined && input[key] !== '');
  if (typeGiven) {
    delete base.type;
    delete base.db_type;
  } else if (SIZE_KEYS.some((key) => input[key] !== undefined) && typeof base.db_type === 'string') {
    base.db_type = base.db_type.replace(/\s*\([^)]*\)/, '');
  }
  // The name keeps the database's spelling.
  return parseField({ ...base, ...input, name: field.sourceName }, table.sourceName, index, !typeGiven, true);
}

/** The field's own definition, unchanged. */
export function currentDefinition(schema: DatabaseSchema, table: TableModel, field: FieldModel): FieldDefinition {
  return parseField(definitionInput(schema, table, field), table.sourceName, 0, true);
}

/**
 * The table's definition with `fields` (its own fields, changed or not, and new ones), keeping its
 * keys over several fields; keys over dropped fields go.
 */
export function rebuiltDefinition(schema: DatabaseSchema, table: TableModel, fields: FieldDefinition[]): TableDefinition {
  const kept = new Set(fields.map((f) => f.name));
  const source = (name: string) => table.fields.find((f) => f.name === name)?.sourceName ?? name;
  const sources = (names: string[]) => names.map(source);
  return {
    name: table.sourceName,
    label: null,
    description: null,
    fields,
    uniqueKeys: table.uniqueKeys
      .filter((key) => key.length > 1)
      .map(sources)
      .filter((key) => key.every((f) => kept.has(f))),
    foreignKeys: table.foreignKeys
      .filter((fk) => fk.fields.length > 1 && sources(fk.fields).every((f) => kept.has(f)))
      .map((fk) => {
        const target = sourceTable(schema, fk.refTable);
        return {
          fields: sources(fk.fields),
          refTable: target?.sourceName ?? fk.refTable,
          refFields: fk.refFields.map((name) => target?.fields.find((f) => f.name === name)?.sourceName ?? name),
          onUpdate: fk.onUpdate,
          onDelete: fk.onDelete,
        };
      }),
  };
}
