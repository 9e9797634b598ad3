/**
 * `/mcp/{service}`: the MCP endpoint of an `mcp` service (reference 5.3), outside /api/v2.
 * Credentials as the platform's (API key, session token, `Authorization: Bearer` session token);
 * a Bearer token alone takes the role the user has in the service's configured app. No or bad
 * credentials are a 401 with JSON-RPC error -32001 and `WWW-Authenticate`. Each tool call is an
 * internal request to /api/v2 with the caller's credentials, so access checks, row filters,
 * limits and hooks are those of the REST call.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchGrant, resolveRole, roleReaches } from '../auth/access.js';
import { readCredentials } from '../auth/credentials.js';
import type { RawQuery } from '../core/query-params.js';
import type { Verb } from '../model/platform-model.js';
import { sharedComponents } from '../openapi/shared-components.js';
import { VERB_BITS } from '../auth/principals.js';
import { readMcpConfig } from '../services/mcp/mcp-kind.js';
import { serveMcp, type McpPlatform } from '../services/mcp/mcp-endpoint.js';
import { serviceFragment } from '../system/docs/service-fragments.js';
import { tablesOf } from '../system/docs/docs-service.js';
import { InvalidJsonError } from '../core/errors.js';
import { errorAnswer } from './error-handling.js';
import { identify } from './identify.js';
import type { PlatformContext } from './platform-context.js';

/** Types whose services are not offered as tools (the platform's own, and MCP itself). */
const NOT_TOOLS = new Set(['system', 'swagger', 'user', 'mcp']);

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'Content-Type, Authorization, mcp-session-id, mcp-protocol-version, X-DreamFactory-API-Key, X-DreamFactory-Session-Token, X-Service-API-Key, X-Service-Session-Token',
  'access-control-expose-headers': 'WWW-Authenticate, mcp-session-id',
};

/** Messages one JSON-RPC batch may hold. */
const MAX_BATCH = 100;

/** Tool lists per platform, MCP service and role, kept TOOL_CACHE_MS (a changed schema or grant shows after that). */
const TOOL_CACHE_MS = 5000;
const caches = new WeakMap<PlatformContext, Map<string, { expires: number; value: Promise<unknown> }>>();

function memo<T>(ctx: PlatformContext, key: string, build: () => Promise<T>): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new Map();
    caches.set(ctx, cache);
  }
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) return hit.value as Promise<T>;
  const value = build();
  cache.set(key, { expires: now + TOOL_CACHE_MS, value });
  value.catch(() => cache.delete(key));
  return value;
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return reply
    .status(status)
    .headers({ ...CORS, ...headers })
    .send({ jsonrpc: '2.0', id: null, error: { code, message } });
}

export function registerMcpRoutes(app: FastifyInstance, ctx: PlatformContext): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const name = (request.params as { service: string }).service;
    const model = ctx.services.get(name);
    if (model?.type !== 'mcp' || !model.is_active)
      return reply.status(404).headers(CORS).send({ error: 'MCP service not found', service: name });
    if (request.method === 'OPTIONS') return reply.status(200).headers(CORS).send();
    if (request.method === 'PUT' || request.method === 'PATCH')
      return rpcError(reply, 405, -32000, `Method Not Allowed: ${request.method} is not an MCP transport method`, {
        allow: 'GET, POST, DELETE, OPTIONS',
      });
    const host = `${request.protocol}://${request.host}`;
    const realm = `Bearer realm="MCP", resource_metadata="${host}/mcp/${name}/.well-known/oauth-protected-resource"`;
    const query = request.query as RawQuery;
    const credentials = readCredentials(request.headers, query);
    if (credentials.apiKey === null && credentials.token === null) {
      return rpcError(reply, 401, -32001, 'Unauthorized: Bearer token required', { 'www-authenticate': realm });
    }
    const caller = await identify(ctx, credentials);
    if (caller.tokenError || (credentials.apiKey !== null && !caller.app)) {
      return rpcError(reply, 401, -32001, 'Unauthorized: Invalid or expired token', {
        'www-authenticate': `${realm}, error="invalid_token", error_description="Token is invalid or expired"`,
      });
    }
    if (request.method === 'GET') {
      const accept = String(request.headers.accept ?? '');
      if (!accept.includes('text/event-stream'))
        return rpcError(reply, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
      return rpcError(reply, 405, -32000, 'Method Not Allowed: this endpoint does not offer a server-initiated SSE stream (POST only)', {
        allow: 'POST, DELETE',
      });
    }
    if (request.method === 'DELETE')
      return rpcError(reply, 405, -32000, 'Method Not Allowed: this endpoint keeps no sessions', { allow: 'POST' });

    // JSON-RPC 2.0: an empty batch is an invalid request. A long one made as many REST calls.
    const body = request.body;
    if (Array.isArray(body) && (body.length === 0 || body.length > MAX_BATCH))
      return rpcError(
        reply,
        400,
        -32600,
        body.length === 0 ? 'Invalid Request: an empty batch' : `Invalid Request: a batch holds at most ${MAX_BATCH} messages`,
      );

    const config = readMcpConfig(ctx.runtime.resolveEnv(model.config));
    // Without an API key, the user's role in the service's app (reference: the MCP service's app).
    let apiKey = credentials.apiKey;
    let appPrincipal = caller.app;
    if (apiKey === null) {
      for (const [key, candidate] of ctx.directory.appsByKey) {
        if (candidate.name === config.app) {
          apiKey = key;
          appPrincipal = candidate;
        }
      }
    }
    const isAdmin = caller.user?.isSysAdmin === true;
    const role = resolveRole(caller.user, appPrincipal, ctx.directory.roles);
    if (!isAdmin && (!appPrincipal?.isActive || !role?.isActive)) {
      return rpcError(reply, 403, -32001, 'Forbidden: no active role for this caller');
    }
    const headers: Record<string, string> = {};
    if (apiKey !== null) headers['x-service-api-key'] = apiKey;
    if (credentials.token !== null) headers['x-service-session-token'] = credentials.token;
    const platform: McpPlatform = {
      async services() {
        const services = ctx.services
          .list()
          .filter(
            (s) =>
              s.is_active &&
              !NOT_TOOLS.has(s.type) &&
              (config.exposedServices.length === 0 || config.exposedServices.includes(s.name)) &&
              (isAdmin || roleReaches(role, s.name)),
          );
        return Promise.all(
          services.map(async (s) => ({ name: s.name, type: s.type, label: s.label, fragment: await serviceFragment(ctx, s) })),
        );
      },
      async tables(name) {
        const service = ctx.services.get(name);
        if (service === undefined) return undefined;
        // A database that cannot be opened now has no tables to offer (its document has no paths either).
        const tables = await tablesOf(ctx, service).catch(() => undefined);
        return tables?.map((table) => table.name);
      },
      sharedComponents: () => sharedComponents() as Record<string, Record<string, unknown>>,
      allows(service, component, verb) {
        if (isAdmin) return true;
        if (!role) return false;
        const lower = service.toLowerCase();
        const path = component.toLowerCase();
        if (matchGrant(role.grants, lower, path, verb)) return true;
        // A path template (`pub/{topic}`): something under the static part is granted.
        return role.grants.some((g) => (g.verbMask & VERB_BITS[verb]) !== 0 && g.service === lower && g.component.startsWith(`${path}/`));
      },
      async call(verb: Verb, url: string, body: unknown) {
        const response = await app.inject({
          method: verb,
          url,
          headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
        });
        let parsed: unknown = response.body;
        try {
          parsed = response.body ? JSON.parse(response.body) : null;
        } catch {
          /* not JSON */
        }
        return { status: response.statusCode, body: parsed };
      },
      disabledTools: config.disabledTools,
      allowWrites: config.allowWrites,
      memo: (key, build) => memo(ctx, `${name}|${isAdmin ? 'admin' : role?.id}|${key}`, build),
    };
    reply.hijack();
    for (const [header, value] of Object.entries(CORS)) reply.raw.setHeader(header, value);
    await serveMcp(request.raw, reply.raw, request.body, platform, name);
  };
  app.route({
    method: ['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT', 'PATCH'],
    url: '/mcp/:service',
    handler,
    // What fails before the handler (a body that is no JSON, too large, a bad URL) is answered as
    // JSON-RPC errors are, as MCP clients read them: it came in the REST envelope.
    errorHandler(error, request, reply) {
      const portico = errorAnswer(error, request, ctx.db);
      const parse = portico instanceof InvalidJsonError;
      return rpcError(
        reply,
        portico.status,
        parse ? -32700 : portico.status >= 500 ? -32603 : -32600,
        parse ? 'Parse error: the body is not valid JSON' : portico.message,
        portico.headers,
      );
    },
  });
}
