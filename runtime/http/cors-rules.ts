/**
 * CORS from the rules of /system/cors (reference 5.6): among the enabled rules whose path matches
 * the request path (a glob such as `api/v2/*`, or a regular expression starting with `^`), the
 * longest path wins; its origins, methods, headers and max age answer the browser. Without a
 * matching rule, or for an origin the rule does not list, no CORS headers are sent.
 * The rules live in memory and are reloaded after every write to /system/cors.
 */
import { maskToVerbs } from '../auth/principals.js';
import type { SystemDb } from '../system/store/system-db.js';

/** Headers every cross-origin client may send: the spec's, their aliases and the usual ones. */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'Accept',
  'Origin',
  'X-Requested-With',
  'X-Service-API-Key',
  'X-Service-Session-Token',
  'X-DreamFactory-API-Key',
  'X-DreamFactory-Session-Token',
  'X-HTTP-Method',
  'X-Method-Override',
  'X-HTTP-Method-Override',
];

interface CorsRule {
  path: string;
  matches: (path: string) => boolean;
  origins: string[];
  headers: string[];
  exposedHeaders: string[];
  methods: string[];
  maxAge: number;
  credentials: boolean;
}

/** The CORS answer for one request (origin false: send no CORS headers). */
export interface CorsDecision {
  origin: boolean | string;
  methods?: string[];
  allowedHeaders?: string[];
  /** The rule's headers are `*`: a preflight allows whatever headers it asks for. */
  anyHeader?: boolean;
  exposedHeaders?: string[];
  credentials?: boolean;
  maxAge?: number;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function pathMatcher(pattern: string): (path: string) => boolean {
  if (pattern.startsWith('^')) {
    try {
      const regex = new RegExp(pattern);
      return (path) => regex.test(path);
    } catch {
      return () => false;
    }
  }
  const glob = pattern.replace(/^\/+/, '');
  const regex = new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (path) => regex.test(path);
}

export class CorsRules {
  private rules: CorsRule[] = [];

  constructor(private readonly db: SystemDb) {}

  async reload(): Promise<void> {
    const rows = await this.db.selectFrom('cors_config').selectAll().where('enabled', '=', 1).execute();
    this.rules = rows
      .map((row) => ({
        path: row.path,
        matches: pathMatcher(row.path),
        origins: list(row.origin),
        headers: list(row.header),
        exposedHeaders: list(row.exposed_header),
        methods: maskToVerbs(row.method),
        maxAge: row.max_age,
        credentials: row.supports_credentials === 1,
      }))
      // Longest path first: the most specific rule wins.
      .sort((a, b) => b.path.length - a.path.length || (a.path < b.path ? -1 : 1));
  }

  /** The CORS answer for a request path (without leading slash or query) and its Origin header. */
  decide(path: string, origin: string | undefined): CorsDecision {
    if (origin === undefined) return { origin: false };
    const rule = this.rules.find((candidate) => candidate.matches(path));
    if (!rule || !(rule.origins.includes('*') || rule.origins.includes(origin))) return { origin: false };
    return {
      // A credentialed response must name the origin; otherwise `*` is enough when allowed.
      origin: rule.origins.includes('*') && !rule.credentials ? '*' : origin,
      methods: [...rule.methods, 'OPTIONS'],
      allowedHeaders: [...CORS_ALLOWED_HEADERS, ...rule.headers],
      anyHeader: rule.headers.includes('*'),
      exposedHeaders: rule.exposedHeaders,
      credentials: rule.credentials,
      ...(rule.maxAge > 0 ? { maxAge: rule.maxAge } : {}),
    };
  }

  /** Whether any enabled rule exists (without one, no response varies by Origin). */
  get any(): boolean {
    return this.rules.length > 0;
  }
}
