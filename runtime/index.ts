/**
 * Portico's runtime: the public surface generated servers import as `portico/runtime`.
 */
// First: a Node.js Portico does not support stops here with one line.
import './http/supported-node.js';

export type * from './model/platform-model.js';
export type { ServiceRoutes } from './http/generated-routes.js';
export type { TableRouteSchemas } from './openapi/record-schemas.js';
export { runServer, type RunServerOptions } from './http/run-server.js';
export { createServer, type ServerOptions } from './http/create-server.js';
export {
  defineHooks,
  DEFAULT_HOOK_TIMEOUT_MS,
  type Hook,
  type HookContext,
  type HookModule,
  type HookPhase,
  type HookSet,
  type RoutineRequest,
  type TableEvents,
} from './http/hooks.js';
export { PorticoError, BadRequestError, ForbiddenError, NotFoundError, ConflictError } from './core/errors.js';
