/**
 * `_table` paths of a database service: the generic `/_table/{table_name}` pair and one typed
 * pair per table (`/_table/contact`, `/_table/contact/{id}`) whose schemas reference the table's
 * record component. Operation ids follow the reference: `{verb}{Service}{Label}Records`.
 */
import type { PathItemObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas30';
import type { TableModel } from '../model/platform-model.js';
import { jsonOperation, pathParameter } from './operation-builder.js';
import { componentRef, parameterRefs } from './shared-components.js';

/** The schemas one pair of table paths uses. */
interface RecordSchemas {
  record: SchemaObject | ReferenceObject;
  records: SchemaObject | ReferenceObject;
  /** A record as a write returns it (the identifier, unless `fields` asks for more), and several in `resource`. */
  written: SchemaObject | ReferenceObject;
  writtenRecords: SchemaObject | ReferenceObject;
  /** A new (or wholly replaced) record, and the `{"resource": [...]}` of several. */
  insert: SchemaObject | ReferenceObject;
  inserts: SchemaObject | ReferenceObject;
  /** Changed fields of a record, and the `{"resource": [...]}` of several. */
  update: SchemaObject | ReferenceObject;
  updates: SchemaObject | ReferenceObject;
}

interface TablePathsInput {
  /** PascalCase service name, e.g. `Db`. */
  service: string;
  /** PascalCase label in operation ids: `Table` for the generic paths, the table's name otherwise. */
  label: string;
  /** Text naming the table in summaries. */
  tableText: string;
  schemas: RecordSchemas;
  /** Views are read-only. */
  readOnly: boolean;
}

const ID_PARAMETER = pathParameter('id', 'Identifier of the record: its primary key, or the values of the `id_field` fields.');
const WRITE_PARAMETERS = parameterRefs('fields', 'related', 'id_field', 'continue', 'rollback');
const BATCH_PARAMETERS = parameterRefs('ids', 'filter', 'fields', 'related', 'id_field', 'continue', 'rollback');
const RECORD_PARAMETERS = parameterRefs('fields', 'related', 'id_field');

/** The list path and the by-id path of one table (or of any table). */
function tablePathPair({ service, label, tableText, schemas, readOnly }: TablePathsInput): [PathItemObject, PathItemObject] {
  const id = (verb: string, plural: boolean) => `${verb}${service}${label}${plural ? 'Records' : 'Record'}`;
  const written = 'Identifiers of the affected records, or the fields asked for with `fields`.';
  const list: PathItemObject = {
    get: jsonOperation({
      operationId: id('get', true),
      summary: `Retrieve records of ${tableText}.`,
      description: 'By filter (default: all up to the limit) or by `ids`.',
      parameters: parameterRefs(
        'fields',
        'filter',
        'limit',
        'offset',
        'order',
        'include_count',
        'count_only',
        'ids',
        'id_field',
        'related',
        'group',
        'having',
      ),
      response: { description: 'The records, with `meta` when counting.', schema: schemas.records },
    }),
  };
  const one: PathItemObject = {
    parameters: [ID_PARAMETER],
    get: jsonOperation({
      operationId: id('get', false),
      summary: `Retrieve one record of ${tableText}.`,
      parameters: RECORD_PARAMETERS,
      response: { description: 'The record.', schema: schemas.record },
    }),
  };
  if (readOnly) return [list, one];
  const insertsBody = { description: 'Records: `{"resource": [...]}` or a bare array.', schema: schemas.inserts };
  const updatesBody = { description: 'Records with their identifiers: `{"resource": [...]}` or a bare array.', schema: schemas.updates };
  list.post = jsonOperation({
    operationId: id('create', true),
    summary: `Create records in ${tableText}.`,
    parameters: WRITE_PARAMETERS,
    body: insertsBody,
    response: { description: written, schema: schemas.writtenRecords },
  });
  list.put = jsonOperation({
    operationId: id('replace', true),
    summary: `Replace records of ${tableText}.`,
    description: 'Records carry their identifiers; with `ids` or `filter` the first record is applied to every match.',
    parameters: BATCH_PARAMETERS,
    body: insertsBody,
    response: { description: written, schema: schemas.writtenRecords },
  });
  list.patch = jsonOperation({
    operationId: id('update', true),
    summary: `Update fields of records of ${tableText}.`,
    description:
      'Only the given fields change. Records carry their identifiers; with `ids` or `filter` the first record is applied to every match.',
    parameters: BATCH_PARAMETERS,
    body: updatesBody,
    response: { description: written, schema: schemas.writtenRecords },
  });
  list.delete = jsonOperation({
    operationId: id('delete', true),
    summary: `Delete records of ${tableText}.`,
    description: 'By `ids`, or by `filter`: at most `limit` records, after `offset`, in `order`.',
    parameters: parameterRefs('ids', 'filter', 'limit', 'offset', 'order', 'fields', 'related', 'id_field', 'continue', 'rollback'),
    response: { description: written, schema: schemas.writtenRecords },
  });
  const replaceBody = { description: 'Fields of the record.', schema: schemas.insert };
  const updateBody = { description: 'The fields to change.', schema: schemas.update };
  one.put = jsonOperation({
    operationId: id('replace', false),
    summary: `Replace one record of ${tableText}.`,
    parameters: RECORD_PARAMETERS,
    body: replaceBody,
    response: { description: written, schema: schemas.written },
  });
  one.patch = jsonOperation({
    operationId: id('update', false),
    summary: `Update fields of one record of ${tableText}.`,
    parameters: RECORD_PARAMETERS,
    body: updateBody,
    response: { description: written, schema: schemas.written },
  });
  one.delete = jsonOperation({
    operationId: id('delete', false),
    summary: `Delete one record of ${tableText}.`,
    parameters: RECORD_PARAMETERS,
    response: { description: written, schema: schemas.written },
  });
  return [list, one];
}

/** `/_table`, `/_table/{table_name}` and `/_table/{table_name}/{id}`, for any table. */
export function genericTablePaths(service: string): Record<string, PathItemObject> {
  const [list, one] = tablePathPair({
    service,
    label: 'Table',
    tableText: 'a table',
    schemas: {
      record: componentRef('schemas', 'RecordResponse'),
      records: componentRef('schemas', 'RecordsResponse'),
      written: componentRef('schemas', 'RecordResponse'),
      writtenRecords: componentRef('schemas', 'RecordsResponse'),
      insert: componentRef('schemas', 'RecordRequest'),
      inserts: componentRef('schemas', 'RecordsRequest'),
      update: componentRef('schemas', 'RecordRequest'),
      updates: componentRef('schemas', 'RecordsRequest'),
    },
    readOnly: false,
  });
  const tableName = pathParameter('table_name', 'Name of the table.');
  return {
    '/_table': {
      get: jsonOperation({
        operationId: `get${service}Tables`,
        summary: 'List the tables.',
        parameters: parameterRefs('fields'),
        response: { description: 'The tables, as `{"resource":[{"name": ...}]}`.', schema: componentRef('schemas', 'ResourceList') },
      }),
    },
    '/_table/{table_name}': { ...list, parameters: [tableName] },
    '/_table/{table_name}/{id}': { ...one, parameters: [tableName, ID_PARAMETER] },
  };
}

/** Component names of one table's record, new record and partial update, and of the bodies of several. */
export interface TableComponents {
  record: string;
  /** A record as a write returns it: no column required. */
  written: string;
  insert: string;
  update: string;
  /** `{"resource": [insert]}`: the body of POST and PUT on the list path. */
  inserts: string;
  /** `{"resource": [update]}`: the body of PATCH on the list path. */
  updates: string;
}

/** The `{"resource": [...]}` body of several records, each of the `items` component. */
export function resourceBody(items: string): SchemaObject {
  return { type: 'object', required: ['resource'], properties: { resource: { type: 'array', items: componentRef('schemas', items) } } };
}

/** `/_table/<name>` and `/_table/<name>/{id}` of one table, typed by its components. */
export function typedTablePaths(
  service: string,
  label: string,
  table: TableModel,
  components: TableComponents,
): Record<string, PathItemObject> {
  const [record, written, insert, update, inserts, updates] = [
    components.record,
    components.written,
    components.insert,
    components.update,
    components.inserts,
    components.updates,
  ].map((name) => componentRef('schemas', name));
  const resource = (items: ReferenceObject): SchemaObject => ({
    type: 'object',
    required: ['resource'],
    properties: { resource: { type: 'array', items } },
  });
  const [list, one] = tablePathPair({
    service,
    label,
    tableText: `${table.isView ? 'view' : 'table'} '${table.name}'`,
    schemas: {
      record,
      // `count_only` answers only `meta`.
      records: { type: 'object', properties: { resource: { type: 'array', items: record }, meta: componentRef('schemas', 'Metadata') } },
      written,
      writtenRecords: resource(written),
      insert,
      // Request bodies reference components (spec, Discovery).
      inserts,
      update,
      updates,
    },
    readOnly: table.isView,
  });
  const path = `/_table/${encodeURIComponent(table.name)}`;
  // Without a primary key (views, keyless tables) no record has an identifier: GET /{id} can only
  // answer 400. Such records are read by `id_field` through the generic `/_table/{table_name}/{id}`.
  if (table.primaryKey.length === 0) return { [path]: list };
  return { [path]: list, [`${path}/{id}`]: one };
}
