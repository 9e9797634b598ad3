/**
 * The hook events of the services whose bodies the generated types do not describe (the hooks see
 * them as `unknown`): every path and verb of a service's OpenAPI document, as GET /system/event
 * lists them. The generated events.ts names them with the types below rather than printing each
 * event: `InternalServiceEvents<'system', 'system'>` for a service of one of the runtime's own
 * types, whose documents are fixed (hence listed here; test/unit/runtime/http/service-events.test.ts
 * checks the list against them), and `EndpointEvents<'stats', 'contacts.get'>` for the others
 * (files, email, custom endpoints...), whose endpoints the generator reads from their documents.
 */
import type { Verb } from '../model/platform-model.js';
import { pathSegments, type HookPhase } from './hook-events.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const satisfies ReadonlyArray<Lowercase<Verb>>;

const ALL = METHODS;
const ONE = ['get', 'put', 'patch', 'delete'] as const;

/**
 * The paths (segments joined by `.`, the root as '') and verbs of the runtime's own service types'
 * documents (openapi/system-openapi.ts, docs-openapi.ts, user-openapi.ts).
 */
export const INTERNAL_SERVICE_PATHS = {
  system: {
    '': ['get'],
    access_usage: ['get'],
    admin: ALL,
    'admin.password': ['post'],
    'admin.profile': ['get', 'post', 'put', 'patch'],
    'admin.session': ['get', 'post', 'put', 'delete'],
    'admin.{id}': ONE,
    app: ALL,
    'app.{id}': ONE,
    cache: ['get', 'delete'],
    'cache.{service}': ['delete'],
    constant: ['get'],
    'constant.{name}': ['get'],
    cors: ALL,
    'cors.{id}': ONE,
    custom: ALL,
    'custom.{id}': ONE,
    email_template: ALL,
    'email_template.{id}': ONE,
    environment: ['get'],
    event: ['get'],
    event_script: ['get'],
    'event_script.{name}': ['get'],
    limit: ALL,
    'limit.{id}': ONE,
    limit_cache: ['get', 'delete'],
    'limit_cache.{id}': ['get', 'delete'],
    lookup: ALL,
    'lookup.{id}': ONE,
    package: ['get', 'post'],
    role: ALL,
    'role.{id}': ONE,
    scheduler: ALL,
    'scheduler.{id}': ONE,
    script_type: ['get'],
    'script_type.{name}': ['get'],
    service: ALL,
    'service.{id}': ONE,
    service_report: ['get', 'delete'],
    'service_report.{id}': ['get', 'delete'],
    service_type: ['get'],
    'service_type.{name}': ['get'],
    user: ALL,
    'user.{id}': ONE,
  },
  swagger: {
    '': ['get'],
    '{service}': ['get'],
  },
  user: {
    '': ['get'],
    password: ['post'],
    profile: ['get', 'post', 'put', 'patch'],
    register: ['post'],
    session: ['get', 'post', 'put', 'delete'],
  },
} as const satisfies Record<string, Record<string, ReadonlyArray<Lowercase<Verb>>>>;

/** One of the runtime's own service types (`swagger` is api_docs'). */
export type InternalServiceType = keyof typeof INTERNAL_SERVICE_PATHS;

/** The endpoints of paths and their verbs as events name them, without the service (`admin.{id}.get`, `get` for the root). */
type Endpoints<P extends Readonly<Record<string, readonly string[]>>> = {
  [K in keyof P & string]: `${K extends '' ? '' : `${K}.`}${P[K][number]}`;
}[keyof P & string];

/** The events of the endpoints `E` (`contacts.get`, `get` for the root) of the service `S`, both phases, the bodies as they are. */
export type EndpointEvents<S extends string, E extends string> = { [K in E as `${S}.${K}.${HookPhase}`]: unknown };

/** The events of a service `S` of one of the runtime's own types `T` (`InternalServiceEvents<'swagger', 'api_docs'>`). */
export type InternalServiceEvents<T extends InternalServiceType, S extends string> = EndpointEvents<
  S,
  Endpoints<(typeof INTERNAL_SERVICE_PATHS)[T]>
>;

/**
 * The endpoints of an OpenAPI document's paths as their events name them without the service
 * (`admin.{id}.get`, as hook-events.ts's eventName joins them), by path, then verb.
 */
export function documentedEndpoints(paths: Readonly<Record<string, object>>): string[] {
  return Object.entries(paths)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([path, item]) => {
      const segments = pathSegments(path);
      return METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).map((method) =>
        [...segments, method].join('.'),
      );
    });
}
