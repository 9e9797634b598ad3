/** The OpenAPI fragment of a SQL database service (reference 8.1). */
import type { PathsObject, SchemaObject, SchemasObject } from 'openapi3-ts/oas30';
import type { SqlServiceModel } from '../model/platform-model.js';
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation } from './operation-builder.js';
import { pascalCase, uniqueNamer } from './code-identifiers.js';
import { insertJsonSchema, recordJsonSchema, updateJsonSchema } from './record-schemas.js';
import { SQL_CAPABILITIES } from '../services/sql/dialects/dialect-capabilities.js';
import { routinePaths, routineSchemas } from './routine-paths.js';
import { schemaPaths, tableSchemaSchemas } from './schema-paths.js';
import { componentRef, sharedComponents } from './shared-components.js';
import { genericTablePaths, resourceBody, typedTablePaths } from './table-paths.js';

/** Generic record envelopes of the `/_table/{table_name}` paths. */
function recordSchemas(): SchemasObject {
  const anyRecord: SchemaObject = { type: 'object', additionalProperties: true };
  return {
    RecordRequest: anyRecord,
    RecordsRequest: { type: 'object', properties: { resource: { type: 'array', items: componentRef('schemas', 'RecordRequest') } } },
    RecordResponse: anyRecord,
    RecordsResponse: {
      type: 'object',
      properties: {
        resource: { type: 'array', items: componentRef('schemas', 'RecordResponse') },
        meta: componentRef('schemas', 'Metadata'),
      },
    },
  };
}

/** A component name for a table: OpenAPI allows `[A-Za-z0-9._-]` only. */
function componentName(table: string): string {
  return table.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * OpenAPI paths (relative to the service) and components of a SQL database service: `/`,
 * `/_table`, `/_table/{table_name}[/{id}]`, `/_schema[/{table_name}]`, routines when the database
 * has some, and a typed `/_table/<table>[/{id}]` pair per table whose schemas reference the
 * table's components: `<table>` (a record as read, every column required), `<table>.written` (a
 * record as a write returns it: its identifier unless `fields` asks for more), `<table>.insert` (a
 * new record: required where the database needs a value), `<table>.update` (changed fields), and
 * the bodies of several, `<table>.insertRequest` and `<table>.updateRequest` (`{"resource": [...]}`).
 * Shared components are referenced, not included (see shared-components.ts).
 */
export function sqlServiceOpenApi(service: SqlServiceModel): OpenApiFragment {
  const serviceLabel = pascalCase(service.name) || 'Service';
  const { tables, routines } = service.schema;
  const schemas: SchemasObject = {
    ...recordSchemas(),
    ...tableSchemaSchemas(),
    ...(routines.length > 0 ? routineSchemas() : {}),
  };
  const paths: PathsObject = {
    '/': {
      get: jsonOperation({
        operationId: `get${serviceLabel}Resources`,
        summary: `List the resources of the '${service.name}' service.`,
        response: { description: 'Resource names (`_table`, `_schema`, ...).', schema: componentRef('schemas', 'ResourceList') },
      }),
    },
    ...genericTablePaths(serviceLabel),
    ...schemaPaths(serviceLabel),
    // `_proc` and `_func` are listed where the database has stored routines (not SQLite), as the service's own listing does.
    ...routinePaths(serviceLabel, routines, SQL_CAPABILITIES[service.dialect].routines),
  };
  const recordComponent = uniqueNamer([...Object.keys(schemas), ...Object.keys(sharedComponents().schemas ?? {})]);
  const tableLabel = uniqueNamer(['Table']);
  for (const table of tables) {
    const record = recordComponent(componentName(table.name));
    schemas[record] = recordJsonSchema(table, { required: true, dialect: service.dialect }) as SchemaObject;
    // Writes return the identifier only, unless `fields` names more (spec: Records).
    const written = table.isView ? record : recordComponent(`${record}.written`);
    if (!table.isView)
      schemas[written] = { ...recordJsonSchema(table, { dialect: service.dialect }), title: `${table.name} (written)` } as SchemaObject;
    // Views are read-only: only their record is documented.
    const insert = table.isView ? record : recordComponent(`${record}.insert`);
    const update = table.isView ? record : recordComponent(`${record}.update`);
    // The bodies of several records: `<table>.insertRequest` (POST, PUT) and `<table>.updateRequest` (PATCH).
    const inserts = table.isView ? record : recordComponent(`${record}.insertRequest`);
    const updates = table.isView ? record : recordComponent(`${record}.updateRequest`);
    if (!table.isView) {
      schemas[insert] = insertJsonSchema(table) as SchemaObject;
      schemas[update] = updateJsonSchema(table) as SchemaObject;
      schemas[inserts] = resourceBody(insert);
      schemas[updates] = resourceBody(update);
    }
    Object.assign(
      paths,
      typedTablePaths(serviceLabel, tableLabel(pascalCase(table.name) || 'Table'), table, {
        record,
        written,
        insert,
        update,
        inserts,
        updates,
      }),
    );
  }
  return { paths, components: { schemas } };
}
