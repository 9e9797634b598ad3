/**
 * The texts clients see from the core, the HTTP layer and authentication, each with its status,
 * and the not-found, verb and envelope texts every family shares. Worded as the reference
 * platform words them where it has a text (clients match the start of the authentication texts:
 * test/unit/runtime/messages.test.ts pins them); the reference's `X-DreamFactory-*` header names
 * are the spec's `X-Service-*` here.
 *
 * A family keeps its own texts in its own catalogue (services/sql/sql-messages.ts and, for
 * `_schema`, services/sql/schema/schema-messages.ts; services/soap/soap-messages.ts,
 * system/system-messages.ts). A text goes in a catalogue when
 * clients may match it, when more than one place says it, or when it is the family's answer to a
 * kind of problem; a text explaining one check in one place stays beside that check.
 */
import { message } from './errors.js';

const parameter = (name: string) => ({ parameter: name });

export const coreMessages = {
  // Not found, verbs and envelopes: every family answers with these.
  serviceNotFound: message(404, (name: string) => `Could not find a service for ${name}`),
  resourceNotFound: message(404, (resource: string, service: string) => `Resource '${resource}' not found for service '${service}'.`),
  tableNotFound: message(404, (table: string) => `Table "${table}" does not exist in the database.`),
  recordNotFound: message(404, (id: string) => `Record with identifier '${id}' not found.`),
  verbNotSupported: message(400, (verb: string, resource: string, service: string) =>
    resource === ''
      ? `${verb} requests without a resource are not currently supported by the '${service}' service.`
      : `${verb} requests for resource '${resource}' are not currently supported by the '${service}' service.`,
  ),
  noRecords: message(
    400,
    () =>
      `No record(s) detected in request. Please make sure record(s) are wrapped in a 'resource' tag. Example: {"resource":[{"record":1},{"record":2}]}`,
  ),
  recordNotObject: message(
    400,
    (index: number) => `Record ${index} is not a JSON object.`,
    (index) => ({ index }),
  ),
  bodyNotObject: message(400, () => 'The request body must be a JSON object of field values.'),
  fieldNotString: message(
    400,
    (field: string) => `Field '${field}' must be a string.`,
    (field) => ({ field }),
  ),

  // Query parameters.
  parameterNotInteger: message(400, (name: string) => `Parameter '${name}' must be an integer.`, parameter),
  parameterTooLarge: message(
    400,
    (name: string, max: number) => `Parameter '${name}' must be at most ${max}.`,
    (name, max) => ({ parameter: name, limit: max }),
  ),
  parameterTooManyEntries: message(
    400,
    (name: string, count: number, max: number) => `Parameter '${name}' lists ${count} entries; at most ${max} are allowed.`,
    (name, _count, max) => ({ parameter: name, limit: max }),
  ),
  negativeOffset: message(
    400,
    () => `Parameter 'offset' must not be negative.`,
    () => parameter('offset'),
  ),
  invalidOrderClause: message(
    400,
    (part: string) => `Invalid order by clause in request: '${part}'.`,
    () => parameter('order'),
  ),
  invalidOrderDirection: message(
    400,
    (direction: string, part: string) => `Invalid order direction '${direction}' in '${part}': use ASC or DESC.`,
    () => parameter('order'),
  ),
  rollbackAndContinue: message(400, () => 'Rollback and continue operations can not be requested at the same time.'),

  // The HTTP layer.
  invalidVerb: message(405, (verb: string) => `Invalid or unsupported verb '${verb}' used in request.`),
  serviceDeactivated: message(403, (service: string) => `Service ${service} is deactivated.`),
  noRoute: message(
    404,
    (method: string, path: string) => `No route for ${method} ${path.length > 200 ? `${path.slice(0, 200)}...` : path}.`,
  ),
  contentLengthMismatch: message(400, () => 'The Content-Length header does not match the request body.'),
  bodyNotUtf8: message(400, () => 'Invalid or malformed JSON: the request body is not UTF-8 text.'),
  bodyNotDecodable: message(
    400,
    (encoding: string) => `The request body is not valid ${encoding} data, as its Content-Encoding header says it is.`,
  ),
  unsupportedContentEncoding: message(
    415,
    (encoding: string) =>
      `Unsupported Content-Encoding '${encoding.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)}': send the body unencoded, or encoded with gzip, deflate or br (one of them).`,
  ),
  badPercentEncoding: message(400, () => 'The request path is not valid: it holds malformed percent-encoding.'),
  invalidRequest: message(
    400,
    (field: string, problem: string) => `Invalid request: ${field ? `'${field}' ` : ''}${problem}.`,
    (field) => (field ? { field } : null),
  ),
  malformedHttp: message(400, () => 'Malformed HTTP request.'),
  missingHost: message(400, () => 'Malformed HTTP request: an HTTP/1.1 request needs a Host header.'),
  expectationFailed: message(
    417,
    (expect: string) =>
      `Unsupported Expect header '${expect.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)}': only 100-continue is understood.`,
  ),
  nulInUrl: message(400, () => 'Invalid request URL: it contains an encoded NUL character (%00).'),
  invalidQueryText: message(
    400,
    (key: string, reason: string) => `Invalid query parameter '${key.replace(/[^\x20-\x7e]/g, '?')}': it ${reason}.`,
    parameter,
  ),
  invalidBodyText: message(
    400,
    (path: string, reason: string) => `Invalid request body: ${path === '' ? 'it' : `'${path}'`} ${reason}.`,
    (path) => (path === '' ? null : { field: path }),
  ),
  preflightWithoutMethod: message(400, () => 'Invalid preflight request: Access-Control-Request-Method is missing.'),
  preflightMethodNotAllowed: message(405, (method: string) => `Method ${method} is not allowed from this origin by the CORS rules.`),
  /** A user's hook (runtime/http/hooks.ts) that did not finish within its time. */
  hookTimedOut: message(503, () => 'The request did not complete in time: a hook of the platform took too long.'),
  endpointTimedOut: message(
    503,
    (service: string, ms: number) =>
      `The request did not complete in time: the endpoint of service '${service}' took longer than ${ms} ms.`,
  ),
  /** Hooks and custom endpoints calling services in process (runtime/http/in-process-api.ts). */
  inProcessTooDeep: message(
    500,
    (depth: number) => `In-process service calls nested more than ${depth} deep: a hook or endpoint seems to call itself.`,
  ),

  // Credentials and access (reference 6.7; the spec's "Authentication failure messages").
  noCredentials: message(
    401,
    () =>
      'No session token or API Key detected in request. Please send in X-Service-Session-Token and/or X-Service-API-Key request header. You can also use URL query parameters session_token and/or api_key.',
  ),
  noApiKey: message(
    401,
    () => "No API Key provided. Please provide a valid API Key using X-Service-API-Key request header or 'api_key' url query parameter.",
  ),
  /** A call that needs a session and has none. */
  noSessionToken: message(
    401,
    () =>
      "No session token (JWT) provided. Please provide a valid session token using X-Service-Session-Token request header or 'session_token' url query parameter.",
  ),
  invalidApiKey: message(401, () => 'Invalid API key. The API key is not associated with any app.'),
  /** Node joins a repeated header's values: the key or token read would be neither of them. */
  repeatedCredentialHeader: message(
    400,
    (header: string) => `Header '${header}' was sent more than once: send one API key and one session token, each once.`,
    (header: string) => ({ header }),
  ),
  /** The spec's header and its X-DreamFactory alias with different values: which one was meant is unknown. */
  conflictingCredentialHeaders: message(
    400,
    (first: string, second: string) =>
      `Headers '${first}' and '${second}' were both sent, with different values: send the API key and the session token in one header each.`,
    (first: string, second: string) => ({ headers: [first, second] }),
  ),
  appInactive: message(403, () => 'App is not active.'),
  adminsOnly: message(403, () => 'Access Forbidden. Only administrators may use this resource.'),
  roleNotFound: message(403, () => 'Role not found. A role may not be assigned to you or your application.'),
  roleInactive: message(
    403,
    () => 'Access Forbidden. The role assigned to you or your application or the default role of your application is not active.',
  ),
  /** `target`: `service 'db'` or `component '_table/x' of service 'db'`. */
  accessForbidden: message(
    403,
    (verb: string, target: string) => `Access Forbidden. ${verb} access to ${target} is not allowed by this user's role.`,
  ),

  // Session tokens.
  tokenInvalid: message(401, () => 'Invalid token.'),
  tokenUnreadable: message(401, (reason: string) => `Invalid token: ${reason}`),
  tokenClaimsMissing: message(401, () => 'Invalid token: required claims are missing.'),
  tokenExpired: message(401, () => 'Token has expired: Session expired. Please re-login.'),
  tokenUserUnknown: message(401, () => 'Invalid token: User verification failed.'),
  tokenUserInactive: message(401, () => 'Invalid token: the user is not active.'),
  sessionTerminated: message(401, () => 'Invalid token: Session terminated. Please re-login.'),
} as const;
