/**
 * Serves a custom service: finds the route of a call's verb and path (the most specific match),
 * checks the body against the route's request schema, and runs the handler with the caller's
 * in-process API and the request's logger. Access was decided before (grants name the path,
 * `contacts` or `contacts/*`, as for any service).
 */
import { Readable } from 'node:stream';
import { InternalServerError } from '../../core/errors.js';
import { coreMessages } from '../../core/messages.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { isThenable, withDeadline } from '../../http/deadlines.js';
import { silentLogger } from '../../http/silent-logger.js';
import type { ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import type { ServiceApi } from '../service-api.js';
import {
  DEFAULT_ENDPOINT_TIMEOUT_MS,
  endpointReply,
  isEndpointReply,
  sortRoutes,
  type EndpointContext,
  type LoadedRoute,
} from './endpoints.js';
import { accessComponent, bySpecificity, endpointsOpenApi, matchPattern, routePattern, type RoutePattern } from './endpoint-routes.js';
import { bodyChecker, type BodyCheck } from './request-validation.js';

const unavailable = async (): Promise<never> => {
  throw new InternalServerError('The in-process API is available only while serving a request.');
};

/** What a handler called outside a request gets as `api`. */
const NO_API: ServiceApi = {
  call: unavailable,
  table: () => ({ list: unavailable, count: unavailable, get: unavailable, create: unavailable, update: unavailable, delete: unavailable }),
  asAdmin: () => NO_API,
} as unknown as ServiceApi;

/** A Node.js or web stream: Fastify sends either as it comes, with no Content-Type of its own. */
function isStream(body: unknown): boolean {
  return body instanceof Readable || body instanceof ReadableStream;
}

/**
 * A handler's headers with lower-case names (as the dispatch reads them), and a stream's type:
 * the one the handler set, else application/octet-stream (a client must not guess at bytes).
 */
function typed(body: unknown, headers: Readonly<Record<string, string>>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  if (lower['content-type'] === undefined && isStream(body)) lower['content-type'] = 'application/octet-stream';
  return lower;
}

interface ServedRoute extends LoadedRoute {
  pattern: RoutePattern;
  check: BodyCheck | null;
}

export class CustomHandler implements ServiceHandler {
  private readonly routes: ServedRoute[];

  constructor(
    private readonly name: string,
    routes: readonly LoadedRoute[],
    private readonly timeoutMs = DEFAULT_ENDPOINT_TIMEOUT_MS,
  ) {
    const bodyCheck = bodyChecker();
    this.routes = routes
      .map((route) => ({
        ...route,
        pattern: routePattern(route.model.path),
        check: route.model.request === undefined ? null : bodyCheck(route.model.request, `${route.model.method} ${route.model.path}`),
      }))
      .sort((a, b) => bySpecificity(a.pattern, b.pattern));
  }

  async handle(call: ServiceCall): Promise<ServiceResult> {
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchPattern(route.pattern, call.resource);
      if (params === null) continue;
      pathMatched = true;
      if (route.model.method !== call.verb) continue;
      route.check?.(call.body);
      const ctx: EndpointContext = {
        service: this.name,
        auth: call.auth,
        api: call.api ?? NO_API,
        log: call.log ?? silentLogger,
        reply: endpointReply,
      };
      const path = `/${call.resource.join('/')}`;
      const answered = route.handler({ method: call.verb, path, params, query: call.query, body: call.body, headers: call.headers }, ctx);
      // A handler that never answers is cut off (the request would wait for ever).
      const answer = isThenable(answered)
        ? await withDeadline(answered, this.timeoutMs, () => coreMessages.endpointTimedOut.error(this.name, this.timeoutMs))
        : answered;
      if (isEndpointReply(answer)) return { status: answer.status, body: answer.body, headers: typed(answer.body, answer.headers) };
      if (answer === undefined) return { status: 204, body: undefined };
      return isStream(answer) ? { body: answer, headers: typed(answer, {}) } : { body: answer };
    }
    const resource = call.resource.join('/');
    if (pathMatched) throw coreMessages.verbNotSupported.error(call.verb, resource, this.name);
    throw coreMessages.resourceNotFound.error(resource, this.name);
  }

  openapi(): OpenApiFragment {
    return endpointsOpenApi(sortRoutes(this.routes.map((route) => route.model)));
  }

  accessComponents(): string[] {
    return [...new Set(this.routes.map((route) => accessComponent(route.pattern)))].sort();
  }

  async close(): Promise<void> {}
}
