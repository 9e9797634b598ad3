/**
 * The connection fields of a database server service (pgsql, mysql), as the reference platform
 * names them, or one `url`; their JSON Schema and their normalised values.
 */
import { InternalServerError } from '../../../core/errors.js';
import { decodePercent, WELL_FORMED_ESCAPES, WELL_FORMED_ESCAPES_MESSAGE } from '../../../core/percent-decoding.js';
import { sqlConfigProperties } from '../sql-config.js';

export interface ServerConnection {
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  /** Most connections a service opens at once. */
  maxConnections: number;
  /** Milliseconds to wait for a connection (connecting, or a free one of the pool) before the database counts as unavailable. */
  connectTimeoutMs: number;
  /**
   * Milliseconds a statement may run, waiting on locks included, before the database stops it;
   * 0 for no limit. Without one, a statement waiting on a row another session holds keeps its
   * pooled connection for ever, and once all are taken every request of the service waits.
   */
  statementTimeoutMs: number;
}

export interface ServerDefaults {
  /** `postgres`, `mysql`: the URL schemes this server takes (the first is shown in messages). */
  schemes: readonly string[];
  port: number;
  username: string;
}

const DEFAULT_MAX_CONNECTIONS = 10;
/**
 * How long a pooled connection may stay unused before the pool closes it. node-postgres's own
 * default (10 s) closed the pool between bursts of traffic a few seconds apart, and the next burst
 * paid for new connections: a TCP handshake, password authentication, a server process with cold
 * catalog caches, and every statement prepared again (twice a request's database CPU in the bench
 * for a run that found the pool empty). A minute, as mysql2 keeps its idle connections: a server
 * with no traffic for longer still gives its connections back, and at most max_connections are
 * kept meanwhile.
 */
export const IDLE_CONNECTION_MS = 60_000;
const DEFAULT_CONNECTION_TIMEOUT_SECONDS = 10;
const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 30;

/** JSON Schema of a server service's config; `extra` adds dialect keys (`schema`). */
export function serverConfigSchema(label: string, defaults: ServerDefaults, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const scheme = defaults.schemes[0];
  // `${env:...}` references are strings until resolved, so numbers also accept strings.
  const integerOrReference = (description: string) => ({ type: ['integer', 'string'], description });
  // A count or a wait of 0 or less opens no connection: refused at its line, as the open would refuse it.
  const positiveOrReference = (description: string) => ({
    type: ['integer', 'string'],
    minimum: 1,
    pattern: '^(0*[1-9]\\d*|.*\\$\\{env:.*)$',
    patternErrorMessage: 'must be a positive whole number or an ${env:NAME} reference',
    description,
  });
  return {
    type: 'object',
    additionalProperties: true,
    anyOf: [{ required: ['url'] }, { required: ['database'] }],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        pattern: WELL_FORMED_ESCAPES,
        patternErrorMessage: WELL_FORMED_ESCAPES_MESSAGE,
        description: `Connection URL (${scheme}://user:password@host:port/database), instead of the separate fields.`,
      },
      host: { type: 'string', minLength: 1, description: `${label} server host name (default localhost).` },
      port: integerOrReference(`${label} server port (default ${defaults.port}).`),
      database: { type: 'string', minLength: 1, description: 'Database name.' },
      username: { type: 'string', description: `User name (default ${defaults.username}).` },
      password: { type: 'string', description: 'Password; write `${env:NAME}` to keep it out of platform.yaml.' },
      max_connections: positiveOrReference(`Most connections the service opens at once (default ${DEFAULT_MAX_CONNECTIONS}).`),
      connection_timeout: positiveOrReference(
        `Seconds to wait for a connection (connecting, or a free one when all are busy) before answering 503 (default ${DEFAULT_CONNECTION_TIMEOUT_SECONDS}).`,
      ),
      statement_timeout: {
        type: ['integer', 'string'],
        minimum: 0,
        pattern: '^(\\d+|.*\\$\\{env:.*)$',
        patternErrorMessage: 'must be a whole number of seconds or an ${env:NAME} reference',
        description: `Seconds a statement may run, waiting on locks included, before the database stops it and the request gets 503; 0 for no limit (default ${DEFAULT_STATEMENT_TIMEOUT_SECONDS}).`,
      },
      ...extra,
      ...sqlConfigProperties,
    },
  };
}

function positiveInteger(value: unknown, key: string, fallback: number): number {
  return integerSetting(value, key, fallback, 1);
}

/** A whole number of at least `minimum` (1: "positive", 0: "whole"), or the fallback when the key is left out. */
function integerSetting(value: unknown, key: string, fallback: number, minimum: 0 | 1): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < minimum)
    throw new InternalServerError(`Database service config '${key}' must be a ${minimum === 1 ? 'positive integer' : 'whole number'}.`);
  return n;
}

/** A part of the url decoded; a malformed escape (`p%ss`, `%FF`) is a config error naming the part, not a bare URIError. */
function urlPart(text: string, part: string): string {
  const decoded = decodePercent(text);
  if (decoded === null)
    throw new InternalServerError(
      `Database service config 'url' has a malformed percent-escape in its ${part}: write '%' as %25, and escapes as UTF-8.`,
    );
  return decoded;
}

/** The connection of a (resolved) config: `url` first, the separate fields fill what it leaves out. */
export function serverConnection(config: Record<string, unknown>, defaults: ServerDefaults): ServerConnection {
  const text = (key: string) => (typeof config[key] === 'string' ? (config[key] as string) : undefined);
  let fromUrl: Partial<ServerConnection> = {};
  const url = text('url');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InternalServerError(`Database service config 'url' is not a valid URL.`);
    }
    const scheme = parsed.protocol.replace(/:$/, '');
    if (!defaults.schemes.includes(scheme)) {
      throw new InternalServerError(
        `Database service config 'url' must start with ${defaults.schemes.map((s) => `${s}://`).join(' or ')}.`,
      );
    }
    fromUrl = {
      host: parsed.hostname || undefined,
      port: parsed.port ? Number(parsed.port) : undefined,
      database: urlPart(parsed.pathname.replace(/^\//, ''), 'database name') || undefined,
      username: parsed.username ? urlPart(parsed.username, 'user name') : undefined,
      password: parsed.password ? urlPart(parsed.password, 'password') : undefined,
    };
  }
  const database = fromUrl.database ?? text('database');
  if (database === undefined || database === '')
    throw new InternalServerError(`Database service config needs 'database' (or a 'url' naming one).`);
  return {
    host: fromUrl.host ?? text('host') ?? 'localhost',
    port: fromUrl.port ?? positiveInteger(config.port, 'port', defaults.port),
    database,
    username: fromUrl.username ?? text('username') ?? defaults.username,
    password: fromUrl.password ?? text('password') ?? '',
    maxConnections: positiveInteger(config.max_connections, 'max_connections', DEFAULT_MAX_CONNECTIONS),
    connectTimeoutMs: positiveInteger(config.connection_timeout, 'connection_timeout', DEFAULT_CONNECTION_TIMEOUT_SECONDS) * 1000,
    statementTimeoutMs: integerSetting(config.statement_timeout, 'statement_timeout', DEFAULT_STATEMENT_TIMEOUT_SECONDS, 0) * 1000,
  };
}
