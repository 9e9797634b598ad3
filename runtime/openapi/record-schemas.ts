// STUB: replaced by the emit/OpenAPI work. Signatures are the contract.
import type { TableModel } from '../model/platform-model.js';

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

/** JSON Schema of a table's record. */
export function recordJsonSchema(table: TableModel): JsonSchema {
  return { type: 'object', title: table.name, additionalProperties: true };
}

export function tableRouteSchemas(table: TableModel): TableRouteSchemas {
  const record = recordJsonSchema(table);
  return {
    record,
    list: { type: 'object', properties: { resource: { type: 'array', items: record } } },
    recordsBody: {},
    recordBody: {},
  };
}
