/**
 * JSON Schemas of table records, built from the model. One schema serves both Fastify (ajv
 * validation, fast-json-stringify serialisation) and OpenAPI 3.0, so it uses only keywords both
 * understand: `nullable` with a single `type`, `readOnly`, `maxLength`, `description`; no
 * `format` (SQL date strings such as `2024-01-31 10:00:00` are not RFC 3339) and no `default`
 * (ajv's useDefaults would fill defaults into partial updates).
 */
import type { AbstractType, FieldModel, TableModel } from '../model/platform-model.js';

export type JsonSchema = Record<string, unknown>;

/** JSON Schemas of one table's routes: request validation and fast response serialisation. */
export interface TableRouteSchemas {
  /** One record as returned by reads (all fields optional: `fields` may select some). */
  record: JsonSchema;
  /** `{resource:[record], meta?}` */
  list: JsonSchema;
  /** Body of POST/PUT/PATCH on the table: `{resource:[...]}` (or a bare array). */
  recordsBody: JsonSchema;
  /** Body of PATCH/PUT on one record: a bare object of fields. */
  recordBody: JsonSchema;
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

/** `meta` of list responses: `count` with include_count/count_only, `next` when more rows remain. */
const listMetaSchema: JsonSchema = {
  type: 'object',
  properties: { count: { type: 'integer' }, next: { type: 'integer' } },
  additionalProperties: true,
};

/**
 * Route schemas of a table. Read responses are typed for fast serialisation. Write bodies are
 * checked for their envelope only: field values are the record writer's business, because it
 * must report them per record (batch `continue`/`rollback`, `{index, message}` errors), accept
 * `{"expression": ...}` values and nested related records, and drop unknown fields, as the
 * reference does.
 */
export function tableRouteSchemas(table: TableModel): TableRouteSchemas {
  const record = recordJsonSchema(table);
  const anyRecord: JsonSchema = { type: 'object' };
  return {
    record,
    list: {
      type: 'object',
      properties: { resource: { type: 'array', items: record }, meta: listMetaSchema },
    },
    recordsBody: {
      anyOf: [
        { type: 'object', properties: { resource: { anyOf: [{ type: 'array', items: anyRecord }, anyRecord] } } },
        { type: 'array', items: anyRecord },
      ],
    },
    recordBody: anyRecord,
  };
}
