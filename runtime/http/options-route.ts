/**
 * OPTIONS under /api/v2 that is no CORS preflight (no Origin header): 204 with an Allow header
 * naming the methods the path takes (RFC 9110 9.3.7), read from the service's OpenAPI document as
 * its model gives it (no back-end is opened), every routed method where the document has no such
 * path; an unknown service is a 404 as for any other method. Preflights stay with cors-hook.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { coreMessages } from '../core/messages.js';
import type { ServiceModel } from '../model/platform-model.js';
import { modelFragment } from '../openapi/model-fragment.js';
import { getServiceKind } from '../services/registry.js';
import { parsePath } from './api-dispatch.js';
import { PathTemplates } from './hook-events.js';
import type { PlatformContext } from './platform-context.js';

/** What the /api/v2/{service} routes take (create-server.ts), HEAD with GET. */
const ROUTED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** GET and POST /api/v2 (the root listing). */
const ROOT = ['GET', 'HEAD', 'POST', 'OPTIONS'];
const DOCUMENTED = ['get', 'post', 'put', 'patch', 'delete'] as const;

const templatesOf = new WeakMap<ServiceModel, { templates: PathTemplates; paths: Record<string, Record<string, unknown>> }>();

function allowed(service: ServiceModel, resource: string[], trailingSlash: boolean): string[] {
  let known = templatesOf.get(service);
  if (known === undefined) {
    const paths = (modelFragment(service).paths ?? {}) as Record<string, Record<string, unknown>>;
    // File services' `{file_path}` and `{folder_path}` may hold `/`.
    known = { templates: new PathTemplates(Object.keys(paths), getServiceKind(service.type)?.folderComponents === true), paths };
    templatesOf.set(service, known);
  }
  if (resource.length === 1 && resource[0] === '_spec') return ['GET', 'HEAD', 'OPTIONS'];
  const path = known.templates.documentPath(resource, trailingSlash);
  const item = path === null ? undefined : known.paths[path];
  if (item === undefined) return ROUTED;
  const methods = DOCUMENTED.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
  if (methods.length === 0) return ROUTED;
  if (methods.includes('GET')) methods.splice(1, 0, 'HEAD');
  return [...methods, 'OPTIONS'];
}

/**
 * The methods a path under /api/v2 takes, as OPTIONS's Allow names them (and a 405's, for a method
 * no route takes); null for a path outside /api/v2. An unknown service throws its 404.
 */
export function allowedMethods(ctx: PlatformContext, url: string): string[] | null {
  const path = url.split('?')[0];
  if (path !== '/api/v2' && !path.startsWith('/api/v2/')) return null;
  const { service, resource, trailingSlash } = parsePath(url);
  if (service === '') return ROOT;
  const model = ctx.services.get(service);
  if (!model) throw coreMessages.serviceNotFound.error(service);
  return allowed(model, resource, trailingSlash);
}

export function registerOptionsRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    // A preflight no CORS rule answered: as before, no route (cors-hook.ts).
    if (request.headers.origin !== undefined) return reply.callNotFound();
    const methods = allowedMethods(ctx, request.url) ?? ROUTED;
    return reply.status(204).header('allow', methods.join(', ')).header('content-length', '0').send();
  };
  app.options('/api/v2', answer);
  app.options('/api/v2/*', answer);
}
