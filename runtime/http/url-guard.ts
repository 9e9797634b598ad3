/**
 * Refuses URLs carrying text no database stores faithfully (an encoded NUL, `%00`, anywhere; lone
 * surrogates in query values) before any service sees them, alike for every service and database.
 * Checked in the server's one onRequest hook (create-server.ts).
 */
import type { FastifyRequest } from 'fastify';
import { coreMessages } from '../core/messages.js';
import { unacceptableText } from '../core/request-limits.js';

/** The error refusing the request's URL, or null when it is fine. */
export function urlRefusal(request: FastifyRequest): Error | null {
  if (request.url.includes('%00')) return coreMessages.nulInUrl.error();
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
