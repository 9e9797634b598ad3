/**
 * The store services share between instances through the platform's Redis (a SOAP or database
 * service's response cache when its config names no cache service): `{namespace}:cache:{service's
 * namespace}:{key}`, each entry with its own expiry. Best effort: a failing call is a miss; a
 * clear made while Redis was away is owed, and made before the next read (withOwedClears).
 */
import { type PlatformCache, withOwedClears } from '../../services/cache/shared-cache.js';
import { deleteByPrefix, type RedisLink } from './redis-link.js';

export function redisPlatformCache(link: RedisLink, namespace: string): (name: string) => PlatformCache {
  return (name) => {
    const base = `${namespace}:cache:${name}:`;
    const client = link.client;
    return withOwedClears<PlatformCache>({
      ready: () => link.ready(),
      async get(key) {
        const stored = await client.get(base + key);
        if (stored === null) return undefined;
        try {
          return JSON.parse(stored) as unknown;
        } catch {
          return undefined;
        }
      },
      async set(key, value, ttlSeconds) {
        await client.set(base + key, JSON.stringify(value), 'EX', Math.max(1, ttlSeconds));
      },
      clear: () => deleteByPrefix(client, base),
    });
  };
}
