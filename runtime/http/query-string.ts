/**
 * The query string parser: fast-querystring (Fastify's own) for what clients send nearly always;
 * a query holding a `%` that encodes nothing (`filter=name like 'a%'` typed by hand) goes through
 * Node's querystring instead, which decodes everything else of that value as PHP's urldecode and
 * the reference do. fast-querystring kept such a whole value as sent, `%20` and `%27` included,
 * which then read as a malformed filter. Bytes that are not UTF-8 are refused by the URL guard
 * (url-guard.ts), which reads the URL itself.
 */
import fastQuerystring from 'fast-querystring';
import querystring from 'node:querystring';

/** A `%` not followed by two hex digits. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/;

export function parseQueryString(query: string): Record<string, unknown> {
  return LONE_PERCENT.test(query) ? querystring.parse(query, '&', '=', { maxKeys: 0 }) : fastQuerystring.parse(query);
}
