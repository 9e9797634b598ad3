/**
 * Portico's runtime: the public surface generated servers import as `portico/runtime`.
 */
export type * from './model/platform-model.js';
export type { ServiceRoutes } from './http/generated-routes.js';
export type { TableRouteSchemas } from './openapi/record-schemas.js';
export { runServer, type RunServerOptions } from './http/run-server.js';
export { createServer, type ServerOptions } from './http/create-server.js';
