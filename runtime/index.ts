/**
 * Portico's runtime: the public surface generated servers import as `portico/runtime`.
 */
// First: a Node.js Portico does not support stops here with one line.
import './http/supported-node.js';
import module from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { PlatformModel } from './model/platform-model.js';
import type { RunServerOptions } from './http/run-server.js';
import type { ServerOptions } from './http/create-server.js';

export type * from './model/platform-model.js';
export type { ServiceRoutes } from './http/generated-routes.js';
export type { TableRouteSchemas } from './openapi/record-schemas.js';
export type { RunServerOptions } from './http/run-server.js';
export type { ServerOptions } from './http/create-server.js';
export {
  defineHooks,
  DEFAULT_HOOK_TIMEOUT_MS,
  type EventPhase,
  type Hook,
  type HookContext,
  type HookModule,
  type HookPhase,
  type HookSet,
  type QueuedEvents,
  type QueuedHook,
  type RoutineRequest,
  type TableEvents,
} from './http/hooks.js';
export type { EndpointEvents, InternalServiceEvents, InternalServiceType } from './http/service-events.js';
export {
  defineEndpoints,
  type EndpointContext,
  type EndpointReply,
  type EndpointRequest,
  type EndpointRoute,
  type EndpointSet,
} from './services/custom/endpoints.js';
export type {
  ApiQuery,
  ApiResponse,
  ApiTables,
  CallOptions,
  ListParams,
  ServiceApi,
  TableClient,
  TableTypes,
  UntypedTables,
} from './services/service-api.js';
export type { AuthContext } from './auth/auth-context.js';
export { PorticoError, BadRequestError, UnauthorizedError, ForbiddenError, NotFoundError, ConflictError } from './core/errors.js';

// Node.js 22.1 and later keep the compiled code of the modules loaded below on disk (in the OS's
// temporary folder, or NODE_COMPILE_CACHE), so that every start after the first skips compiling
// them. That is why the server's modules are imported when it starts, not with this one.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Starts the generated server (what main.mjs calls). */
export async function runServer(options: RunServerOptions): Promise<void> {
  const { runServer: run } = await import('./http/run-server.js');
  return run(options);
}

/** The Fastify app of a platform, not yet listening (for tests and embedding). */
export async function createServer(model: PlatformModel, options: ServerOptions): Promise<FastifyInstance> {
  const { createServer: create } = await import('./http/create-server.js');
  return create(model, options);
}
