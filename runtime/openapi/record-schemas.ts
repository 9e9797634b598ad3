/**
 * JSON Schemas of table records, built from the model. One schema serves both Fastify (ajv
 * validation, fast-json-stringify serialisation) and OpenAPI 3.0, so it uses only keywords both
 * understand: `nullable` with a single `type` (or on each `anyOf` branch), `readOnly`, `maxLength`,
 * `description`, `required` on documented records only; no
 * `format` (SQL date strings such as `2024-01-31 10:00:00` are not RFC 3339) and no `default`
 * (ajv's useDefaults would fill defaults into partial updates).
 */
import { isBigInteger, isGenerated, isRequiredOnCreate, isServerFilled, isWideDecimal } from '../model/field-rules.js';
import type { AbstractType, FieldModel, SqlDialect, TableModel } from '../model/platform-model.js';
import { NUMBER_TEXT } from '../services/sql/query/value-codec.js';
import { nativeTypeInfo } from '../services/sql/schema/native-types.js';

export type JsonSchema = Record<string, unknown>;

/** JSON Schemas of one table's routes, for fast response serialisation. */
export interface TableRouteSchemas {
  /** One record as returned by reads (all fields optional: `fields` may select some). */
  record: JsonSchema;
}

const JSON_TYPE: Record<AbstractType, JsonSchema> = {
  id: { type: 'integer' },
  bigid: { type: 'integer' },
  reference: { type: 'integer' },
  user_id: { type: 'integer' },
  user_id_on_create: { type: 'integer' },
  user_id_on_update: { type: 'integer' },
  integer: { type: 'integer' },
  bigint: { type: 'integer' },
  boolean: { type: 'boolean' },
  float: { type: 'number' },
  double: { type: 'number' },
  decimal: { type: 'number' },
  // PostgreSQL returns money formatted (`$1,234.50`), which is no JSON number.
  money: { type: 'string' },
  string: { type: 'string' },
  text: { type: 'string' },
  uuid: { type: 'string' },
  date: { type: 'string' },
  time: { type: 'string' },
  datetime: { type: 'string' },
  timestamp: { type: 'string' },
  timestamp_on_create: { type: 'string' },
  timestamp_on_update: { type: 'string' },
  // Binary values travel base64-encoded.
  binary: { type: 'string' },
  json: {},
  array: { type: 'array', items: {} },
};

/**
 * A sub-array of a multi-dimensional array (`bigint[][]` reads `[[1,2],[3,4]]`: PostgreSQL types
 * `bigint[]` and `bigint[][]` alike, so any array column may hold one), its elements as JSON.
 */
const SUB_ARRAY: JsonSchema = { type: 'array', items: {} };

/**
 * JSON Schema of an array column's element: a PostgreSQL `text[]` holds strings, or nulls (an
 * element may always be NULL), or sub-arrays (read as lists read them, never refused).
 */
function elementSchema(field: FieldModel, written: boolean, dialect: SqlDialect | undefined): JsonSchema {
  const element = field.dbType.trim().replace(/\[\]$/, '');
  if (element === field.dbType.trim()) return {};
  const info = nativeTypeInfo(element);
  if (info.type === 'array') return {};
  const value = valueSchema(
    { ...field, type: info.type, dbType: element, length: info.length, precision: info.precision, picklist: undefined },
    written,
    dialect,
  );
  return nullable({ anyOf: [...branches(value), SUB_ARRAY] });
}

/** The alternatives a value schema admits: its anyOf's branches, or itself. */
function branches(schema: JsonSchema): JsonSchema[] {
  return Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
}

/**
 * What PostgreSQL's float and numeric columns read where JSON has no number (NaN, ±Infinity): the
 * texts PostgreSQL's to_json gives (postgres-dialect.ts `float`, value-codec decodeDecimal).
 * Never written: the encoders refuse them.
 */
const NON_FINITE: JsonSchema = { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] };

/** Whether a column's reads may hold NaN or ±Infinity (MySQL has none; SQLite reads NaN as NULL). */
function readsNonFinite(field: FieldModel, dialect: SqlDialect | undefined): boolean {
  return dialect === 'postgres' && (field.type === 'float' || field.type === 'double' || field.type === 'decimal');
}

/**
 * The schema admitting null too. `nullable` needs a `type` (ajv refuses it alone): with anyOf each
 * branch carries it; an untyped schema (json) already admits null.
 */
function nullable(schema: JsonSchema): JsonSchema {
  if (schema.type !== undefined) schema.nullable = true;
  if (Array.isArray(schema.anyOf)) schema.anyOf = (schema.anyOf as JsonSchema[]).map((branch) => ({ ...branch, nullable: true }));
  return schema;
}

/** A wide decimal's text as reads return it (value-codec decodeWideDecimal): plain digits, no exponent. */
const DECIMAL_DIGITS = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * The type keywords of a column's non-null value; `written`, as a request body may send it. A
 * decimal wider than a double is a number or its exact text both ways (what the server keeps and
 * reads back, and what the generated types say: generator/emit/create-types-file.ts). Read from a
 * `dialect` whose floats hold NaN and ±Infinity, a float or decimal may be their texts.
 */
function valueSchema(field: FieldModel, written: boolean, dialect: SqlDialect | undefined): JsonSchema {
  const schema = numberOrTextSchema(field, written, dialect);
  return !written && readsNonFinite(field, dialect) ? { anyOf: [...branches(schema), { ...NON_FINITE }] } : schema;
}

function numberOrTextSchema(field: FieldModel, written: boolean, dialect: SqlDialect | undefined): JsonSchema {
  if (isBigInteger(field)) return { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] };
  if (isWideDecimal(field))
    return { anyOf: [{ type: 'number' }, { type: 'string', pattern: (written ? NUMBER_TEXT : DECIMAL_DIGITS).source }] };
  if (field.type === 'array') return { type: 'array', items: elementSchema(field, written, dialect) };
  return { ...JSON_TYPE[field.type] };
}

/** What a column's description adds to its database type: how its values travel when JSON numbers would lose digits. */
function descriptionOf(field: FieldModel, written: boolean, dialect: SqlDialect | undefined): string {
  const nonFinite = !written && readsNonFinite(field, dialect) ? "; 'NaN', 'Infinity' or '-Infinity' when it holds one" : '';
  if (isBigInteger(field)) return `${field.dbType}: a number, or a string beyond 2^53`;
  if (isWideDecimal(field)) return `${field.dbType}: a number, or a string of the exact digits${nonFinite}`;
  return nonFinite === '' ? field.dbType : `${field.dbType}: a number${nonFinite}`;
}

/**
 * JSON Schema of one column's value; `written`, as a request body may send it; `dialect`, the
 * database's (what reads may hold beyond the abstract type: PostgreSQL's NaN).
 */
export function fieldJsonSchema(field: FieldModel, written = false, dialect?: SqlDialect): JsonSchema {
  const schema = valueSchema(field, written, dialect);
  if (field.dbType !== '') schema.description = descriptionOf(field, written, dialect);
  if (field.type === 'string' && field.length !== null && field.length > 0) schema.maxLength = field.length;
  if (field.allowNull) nullable(schema);
  // An enumerated column's values (null among them when it may be null, as OpenAPI 3.0 wants).
  if (field.picklist !== undefined && field.picklist.length > 0)
    schema.enum = field.allowNull ? [...field.picklist, null] : [...field.picklist];
  if (isGenerated(field) || isServerFilled(field)) schema.readOnly = true;
  return schema;
}

/**
 * JSON Schema of a table's record as reads return it: every column typed, other members allowed
 * (`related` embeds related records under `{table}_by_{field}`, `group` adds aggregate aliases).
 * With `required`, as documented (every column is present in a full record); without, as the
 * route serialiser takes it (`fields` may select some, and fast-json-stringify refuses a
 * record that lacks a required member).
 */
export function recordJsonSchema(table: TableModel, options: { required?: boolean; dialect?: SqlDialect } = {}): JsonSchema {
  return {
    type: 'object',
    title: table.name,
    properties: Object.fromEntries(table.fields.map((field) => [field.name, fieldJsonSchema(field, false, options.dialect)])),
    ...(options.required && table.fields.length > 0 ? { required: table.fields.map((field) => field.name) } : {}),
    additionalProperties: true,
  };
}

/** Columns a client may write: not those the server fills in (it ignores values sent for them). */
function writableFields(table: TableModel): FieldModel[] {
  return table.fields.filter((field) => !isServerFilled(field));
}

/** A writable column's schema in a request: what the server fills is no longer read-only here. */
function writableSchema(field: FieldModel): JsonSchema {
  const { readOnly: _readOnly, ...schema } = fieldJsonSchema(field, true);
  return schema;
}

/** JSON Schema of a new record: the columns a create must give are required; related records may be nested. */
export function insertJsonSchema(table: TableModel): JsonSchema {
  const fields = writableFields(table);
  const required = fields.filter(isRequiredOnCreate).map((field) => field.name);
  return {
    type: 'object',
    title: `${table.name} (create)`,
    properties: Object.fromEntries(fields.map((field) => [field.name, writableSchema(field)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: true,
  };
}

/** JSON Schema of a partial update: any writable column, none required. */
export function updateJsonSchema(table: TableModel): JsonSchema {
  return {
    type: 'object',
    title: `${table.name} (update)`,
    properties: Object.fromEntries(writableFields(table).map((field) => [field.name, writableSchema(field)])),
    additionalProperties: true,
  };
}

/**
 * Route schemas of a table: a record as reads by id return it, serialised by a compiled
 * fast-json-stringify function. Lists are left to JSON.stringify: fast-json-stringify builds a
 * long list as a rope of small strings that costs more to flatten when it is written than
 * JSON.stringify takes (measured on 100 address-book rows: ~105 against ~70 µs).
 */
export function tableRouteSchemas(table: TableModel, dialect: SqlDialect): TableRouteSchemas {
  return { record: recordJsonSchema(table, { dialect }) };
}
