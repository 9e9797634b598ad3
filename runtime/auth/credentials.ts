/**
 * Reads the credentials of a request: the API key and the session token, from the spec's headers,
 * their X-DreamFactory-* aliases, the query string, or Authorization: Bearer.
 */
import type { RawQuery } from '../core/query-params.js';

export interface Credentials {
  apiKey: string | null;
  token: string | null;
}

type Headers = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== '' ? text.trim() : null;
}

export function readCredentials(headers: Headers, query: RawQuery): Credentials {
  const bearer = first(headers.authorization);
  return {
    apiKey: first(headers['x-service-api-key']) ?? first(headers['x-dreamfactory-api-key']) ?? first(query.api_key),
    token:
      first(headers['x-service-session-token']) ??
      first(headers['x-dreamfactory-session-token']) ??
      first(query.session_token) ??
      (bearer && /^bearer\s+/i.test(bearer) ? bearer.replace(/^bearer\s+/i, '') : null),
  };
}
