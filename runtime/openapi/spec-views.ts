/**
 * The options of GET /{service}/_spec (reference 8.3), which the reference's MCP clients send to
 * keep an agent's context small: `resource_name` keeps the paths of one resource, `tables=true`
 * adds `x-dreamfactory-resources` (a database's tables, under the name those clients read),
 * `compact=true` answers the reference's summary (`endpoints` instead of `paths` and schemas), and
 * `format=yaml` (or an Accept naming YAML) answers YAML, and `model=true` a condensed data model
 * instead of the document. Without options the document is unchanged. `refresh=true` needs nothing:
 * the document is built anew from the service's current catalog for every request.
 */
import Negotiator from 'negotiator';
import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject } from 'openapi3-ts/oas30';
import { pick, type RawQuery, toBool } from '../core/query-params.js';
import type { FieldModel, RelationModel, TableModel } from '../model/platform-model.js';
import type { ServiceResult } from '../services/service-kind.js';
import { decodePercent } from '../core/percent-decoding.js';

const VERBS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * One service's document as the query asks for it (`model=true` is the docs service's: dataModel
 * below); `tables`: the names of a database's tables, when `tables=true` asks for them.
 */
export function specView(document: OpenAPIObject, query: RawQuery, tables: readonly string[] = []): Record<string, unknown> {
  let view: Record<string, unknown> = { ...document };
  const resource = pick(query, 'resource_name');
  if (resource) view = { ...document, paths: pathsOfResource(document, resource) };
  // Services without tables have none to list (the reference adds it for databases only).
  if (toBool(pick(query, 'tables')) && tables.length > 0) {
    view = {
      ...view,
      'x-dreamfactory-resources': {
        type: 'database',
        tables: [...tables].sort(),
        count: tables.length,
        note: 'Use these names with /_table/{table_name} endpoints',
      },
    };
  }
  if (toBool(pick(query, 'compact'))) view = compact(view as unknown as OpenAPIObject);
  return view;
}

/** A `_spec` answer (the document, its views or the data model) in the format asked for: JSON, or YAML. */
export async function specAnswer(view: Record<string, unknown>, query: RawQuery, accept: string | undefined): Promise<ServiceResult> {
  if (!wantsYaml(pick(query, 'format'), accept)) return { body: view };
  // Loaded when asked for: the YAML library is no part of a server's start.
  const { stringify } = await import('yaml');
  return { body: stringify(view, { aliasDuplicateObjects: false }), headers: { 'content-type': 'application/x-yaml; charset=utf-8' } };
}

const YAML_TYPE = /ya?ml/i;
const JSON_TYPE = /json/i;

/**
 * `format` decides when it names yaml, yml or json; else the Accept header, when its most preferred
 * acceptable type is a YAML one (negotiator reads its q-values: `q=0` or a `q` that is no number
 * means "not this one"; among types as preferred, the first listed comes first). An Accept naming JSON too
 * keeps JSON (clients that list every type they read get what they always got).
 */
function wantsYaml(format: string | undefined, accept: string | undefined): boolean {
  const asked = format?.trim().toLowerCase();
  if (asked === 'yaml' || asked === 'yml') return true;
  if (asked === 'json' || accept === undefined || !YAML_TYPE.test(accept)) return false;
  const preferred = new Negotiator({ headers: { accept } }).mediaTypes();
  return preferred.length > 0 && YAML_TYPE.test(preferred[0]) && !preferred.some((type) => JSON_TYPE.test(type));
}

/** The paths naming the resource as a segment (`/_table/city`, `/_table/city/{id}`), else any path containing it. */
function pathsOfResource(document: OpenAPIObject, resource: string): OpenAPIObject['paths'] {
  const wanted = resource.toLowerCase();
  const entries = Object.entries(document.paths ?? {});
  const segment = entries.filter(([path]) => decodedPath(path).toLowerCase().split('/').includes(wanted));
  const chosen = segment.length > 0 ? segment : entries.filter(([path]) => decodedPath(path).toLowerCase().includes(wanted));
  return Object.fromEntries(chosen);
}

/** A path as its names read (`/_table/a%20b` -> `/_table/a b`); one with a malformed escape as written. */
function decodedPath(path: string): string {
  return decodePercent(path) ?? path;
}

interface CompactEndpoint {
  path: string;
  method: string;
  summary?: string;
  operationId?: string;
  parameters?: string[];
  has_request_body?: true;
}

/** The reference's compact form: each operation as path, method, summary, operationId and its parameters in one line each. */
function compact(document: OpenAPIObject): Record<string, unknown> {
  const endpoints: CompactEndpoint[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {}) as Array<[string, PathItemObject]>) {
    const shared = (item.parameters ?? []) as ParameterObject[];
    for (const verb of VERBS) {
      const operation = item[verb] as OperationObject | undefined;
      if (!operation) continue;
      const endpoint: CompactEndpoint = { path, method: verb.toUpperCase() };
      if (operation.summary) endpoint.summary = operation.summary;
      if (operation.operationId) endpoint.operationId = operation.operationId;
      const parameters = [...shared, ...((operation.parameters ?? []) as ParameterObject[])]
        .map((parameter) => resolveParameter(document, parameter))
        .filter((parameter): parameter is ParameterObject => parameter !== undefined)
        .map(parameterLine);
      if (parameters.length > 0) endpoint.parameters = parameters;
      if (operation.requestBody) endpoint.has_request_body = true;
      endpoints.push(endpoint);
    }
  }
  const view = document as unknown as Record<string, unknown>;
  return {
    openapi: document.openapi,
    info: document.info,
    servers: document.servers,
    security: document.security,
    ...(view['x-dreamfactory-resources'] !== undefined ? { 'x-dreamfactory-resources': view['x-dreamfactory-resources'] } : {}),
    endpoints,
    endpoint_count: endpoints.length,
  };
}

/** A parameter or the component it references (`#/components/parameters/...`). */
function resolveParameter(document: OpenAPIObject, parameter: ParameterObject | { $ref: string }): ParameterObject | undefined {
  if (!('$ref' in parameter)) return parameter;
  const name = parameter.$ref.replace('#/components/parameters/', '');
  const target = document.components?.parameters?.[name];
  return target && !('$ref' in target) ? target : undefined;
}

/** `name (in[, required][, type][: a|b])`, as the reference writes them. */
function parameterLine(parameter: ParameterObject): string {
  const schema = (parameter.schema ?? {}) as { type?: string; enum?: unknown[] };
  let line = `${parameter.name} (${parameter.in ?? 'query'}`;
  if (parameter.required) line += ', required';
  if (schema.type) line += `, ${schema.type}`;
  if (schema.enum && schema.enum.length > 0) line += `: ${schema.enum.join('|')}`;
  return `${line})`;
}

interface ModelColumn {
  name: string;
  type: string;
  pk?: true;
  required?: true;
  fk?: string;
}

interface ModelRelation {
  name: string;
  type: string;
  field: string;
  ref_table: string;
  ref_field: string;
  junction_table: string | null;
  usage: string;
}

/**
 * `model=true`: the reference's condensed data model (tables, their columns and relationships, and
 * the hierarchies and junction tables among them); `missing` says why there are none when `tables`
 * is undefined. Without its row counts, sample rows and distinct
 * values: those read table data past the caller's row filters, which the document itself never shows.
 */
export function dataModel(
  service: string,
  tables: readonly TableModel[] | undefined,
  missing = 'This service does not support schema introspection.',
): Record<string, unknown> {
  const model = {
    service,
    description: 'Condensed data model. Shows all tables, their columns with types, and foreign key references.',
    tables: {} as Record<string, { columns: ModelColumn[] }>,
    relationships: {} as Record<string, ModelRelation[]>,
    patterns: {} as Record<string, unknown[]>,
  };
  if (tables === undefined) return { ...model, tables: [], relationships: [], patterns: [], error: missing };
  for (const table of tables) {
    model.tables[table.name] = { columns: table.fields.map(modelColumn) };
    if (table.relations.length > 0) model.relationships[table.name] = table.relations.map(modelRelation);
  }
  model.patterns = relationshipPatterns(model.relationships);
  return model;
}

function modelColumn(field: FieldModel): ModelColumn {
  const column: ModelColumn = { name: field.name, type: field.type };
  if (field.isPrimaryKey) column.pk = true;
  if (!field.allowNull) column.required = true;
  if (field.refTable) column.fk = `${field.refTable}.${field.refField ?? `${field.refTable}_id`}`;
  return column;
}

function modelRelation(relation: RelationModel): ModelRelation {
  return {
    name: relation.name,
    type: relation.type,
    field: relation.field.join(','),
    ref_table: relation.refTable,
    ref_field: relation.refField.join(','),
    junction_table: relation.junctionTable,
    usage: `related=${relation.name}`,
  };
}

/** Self-referencing tables (trees) and many-to-many junctions, as the reference points them out. */
function relationshipPatterns(relationships: Record<string, ModelRelation[]>): Record<string, unknown[]> {
  const hierarchies: unknown[] = [];
  const junctions: unknown[] = [];
  for (const [table, relations] of Object.entries(relationships)) {
    const self = relations.find((relation) => relation.ref_table === table);
    if (self) {
      const children = self.type === 'has_many';
      const child = children ? self.ref_field : self.field;
      const parent = children ? self.field : self.ref_field;
      hierarchies.push({
        table,
        child_field: child,
        parent_field: parent,
        hint: `${table}.${child} references ${table}.${parent}: a parent-child hierarchy.`,
      });
    }
    for (const relation of relations) {
      if (relation.type !== 'many_many' || !relation.junction_table) continue;
      junctions.push({
        table,
        related_table: relation.ref_table,
        junction: relation.junction_table,
        hint: `Many-to-many: join ${table} to ${relation.ref_table} via ${relation.junction_table}.`,
      });
    }
  }
  return { ...(hierarchies.length > 0 ? { hierarchies } : {}), ...(junctions.length > 0 ? { junction_tables: junctions } : {}) };
}
