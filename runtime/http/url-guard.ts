/**
 * Refuses URLs carrying text no database stores faithfully (an encoded NUL, `%00`, anywhere; lone
 * surrogates in query values; percent-encoded bytes that are not UTF-8, such as a Latin-1 client's
 * `caf%E9`) before any service sees them, alike for every service and database. The query parser
 * keeps a value it cannot decode as it was sent, so `caf%E9` would have been compared, stored or
 * passed to a routine as those six characters, and `fi%E9lds` ignored as an unknown parameter. A
 * `%` not followed by two hex digits (`100%`) stays text (see query-string.ts).
 * Checked in the server's one onRequest hook (create-server.ts).
 */
import type { FastifyRequest } from 'fastify';
import { coreMessages } from '../core/messages.js';
import { unacceptableText } from '../core/request-limits.js';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * Fastify's `rewriteUrl` option: an absolute-form request target (`GET http://host/api/v2/...`,
 * which servers must accept, RFC 9112 3.2.2) as its origin form. Fastify routed it, but the
 * services read the path from the URL as sent and looked for a service named `http:`.
 */
export function originForm(request: { url?: string }): string {
  const url = request.url ?? '/';
  if (url.charCodeAt(0) === 47) return url;
  const origin = ABSOLUTE_FORM.exec(url)?.[0];
  if (origin === undefined) return url;
  const rest = url.slice(origin.length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}

/** The error refusing the request's URL, or null when it is fine. */
export function urlRefusal(request: FastifyRequest): Error | null {
  const url = request.url;
  if (url.includes('%00')) return coreMessages.nulInUrl.error();
  const queryAt = url.indexOf('?');
  if (queryAt !== -1 && url.includes('%', queryAt)) {
    const key = parameterNotUtf8(url.slice(queryAt + 1));
    if (key !== null) return coreMessages.invalidQueryText.error(key, 'holds percent-encoded bytes that are not UTF-8 text');
  }
  const query = request.query as Record<string, string | string[] | undefined>;
  for (const key in query) {
    const value = query[key];
    let reason = unacceptableText(key);
    if (reason === null && typeof value === 'string') reason = unacceptableText(value);
    else if (reason === null && value !== undefined) {
      for (const each of value) {
        reason = unacceptableText(each);
        if (reason !== null) break;
      }
    }
    if (reason !== null) return coreMessages.invalidQueryText.error(key, reason);
  }
  return null;
}

const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/** The (raw) name of the first query parameter whose name or value percent-encodes bytes that are not UTF-8, or null. */
function parameterNotUtf8(query: string): string | null {
  // Nearly always the whole query decodes: one call, no scan.
  try {
    decodeURIComponent(query);
    return null;
  } catch {}
  for (const pair of query.split('&')) {
    for (const run of pair.match(ENCODED_RUN) ?? []) {
      try {
        decodeURIComponent(run);
      } catch {
        const equals = pair.indexOf('=');
        return equals === -1 ? pair : pair.slice(0, equals);
      }
    }
  }
  return null;
}
