/**
 * Failures of remote back-ends (file servers, SMTP, HTTP) as the API reports them: a refused login or an unreachable
 * server is 503 naming the back-end and the service (never the credentials); a missing path is
 * 404; anything else a 500 with the back-end's own words, stripped of what it says about logins.
 */
import { InternalServerError, NotFoundError, PorticoError, ServiceUnavailableError } from '../core/errors.js';

const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'ERR_SOCKET_CLOSED',
]);

export interface BackendFailure {
  login?: boolean;
  notFound?: boolean;
  network?: string | null;
}

export function backendError(backend: string, service: string, error: unknown, kind: BackendFailure): PorticoError {
  if (error instanceof PorticoError) return error;
  if (kind.login) return new ServiceUnavailableError(`The ${backend} server of service '${service}' refused the login.`);
  if (kind.network) return new ServiceUnavailableError(`The ${backend} server of service '${service}' is unreachable (${kind.network}).`);
  if (kind.notFound) return new NotFoundError(`Not found on the ${backend} server of service '${service}'.`);
  const message = String((error as Error)?.message ?? error).replace(/(user|pass\w*|login)\S*\s*\S*/gi, '$1 …');
  const failure = new InternalServerError(`The ${backend} server of service '${service}' failed: ${message}`);
  failure.cause = error;
  return failure;
}

/** The network error code of an error (or of its cause), if it is one. */
export function networkCode(error: unknown): string | null {
  for (
    let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 4;
    current = current.cause as typeof current, depth += 1
  ) {
    if (typeof current.code === 'string' && NETWORK.has(current.code)) return current.code;
    if (/timed? ?out/i.test(String((current as Error).message ?? ''))) return 'timeout';
  }
  return null;
}
