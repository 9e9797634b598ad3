/**
 * Components every service document may reference: the spec's error shape and the error
 * responses, the envelope schemas, the session shapes and the common query parameters.
 * Fragments reference them by `$ref`; serviceDocument and combinedDocument add the ones used.
 */
import type { ComponentsObject, HeaderObject, ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas30';

/** A `$ref` to a component. */
export function componentRef(section: keyof ComponentsObject, name: string): ReferenceObject {
  return { $ref: `#/components/${section}/${name}` };
}

/** `application/json` content of a schema. */
export function jsonContent(schema: SchemaObject | ReferenceObject): { 'application/json': { schema: SchemaObject | ReferenceObject } } {
  return { 'application/json': { schema } };
}

/**
 * The spec's error statuses, documented on every operation (409 on writes only), with the name of
 * their response component and the headers that come with them.
 */
export const ERROR_RESPONSES: ReadonlyArray<{
  status: string;
  name: string;
  description: string;
  writesOnly?: true;
  headers?: Record<string, HeaderObject>;
}> = [
  {
    status: '400',
    name: 'BadRequest',
    description: 'Bad request: malformed request, invalid field value, malformed filter, or failed batch.',
  },
  { status: '401', name: 'Unauthorized', description: 'Missing or invalid API key or session token.' },
  { status: '403', name: 'Forbidden', description: 'The role does not allow this service, component or method.' },
  { status: '404', name: 'NotFound', description: 'The service, resource or record does not exist.' },
  {
    status: '409',
    name: 'Conflict',
    description: 'Conflict: duplicate primary key, unique or foreign-key violation, or a concurrent change.',
    writesOnly: true,
  },
  {
    status: '429',
    name: 'TooManyRequests',
    description: 'A rate limit (service-level or user-level) is exceeded.',
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      'X-RateLimit-Limit': { description: 'Requests allowed in the period.', schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { description: 'Requests left in the period.', schema: { type: 'integer' } },
      'X-RateLimit-Reset': { description: 'When the period resets, as a Unix timestamp.', schema: { type: 'integer' } },
    },
  },
  {
    status: '413',
    name: 'PayloadTooLarge',
    description: 'The request body is larger than the server accepts.',
    writesOnly: true,
  },
  { status: '500', name: 'InternalServerError', description: 'Internal error, such as a database failure.' },
  { status: '503', name: 'ServiceUnavailable', description: 'The back end is down or cannot be reached.' },
];

/** The common query parameters (spec: list and delete operations on tables; the common ones apply to system lists). */
export type CommonParameter =
  | 'fields'
  | 'filter'
  | 'limit'
  | 'offset'
  | 'order'
  | 'include_count'
  | 'count_only'
  | 'ids'
  | 'id_field'
  | 'related'
  | 'group'
  | 'having'
  | 'continue'
  | 'rollback';

function queryParameter(name: CommonParameter, type: 'string' | 'integer' | 'boolean', description: string): ParameterObject {
  return { name, in: 'query', required: false, description, schema: { type } };
}

const PARAMETERS: Record<CommonParameter, ParameterObject> = {
  fields: queryParameter(
    'fields',
    'string',
    'Comma-separated field names to return; `*` for all (default). Alias: `select`. Records then hold these fields only: a record schema describes a whole record, and of its required fields only those named are there.',
  ),
  filter: queryParameter('filter', 'string', 'SQL-like filter, e.g. `(last_name like "Smith%") and (age >= 21)`. Alias: `where`.'),
  limit: queryParameter('limit', 'integer', 'Maximum number of records to return. Alias: `top`.'),
  offset: queryParameter('offset', 'integer', 'Number of records to skip (default 0). Alias: `skip`.'),
  order: queryParameter('order', 'string', 'Sort order: `<field> ASC|DESC`, several separated by commas. Aliases: `sort`, `order_by`.'),
  include_count: queryParameter('include_count', 'boolean', 'Add `meta.count`, the number of matching records.'),
  count_only: queryParameter('count_only', 'boolean', 'Return only the number of matching records.'),
  ids: queryParameter('ids', 'string', 'Comma-separated identifiers of the records.'),
  id_field: queryParameter('id_field', 'string', 'Comma-separated fields used as the identifier instead of the primary key.'),
  related: queryParameter('related', 'string', 'Comma-separated relationships to embed (`*` for all); each under `{table}_by_{field}`.'),
  group: queryParameter(
    'group',
    'string',
    'Comma-separated fields to group by. Alias: `group_by`. Records then hold the grouped fields and the aggregates `fields` names, not whole records.',
  ),
  having: queryParameter('having', 'string', 'Condition on grouped results.'),
  continue: queryParameter('continue', 'boolean', 'In a batch, go on after a failed record and report the failures.'),
  rollback: queryParameter('rollback', 'boolean', 'In a batch, undo every change when a record fails.'),
};

/** `$ref`s to common query parameters, in the given order. */
export function parameterRefs(...names: CommonParameter[]): ReferenceObject[] {
  return names.map((name) => componentRef('parameters', name));
}

const sessionResponse: SchemaObject = {
  type: 'object',
  properties: {
    session_token: { type: 'string', description: 'Send back as `X-Service-Session-Token`.' },
    session_id: { type: 'string', description: 'Same value as session_token.' },
    id: { type: 'integer' },
    email: { type: 'string' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    name: { type: 'string' },
    is_sys_admin: { type: 'boolean' },
    is_root_admin: { type: 'boolean', description: 'Same as is_sys_admin.' },
    role: {
      type: 'string',
      description: 'Name of the role requests with this session and the API key get (empty when none or for administrators).',
    },
    role_id: { type: 'integer', nullable: true },
    last_login_date: { type: 'string', description: 'Format `YYYY-MM-DD HH:MM:SS`.' },
    token_expiry_date: { type: 'string', description: 'Format `YYYY-MM-DD HH:MM:SS`.' },
    apps: { type: 'array', items: { type: 'object', additionalProperties: true } },
    ticket: { type: 'string' },
    ticket_expiry: { type: 'string' },
    host: { type: 'string' },
  },
};

const SHARED: ComponentsObject = {
  schemas: {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'integer', description: 'HTTP status code.' },
            message: { type: 'string' },
            context: {
              type: 'object',
              additionalProperties: true,
              description: 'Details; for a failed batch `errors: [{index, message}]`.',
            },
          },
        },
      },
    },
    Success: { type: 'object', properties: { success: { type: 'boolean' } } },
    ResourceList: {
      type: 'object',
      properties: {
        resource: {
          type: 'array',
          items: {
            oneOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: true }],
          },
        },
      },
    },
    Metadata: {
      type: 'object',
      properties: {
        count: { type: 'integer', description: 'Number of matching records (include_count, count_only).' },
        next: { type: 'integer', description: 'Offset of the next page, when more records remain.' },
      },
    },
    SessionRequest: {
      type: 'object',
      required: ['email', 'password'],
      properties: {
        email: { type: 'string' },
        password: { type: 'string', format: 'password' },
        duration: { type: 'integer', description: 'Session lifetime in minutes; 0 = until the browser closes.' },
      },
    },
    SessionResponse: sessionResponse,
  },
  responses: {
    ...Object.fromEntries(
      ERROR_RESPONSES.map(({ name, description, headers }) => [
        name,
        { description, ...(headers ? { headers } : {}), content: jsonContent(componentRef('schemas', 'Error')) },
      ]),
    ),
    Success: { description: 'Success.', content: jsonContent(componentRef('schemas', 'Success')) },
    ResourceList: { description: 'Names of the resources.', content: jsonContent(componentRef('schemas', 'ResourceList')) },
  },
  parameters: PARAMETERS,
};

/** The shared components: a fresh copy on each call, callers may change it. */
export function sharedComponents(): ComponentsObject {
  return structuredClone(SHARED);
}
