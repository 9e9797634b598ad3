/**
 * How long a request may take to arrive whole, body included (Node's `requestTimeout`; a 408 past
 * it). Node's default, 5 minutes, which Fastify turns off (0): a body that never completes (a
 * Content-Length beyond what is sent, a chunked body left open) held its socket until the client
 * left. Five minutes caps a 1 GiB file upload at about 3.4 MB/s: PORTICO_REQUEST_TIMEOUT raises it.
 */
import { StartupError } from '../system/store/system-db.js';

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 300;

/**
 * PORTICO_REQUEST_TIMEOUT: whole seconds, 0 for none; the default when unset. Another value stops
 * the server at start with one line.
 */
export function requestTimeoutSeconds(env: Record<string, string | undefined>): number {
  const text = env.PORTICO_REQUEST_TIMEOUT?.trim();
  if (text === undefined || text === '') return DEFAULT_REQUEST_TIMEOUT_SECONDS;
  // Node takes milliseconds up to 2^53 - 1.
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text) * 1000))
    throw new StartupError(`Portico: PORTICO_REQUEST_TIMEOUT must be a whole number of seconds (0: none), not '${text}'.`);
  return Number(text);
}
