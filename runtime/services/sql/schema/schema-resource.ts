/** `_schema[/{table}[/_field|_related[/{name}]]]` reads, and the table listing `_table` shares. */
import { wrapList } from '../../../core/envelope.js';
import { parseCommonParams } from '../../../core/query-params.js';
import type { ServiceCall, ServiceResult } from '../../service-kind.js';
import { asListOption, fieldsOption } from '../request-options.js';
import { cleanListing, describeField, describeRelation, describeTable, tableSummary } from './table-description.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { coreMessages } from '../../../core/messages.js';
import { schemaMessages } from './schema-messages.js';

/** `GET _table` and `GET _schema`: the tables as reference 1.4 lists them. */
export function listTables(ctx: SqlServiceContext, call: ServiceCall): ServiceResult {
  const entries = ctx.schema.current.tables.map(tableSummary);
  return { body: wrapList(cleanListing(entries, fieldsOption(call.query, call.body), asListOption(call.query))) };
}

/** Serves GET on `_schema` and below; `rest` are the segments after `_schema`. */
export function readSchema(ctx: SqlServiceContext, call: ServiceCall, rest: string[]): ServiceResult {
  const schema = ctx.schema.current;
  if (rest.length === 0) {
    const ids = parseCommonParams(call.query, call.body).ids;
    if (ids === null) return listTables(ctx, call);
    return { body: wrapList(ids.map((name) => describeTable(schema, ctx.schema.table(name)))) };
  }
  const table = ctx.schema.table(rest[0]);
  const [, part, name, ...more] = rest;
  if (more.length > 0) throw coreMessages.resourceNotFound.error(`_schema/${rest.join('/')}`, ctx.serviceName);
  if (part === undefined) return { body: describeTable(schema, table) };
  const lower = (name ?? part).toLowerCase();
  if (part === '_related') {
    if (name === undefined) return { body: wrapList(table.relations.map((r) => describeRelation(schema, table, r))) };
    const relation = table.relations.find((r) => r.name.toLowerCase() === lower);
    if (relation === undefined) throw schemaMessages.partNotFound.error('Relationship', name, table.name);
    return { body: describeRelation(schema, table, relation) };
  }
  if (part === '_field' && name === undefined) return { body: wrapList(table.fields.map((f) => describeField(table, f))) };
  // `_schema/{table}/{field}` is the reference's older form of `_field/{field}`.
  if (part !== '_field' && name !== undefined) throw schemaMessages.invalidSchemaPath.error('describe');
  const field = table.fields.find((f) => f.name.toLowerCase() === lower);
  if (field === undefined) throw schemaMessages.partNotFound.error('Field', name ?? part, table.name);
  return { body: describeField(table, field) };
}
