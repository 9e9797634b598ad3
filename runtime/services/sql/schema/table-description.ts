/**
 * Table descriptions as `_schema` returns them (reference 3.3, without `alias` and `access`) and
 * the table descriptors of `_table`/`_schema` listings (reference 1.4).
 */
import type { DatabaseSchema, FieldModel, ForeignKeyModel, RelationModel, TableModel } from '../../../model/platform-model.js';
import { humanize, pluralize } from './display-names.js';

/** A listing entry with every descriptor key (`fields=*`). */
export function tableSummary(table: TableModel): Record<string, unknown> {
  return {
    name: table.name,
    label: table.label,
    description: table.description,
    native: null,
    plural: table.plural ?? pluralize(table.label),
    is_view: table.isView,
  };
}

function action(fk: ForeignKeyModel | undefined, which: 'onUpdate' | 'onDelete'): string | null {
  return fk === undefined ? null : fk[which].toUpperCase();
}

/** One field, keys in the reference's order. */
export function describeField(table: TableModel, field: FieldModel): Record<string, unknown> {
  const fk = table.foreignKeys.find((key) => key.fields.includes(field.name));
  const dbType = field.dbType;
  return {
    name: field.name,
    label: field.label,
    description: field.description ?? null,
    native: null,
    type: field.type,
    db_type: dbType,
    length: field.length,
    precision: field.precision,
    scale: field.scale,
    default: field.default,
    required: !field.allowNull && field.default === null && !field.autoIncrement,
    allow_null: field.allowNull,
    fixed_length: /^n?char\b/.test(dbType),
    supports_multibyte: /^n(var)?char\b/.test(dbType),
    auto_increment: field.autoIncrement,
    is_primary_key: field.isPrimaryKey,
    is_unique: field.isUnique,
    // Only keys are known to be indexed: the catalog's other indexes are not part of the model.
    is_index: field.isPrimaryKey || field.isUnique,
    is_foreign_key: field.isForeignKey,
    ref_table: field.refTable,
    ref_field: field.refField,
    ref_on_update: action(fk, 'onUpdate'),
    ref_on_delete: action(fk, 'onDelete'),
    picklist: field.picklist ?? null,
    validation: null,
    db_function: null,
    is_virtual: false,
    is_aggregate: false,
  };
}

function relationKey(schema: DatabaseSchema, table: TableModel, relation: RelationModel): ForeignKeyModel | undefined {
  if (relation.type === 'belongs_to')
    return table.foreignKeys.find((fk) => fk.fields.join() === relation.field.join() && fk.refTable === relation.refTable);
  if (relation.type === 'many_many') return undefined;
  const other = schema.tables.find((t) => t.name === relation.refTable);
  return other?.foreignKeys.find((fk) => fk.fields.join() === relation.refField.join() && fk.refTable === table.name);
}

/** One relationship, keys in the reference's order. */
export function describeRelation(schema: DatabaseSchema, table: TableModel, relation: RelationModel): Record<string, unknown> {
  const fk = relationKey(schema, table, relation);
  return {
    name: relation.name,
    label: humanize(relation.name),
    description: null,
    native: null,
    type: relation.type,
    field: relation.field.join(','),
    is_virtual: false,
    ref_service_id: null,
    ref_table: relation.refTable,
    ref_field: relation.refField.join(','),
    ref_on_update: action(fk, 'onUpdate'),
    ref_on_delete: action(fk, 'onDelete'),
    junction_service_id: null,
    junction_table: relation.junctionTable,
    junction_field: relation.junctionField,
    junction_ref_field: relation.junctionRefField,
    always_fetch: false,
    flatten: false,
    flatten_drop_prefix: false,
  };
}

/** `GET _schema/{table}`. */
export function describeTable(schema: DatabaseSchema, table: TableModel): Record<string, unknown> {
  return {
    ...tableSummary(table),
    primary_key: table.primaryKey,
    name_field: null,
    field: table.fields.map((field) => describeField(table, field)),
    related: table.relations.map((relation) => describeRelation(schema, table, relation)),
  };
}

/**
 * A listing as reference 1.4 cleans it: names only by default, every key for `*`, the named keys
 * otherwise (unknown ones ignored, as the reference does); `as_list` gives the bare names. An entry
 * having none of the named keys gives its name, as with no `fields`: the reference's empty entries
 * say nothing a client can use.
 */
export function cleanListing(entries: Record<string, unknown>[], fields: readonly string[] | '*' | null, asList: boolean): unknown[] {
  if (asList) return entries.map((entry) => entry.name);
  if (fields === '*') return entries;
  const keys = fields ?? ['name'];
  return entries.map((entry) => {
    const known = keys.filter((key) => key in entry);
    return known.length === 0 ? { name: entry.name } : Object.fromEntries(known.map((key) => [key, entry[key]]));
  });
}
