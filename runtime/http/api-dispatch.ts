/**
 * Every /api/v2 request goes through here: verb tunnelling, path, caller, access decision, then
 * the service (an internal one for system, user and api_docs; a ServiceHandler otherwise). The
 * in-process calls of hooks and custom endpoints (in-process-api.ts) take the same path from the
 * access decision on (`Serve`), as the reference's SCRIPT requestor.
 */
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { decideAccess, resolveRole, roleForRequestor, type AccessDecision, type Requestor } from '../auth/access.js';
import type { AuthContext } from '../auth/auth-context.js';
import { readBasicCredentials, readCredentials } from '../auth/credentials.js';
import { answerOf, type Answer } from '../core/answer.js';
import { asDownload } from '../core/downloads.js';
import { wrapList } from '../core/envelope.js';
import { pick, toBool, type RawQuery } from '../core/query-params.js';
import type { ServiceModel, Verb } from '../model/platform-model.js';
import { internalServiceFragment } from '../openapi/model-fragment.js';
import type { ServiceCall, ServiceKind, ServiceResult } from '../services/service-kind.js';
import type { ServiceApi } from '../services/service-api.js';
import { getServiceKind } from '../services/registry.js';
import { bodyStream, cutUnreadBody } from './body-parsing.js';
import { databaseEventPath, PathTemplates, soapEventPath } from './hook-events.js';
import type { JoinedTransaction } from './hooks.js';
import { identify, type Caller } from './identify.js';
import { inProcessApi } from './in-process-api.js';
import { answerHeadersOnly, answerWithBody, sendHeadersOnly } from './head-override.js';
import type { DocsService } from '../system/docs/docs-service.js';
import type { InternalService } from './internal-service.js';
import type { PlatformContext } from './platform-context.js';
import { coreMessages } from '../core/messages.js';
import { PorticoError } from '../core/errors.js';
import type { Subjects } from '../system/access/access-usage.js';
import { decodePercent } from '../core/percent-decoding.js';

const VERBS = new Set<Verb>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const OPEN_RULE = { exception: false, adminOnly: false };
/** The content type Fastify gives a JSON body it serialises. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** The first value of a header or query parameter, trimmed and upper-cased; '' when absent. */
function overrideText(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' ? text.trim().toUpperCase() : '';
}

/**
 * POST with X-HTTP-Method, X-Method-Override or ?method= runs as that verb (MERGE is PATCH).
 * Before those, as the reference's framework (Symfony) does: X-HTTP-Method-Override, else
 * `_method` in the query or a JSON body's top level.
 */
export function effectiveVerb(method: string, headers: FastifyRequest['headers'], query: RawQuery, body?: unknown): Verb {
  return verbServed(askedVerb(method, headers, query, body));
}

/** The verb a request asks for, tunnelled verbs read (HEAD stays HEAD: its answer goes without a body). */
export function askedVerb(method: string, headers: FastifyRequest['headers'], query: RawQuery, body?: unknown): string {
  let verb = method.toUpperCase();
  if (verb === 'POST') {
    const bodyMethod =
      body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)._method : undefined;
    const framework =
      overrideText(headers['x-http-method-override']) ||
      overrideText(query._method) ||
      overrideText(typeof bodyMethod === 'string' ? bodyMethod : undefined);
    const override =
      framework && framework !== 'POST'
        ? framework
        : overrideText(headers['x-http-method']) || overrideText(headers['x-method-override']) || overrideText(query.method);
    if (override) verb = override;
  }
  return verb === 'MERGE' ? 'PATCH' : verb;
}

/**
 * Marks a POST whose headers or query tunnel HEAD (the server's onRequest hook asks, of POSTs only)
 * before its body is read: a refusal of the body then answers headers only too.
 */
export function markTunnelledHead(request: FastifyRequest): void {
  if (askedVerb(request.method, request.headers, request.query as RawQuery) === 'HEAD') answerHeadersOnly(request);
}

/** The verb a service serves an asked one as; a 405 for one no service takes. */
function verbServed(asked: string): Verb {
  // HEAD answers as GET does, without the body (Fastify drops it for a real HEAD, head-override.ts for a tunnelled one).
  const verb = asked === 'HEAD' ? 'GET' : asked;
  if (!VERBS.has(verb as Verb)) throw coreMessages.invalidVerb.error(verb);
  return verb as Verb;
}

export interface ParsedPath {
  service: string;
  resource: string[];
  trailingSlash: boolean;
  /** The path after the service segment as sent (percent-encoded, dot segments kept). */
  rawPath: string;
}

const PREFIX = '/api/v2';

/** A malformed escape stays as written (the URL guard refused what is not UTF-8 before). */
function decodeSegment(segment: string): string {
  return decodePercent(segment) ?? segment;
}

/** Where the path's segments start: after `/api/v2` when it begins so. */
function segmentsStart(url: string, end: number): number {
  return url.startsWith(PREFIX) && (end === PREFIX.length || url[PREFIX.length] === '/') ? PREFIX.length : 0;
}

/** The service segment of a URL, as parsePath finds it, without splitting the rest (the body parser asks it of every write). */
export function serviceOfUrl(url: string): string {
  const query = url.indexOf('?');
  const end = query === -1 ? url.length : query;
  let start = segmentsStart(url, end);
  while (start < end) {
    let slash = url.indexOf('/', start);
    if (slash === -1 || slash > end) slash = end;
    const segment = url.slice(start, slash);
    if (segment !== '' && segment !== '.' && segment !== '..') return decodeSegment(segment);
    start = slash + 1;
  }
  return '';
}

/** Splits `/api/v2/{service}/{resource...}`; empty, `.` and `..` segments are dropped. */
export function parsePath(url: string): ParsedPath {
  const query = url.indexOf('?');
  const end = query === -1 ? url.length : query;
  let service: string | undefined;
  const resource: string[] = [];
  let rawStart = -1;
  let start = segmentsStart(url, end);
  while (start < end) {
    let slash = url.indexOf('/', start);
    if (slash === -1 || slash > end) slash = end;
    const segment = url.slice(start, slash);
    if (segment !== '' && segment !== '.' && segment !== '..') {
      if (service !== undefined) resource.push(decodeSegment(segment));
      else {
        service = decodeSegment(segment);
        rawStart = slash;
      }
    }
    start = slash + 1;
  }
  const rawPath = rawStart === -1 || rawStart >= end ? '' : url.slice(rawStart, end);
  return { service: service ?? '', resource, trailingSlash: url[end - 1] === '/', rawPath };
}

/** Fastify's handler of /api/v2: the reply sent at once (undefined) when the answer is there at once, else a promise of it. */
export type Dispatch = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined;

/** Fastify's `request.hostname` (the Host header without its port) without the array of its `split`. */
export function hostnameOf(request: FastifyRequest): string {
  const host = request.host;
  if (host[0] === '[') return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * The event path of a request to a service (hook-events.ts): its root, tables, routines, SOAP
 * operations, or for other kinds (custom endpoints, files, brokers...) the path of the kind's
 * OpenAPI document it matches, as GET /system/event names it; null when none does.
 */
function serviceEventPath(
  model: ServiceModel,
  kind: ServiceKind | undefined,
  resource: readonly string[],
  trailingSlash: boolean,
): string[] | null {
  if (model.kind === 'sql' || kind?.group === 'Database') return resource.length === 0 ? [] : databaseEventPath(resource);
  if (model.kind === 'soap' || model.type === 'soap') return resource.length === 0 ? [] : soapEventPath(model, resource);
  // A described service's root has an event only when its document has the root path (as GET /system/event lists it).
  const templates = describedTemplates(model, kind);
  if (templates !== null) return templates.match(resource, trailingSlash);
  return resource.length === 0 ? [] : null;
}

// Per service model: a service replaced at run time is a new model object, with its own document.
const describedPaths = new WeakMap<ServiceModel, PathTemplates | null>();

function describedTemplates(model: ServiceModel, kind: ServiceKind | undefined): PathTemplates | null {
  let templates = describedPaths.get(model);
  if (templates === undefined) {
    // File services' path placeholders may hold `/` (the kinds whose access components name folders).
    templates = kind?.describe ? new PathTemplates(Object.keys(kind.describe(model).paths ?? {}), kind.folderComponents === true) : null;
    describedPaths.set(model, templates);
  }
  return templates;
}

const internalTemplates = new Map<string, PathTemplates>();

/** The event path of a request to the runtime's own services: the path of their (fixed) OpenAPI document it matches. */
function internalEventPath(type: string, resource: readonly string[]): string[] | null {
  let templates = internalTemplates.get(type);
  if (templates === undefined) {
    templates = new PathTemplates(Object.keys(internalServiceFragment(type)?.paths ?? {}));
    internalTemplates.set(type, templates);
  }
  return templates.match(resource);
}

/** Who a request is served for: a client's credentials over HTTP, or the caller of a hook or endpoint calling in process. */
export interface Acting {
  caller: Caller;
  /** `script` for in-process calls: role grants apply where their requestor includes it, and rate limits do not count them (reference 6.5, 6.8). */
  requestor: Requestor;
  /** An administrator's rights, which a hook or endpoint asks for explicitly (never a client). */
  elevated: boolean;
  /** How many in-process calls deep this request is (0 for a client's). */
  depth: number;
  /** The transaction of a table write whose hook makes this call: calls to its service run inside it. */
  joined?: JoinedTransaction;
  /** A client request's subjects and access decision, set by Serve for /system/access_usage. */
  usage?: { subjects: Subjects; allowed: boolean; service: string };
}

/** One request to a service, whoever makes it. */
export interface DispatchRequest {
  verb: Verb;
  service: string;
  resource: string[];
  trailingSlash: boolean;
  rawPath: string;
  query: RawQuery;
  body: unknown;
  headers: ServiceCall['headers'];
  stream?: Readable;
  host: string;
  clientIp: string;
  log: FastifyBaseLogger;
}

/**
 * Serves a request: access decision, rate limits, then the service (through its hooks). The
 * answer at once when the service gives it at once, else a promise of it; a refusal may be thrown.
 */
export type Serve = (request: DispatchRequest, acting: Acting) => Answer<ServiceResult>;

/** The HTTP handler of /api/v2: each request as a client's, served by `serve` (createServe over the same `internal`). */
export function createDispatch(
  ctx: PlatformContext,
  internal: ReadonlyMap<string, InternalService>,
  serve: Serve,
  allowedAt: (url: string) => string[] | null,
): Dispatch {
  /** The verb served; a 405 names the methods the path takes in its Allow, as a method no route takes does. */
  const verbOf = (request: FastifyRequest, asked: string): Verb => {
    try {
      return verbServed(asked);
    } catch (error) {
      const allowed = allowedAt(request.url);
      if (error instanceof PorticoError && allowed !== null) error.headers = { ...error.headers, allow: allowed.join(', ') };
      throw error;
    }
  };
  /** A request refused or failed: noted for /system/access_usage, then answered by Fastify's error handler. */
  const failed = (error: unknown, _request: DispatchRequest, acting: Acting): unknown => {
    noteUsage(ctx, acting, error instanceof PorticoError ? error.status : 500);
    return error;
  };
  const served = (request: DispatchRequest, caller: Caller, reply: FastifyReply, headersOnly: boolean): Answer<FastifyReply> => {
    const acting: Acting = { caller, requestor: 'api', elevated: false, depth: 0 };
    const result = answerOf(serve, request, acting, failed);
    if (result instanceof Promise) return result.then((answer) => send(ctx, acting, request.query, reply, answer, headersOnly));
    return send(ctx, acting, request.query, reply, result, headersOnly);
  };
  return (request, reply) => {
    const stream = bodyStream(request);
    if (stream) cutUnreadBody(request, reply);
    const query = request.query as RawQuery;
    const asked = askedVerb(request.method, request.headers, query, request.body);
    // A POST tunnelled as HEAD: marked for the error handler, should it fail; its answer is sent without a body.
    const headersOnly = asked === 'HEAD' && request.method !== 'HEAD';
    if (headersOnly) answerHeadersOnly(request);
    // Marked from its headers before its body was read (markTunnelledHead): the body's `_method` may ask another verb.
    else if (request.method === 'POST') answerWithBody(request);
    const verb = verbOf(request, asked);
    const { service, resource, trailingSlash, rawPath } = parsePath(request.url);
    const credentials = readCredentials(request.headers, query);
    const model = ctx.services.get(service);
    // A login ignores any session sent: it is the credentials in its body that count (reference 6.1).
    const identified =
      model && internal.get(model.type)?.access(verb, resource).login
        ? identify(ctx, { ...credentials, token: null })
        : identify(ctx, credentials, readBasicCredentials(request.headers));
    const dispatchRequest: DispatchRequest = {
      verb,
      service,
      resource,
      trailingSlash,
      rawPath,
      query,
      body: request.body,
      headers: request.headers,
      stream,
      host: hostnameOf(request),
      clientIp: request.ip,
      log: request.log,
    };
    if (identified instanceof Promise) return identified.then((caller) => served(dispatchRequest, caller, reply, headersOnly));
    const answered = served(dispatchRequest, identified, reply, headersOnly);
    // Sent already: nothing for Fastify to wait for.
    return answered instanceof Promise ? answered : undefined;
  };
}

/** Sends a service's answer, once noted for /system/access_usage; `headersOnly` for a POST tunnelled as HEAD. */
function send(
  ctx: PlatformContext,
  acting: Acting,
  query: RawQuery,
  reply: FastifyReply,
  result: ServiceResult,
  headersOnly: boolean,
): FastifyReply {
  const status = result.status ?? 200;
  noteUsage(ctx, acting, status);
  void reply.status(status);
  if (result.headers) void reply.headers(result.headers);
  let body = result.body;
  // `file=`: the answer as a download (CSV, XML or JSON), when it is the service's JSON.
  const ownType = result.headers?.['content-type'];
  const download =
    query.file === undefined || (ownType !== undefined && !String(ownType).includes('json'))
      ? null
      : asDownload(pick(query, 'file'), status, body);
  const json = result.json;
  if (download) {
    void reply.headers(download.headers);
    body = download.body;
  } else if (json !== undefined && json.of === body && ownType === undefined) {
    // A body the service wrote as JSON already (a record whose ETag hashes that text) is sent as that text.
    void reply.header('content-type', JSON_TYPE);
    body = json.text;
  }
  return headersOnly ? sendHeadersOnly(reply, body) : reply.send(body);
}

/** Notes a client request's outcome for /system/access_usage, once Serve has decided on it. */
function noteUsage(ctx: PlatformContext, acting: Acting, status: number): void {
  const usage = acting.usage;
  if (usage) ctx.accessUsage.note(usage.subjects, usage.allowed, usage.service, status);
}

const ELEVATED: AccessDecision = { allowed: true, grant: null };

/**
 * The in-process API of hooks and custom endpoints, for this caller (joining a hook's transaction
 * when given one): made only for a request that has hooks, not per request.
 */
function apiOf(ctx: PlatformContext, serve: Serve, acting: Acting, request: DispatchRequest): (joined?: JoinedTransaction) => ServiceApi {
  return (joined) => inProcessApi(ctx, serve, joined ? { ...acting, joined } : acting, request);
}

/** `internal` maps a service type (system, user, swagger) to the runtime's own implementation. */
export function createServe(ctx: PlatformContext, internal: ReadonlyMap<string, InternalService>, docs: DocsService): Serve {
  const serve: Serve = (request, acting) => {
    const { verb, service, resource, trailingSlash, query } = request;
    const { caller } = acting;
    const model = ctx.services.get(service);
    const internalService = model ? internal.get(model.type) : undefined;
    const isSpec = resource.length === 1 && resource[0] === '_spec';
    const rule = internalService && !isSpec ? internalService.access(verb, resource) : OPEN_RULE;
    const role = roleForRequestor(resolveRole(caller.user, caller.app, ctx.directory.roles), acting.requestor);
    const kind = model && !internalService ? getServiceKind(model.type) : undefined;
    // File services: `docs/` (the folder) is a component of its own, as their grants name folders.
    const component = `${resource.join('/')}${kind?.folderComponents && trailingSlash && resource.length > 0 ? '/' : ''}`.toLowerCase();
    const decision = acting.elevated
      ? ELEVATED
      : decideAccess({
          verb,
          service: service.toLowerCase(),
          component,
          apiKeyGiven: caller.apiKeyGiven,
          app: caller.app,
          tokenError: caller.tokenError,
          user: caller.user,
          role,
          exception: rule.exception,
          adminOnly: rule.adminOnly,
        });
    // A client's request is use (or a refusal) of its app, user and role: noted once it is answered (createDispatch).
    if (acting.depth === 0 && acting.requestor === 'api') {
      acting.usage = { subjects: { app: caller.app?.id, user: caller.user?.id, role: role?.id }, allowed: decision.allowed, service };
    }
    // Credentials are judged first; then an unknown service is a 404 for everyone with valid credentials.
    if (!model && (decision.allowed || decision.error.status === 403)) throw coreMessages.serviceNotFound.error(service);
    if (!decision.allowed) throw decision.error;
    if (!model) throw coreMessages.serviceNotFound.error(service);
    // A deactivated service serves no one, administrators included (reference 1.1).
    if (!model.is_active) throw coreMessages.serviceDeactivated.error(service);
    const isAdmin = acting.elevated || caller.user?.isSysAdmin === true;

    // The directory's principals are shared, read-only, by every request of the caller.
    const auth: AuthContext = {
      app: caller.app,
      user: caller.user,
      isAdmin,
      role: acting.elevated ? null : role,
      rowFilters:
        decision.grant && decision.grant.filters.length > 0 ? { filters: decision.grant.filters, op: decision.grant.filterOp } : null,
      grants: isAdmin ? null : (role?.grants ?? []),
      lookup: ctx.directory.lookupFor(caller.app?.id ?? null, role?.id ?? null, caller.user?.id ?? null),
    };
    const call: ServiceCall = {
      verb,
      resource,
      trailingSlash,
      query,
      body: request.body,
      headers: request.headers,
      auth,
      stream: request.stream,
      rawPath: request.rawPath,
      log: request.log,
    };
    if (kind?.callsApi) call.api = inProcessApi(ctx, serve, acting, request);
    // The common request (a service's handler open, no hooks on it, no rate limit, not the runtime's own
    // service): answered as the handler answers, at once when it can (a SQLite read or write).
    const limited = !auth.isAdmin && acting.requestor === 'api' && ctx.limits.active.length > 0;
    if (!limited && !internalService && !isSpec && !(verb === 'GET' && resource.length === 0 && query.as_access_list !== undefined)) {
      const handler = acting.joined?.service === service ? acting.joined.handler : ctx.services.openHandler(service);
      if (handler !== undefined && !ctx.hooks?.touches(model.name)) return handler.handle(call);
    }
    return further(request, acting, model, internalService, kind, component, call);
  };

  /** The rest: rate limits, the service's document and access list, the runtime's own services, hooks, a handler to open. */
  const further = async (
    request: DispatchRequest,
    acting: Acting,
    model: ServiceModel,
    internalService: InternalService | undefined,
    kind: ServiceKind | undefined,
    component: string,
    call: ServiceCall,
  ): Promise<ServiceResult> => {
    const { verb, service, resource, trailingSlash, query } = request;
    const { caller } = acting;
    const { auth } = call;
    const isSpec = resource.length === 1 && resource[0] === '_spec';
    // Rate limits count every client request after authentication and access, except administrators' (reference 6.8).
    if (!auth.isAdmin && acting.requestor === 'api' && ctx.limits.active.length > 0) {
      await ctx.limits.check({ userId: caller.user?.id ?? null, roleId: auth.role?.id ?? null, serviceId: model.id, component, verb });
    }
    let result: ServiceResult;
    if (isSpec && verb === 'GET') result = await docs.spec(service, query, [request.headers.accept].flat()[0]);
    else if (verb === 'GET' && resource.length === 0 && query.as_access_list !== undefined && toBool(pick(query, 'as_access_list'))) {
      const source = internalService ?? ctx.services.openHandler(service) ?? (await ctx.services.handler(service));
      result = { body: wrapList(['', '*', ...((await source.accessComponents?.()) ?? [])]) };
    } else if (internalService) {
      const internalCall = { session: caller.session, tokenError: caller.tokenError, host: request.host, clientIp: request.clientIp };
      const handler = { handle: (serviceCall: ServiceCall) => internalService.handle({ ...serviceCall, ...internalCall }) };
      const path = ctx.hooks?.touches(model.name) ? internalEventPath(model.type, resource) : null;
      if (path === null) result = await handler.handle(call);
      else {
        try {
          result = await ctx.hooks!.around(
            { service: model.name, path, call, log: request.log, api: apiOf(ctx, serve, acting, request) },
            handler,
          );
        } catch (error) {
          // A post_process hook's error is the answer, but the write it follows stays: the other instances must hear of it.
          if (verb !== 'GET') await ctx.changes.announce().catch(() => undefined);
          throw error;
        }
      }
    } else {
      // A hook's call to the service whose write it is part of runs in that write's transaction.
      const handler =
        acting.joined?.service === service
          ? acting.joined.handler
          : (ctx.services.openHandler(service) ?? (await ctx.services.handler(service)));
      const path = ctx.hooks?.touches(model.name) ? serviceEventPath(model, kind, resource, trailingSlash) : null;
      // A database's table and routine names are case-insensitive.
      const foldCase = model.kind === 'sql' || kind?.group === 'Database';
      result =
        path === null
          ? await handler.handle(call)
          : await ctx.hooks!.around(
              {
                service: model.name,
                path,
                call,
                log: request.log,
                api: apiOf(ctx, serve, acting, request),
                foldCase,
                // Inside a hooked write's transaction, queued hooks wait for its commit.
                joined: acting.joined?.service === service ? acting.joined : undefined,
              },
              handler,
            );
    }
    // A write through the system or user service is news for the other instances on this system database.
    // (A login changes nothing another instance keeps in memory.)
    if (internalService && verb !== 'GET' && (result.status ?? 200) < 400 && !(verb === 'POST' && component.endsWith('session'))) {
      await ctx.changes.announce();
    }
    return result;
  };
  return serve;
}
