/**
 * A cache service lent to other services for their response caches (a SOAP service's GET results,
 * a database service's `_table` reads, with `cache_service: <name>`): shared by every instance on
 * the same Redis, namespaced per borrowing service, best effort (a cache that cannot be reached is
 * a miss, never an error), except that a clear it could not make is owed (withOwedClears).
 */

export interface SharedCache {
  /** The stored value, or undefined (also when the cache cannot be reached). */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** Forgets every entry of the namespace. */
  clear(): Promise<void>;
}

/** What a handler that can lend itself as a shared cache offers. */
export interface SharedCacheProvider {
  sharedCache(namespace: string): SharedCache;
}

export function isSharedCacheProvider(value: unknown): value is SharedCacheProvider {
  return typeof (value as Partial<SharedCacheProvider> | null)?.sharedCache === 'function';
}

/**
 * The store every instance of the platform shares (its Redis, PORTICO_REDIS_URL), namespaced for
 * one service: as a SharedCache, and whether it answers now (while it does not, callers keep
 * entries in process).
 */
export interface PlatformCache extends SharedCache {
  ready(): boolean;
}

/**
 * Makes a store's failures misses (best effort), but for a clear: a write clears its service's
 * entries, and a clear lost while the store was away or frozen left the entries read before the
 * write, which the store served again once it answered (stale records until the TTL, even to the
 * instance that made the write). A failed clear is owed: until it has been made (tried again before
 * each read and store), reads are misses and nothing is stored. `raw`'s calls reject when the store
 * cannot be had; the answer's never do. (A flag check per call: nothing else on the read path.)
 */
export function withOwedClears<T extends SharedCache>(raw: T): T {
  /** Clears begun, and the number of the last one that failed (0: none owed). */
  let begun = 0;
  let owed = 0;
  const clear = async (): Promise<boolean> => {
    const attempt = ++begun;
    try {
      await raw.clear();
      // A clear that began after the failed one also removed what that one should have.
      if (owed !== 0 && owed < attempt) owed = 0;
      return true;
    } catch {
      owed = Math.max(owed, attempt);
      return false;
    }
  };
  return {
    ...raw,
    async get(key) {
      if (owed !== 0 && !(await clear())) return undefined;
      try {
        return await raw.get(key);
      } catch {
        return undefined;
      }
    },
    async set(key, value, ttlSeconds) {
      if (owed !== 0 && !(await clear())) return;
      await raw.set(key, value, ttlSeconds).catch(() => undefined);
    },
    async clear() {
      await clear();
    },
  };
}
