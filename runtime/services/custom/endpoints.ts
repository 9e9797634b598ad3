/**
 * Custom endpoints (issue 17): the user's TypeScript module default-exports
 * `defineEndpoints({ routes: [...] })`; a `custom` service in platform.yaml names it, `gen build`
 * compiles it with the server, and the service serves its routes under /api/v2/{service}/... with
 * role grants, request validation and OpenAPI like any other service. What the module exports is
 * read once (`readEndpointSet`), at build time for the model and at start for serving.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext } from '../../auth/auth-context.js';
import type { RawQuery } from '../../core/query-params.js';
import type { EndpointRouteModel, JsonSchema, Verb } from '../../model/platform-model.js';
import type { ServiceApi, UntypedTables } from '../service-api.js';

/** The request a route's handler gets: its body already checked against the route's `request` schema. */
export interface EndpointRequest<B = unknown> {
  method: Verb;
  /** The path after /api/v2/{service}, e.g. `/contacts/5`. */
  path: string;
  /** Values of the route's `:name` path segments (and `*`: the rest of the path). */
  params: Record<string, string>;
  query: RawQuery;
  body: B;
  headers: Record<string, string | string[] | undefined>;
}

const REPLY = Symbol.for('portico.endpointReply');

/** A response with a status and headers of the handler's choosing (`ctx.reply(201, body)`). */
export interface EndpointReply<T = unknown> {
  readonly [REPLY]: true;
  status: number;
  body: T;
  headers: Record<string, string>;
}

/** What a handler is given besides the request; `A` types `api` (`ApiTables<...>`). */
export interface EndpointContext<A = UntypedTables> {
  /** The custom service's name. */
  service: string;
  /** Who is calling (app, user, role), as access control established it. */
  auth: AuthContext;
  /** The platform's services in process, with the caller's rights (`api.asAdmin()` for an administrator's). */
  api: ServiceApi<A>;
  /** The request's logger (pino, with the request id). */
  log: FastifyBaseLogger;
  /** A response with another status than 200, or headers. */
  reply<T>(status: number, body: T, headers?: Record<string, string>): EndpointReply<T>;
}

/**
 * One route. The handler answers the response body (200; nothing is a 204) or `ctx.reply(...)`;
 * it refuses with a thrown PorticoError (its status and message); anything else it throws is a
 * 500 with a generic message (the error goes to the log). One that has not answered after its
 * service's `timeout_ms` is cut off with a 503.
 */
export interface EndpointRoute<A = UntypedTables> extends EndpointRouteModel {
  // A method, so that a handler may declare a narrower request body type (`req: EndpointRequest<{ name: string }>`).
  handler(request: EndpointRequest<any>, ctx: EndpointContext<A>): unknown;
}

export interface EndpointSet<A = UntypedTables> {
  routes: ReadonlyArray<EndpointRoute<A>>;
}

/** Declares a module's endpoints; `A` types the in-process API (`ApiTables<'db', Tables, TableInserts, TableUpdates>`). */
export function defineEndpoints<A = UntypedTables>(endpoints: EndpointSet<A>): EndpointSet<A> {
  return endpoints;
}

export function endpointReply<T>(status: number, body: T, headers: Record<string, string> = {}): EndpointReply<T> {
  return { [REPLY]: true, status, body, headers };
}

export function isEndpointReply(value: unknown): value is EndpointReply {
  return typeof value === 'object' && value !== null && (value as { [REPLY]?: unknown })[REPLY] === true;
}

/** How long a handler may take unless its service's `timeout_ms` says otherwise (as a hook). */
export const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;

/** What a module exports that cannot serve: named in `gen build`'s diagnostic and in the server's error. */
export class EndpointModuleError extends Error {}

const VERBS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~!$&'()+,;=@-]+|\*)$/;

/** A route as served: the module's handler with its checked description. */
export interface LoadedRoute {
  model: EndpointRouteModel;
  handler: EndpointRoute['handler'];
}

/** Checks a module's default export and answers its routes; a problem is an EndpointModuleError naming the route. */
export function readEndpointSet(value: unknown): LoadedRoute[] {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { routes?: unknown }).routes)) {
    throw new EndpointModuleError('its default export must be defineEndpoints({ routes: [...] })');
  }
  const seen = new Set<string>();
  return (value as { routes: unknown[] }).routes.map((route, index) => {
    const where = `routes[${index}]`;
    if (typeof route !== 'object' || route === null) throw new EndpointModuleError(`${where} is not an object`);
    const { method, path, summary, description, request, response, handler } = route as Record<string, unknown>;
    if (typeof method !== 'string' || !VERBS.has(method))
      throw new EndpointModuleError(`${where}.method must be GET, POST, PUT, PATCH or DELETE`);
    if (typeof path !== 'string' || !path.startsWith('/')) throw new EndpointModuleError(`${where}.path must start with '/'`);
    const segments = path.split('/').filter((segment) => segment !== '');
    const bad = segments.find((segment, i) => !SEGMENT.test(segment) || (segment === '*' && i !== segments.length - 1));
    if (bad !== undefined) throw new EndpointModuleError(`${where}.path '${path}' has an invalid segment '${bad}'`);
    const key = `${method} /${segments.map((segment) => (segment.startsWith(':') ? ':' : segment)).join('/')}`;
    if (seen.has(key)) throw new EndpointModuleError(`${where} (${method} ${path}) repeats an earlier route`);
    seen.add(key);
    if (typeof handler !== 'function') throw new EndpointModuleError(`${where}.handler must be a function`);
    for (const [name, schema] of [
      ['request', request],
      ['response', response],
    ] as const) {
      if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
        throw new EndpointModuleError(`${where}.${name} must be a JSON Schema object`);
      }
    }
    const model: EndpointRouteModel = { method: method as Verb, path: `/${segments.join('/')}` };
    if (typeof summary === 'string') model.summary = summary;
    if (typeof description === 'string') model.description = description;
    // Plain JSON, as the model holds it (a schema built with functions or classes would not survive model.json).
    if (request !== undefined) model.request = JSON.parse(JSON.stringify(request)) as JsonSchema;
    if (response !== undefined) model.response = JSON.parse(JSON.stringify(response)) as JsonSchema;
    return { model, handler: handler as EndpointRoute['handler'] };
  });
}

/** Routes in the model's order: by path, then method. */
export function sortRoutes<T extends { path: string; method: string }>(routes: readonly T[]): T[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...routes].sort((a, b) => compare(a.path, b.path) || compare(a.method, b.method));
}
