/**
 * Reads the table definitions of a `_schema` body (reference 3.2): input keys in any case,
 * aliases (`size`, `decimals`, `ref_fields`, `pk`, `fk`), `allow_null` absent = NOT NULL.
 */
import type { PorticoError } from '../../../core/errors.js';
import { type FieldModel, MODEL_FIELD_TYPES, type ReferentialAction } from '../../../model/platform-model.js';
import { schemaMessages } from './schema-messages.js';

export interface FieldDefinition {
  name: string;
  /** An abstract type (`id`, `string`, ...) or, when it is none, a native SQL type used verbatim. */
  type: string;
  /** True when `type` is a native SQL type (from `db_type`, or read from the database's catalog). */
  native: boolean;
  length: number | null;
  precision: number | null;
  scale: number | null;
  /** Absent: no DEFAULT clause. */
  default: FieldModel['default'] | undefined;
  allowNull: boolean;
  autoIncrement: boolean;
  isPrimaryKey: boolean;
  isUnique: boolean;
  isIndex: boolean;
  refTable: string | null;
  refField: string | null;
  refOnUpdate: ReferentialAction | null;
  refOnDelete: ReferentialAction | null;
  fixedLength: boolean;
  supportsMultibyte: boolean;
}

/** A key over several fields, kept when a table is rebuilt (single-field keys live on the fields). */
export interface CompositeForeignKey {
  fields: string[];
  refTable: string;
  refFields: string[];
  onUpdate: ReferentialAction;
  onDelete: ReferentialAction;
}

export interface TableDefinition {
  name: string;
  label: string | null;
  description: string | null;
  fields: FieldDefinition[];
  /** Unique keys over several fields (column names). */
  uniqueKeys?: string[][];
  /** Foreign keys over several fields (column names). */
  foreignKeys?: CompositeForeignKey[];
}

/** The reference platform's type vocabulary (DbSimpleTypes): the model's field types and the wider names the schema API takes. */
export const ABSTRACT_TYPES: ReadonlySet<string> = new Set([
  ...MODEL_FIELD_TYPES,
  'mediumid',
  'smallid',
  'mediumtext',
  'longtext',
  'tinyint',
  'smallint',
  'mediumint',
  'timetz',
  'datetimetz',
  'timestamptz',
  'jsonb',
  'object',
]);

const TYPE_ALIASES: Record<string, string> = { pk: 'id', fk: 'reference' };
// A native type written by a client: words, optional (n) or (p,s), optional trailing words, optional [] (arrays).
const NATIVE_TYPE = /^[a-z][a-z0-9_]*( [a-z][a-z0-9_]*)*\s*(\(\s*\d+\s*(,\s*\d+\s*)?\))?( [a-z][a-z0-9_ ]*)?(\[\])?$/i;
const ACTIONS = new Set(['no action', 'restrict', 'cascade', 'set null', 'set default']);

/** The table records of a schema body: an array, `{resource:[...]}`, `{table:[...]}` or `{service:[{table:[...]}]}`. */
export function schemaBodyTables(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body === null || typeof body !== 'object') throw schemaMessages.noSchemaData.error('create');
  const object = body as Record<string, unknown>;
  if (Array.isArray(object.resource)) return object.resource;
  if (Array.isArray(object.table)) return object.table;
  if (Array.isArray(object.service)) {
    return object.service.flatMap((service) =>
      schemaBodyTables(typeof service === 'object' && service !== null ? { table: (service as Record<string, unknown>).table ?? [] } : []),
    );
  }
  throw schemaMessages.noSchemaData.error('create');
}

/** An input object with its keys lower-cased (definitions take keys in any case). */
export function lowerKeys(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.toLowerCase(), v]));
}

/** `missing`: the error of a name not given. */
function identifier(value: unknown, missing: () => PorticoError, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw missing();
  // A name given (it was refused as 'no name element', as if missing).
  if (value.includes('.') || value !== value.trim()) throw schemaMessages.invalidName.error(what, value);
  return value;
}

/** The largest length, precision or scale taken: more than any database holds (SQLite took 1e300 and wrote varchar(1e+300)). */
const MAX_SIZE = 2_147_483_647;

/** `field`: the definition's field and table names, as its refusals name them. */
type FieldOf = [name: string, table: string];

function integerOption(value: unknown, field: FieldOf, key: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw schemaMessages.sizeNotInteger.error(key, ...field);
  if (n > MAX_SIZE) throw schemaMessages.sizeTooLarge.error(key, ...field, MAX_SIZE);
  return n;
}

function bool(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === 'string' && ['true', '1', 'yes', 'on'].includes(value.toLowerCase()));
}

function action(value: unknown, field: FieldOf, key: string): ReferentialAction | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value).trim().toLowerCase();
  if (!ACTIONS.has(text)) throw schemaMessages.referentialActionInvalid.error(key, ...field);
  return text as ReferentialAction;
}

function defaultValue(value: unknown, field: FieldOf): FieldModel['default'] | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  const expression = lowerKeys(value).expression;
  // Defaults are written into DDL text, so an expression must be one plain SQL expression.
  if (typeof expression === 'string' && expression.trim() !== '' && !/;|--|\/\*/.test(expression)) return { expression: expression.trim() };
  throw schemaMessages.defaultShapeInvalid.error(...field);
}

/**
 * One field definition. `trustedType` is set when the type was read from the database catalog
 * (a field being changed keeps its type), which needs no check against the native-type pattern;
 * `existingName` when the field is one the database has.
 */
export function parseField(raw: unknown, table: string, index: number, trustedType = false, existingName = trustedType): FieldDefinition {
  const input = lowerKeys(raw);
  // A field the database has keeps its name, whatever it is ('a.b': a SQLite rebuild of its table failed).
  const name =
    existingName && typeof input.name === 'string' && input.name !== ''
      ? input.name
      : identifier(input.name, () => schemaMessages.fieldNameMissing.error(index, table), `field ${index} of table '${table}'`);
  const where: FieldOf = [name, table];
  const declared = typeof input.type === 'string' && input.type.trim() !== '' ? input.type.trim() : null;
  const dbType = typeof input.db_type === 'string' && input.db_type.trim() !== '' ? input.db_type.trim() : null;
  const abstract = declared === null ? null : (TYPE_ALIASES[declared.toLowerCase()] ?? declared.toLowerCase());
  // A client's `type` is one of the vocabulary; native types go in `db_type` (the catalog's own are trusted).
  if (abstract !== null && !ABSTRACT_TYPES.has(abstract) && !trustedType) {
    throw schemaMessages.typeNotAbstract.error(declared ?? '', name, table, [...ABSTRACT_TYPES]);
  }
  const native = abstract === null || !ABSTRACT_TYPES.has(abstract);
  const type = native ? (dbType ?? declared) : abstract;
  if (type === null) throw schemaMessages.typeMissing.error(name, table);
  if (native && !trustedType && !NATIVE_TYPE.test(type)) throw schemaMessages.nativeTypeInvalid.error(type, name, table);
  const refTable = typeof input.ref_table === 'string' && input.ref_table !== '' ? input.ref_table : null;
  const refFieldInput = input.ref_field ?? input.ref_fields;
  const refField = typeof refFieldInput === 'string' && refFieldInput !== '' ? refFieldInput.split(',')[0].trim() : null;
  if (type === 'reference' && refTable === null) throw schemaMessages.referenceWithoutTable.error(name, table);
  const isId = type === 'id' || type === 'bigid' || type === 'mediumid' || type === 'smallid';
  const given = integerOption(input.length ?? input.size, where, 'length');
  // A client's length 0 is none given, so a string is a varchar(255) (the reference's `length or 255`); the catalog's stays as read.
  const length = given === 0 && !trustedType ? null : given;
  const precision = integerOption(input.precision, where, 'precision');
  const scale = integerOption(input.scale ?? input.decimals, where, 'scale');
  // MySQL refused this in its own words; PostgreSQL and SQLite took it.
  if (precision !== null && scale !== null && scale > precision) {
    throw schemaMessages.scaleBeyondPrecision.error(name, table, precision);
  }
  return {
    name,
    type,
    native,
    length,
    precision,
    scale,
    default: defaultValue(input.default, where),
    allowNull: !isId && bool(input.allow_null),
    autoIncrement: isId || bool(input.auto_increment),
    isPrimaryKey: isId || bool(input.is_primary_key),
    isUnique: bool(input.is_unique),
    isIndex: bool(input.is_index),
    refTable,
    refField,
    refOnUpdate: action(input.ref_on_update, where, 'ref_on_update'),
    refOnDelete: action(input.ref_on_delete, where, 'ref_on_delete'),
    fixedLength: bool(input.fixed_length),
    supportsMultibyte: bool(input.supports_multibyte),
  };
}

/** Validates and normalises table definitions; errors are 400s naming the table and field. */
export function parseTableDefinitions(records: readonly unknown[]): TableDefinition[] {
  if (records.length === 0) throw schemaMessages.noSchemaData.error('create');
  return records.map((raw) => {
    const input = lowerKeys(raw);
    const name = identifier(input.name, () => schemaMessages.tableNameMissing.error(), 'a table');
    if (!Array.isArray(input.field) || input.field.length === 0) throw schemaMessages.tableWithoutFields.error(name);
    const fields = input.field.map((field, index) => parseField(field, name, index));
    const duplicate = fields.find(
      (field, index) => fields.findIndex((other) => other.name.toLowerCase() === field.name.toLowerCase()) !== index,
    );
    if (duplicate) throw schemaMessages.fieldExists.error(duplicate.name, name);
    // A table numbers its records with one field: with two, SQLite and MySQL made a composite key
    // that numbered neither, and no record could be created without giving both.
    const numbered = fields.filter((field) => field.autoIncrement && field.isPrimaryKey);
    if (numbered.length > 1)
      throw schemaMessages.numberedKeysTwice.error(
        name,
        numbered.map((f) => f.name),
      );
    return {
      name,
      label: typeof input.label === 'string' ? input.label : null,
      description: typeof input.description === 'string' ? input.description : null,
      fields,
    };
  });
}
