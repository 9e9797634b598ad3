/**
 * The in-process service API of hooks and custom endpoints (types: services/service-api.ts). A
 * call is served by the dispatch's `Serve` as a client's request would be from the access
 * decision on: role grants (those whose requestor includes `script`), row filters, record limits,
 * hooks; rate limits do not count it (reference 6.8: script requests are exempt). `asAdmin()` or
 * `{ elevated: true }` serves it with an administrator's rights. An error status comes back as
 * the PorticoError it was.
 */
import { Readable } from 'node:stream';
import { PorticoError, type ErrorContext } from '../core/errors.js';
import { coreMessages } from '../core/messages.js';
import { findUnacceptableText } from '../core/request-limits.js';
import type { Verb } from '../model/platform-model.js';
import { getServiceKind } from '../services/registry.js';
import { rawQuery, type ApiQuery, type ApiResponse, type CallOptions, type ServiceApi, type TableClient } from '../services/service-api.js';
import type { Acting, DispatchRequest, Serve } from './api-dispatch.js';
import type { PlatformContext } from './platform-context.js';

/** How deep in-process calls may nest (a hook whose call runs the hook again stops here). */
export const MAX_IN_PROCESS_DEPTH = 8;

type Origin = Pick<DispatchRequest, 'host' | 'clientIp' | 'log'>;

/** The API for one caller: `acting` is the request's, `origin` where it came from (host, address, logger). */
export function inProcessApi(ctx: PlatformContext, serve: Serve, acting: Acting, origin: Origin): ServiceApi {
  const request = async (service: string, verb: Verb, resource: string[], options: CallOptions = {}): Promise<ApiResponse> => {
    if (acting.depth >= MAX_IN_PROCESS_DEPTH) throw coreMessages.inProcessTooDeep.error(MAX_IN_PROCESS_DEPTH);
    const { body } = options;
    const model = ctx.services.get(service);
    // Kinds that read their bodies themselves (files, email, proxies) get the body as a stream.
    const raw = model !== undefined && body !== undefined && getServiceKind(model.type)?.rawBody === true;
    const bytes = raw ? rawBytes(body) : null;
    // The same refusals an HTTP body meets (NUL, lone surrogates), once for every service; bytes
    // are sent as they are (a file may hold NUL).
    const binary = body instanceof Uint8Array || body instanceof ArrayBuffer;
    const bad = body === undefined || binary ? null : findUnacceptableText(body);
    if (bad !== null) throw coreMessages.invalidBodyText.error(bad.path, bad.reason);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    if (bytes !== null) {
      headers['content-type'] ??= bytes.type;
      headers['content-length'] = String(bytes.data.length);
    }
    const result = await serve(
      {
        verb,
        service,
        resource,
        trailingSlash: false,
        rawPath: resource.length === 0 ? '' : `/${resource.map(encodeURIComponent).join('/')}`,
        query: rawQuery(options.query),
        body: raw ? undefined : body,
        headers,
        stream: bytes === null ? undefined : Readable.from([bytes.data]),
        host: origin.host,
        clientIp: origin.clientIp,
        log: origin.log,
      },
      { ...acting, requestor: 'script', elevated: acting.elevated || options.elevated === true, depth: acting.depth + 1 },
    );
    const status = result.status ?? 200;
    if (status >= 400) {
      const error = (result.body as { error?: { message?: unknown; context?: ErrorContext } } | null)?.error;
      throw new PorticoError(status, typeof error?.message === 'string' ? error.message : `Status ${status}.`, error?.context ?? null);
    }
    return { status, body: result.body, headers: result.headers ?? {} };
  };

  const api: ServiceApi = {
    call: ((service: string, verb: Verb, path: string, options?: CallOptions) =>
      request(
        service,
        verb,
        path.split('/').filter((segment) => segment !== '' && segment !== '.' && segment !== '..'),
        options,
      )) as ServiceApi['call'],
    table: ((service: string, table: string) => tableClient(request, service, table)) as ServiceApi['table'],
    asAdmin: () => (acting.elevated ? api : inProcessApi(ctx, serve, { ...acting, elevated: true }, origin)),
  };
  return api;
}

/**
 * A body as an HTTP client sends it to a raw-body service: a string as UTF-8 text, bytes as they
 * are, anything else as JSON (a hook writing 'text' to a file must not find '"text"' in it).
 */
function rawBytes(body: unknown): { data: Buffer; type: string } {
  if (typeof body === 'string') return { data: Buffer.from(body, 'utf8'), type: 'text/plain; charset=utf-8' };
  if (body instanceof Uint8Array)
    return { data: Buffer.from(body.buffer, body.byteOffset, body.byteLength), type: 'application/octet-stream' };
  if (body instanceof ArrayBuffer) return { data: Buffer.from(body), type: 'application/octet-stream' };
  return { data: Buffer.from(JSON.stringify(body)), type: 'application/json' };
}

type Request = (service: string, verb: Verb, resource: string[], options?: CallOptions) => Promise<ApiResponse>;
type Loose = Record<string, unknown>;

function tableClient(request: Request, service: string, table: string): TableClient<Loose, Loose, Loose> {
  const path = (id?: string | number) => (id === undefined ? ['_table', table] : ['_table', table, String(id)]);
  const fields = (list: readonly string[] | undefined): ApiQuery => (list === undefined ? {} : { fields: list });
  return {
    async list(params = {}) {
      const { filter, order, limit, offset, ids } = params;
      const query: ApiQuery = { ...params.query, ...fields(params.fields), filter, order, limit, offset, ids };
      const { body } = await request(service, 'GET', path(), { query });
      return (body as { resource: never[] }).resource;
    },
    async count(filter) {
      const { body } = await request(service, 'GET', path(), { query: { count_only: true, filter } });
      return (body as { meta: { count: number } }).meta.count;
    },
    async get(id, params = {}) {
      const { body } = await request(service, 'GET', path(id), { query: { ...params.query, ...fields(params.fields) } });
      return body as never;
    },
    async create(records, params = {}) {
      const resource = Array.isArray(records) ? records : [records];
      const { body } = await request(service, 'POST', path(), { query: { fields: '*', ...params.query }, body: { resource } });
      return (body as { resource: Loose[] }).resource;
    },
    async update(id, changes, params = {}) {
      const { body } = await request(service, 'PATCH', path(id), { query: { fields: '*', ...params.query }, body: changes });
      return body as Loose;
    },
    async delete(id, params = {}) {
      await request(service, 'DELETE', path(id), { query: params.query });
    },
  };
}
