/**
 * Assembles the Fastify app of a platform: body parsing, errors in the spec's shape, CORS from
 * /system/cors, and the /api/v2 routes, all served from one PlatformContext.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { PlatformModel } from '../model/platform-model.js';
import { createDocsService } from '../system/docs/docs-service.js';
import { createUserService } from '../system/user/user-service.js';
import { createSystemService } from '../system/system-service.js';
import { getServiceKind } from '../services/registry.js';
import { createDispatch, createServe, markTunnelledHead, serviceOfUrl } from './api-dispatch.js';
import { TaskScheduler } from '../system/scheduler/scheduler-runner.js';
import { corsStep, endUnansweredPreflights } from './cors-hook.js';
import { installBodyParsing } from './body-parsing.js';
import {
  clientErrorHandler,
  frameworkErrors,
  installErrorHandling,
  missingHostRefusal,
  repeatedCredentialRefusal,
} from './error-handling.js';
import { registerGeneratedTableRoutes } from './generated-table-routes.js';
import type { ServiceRoutes } from './generated-routes.js';
import type { InternalService } from './internal-service.js';
import { openPlatform, type PlatformContext, type PlatformOptions } from './platform-context.js';
import { registerDocsPage } from './docs-page.js';
import { allowedMethods, registerOptionsRoutes } from './options-route.js';
import { registerOperationsRoutes } from './operations-routes.js';
import { loggerOptions } from './request-logging.js';
import { rootListing } from './root-listing.js';
import { originForm, urlRefusal } from './url-guard.js';
import { parseQueryString } from './query-string.js';
import { registerMcpRoutes } from './mcp-route.js';
import { requestTimeoutSeconds } from './request-timeout.js';
import { HookRegistry, type HookModule } from './hooks.js';
import type { RequestsTaken } from './idle-memory.js';

export interface ServerOptions extends PlatformOptions {
  /** Precompiled route schemas of the generated database services. */
  routes?: ServiceRoutes[];
  /** Request log level (pino's levels or `silent`); no logging when unset. */
  logLevel?: string;
  /** The user's hook modules (or their exports, `defineHooks({...})`), in declaration order. */
  hooks?: ReadonlyArray<HookModule | Readonly<Record<string, unknown>>>;
  /** The default exports (`defineEndpoints({...})`) of the custom services' modules, by service name. */
  endpoints?: Readonly<Record<string, unknown>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    portico: PlatformContext;
    /** The requests this server has taken, which tell the idle memory return it is serving (idle-memory.ts). */
    requestsTaken: RequestsTaken;
  }
}

export async function createServer(model: PlatformModel, options: ServerOptions): Promise<FastifyInstance> {
  // Read before anything opens, so that a bad value stops the start with nothing to close.
  const requestTimeout = requestTimeoutSeconds(options.env ?? process.env);
  const ctx = await openPlatform(model, options);
  if (options.hooks !== undefined && options.hooks.length > 0) ctx.hooks = new HookRegistry(options.hooks);
  const endpoints = options.endpoints ?? {};
  ctx.runtime.userModule = (service) => (Object.hasOwn(endpoints, service) ? endpoints[service] : undefined);
  const app = Fastify({
    ...loggerOptions(options.logLevel),
    bodyLimit: ctx.runtime.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, querystringParser: parseQueryString },
    // Errors raised before routing, and requests Node's parser refuses, also answer in the spec's shape.
    frameworkErrors,
    clientErrorHandler,
    http: { requireHostHeader: false },
    // A body that never completes is cut off with a 408 (request-timeout.ts).
    requestTimeout: requestTimeout * 1000,
    rewriteUrl: originForm,
  });
  app.decorate('portico', ctx);
  const requestsTaken: RequestsTaken = { count: 0 };
  app.decorate('requestsTaken', requestsTaken);
  app.addHook('onClose', async () => {
    // Queued hooks still running finish first (each has its module's timeout): they may use the pools.
    await ctx.hooks?.settled();
    await ctx.close();
  });
  registerOperationsRoutes(app, ctx);
  registerDocsPage(app, model.platform.title);
  // File services and proxies read their bodies themselves, streamed.
  installBodyParsing(app, (url) => {
    const model = ctx.services.get(serviceOfUrl(url));
    return model !== undefined && getServiceKind(model.type)?.rawBody === true;
  });
  installErrorHandling(app, ctx.db, (url) => allowedMethods(ctx, url));
  // CORS follows the rules of /system/cors, read per request from memory.
  const cors = corsStep(ctx.cors);
  // One onRequest hook, the URL guard's and CORS's: each hook more is a call and a callback more per request.
  app.addHook('onRequest', (request, reply, done) => {
    requestsTaken.count++;
    // Before the body is read: a POST tunnelled as HEAD whose body is refused answers headers only too.
    if (request.method === 'POST') markTunnelledHead(request);
    const refused = missingHostRefusal(request) ?? urlRefusal(request) ?? repeatedCredentialRefusal(request);
    if (refused === null) cors(request, reply, done);
    else done(refused);
  });
  endUnansweredPreflights(app);

  const docs = createDocsService(ctx);
  const internal = new Map<string, InternalService>([
    ['system', createSystemService(ctx)],
    ['user', createUserService(ctx, 'user')],
    ['swagger', docs],
  ]);
  const serve = createServe(ctx, internal, docs);
  const dispatch = createDispatch(ctx, internal, serve, (url) => allowedMethods(ctx, url));
  // Scheduled tasks run once the server is ready, on every instance (each period claimed by one).
  ctx.scheduler = new TaskScheduler(ctx, serve, app.log);
  app.addHook('onReady', async () => {
    ctx.scheduler?.start();
    ctx.accessUsage.start();
  });
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  app.route({ method: ['GET', 'POST'], url: '/api/v2', handler: (request, reply) => rootListing(ctx, request, reply) });
  // File services and proxies (raw bodies) are served by these two routes only.
  app.route({ method: methods, url: '/api/v2/:service', handler: dispatch });
  app.route({ method: methods, url: '/api/v2/:service/*', handler: dispatch });
  registerGeneratedTableRoutes(app, ctx, dispatch, options.routes ?? []);
  registerMcpRoutes(app, ctx);
  registerOptionsRoutes(app, ctx);
  return app;
}
