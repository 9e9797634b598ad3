/**
 * JSON Schemas of table records, built from the model. One schema serves both Fastify (ajv
 * validation, fast-json-stringify serialisation) and OpenAPI 3.0, so it uses only keywords both
 * understand: `nullable` with a single `type`, `readOnly`, `maxLength`, `description`; no
 * `format` (SQL date strings such as `2024-01-31 10:00:00` are not RFC 3339) and no `default`
 * (ajv's useDefaults would fill defaults into partial updates).
 */
import type { AbstractType, FieldModel, TableModel } from '../model/platform-model.js';

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

/** Types the server fills in itself (reference: timestamps and user ids on create/update). */
const SERVER_FILLED = new Set<AbstractType>(['timestamp_on_create', 'timestamp_on_update', 'user_id_on_create', 'user_id_on_update']);

/** JSON Schema of one column's value. */
export function fieldJsonSchema(field: FieldModel): JsonSchema {
  const schema: JsonSchema = { ...JSON_TYPE[field.type] };
  if (field.dbType !== '') schema.description = field.dbType;
  if (field.type === 'string' && field.length !== null && field.length > 0) schema.maxLength = field.length;
  // `nullable` needs a `type` (ajv refuses it alone); untyped json already admits null.
  if (field.allowNull && schema.type !== undefined) schema.nullable = true;
  // An enumerated column's values (null among them when it may be null, as OpenAPI 3.0 wants).
  if (field.picklist !== undefined && field.picklist.length > 0) schema.enum = field.allowNull ? [...field.picklist, null] : [...field.picklist];
  if (field.autoIncrement || SERVER_FILLED.has(field.type)) schema.readOnly = true;
  return schema;
}

/**
 * JSON Schema of a table's record as reads return it: every column typed, none required
 * (`fields` selects some), other members allowed (`related` embeds related records under
 * `{table}_by_{field}`, `group` adds aggregate aliases).
 */
export function recordJsonSchema(table: TableModel): JsonSchema {
  return {
    type: 'object',
    title: table.name,
    properties: Object.fromEntries(table.fields.map((field) => [field.name, fieldJsonSchema(field)])),
    additionalProperties: true,
  };
}

/**
 * Route schemas of a table: a record as reads by id return it, serialised by a compiled
 * fast-json-stringify function. Lists are left to JSON.stringify: fast-json-stringify builds a
 * long list as a rope of small strings that costs more to flatten when it is written than
 * JSON.stringify takes (measured on 100 address-book rows: ~105 against ~70 µs).
 */
export function tableRouteSchemas(table: TableModel): TableRouteSchemas {
  return { record: recordJsonSchema(table) };
}
