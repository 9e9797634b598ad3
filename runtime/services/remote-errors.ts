/**
 * Failures of remote back-ends (file servers, SMTP, HTTP) as the API reports them: a refused login or an unreachable
 * server is 503 naming the back-end and the service (never the credentials); a missing path is
 * 404; a permission the back-end refuses is 403; a full disk or quota is 503 (resource
 * exhaustion); anything else a 502 (the back-end refused or broke). The back-end's own words stay
 * in the log (the error's cause): they may name hosts, accounts or the server's own paths.
 */
import { NotFoundError, PorticoError, ServiceUnavailableError } from '../core/errors.js';

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
  /** The back-end refused the operation for want of permission. */
  denied?: boolean;
  /** The back-end is out of space or over a quota. */
  full?: boolean;
  /** What was attempted, in our words (`delete 'a/b.txt'`); file storages name it once the path is known (RemoteFailure.during). */
  attempt?: string;
}

type Reason = 'denied' | 'full' | 'failed';

/** A back-end's refusal of one operation (403, 503 or 502); `during` names the operation in its message. */
export class RemoteFailure extends PorticoError {
  /** `backend`: what refused, as messages name it (`FTP server`, `file system`). */
  constructor(
    private readonly backend: string,
    private readonly service: string,
    private readonly reason: Reason,
    attempt: string | undefined,
    cause: unknown,
  ) {
    const status = reason === 'denied' ? 403 : reason === 'full' ? 503 : 502;
    super(status, RemoteFailure.text(backend, service, reason, attempt));
    this.cause = cause;
  }

  private static text(backend: string, service: string, reason: Reason, attempt: string | undefined): string {
    const server = `The ${backend} of service '${service}'`;
    if (reason === 'denied') return attempt ? `${server} denied permission to ${attempt}.` : `${server} denied permission.`;
    if (reason === 'full') return `${server} is out of space or over its quota${attempt ? `: could not ${attempt}` : ''}.`;
    return attempt ? `${server} failed to ${attempt}.` : `${server} failed.`;
  }

  /** The same failure, its message naming what was attempted. */
  during(attempt: string): RemoteFailure {
    return new RemoteFailure(this.backend, this.service, this.reason, attempt, this.cause);
  }
}

export function backendError(backend: string, service: string, error: unknown, kind: BackendFailure): PorticoError {
  if (error instanceof PorticoError) return error;
  if (kind.login) return new ServiceUnavailableError(`The ${backend} server of service '${service}' refused the login.`);
  if (kind.network) return new ServiceUnavailableError(`The ${backend} server of service '${service}' is unreachable (${kind.network}).`);
  if (kind.notFound) return new NotFoundError(`Not found on the ${backend} server of service '${service}'.`);
  return new RemoteFailure(`${backend} server`, service, kind.denied ? 'denied' : kind.full ? 'full' : 'failed', kind.attempt, error);
}

/** An error and its causes, outermost first, at most four deep (clients wrap the socket's error). */
export function* causeChain(error: unknown): Generator<Error & { code?: unknown }> {
  for (
    let current = error as Error | undefined, depth = 0;
    current && depth < 4;
    current = current.cause as Error | undefined, depth += 1
  ) {
    yield current;
  }
}

/** The network error code of an error (or of its cause), if it is one. */
export function networkCode(error: unknown): string | null {
  for (const current of causeChain(error)) {
    if (typeof current.code === 'string' && NETWORK.has(current.code)) return current.code;
    if (/timed? ?out/i.test(String(current.message ?? ''))) return 'timeout';
  }
  return null;
}
