/**
 * The OpenAPI fragment of the system service: every resource of /api/v2/system. The record
 * resources (admin, user, app, role, service, cors, lookup, email_template, custom) are described
 * from the same definitions that validate their input, so the document cannot drift from what
 * the server accepts.
 */
import type { OperationObject, ParameterObject, PathItemObject, ReferenceObject, SchemaObject, SchemasObject } from 'openapi3-ts/oas30';
import type { RecordDefinition, ResourceDefinition } from '../system/record-resources/resource-definition.js';
import {
  SYSTEM_RECORD_RESOURCES,
  roleServiceAccessRecord,
  serviceDocRecord,
  scopedLookupRecord,
  taskLogRecord,
  userAppRoleRecord,
} from '../system/record-resources/system-records.js';
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation, pathParameter } from './operation-builder.js';
import { selfServicePaths } from './self-service-openapi.js';
import { componentRef, parameterRefs } from './shared-components.js';

/** A JSON Schema of the record definitions as an OpenAPI 3.0 schema (no type arrays: `nullable`, `anyOf`). */
export function toOpenApiSchema(schema: Record<string, unknown>): SchemaObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'enum') continue;
    if (key === 'items') out.items = toOpenApiSchema(value as Record<string, unknown>);
    else if (key === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, unknown>>).map(([k, v]) => [k, toOpenApiSchema(v)]),
      );
    else if (key === 'anyOf') out.anyOf = (value as Array<Record<string, unknown>>).map(toOpenApiSchema);
    else out[key] = value;
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const nonNull = types.filter((type) => type !== 'null');
  const nullable = types.includes('null');
  // OpenAPI 3.0 ignores `nullable` without a `type` (ajv refuses it): with several types each branch carries it.
  if (nullable && nonNull.length <= 1) out.nullable = true;
  const enumValues = schema.enum as unknown[] | undefined;
  if (nonNull.length === 1) {
    out.type = nonNull[0];
    if (enumValues)
      out.enum = enumValues.filter((value) => value === null || typeof value === (nonNull[0] === 'integer' ? 'number' : nonNull[0]));
  } else if (nonNull.length > 1) {
    out.anyOf = nonNull.map((type) => {
      const branch: SchemaObject = { type: type as SchemaObject['type'], ...(nullable ? { nullable: true } : {}) };
      const values = enumValues?.filter((value) => typeof value === (type === 'integer' ? 'number' : type));
      if (values && values.length > 0) branch.enum = values;
      return branch;
    });
  }
  return out as SchemaObject;
}

/**
 * A field the server fills: the id; the others may be null (a record the platform seeded has no
 * `created_by_id`, a user who never logged in no `last_login_date`).
 */
function readOnlySchema(name: string): SchemaObject {
  if (name === 'id') return { type: 'integer' };
  if (name.endsWith('_id') || name === 'status_code') return { type: 'integer', nullable: true };
  if (name === 'mutable' || name === 'deletable') return { type: 'boolean' };
  return { type: 'string', nullable: true };
}

/** Input and output schemas of a record definition, nested relations included. */
function recordSchemas(def: RecordDefinition): SchemasObject {
  const request: Record<string, SchemaObject | ReferenceObject> = {};
  const response: Record<string, SchemaObject | ReferenceObject> = {};
  for (const [name, rule] of Object.entries(def.fields)) {
    request[name] = toOpenApiSchema(rule.schema);
    if (!rule.writeOnly && !def.hidden.includes(name)) response[name] = toOpenApiSchema(rule.schema);
  }
  for (const name of def.readOnly) response[name] = readOnlySchema(name);
  for (const [name, relation] of Object.entries(def.relations)) {
    const target = componentRef('schemas', `${relation.target.label}Response`);
    const input = componentRef('schemas', `${relation.target.label}Request`);
    if (relation.kind === 'has_one') {
      // OpenAPI 3.0 ignores `nullable` without a `type` (ajv refuses it): null is a branch of its own.
      response[name] = { anyOf: [target, NULL_ONLY] };
      if (relation.writable) request[name] = { anyOf: [input, NULL_ONLY], description: 'Replaces the one there is; null removes it.' };
      continue;
    }
    response[name] = relation.kind === 'has_many' ? { type: 'array', items: target } : target;
    if (relation.writable) request[name] = { type: 'array', items: input };
  }
  const required = Object.entries(def.fields)
    .filter(([, rule]) => rule.required)
    .map(([name]) => name);
  return {
    [`${def.label}Request`]: {
      type: 'object',
      properties: request,
      ...(required.length > 0 ? { description: `Required on create: ${required.join(', ')}.` } : {}),
    },
    [`${def.label}Response`]: { type: 'object', properties: response },
  };
}

function envelopeSchemas(def: ResourceDefinition): SchemasObject {
  return {
    [`${def.plural}Request`]: {
      type: 'object',
      properties: { resource: { type: 'array', items: componentRef('schemas', `${def.label}Request`) } },
    },
    [`${def.plural}Response`]: {
      type: 'object',
      properties: {
        resource: { type: 'array', items: componentRef('schemas', `${def.label}Response`) },
        meta: componentRef('schemas', 'Metadata'),
      },
    },
  };
}

const ID = pathParameter('id', 'Identifier of the record (its `name` for custom settings).');
const FORCE: ParameterObject = {
  name: 'force',
  in: 'query',
  required: false,
  description: 'Delete every record when no ids or filter are given.',
  schema: { type: 'boolean' },
};
const REGENERATE: ParameterObject = {
  name: 'regenerate',
  in: 'query',
  required: false,
  description: 'Give the app a new API key.',
  schema: { type: 'boolean' },
};

/** `/{resource}` and `/{resource}/{id}` of a record resource. */
function recordPaths(def: ResourceDefinition): Record<string, PathItemObject> {
  const one = (verb: string) => `${verb}System${def.label}`;
  const many = (verb: string) => `${verb}System${def.plural}`;
  const records = { description: 'The records.', schema: componentRef('schemas', `${def.plural}Response`) };
  const written = {
    description: 'Identifiers of the records, or the fields asked for with `fields`/`related`.',
    schema: componentRef('schemas', `${def.plural}Response`),
  };
  const body = { description: 'Records: `{"resource": [...]}`.', schema: componentRef('schemas', `${def.plural}Request`) };
  const record = { description: 'The record.', schema: componentRef('schemas', `${def.label}Response`) };
  const change = {
    description: 'The fields to change (and nested related records).',
    schema: componentRef('schemas', `${def.label}Request`),
  };
  const extra = def.name === 'app' ? [REGENERATE] : [];
  const batchUpdate = (verb: 'replace' | 'update'): OperationObject =>
    jsonOperation({
      operationId: many(verb),
      summary: `${verb === 'replace' ? 'Replace' : 'Update'} ${def.plural.toLowerCase()} (PUT and PATCH change only the given fields).`,
      description: 'Records carry their identifiers; with `ids` or `filter` the first record applies to every match.',
      parameters: [...parameterRefs('ids', 'filter', 'fields', 'related'), ...extra],
      body,
      response: written,
    });
  const singleUpdate = (verb: 'replace' | 'update'): OperationObject =>
    jsonOperation({
      operationId: one(verb),
      summary: `${verb === 'replace' ? 'Replace' : 'Update'} one ${def.label.toLowerCase()} record (only the given fields change).`,
      parameters: [...parameterRefs('fields', 'related'), ...extra],
      body: change,
      response: record,
    });
  const paths: Record<string, PathItemObject> = {
    [`/${def.name}`]: {
      get: jsonOperation({
        operationId: many('get'),
        summary: def.summary,
        parameters: parameterRefs('fields', 'filter', 'limit', 'offset', 'order', 'include_count', 'count_only', 'ids', 'related'),
        response: records,
      }),
      post: {
        ...jsonOperation({
          operationId: many('create'),
          summary: `Create ${def.plural.toLowerCase()}.`,
          parameters: parameterRefs('fields', 'related'),
          body,
          response: written,
        }),
        responses: { 201: { description: written.description, content: { 'application/json': { schema: written.schema } } } },
      },
      put: batchUpdate('replace'),
      patch: batchUpdate('update'),
      delete: jsonOperation({
        operationId: many('delete'),
        summary: `Delete ${def.plural.toLowerCase()} by ids, filter or records.`,
        parameters: [...parameterRefs('ids', 'filter', 'fields'), FORCE],
        response: written,
      }),
    },
    [`/${def.name}/{id}`]: {
      parameters: [ID],
      // GET /custom/{name} answers the setting's value alone (reference 5.9), any JSON value.
      get:
        def.name === 'custom'
          ? jsonOperation({
              operationId: one('get'),
              summary: 'Retrieve the value of one custom setting.',
              description: 'The value alone (any JSON value), not the record.',
              response: { description: 'The value.', schema: {} },
            })
          : jsonOperation({
              operationId: one('get'),
              summary: `Retrieve one ${def.label.toLowerCase()} record.`,
              parameters: parameterRefs('fields', 'related'),
              response: record,
            }),
      put: singleUpdate('replace'),
      patch: singleUpdate('update'),
      delete: jsonOperation({
        operationId: one('delete'),
        summary: `Delete one ${def.label.toLowerCase()} record.`,
        parameters: parameterRefs('fields'),
        response: record,
      }),
    },
  };
  // Records the platform writes (service reports): read and delete only.
  if (def.writes === 'delete')
    for (const item of Object.values(paths)) for (const method of ['post', 'put', 'patch'] as const) delete item[method];
  return paths;
}

const anyObject: SchemaObject = { type: 'object', additionalProperties: true };
const success = { description: 'Success.', schema: componentRef('schemas', 'Success') };
const resourceList = { description: 'The resources.', schema: componentRef('schemas', 'ResourceList') };
const limitIdsParameter: ParameterObject = {
  name: 'ids',
  in: 'query',
  required: false,
  description: 'Comma-separated limit ids.',
  schema: { type: 'string' },
};
const counterUserParameter: ParameterObject = {
  name: 'user_id',
  in: 'query',
  required: false,
  description: "Only this user's counters.",
  schema: { type: 'integer' },
};

function sessionPaths(): Record<string, PathItemObject> {
  const { session, password, profile } = selfServicePaths({
    idPart: 'SystemAdmin',
    owner: "administrator's",
    login: {
      summary: 'Log an administrator in.',
      description: 'Needs no session; an API key, when sent, must be valid. Returns `session_token` for `X-Service-Session-Token`.',
      body: 'Credentials, and the session lifetime in minutes.',
    },
    currentSession: 'Current administrator session; refreshes the token.',
  });
  return { '/admin/session': session, '/admin/password': password, '/admin/profile': profile };
}

function otherPaths(): Record<string, PathItemObject> {
  const name = (what: string) => pathParameter('name', `Name of the ${what}.`);
  return {
    '/': {
      get: jsonOperation({
        operationId: 'getSystemResources',
        summary: 'List the system resources.',
        parameters: parameterRefs('fields'),
        response: resourceList,
      }),
    },
    '/environment': {
      get: jsonOperation({
        operationId: 'getSystemEnvironment',
        summary: 'Platform information.',
        response: { description: 'The environment.', schema: componentRef('schemas', 'Environment') },
      }),
    },
    '/service_type': {
      get: jsonOperation({
        operationId: 'getSystemServiceTypes',
        summary: 'The service types a service may have (the `type` of /system/service).',
        parameters: [
          ...parameterRefs('fields'),
          {
            name: 'group',
            in: 'query',
            required: false,
            description: 'Comma-separated groups to list (Database, File, Email, ...).',
            schema: { type: 'string' },
          },
        ],
        response: { description: 'The service types.', schema: componentRef('schemas', 'ServiceTypesResponse') },
      }),
    },
    '/service_type/{name}': {
      parameters: [name('service type')],
      get: jsonOperation({
        operationId: 'getSystemServiceType',
        summary: 'One service type.',
        parameters: parameterRefs('fields'),
        response: { description: 'The service type.', schema: componentRef('schemas', 'ServiceType') },
      }),
    },
    '/event': {
      get: jsonOperation({
        operationId: 'getSystemEvents',
        summary: 'The events the platform emits: one per route and verb, `{service}.{path}.{verb}`.',
        parameters: [
          { name: 'as_list', in: 'query', required: false, description: 'A flat list of event names.', schema: { type: 'boolean' } },
          { name: 'service', in: 'query', required: false, description: 'Only the events of this service.', schema: { type: 'string' } },
          {
            name: 'services_only',
            in: 'query',
            required: false,
            description: 'Only the names of the services.',
            schema: { type: 'boolean' },
          },
        ],
        response: { description: 'Events by service and path.', schema: anyObject },
      }),
    },
    '/event_script': {
      get: jsonOperation({
        operationId: 'getSystemEventScripts',
        summary: "The scripts attached to events: the platform's hooks, one per event (read only).",
        parameters: [
          { name: 'as_list', in: 'query', required: false, description: 'The event names alone.', schema: { type: 'boolean' } },
          ...parameterRefs('include_count'),
        ],
        response: resourceList,
      }),
    },
    '/event_script/{name}': {
      parameters: [name('event')],
      get: jsonOperation({
        operationId: 'getSystemEventScript',
        summary: 'The hooks of one event.',
        response: { description: 'The event script.', schema: anyObject },
      }),
    },
    '/access_usage': {
      get: jsonOperation({
        operationId: 'getSystemAccessUsage',
        summary:
          'When each app, role or user last made an allowed request and was last refused, with cleanup flags (never_used, stale, disabled_but_attempted, role_unreferenced). Never shows API keys.',
        parameters: [
          {
            name: 'subject',
            in: 'query',
            required: false,
            description: 'app (default), role or user.',
            schema: { type: 'string', enum: ['app', 'role', 'user'] },
          },
          {
            name: 'stale_days',
            in: 'query',
            required: false,
            description: 'A subject is stale when its last use is older than this many days (default 90).',
            schema: { type: 'integer', minimum: 1 },
          },
          {
            name: 'include_never_used',
            in: 'query',
            required: false,
            description: 'Include subjects never used (default true).',
            schema: { type: 'boolean' },
          },
        ],
        response: resourceList,
      }),
    },
    '/script_type': {
      get: jsonOperation({
        operationId: 'getSystemScriptTypes',
        summary: 'The kinds of script the platform runs (the `type` of /system/event_script): its hook modules (read only).',
        parameters: [
          ...parameterRefs('fields', 'include_count'),
          { name: 'as_list', in: 'query', required: false, description: 'The names alone.', schema: { type: 'boolean' } },
        ],
        response: { description: 'The script types.', schema: componentRef('schemas', 'ScriptTypesResponse') },
      }),
    },
    '/script_type/{name}': {
      parameters: [name('script type')],
      get: jsonOperation({
        operationId: 'getSystemScriptType',
        summary: 'One script type.',
        parameters: parameterRefs('fields'),
        response: { description: 'The script type.', schema: componentRef('schemas', 'ScriptType') },
      }),
    },
    '/constant': {
      get: jsonOperation({
        operationId: 'getSystemConstants',
        summary: 'Read-only constants (verb masks, requestor masks, app types).',
        response: resourceList,
      }),
    },
    '/constant/{name}': {
      parameters: [name('constant group')],
      get: jsonOperation({
        operationId: 'getSystemConstant',
        summary: 'One group of constants.',
        response: { description: 'Name to value.', schema: anyObject },
      }),
    },
    '/cache': {
      get: jsonOperation({
        operationId: 'getSystemCaches',
        summary: 'The services with a cache of their own (name, label, description, type).',
        response: resourceList,
      }),
      delete: jsonOperation({ operationId: 'deleteSystemCache', summary: 'Clear the caches of every service.', response: success }),
    },
    '/cache/{service}': {
      parameters: [pathParameter('service', 'Name of the service.')],
      delete: jsonOperation({ operationId: 'deleteSystemServiceCache', summary: 'Clear the cache of one service.', response: success }),
    },
    '/limit_cache': {
      get: jsonOperation({
        operationId: 'getSystemLimitCache',
        summary:
          'The counters of the rate limits (id, key, user_id, max, attempts, remaining): one per limit, an each_user limit one per user.',
        parameters: [limitIdsParameter, counterUserParameter],
        response: resourceList,
      }),
      delete: jsonOperation({
        operationId: 'deleteSystemLimitCache',
        summary: 'Reset counters, lifting lock-outs: of the limits in ids, else of all (needs force=true or allow_delete=true).',
        response: success,
        parameters: [
          limitIdsParameter,
          counterUserParameter,
          { name: 'force', in: 'query', required: false, description: 'Reset all counters.', schema: { type: 'boolean' } },
        ],
      }),
    },
    '/limit_cache/{id}': {
      parameters: [pathParameter('id', 'Identifier of the limit.'), counterUserParameter],
      get: jsonOperation({
        operationId: 'getSystemLimitCounter',
        summary: "The counter of one limit (an each_user limit: the list of its users' counters).",
        response: { description: 'The counter.', schema: anyObject },
      }),
      delete: jsonOperation({
        operationId: 'deleteSystemLimitCounter',
        summary: "Reset the counters of one limit (every user's, or one user's), lifting its lock-out.",
        response: success,
      }),
    },
    '/package': {
      get: jsonOperation({
        operationId: 'getSystemPackage',
        summary: 'The manifest of what can be exported; with `export=true` the whole package.',
        parameters: [
          { name: 'export', in: 'query', required: false, description: 'Return the package itself.', schema: { type: 'boolean' } },
        ],
        response: { description: 'The manifest or the package.', schema: anyObject },
      }),
      post: jsonOperation({
        operationId: 'createSystemPackage',
        summary: 'Export the records a manifest names, or import a package (`import=true`, `overwrite=true`).',
        parameters: [
          { name: 'import', in: 'query', required: false, description: 'Import the package in the body.', schema: { type: 'boolean' } },
          {
            name: 'overwrite',
            in: 'query',
            required: false,
            description: 'On import, change records that already exist.',
            schema: { type: 'boolean' },
          },
        ],
        body: { description: 'A manifest (export) or a package (import).', schema: componentRef('schemas', 'Package') },
        response: { description: 'The package, or the import log.', schema: anyObject },
      }),
    },
  };
}

/** Only null, in OpenAPI 3.0 words. */
const NULL_ONLY: SchemaObject = { type: 'object', nullable: true, enum: [null] };

const passwordRequest: SchemaObject = {
  type: 'object',
  properties: {
    old_password: { type: 'string', format: 'password' },
    new_password: { type: 'string', format: 'password' },
    email: { type: 'string' },
    code: { type: 'string' },
  },
};

const profileFields: Record<string, SchemaObject> = {
  name: { type: 'string' },
  first_name: { type: 'string' },
  last_name: { type: 'string' },
  // A user who never set them has none: null.
  username: { type: 'string', nullable: true },
  email: { type: 'string' },
  phone: { type: 'string', nullable: true },
  default_app_id: { type: 'integer', nullable: true },
};

/** Schemas the user service's self-service paths share with the system service's. */
export function selfServiceSchemas(): SchemasObject {
  return {
    PasswordRequest: passwordRequest,
    Profile: { type: 'object', properties: profileFields },
    ProfileRequest: { type: 'object', properties: { ...profileFields, current_password: { type: 'string', format: 'password' } } },
  };
}

export function systemServiceOpenApi(): OpenApiFragment {
  const schemas: SchemasObject = {
    Environment: {
      type: 'object',
      properties: {
        platform: {
          type: 'object',
          properties: { version: { type: 'string' }, is_hosted: { type: 'boolean' } },
          additionalProperties: true,
        },
      },
      additionalProperties: true,
    },
    ServiceType: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        label: { type: 'string' },
        group: { type: 'string' },
        description: { type: 'string' },
        singleton: { type: 'boolean' },
        dependencies_required: { type: 'boolean', nullable: true },
        subscription_required: { type: 'boolean' },
        service_definition_editable: { type: 'boolean' },
        config_schema: {
          type: 'array',
          description:
            'The config fields: name, label, type, description, default, required, allow_null, values (picklists), items/object (nested).',
          items: anyObject,
        },
      },
    },
    ScriptType: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        label: { type: 'string' },
        description: { type: 'string' },
        sandboxed: { type: 'boolean', description: 'Whether scripts run isolated from the platform.' },
        supports_inline_execution: { type: 'boolean', description: "Whether a script's text may be run through the API." },
      },
    },
    ScriptTypesResponse: { type: 'object', properties: { resource: { type: 'array', items: componentRef('schemas', 'ScriptType') } } },
    ServiceTypesResponse: { type: 'object', properties: { resource: { type: 'array', items: componentRef('schemas', 'ServiceType') } } },
    Package: {
      type: 'object',
      additionalProperties: true,
      description: 'A manifest (`{service: {system: {role: [...], ...}, db: {_schema: [...]}}}`) or a package as exported.',
    },
    ...selfServiceSchemas(),
  };
  for (const def of [roleServiceAccessRecord, userAppRoleRecord, scopedLookupRecord, serviceDocRecord, taskLogRecord])
    Object.assign(schemas, recordSchemas(def));
  let paths: Record<string, PathItemObject> = { ...otherPaths(), ...sessionPaths() };
  for (const def of SYSTEM_RECORD_RESOURCES) {
    Object.assign(schemas, recordSchemas(def), envelopeSchemas(def));
    paths = { ...paths, ...recordPaths(def) };
  }
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((path) => [path, paths[path]]),
  );
  return { paths: sorted, components: { schemas } };
}
