/**
 * The Redis connection instances share state through (PORTICO_REDIS_URL or platform.yaml's
 * system.redis.url). It must answer at start; lost later, callers fall back to per-instance
 * state (commands fail at once instead of queueing) and a warning is logged on each change. The
 * client library loads only when a platform has Redis.
 */
import type { Redis } from 'ioredis';
import { StartupError } from '../store/system-db.js';

export interface RedisLink {
  client: Redis;
  /** Whether the connection is up now. */
  ready(): boolean;
  close(): Promise<void>;
}

/** The URL as it may be shown: without its password. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return url;
  }
}

export async function openRedis(url: string, warn: (message: string) => void = (m) => console.warn(m)): Promise<RedisLink> {
  const shown = describeRedisUrl(url);
  // Another scheme (http://) was read by ioredis as a host and failed as 'Connection is closed.'
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'redis' && scheme !== 'rediss')
    throw new StartupError(`Portico: the Redis URL ${shown} is not a redis:// or rediss:// URL.`);
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    // A server that stops answering on an open connection (frozen, cut off without a reset) fails
    // each command after this long, which callers take as Redis being down; without it they waited for ever.
    commandTimeout: 1000,
    // ...and the connection is dropped then (and made again, retryStrategy): until a new one is
    // ready callers go on without Redis at once. Kept, each command waited its second (a cached
    // read two) for as long as the connection stayed open, also after the server answered again.
    socketTimeout: 1000,
    // Keep trying to come back, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Errors reach the callers (and the start's one line); unlistened, ioredis would print each on the console.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new StartupError(`Portico: cannot reach Redis at ${shown}: ${(error as Error).message || String(error)}`);
  }
  let up = true;
  client.on('close', () => {
    if (!up) return;
    up = false;
    warn(`Portico: lost Redis at ${shown}; rate limits are counted per instance until it is back.`);
  });
  client.on('ready', () => {
    if (up) return;
    up = true;
    warn(`Portico: Redis at ${shown} is back; shared state resumed.`);
  });
  return {
    client,
    ready: () => client.status === 'ready',
    async close() {
      client.removeAllListeners('close');
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** Removes every key that starts with the prefix (SCAN sees every key present throughout; MATCH globs, so the prefix is escaped). */
export async function deleteByPrefix(client: Redis, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await client.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
