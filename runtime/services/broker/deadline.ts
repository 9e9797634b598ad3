/**
 * Every call to a broker or cache server has a deadline: an unreachable or stalled server is a
 * 503 naming the service (never its URL or credentials), not a request that hangs.
 */
import { ServiceUnavailableError } from '../../core/errors.js';

/** The 503 of a service whose server cannot be reached or does not answer in time. */
export function unavailable(service: string, what: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`Service '${service}' is unavailable: ${what}.`);
}

/**
 * What a 503 of a publish adds once the message was written to the broker and the broker did not
 * say whether it took it (no confirm, no PUBACK): it may have delivered it (as smtp_email's
 * connection lost after the whole message).
 */
export const MAYBE_DELIVERED = ': the message may or may not have been delivered. Check before publishing it again';

/** Resolves as `work` does, or rejects with `onTimeout()` after `ms` milliseconds. */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A positive whole number of milliseconds from config, else the default. */
export function millis(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}
