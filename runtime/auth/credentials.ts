/**
 * Reads the credentials of a request: the API key and the session token, from the spec's headers,
 * their X-DreamFactory-* aliases, the query string, or Authorization: Bearer; and HTTP Basic
 * credentials (email and password), which authenticate a request sent without a session token.
 */
import type { RawQuery } from '../core/query-params.js';

export interface Credentials {
  apiKey: string | null;
  token: string | null;
}

type Headers = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const trimmed = text.trim();
  return trimmed !== '' ? trimmed : null;
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

/** The credential headers by their lower-case names, as the spec and reference write them. */
const CREDENTIAL_HEADERS: ReadonlyMap<string, string> = new Map([
  ['x-service-api-key', 'X-Service-API-Key'],
  ['x-dreamfactory-api-key', 'X-DreamFactory-API-Key'],
  ['x-service-session-token', 'X-Service-Session-Token'],
  ['x-dreamfactory-session-token', 'X-DreamFactory-Session-Token'],
]);

/** A credential header sent more than once, or a header and its alias sent with different values. */
export type CredentialHeaderProblem = { repeated: string } | { conflicting: [string, string] };

/** The spec's credential headers and their X-DreamFactory aliases, in pairs. */
const ALIASED: ReadonlyArray<readonly [string, string]> = [
  ['x-service-api-key', 'x-dreamfactory-api-key'],
  ['x-service-session-token', 'x-dreamfactory-session-token'],
];

/**
 * What makes a request's credential headers ambiguous, or null. Node joins a repeated header's
 * values with ', ', and the key 'k, k' matched no app (a 401 'Invalid API key' that hid the cause);
 * a header and its alias with different values had the spec's header taken silently.
 * `rawHeaders`: names and values as sent, in turn. A usual request costs the four lookups.
 */
export function credentialHeaderProblem(headers: Headers, rawHeaders: readonly string[]): CredentialHeaderProblem | null {
  // A repeated header is joined with ', ' (keys and tokens hold no comma): only such requests are counted.
  let joined = false;
  let conflicting: [string, string] | null = null;
  for (const [name, alias] of ALIASED) {
    const value = headers[name];
    const aliasValue = headers[alias];
    if (value !== undefined && (Array.isArray(value) || value.includes(','))) joined = true;
    if (aliasValue !== undefined && (Array.isArray(aliasValue) || aliasValue.includes(','))) joined = true;
    if (conflicting === null && value !== undefined && aliasValue !== undefined && first(value) !== first(aliasValue))
      conflicting = [CREDENTIAL_HEADERS.get(name) as string, CREDENTIAL_HEADERS.get(alias) as string];
  }
  if (joined) {
    const seen = new Set<string>();
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i].toLowerCase();
      if (!CREDENTIAL_HEADERS.has(name)) continue;
      if (seen.has(name)) return { repeated: CREDENTIAL_HEADERS.get(name) as string };
      seen.add(name);
    }
  }
  return conflicting === null ? null : { conflicting };
}

export interface BasicCredentials {
  email: string;
  password: string;
}

/**
 * `Authorization: Basic base64(email:password)`; null when the header holds no Basic credentials.
 * A value that does not decode to `email:password` gives an empty email, which matches no account:
 * the client meant to authenticate, and is told its credentials did not match.
 */
export function readBasicCredentials(headers: Headers): BasicCredentials | null {
  if (headers.authorization === undefined) return null;
  const match = /^basic(?:\s+(.*))?$/is.exec(first(headers.authorization) ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? { email: '', password: '' } : { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
