/**
 * The `rws` (HTTP service) engine: `/api/v2/{service}/{path…}` is proxied to `{base_url}/{path…}`
 * with the same verb, query (less the caller's credentials), body (streamed) and headers (less
 * hop-by-hop and credential ones), plus the configured parameters and headers. The remote's
 * status, headers (less hop-by-hop and CORS ones) and body come back as they are; an error status
 * comes back in the error envelope with the remote's text as message (as the reference); redirects
 * are followed only inside the base URL (one out of it, or a sixth in a row, is a 502); a remote that is down or too slow
 * to answer is 503, one that stops sending its body for the timeout is cut off. GETs can be cached.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  BadGatewayError,
  BadRequestError,
  InternalServerError,
  PayloadTooLargeError,
  PorticoError,
  ServiceUnavailableError,
} from '../../core/errors.js';
import { substituteLookups } from '../../core/lookups.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { causeChain, networkCode } from '../remote-errors.js';
import { bodyLimited, declaredBeyond } from '../request-body.js';
import { ResponseCache } from '../response-cache.js';
import type { ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import { applies, type HeaderEntry, type ParameterEntry } from './rws-config.js';
import { decodePercent } from '../../core/percent-decoding.js';

export interface RwsOptions {
  name: string;
  baseUrl: URL;
  parameters: ParameterEntry[];
  headers: HeaderEntry[];
  timeoutMs: number;
  cacheTtlMs: number;
  keepTrailingSlash: boolean;
  forwardHeaders: boolean;
  document: OpenApiFragment;
  /** The server's request body limit (bytes): a larger body is 413, as on every other endpoint. */
  bodyLimit: number;
}

/** Headers never forwarded: hop-by-hop (RFC 9110 7.6.1), what fetch sets itself, and the caller's credentials. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
  'expect',
  'http2-settings',
  'authorization',
  'cookie',
  'x-service-api-key',
  'x-service-session-token',
  'x-dreamfactory-api-key',
  'x-dreamfactory-session-token',
  'x-http-method',
  'x-method-override',
  'x-http-method-override',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'forwarded',
  'x-real-ip',
]);
/** Query parameters of the caller that are its credentials to this platform. */
const CREDENTIAL_PARAMETERS = new Set(['api_key', 'session_token', 'method']);
/** Response headers not relayed: hop-by-hop, and what fetch already decoded. */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'content-encoding',
  'content-length',
  'set-cookie',
]);
const MAX_REDIRECTS = 5;
const MAX_ERROR_TEXT = 64 * 1024;
const MAX_CACHED = 1024 * 1024;

/**
 * The code of a failure (`DEPTH_ZERO_SELF_SIGNED_CERT`, ...), never its message: messages of
 * fetch and undici can hold the URL, and with it a host name or credentials.
 */
function errorCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : null;
}

/**
 * Whether the remote answered with bytes that are no HTTP response (undici's HTTPParserError, a cause
 * of fetch's error): its llhttp code where the runtime gives one ('' where not, as Node.js 24's does).
 */
function notHttpAnswer(error: unknown): string | null {
  for (const current of causeChain(error)) if (current.name === 'HTTPParserError') return errorCode(current) ?? '';
  return null;
}

/**
 * Whether a path segment is or hides a dot segment: as sent, percent-encoded, or behind an encoded
 * separator (`..%2F..%2Fadmin`: a remote that decodes `%2F` before resolving, as nginx does, climbed
 * out of the base path), and `..;` (Tomcat reads it as `..`).
 */
function dotted(segment: string): boolean {
  // Malformed percent-encoding elsewhere in the segment: the dot and separators decoded alone.
  const plain = decodePercent(segment) ?? segment.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  return plain.split(/[/\\]/).some((part) => {
    const name = part.replace(/;.*$/, '');
    return name === '.' || name === '..';
  });
}

/**
 * The start of an error answer's body, as the error's message: at most MAX_ERROR_TEXT bytes are
 * read (the whole body was, however large or endless: a remote's 4xx/5xx of gigabytes was held in
 * memory), each piece restarting the wait; a remote that stalls or drops midway leaves what came.
 */
async function errorText(response: Response, watch: BodyWatch): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const pieces: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for (;;) {
      watch.wait();
      const piece = await reader.read();
      if (piece.done) break;
      pieces.push(piece.value);
      size += piece.value.length;
      if (size > MAX_ERROR_TEXT) {
        cut = true;
        break;
      }
    }
  } catch {
    // What arrived before the remote stalled or dropped the connection is kept.
  } finally {
    watch.stopWaiting();
    reader.cancel().catch(() => undefined);
  }
  const text = new TextDecoder().decode(Buffer.concat(pieces).subarray(0, MAX_ERROR_TEXT), { stream: cut });
  return cut ? `${text}…` : text;
}

/** The remote's timeout, restarted while its body arrives (`wait`) and stopped once it has (`stopWaiting`). */
interface BodyWatch {
  wait(): void;
  stopWaiting(): void;
}

interface Cached {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export class RwsHandler implements ServiceHandler {
  private readonly cache: ResponseCache | null;

  constructor(private readonly options: RwsOptions) {
    this.cache = options.cacheTtlMs > 0 ? new ResponseCache(options.cacheTtlMs) : null;
  }

  private outboundUrl(call: ServiceCall): URL {
    const raw = call.rawPath ?? '';
    // The URL parser would resolve them, climbing out of the base path.
    if (raw.split('/').some(dotted)) {
      throw new BadRequestError('Invalid path: segments may not be `.` or `..`, sent as they are or encoded.');
    }
    const url = new URL(this.options.baseUrl.href);
    // A backslash stays a character of the segment: the URL parser reads it as `/` (`..\..\x` climbed out).
    let path = raw
      .replace(/\\/g, '%5C')
      .replace(/^\/+/, '')
      .replace(/\/{2,}/g, '/');
    if (!this.options.keepTrailingSlash) path = path.replace(/\/+$/, '');
    if (path !== '') url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
    return url;
  }

  /**
   * Whether a redirect target stays inside the service's base URL: same scheme, host, port and
   * credentials, and a path at or under the base path with no segment that is or hides a dot segment.
   */
  private insideBase(target: URL): boolean {
    const base = this.options.baseUrl;
    if (target.origin !== base.origin || target.username !== base.username || target.password !== base.password) return false;
    const root = base.pathname.replace(/\/+$/, '');
    if (target.pathname !== root && !target.pathname.startsWith(`${root}/`)) return false;
    return !target.pathname.slice(root.length).split('/').some(dotted);
  }

  private outboundQuery(call: ServiceCall, url: URL): string[] {
    const lookup = (text: string) => (call.auth.lookup ? substituteLookups(text, call.auth.lookup) : text);
    const excludedOut = new Set(this.options.parameters.filter((p) => p.exclude && p.outbound && applies(p, call.verb)).map((p) => p.name));
    const excludedKey = new Set(this.options.parameters.filter((p) => p.exclude && p.cacheKey && applies(p, call.verb)).map((p) => p.name));
    const cacheKey: string[] = [];
    for (const [name, value] of Object.entries(call.query)) {
      if (CREDENTIAL_PARAMETERS.has(name)) continue;
      for (const item of Array.isArray(value) ? value : [value ?? '']) {
        if (!excludedOut.has(name)) url.searchParams.append(name, item);
        if (!excludedKey.has(name)) cacheKey.push(`${name}=${item}`);
      }
    }
    for (const p of this.options.parameters) {
      if (p.exclude || !applies(p, call.verb)) continue;
      const value = lookup(p.value);
      if (p.outbound) url.searchParams.append(p.name, value);
      if (p.cacheKey) cacheKey.push(`${p.name}=${value}`);
    }
    return cacheKey;
  }

  private outboundHeaders(call: ServiceCall): Headers {
    const headers = new Headers();
    if (this.options.forwardHeaders) {
      // Headers the caller's Connection header names are hop-by-hop too (RFC 9110 7.6.1).
      const connection = call.headers.connection;
      const named = new Set(
        (Array.isArray(connection) ? connection.join(',') : (connection ?? ''))
          .split(',')
          .map((token) => token.trim().toLowerCase())
          .filter(Boolean),
      );
      for (const [name, value] of Object.entries(call.headers)) {
        if (value === undefined || NOT_FORWARDED.has(name.toLowerCase()) || named.has(name.toLowerCase())) continue;
        for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
      }
    } else if (call.headers['content-type']) headers.set('content-type', String(call.headers['content-type']));
    for (const h of this.options.headers) {
      if (!applies(h, call.verb)) continue;
      if (h.passFromClient) {
        const incoming = call.headers[h.name.toLowerCase()];
        if (incoming !== undefined) headers.set(h.name, Array.isArray(incoming) ? incoming.join(', ') : incoming);
      } else this.configuredHeader(headers, h.name, call.auth.lookup ? substituteLookups(h.value, call.auth.lookup) : h.value);
    }
    return headers;
  }

  /**
   * A configured header, its lookups replaced. A value beyond Latin-1 (`{name}` of a user: `日本`)
   * goes as its UTF-8 bytes, as curl sends it; a line break or NUL (a lookup's value) would start
   * another header, and is refused. Both made fetch throw: a bare 500 "Internal server error.".
   */
  private configuredHeader(headers: Headers, name: string, value: string): void {
    if (/[\r\n\0]/.test(value)) {
      throw new InternalServerError(
        `The value of header '${name}' of service '${this.options.name}' holds a line break or a NUL character (from a lookup?); the request was not sent.`,
      );
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the Latin-1 range a header value may hold
    headers.set(name, /[^\u0000-\u00ff]/.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value);
  }

  private unreachable(error: unknown): PorticoError {
    if (error instanceof PorticoError) return error;
    const timedOut = (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError';
    const notHttp = notHttpAnswer(error);
    const why = timedOut
      ? `did not answer within ${Math.round(this.options.timeoutMs / 1000)} s`
      : notHttp !== null
        ? `answered something that is not HTTP${notHttp === '' ? '' : ` (${notHttp})`}`
        : `is unreachable (${networkCode(error) ?? errorCode((error as Error)?.cause) ?? 'the request failed'})`;
    return new ServiceUnavailableError(`The remote server of service '${this.options.name}' ${why}.`);
  }

  async handle(call: ServiceCall): Promise<ServiceResult> {
    let url = this.outboundUrl(call);
    const cacheKeyParts = this.outboundQuery(call, url);
    const headers = this.outboundHeaders(call);
    const cacheKey =
      this.cache && call.verb === 'GET'
        ? JSON.stringify([
            url.pathname,
            cacheKeyParts,
            this.options.headers.filter((h) => h.passFromClient).map((h) => call.headers[h.name.toLowerCase()] ?? null),
          ])
        : null;
    if (cacheKey) {
      const hit = (await this.cache?.get(cacheKey)) as Cached | undefined;
      if (hit) return { status: hit.status, body: hit.body, headers: { ...hit.headers, 'x-cache': 'HIT' } };
    }
    const hasBody = call.verb !== 'GET' && call.stream !== undefined;
    if (hasBody && declaredBeyond(call.headers, this.options.bodyLimit)) throw new PayloadTooLargeError();
    // The timeout bounds the wait for the remote's answer, then each wait for more of its body (not
    // the whole of a long one): a remote that stalls midway is cut off instead of holding the caller.
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const stopWaiting = () => clearTimeout(timer);
    const wait = () => {
      stopWaiting();
      timer = setTimeout(() => controller.abort(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), this.options.timeoutMs);
    };
    wait();
    const signal = controller.signal;
    // A body without a declared length (chunked) is counted as it goes: past the limit the call is
    // abandoned with the 413 as its reason.
    // Each piece of it restarts the wait: a caller uploading slowly was a 503 saying the remote did not answer in time.
    const outbound = hasBody ? (call.stream as Readable).pipe(bodyLimited(this.options.bodyLimit, wait)) : undefined;
    outbound?.on('error', (error) => controller.abort(error));
    if (outbound) call.stream?.once('error', (error) => outbound.destroy(error));
    let response: Response;
    try {
      for (let redirects = 0; ; redirects += 1) {
        response = await fetch(url, {
          method: call.verb,
          headers,
          signal,
          redirect: 'manual',
          ...(hasBody && redirects === 0 ? { body: Readable.toWeb(outbound as Readable) as unknown as BodyInit, duplex: 'half' } : {}),
        } as RequestInit);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || !location) break;
        const next = URL.parse(location, url);
        if (!next) break;
        // A redirect out of the base URL (another scheme, host or port, or a path outside the base
        // path) is neither followed nor handed on: it would reach what the service was not configured for.
        if (!this.insideBase(next)) {
          await response.body?.cancel().catch(() => undefined);
          throw new BadGatewayError(
            `The remote server of service '${this.options.name}' redirected (${response.status}) outside the service's base URL; the redirect was not followed.`,
          );
        }
        // A body was streamed once and cannot be sent again: that redirect goes to the caller.
        if (hasBody) break;
        // A loop (or a chain too long) was handed to the caller as the last 302, with the remote's own Location.
        if (redirects >= MAX_REDIRECTS) {
          await response.body?.cancel().catch(() => undefined);
          throw new BadGatewayError(
            `The remote server of service '${this.options.name}' redirected more than ${MAX_REDIRECTS} times; the redirects were not followed further.`,
          );
        }
        await response.body?.cancel();
        url = next;
      }
    } catch (error) {
      stopWaiting();
      call.stream?.resume();
      throw this.unreachable(signal.aborted ? signal.reason : error);
    }
    let result: ServiceResult | undefined;
    try {
      result = await this.answer(response, cacheKey, { wait, stopWaiting });
      return result;
    } finally {
      // A streamed body keeps its own watch (watchedBody).
      if (!(result?.body instanceof Readable)) stopWaiting();
    }
  }

  /**
   * The remote's body as a stream that restarts the wait at each piece and stops it at the end.
   * Its failure (the remote closing or resetting midway, a malformed chunk, the wait running out)
   * is the service's 503: before the first byte went out the caller gets it in the error shape (it
   * was a bare 500), after that the caller's connection is cut off, as a truncated answer. A caller
   * gone cancels the remote's body.
   */
  private watchedBody(body: ReadableStream<Uint8Array>, watch: BodyWatch): Readable {
    watch.wait();
    const reader = body.getReader();
    const unreachable = (error: unknown) => this.unreachable(error);
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let piece: ReadableStreamReadResult<Uint8Array>;
        try {
          piece = await reader.read();
        } catch (error) {
          watch.stopWaiting();
          controller.error(unreachable(error));
          return;
        }
        if (piece.done) {
          watch.stopWaiting();
          controller.close();
        } else {
          watch.wait();
          controller.enqueue(piece.value);
        }
      },
      cancel(reason) {
        watch.stopWaiting();
        return reader.cancel(reason);
      },
    });
    return Readable.fromWeb(watched as WebReadableStream);
  }

  private async answer(response: Response, cacheKey: string | null, watch: BodyWatch): Promise<ServiceResult> {
    if (response.status < 200 || response.status > 599) {
      await response.body?.cancel().catch(() => undefined);
      // The remote broke HTTP, as with a redirect loop: its fault (502), not this platform's (500).
      throw new BadGatewayError(`The remote server of service '${this.options.name}' answered an invalid HTTP status ${response.status}.`);
    }
    const relayed: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      // CORS is the platform's decision (/system/cors): a remote's `access-control-allow-origin: *`
      // would otherwise let any web page read what this service answers.
      if (!NOT_RELAYED.has(name) && !name.startsWith('access-control-')) relayed[name] = value;
    });
    if (response.status >= 400) {
      const text = await errorText(response, watch);
      const error = new PorticoError(response.status, text || `The remote server answered ${response.status}.`);
      return { status: response.status, body: error.toBody(), headers: { 'content-type': 'application/json; charset=utf-8' } };
    }
    if (cacheKey && response.status === 200) {
      const length = Number(response.headers.get('content-length'));
      if (!(length > MAX_CACHED)) {
        try {
          const body = Buffer.from(await response.arrayBuffer());
          if (body.length <= MAX_CACHED) await this.cache?.set(cacheKey, { status: 200, headers: relayed, body } satisfies Cached);
          return { status: 200, body, headers: { ...relayed, 'x-cache': 'MISS' } };
        } catch (error) {
          throw this.unreachable(error);
        }
      }
    }
    const body = response.body ? this.watchedBody(response.body, watch) : '';
    return { status: response.status, body, headers: relayed };
  }

  async clearCache(): Promise<void> {
    await this.cache?.clear();
  }

  openapi(): OpenApiFragment {
    return this.options.document;
  }

  async close(): Promise<void> {}
}
