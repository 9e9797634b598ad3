/**
 * A cache service lent to other services for their response caches (a SOAP service's GET results,
 * a database service's `_table` reads, with `cache_service: <name>`): shared by every instance on
 * the same Redis, namespaced per borrowing service, best effort (a cache that cannot be reached is
 * a miss, never an error).
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
