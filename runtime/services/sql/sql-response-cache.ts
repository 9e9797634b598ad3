/**
 * A SQL service's data retrieval cache (`cache_enabled`, `cache_ttl`, `cache_service`; reference
 * 5.4): successful `_table` reads (lists and records by id) are kept for the TTL and served
 * without a query. An entry belongs to one caller: its key holds the path, the query (less
 * credentials) and who asks (app, role, user, the role's grants and the row filters that applied),
 * so no caller is ever served rows another caller's filters or lookups chose. Any other request
 * that may change data (every verb but GET, and `_proc`/`_func` calls) clears the service's
 * entries once it is done, in the shared store for every instance.
 */
import { createHash } from 'node:crypto';
import type { AuthContext } from '../../auth/auth-context.js';
import type { RawQuery } from '../../core/query-params.js';
import type { SharedCache } from '../cache/shared-cache.js';
import { ResponseCache } from '../response-cache.js';
import type { RuntimeContext, ServiceCall, ServiceResult } from '../service-kind.js';
import type { SqlCacheSettings } from './sql-config.js';

/** Answers larger than this (as JSON text) are not kept. */
const MAX_CACHED = 1024 * 1024;

/** Query parameters that are not part of the question. */
const IGNORED = new Set(['api_key', 'session_token', 'refresh']);

/** Where entries are kept: the service's ResponseCache, or the named cache service. */
interface Store {
  get(key: string): Promise<unknown>;
  set(key: string, value: string): Promise<void>;
  clear(): Promise<void>;
}

/** A digest of each role's grants (the directory's arrays are shared by every request of the role until it reloads). */
const grantTags = new WeakMap<object, string>();

function grantsTag(grants: AuthContext['grants']): string {
  if (grants === null) return '*';
  let tag = grantTags.get(grants);
  if (tag === undefined) {
    tag = createHash('sha256').update(JSON.stringify(grants)).digest('base64url');
    grantTags.set(grants, tag);
  }
  return tag;
}

function normalisedQuery(query: RawQuery): Array<[string, string | string[]]> {
  const entries: Array<[string, string | string[]]> = [];
  for (const [name, value] of Object.entries(query)) if (value !== undefined && !IGNORED.has(name)) entries.push([name, value]);
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A record read or list: `GET _table/{table}[/{id}]` without a body (a body names the records to read). */
function isCachedRead(call: ServiceCall): boolean {
  return (
    call.verb === 'GET' &&
    call.resource[0] === '_table' &&
    call.resource.length >= 2 &&
    call.resource.length <= 3 &&
    call.body === undefined
  );
}

function mayWrite(call: ServiceCall): boolean {
  return call.verb !== 'GET' || call.resource[0] === '_proc' || call.resource[0] === '_func';
}

export class SqlResponseCache {
  /** Moves on after every write, so a read that overlapped one does not keep what it read. */
  private generation = 0;

  constructor(private readonly store: Promise<Store | null>) {}

  /**
   * The cache of a service with these settings: in the cache service the settings name (none
   * when it cannot be had: every read then goes to the database), else in the platform's Redis
   * when it has one, else in process. Entries are per version of the service's configuration.
   */
  static open(settings: SqlCacheSettings, ctx: RuntimeContext, serviceName: string, config: Record<string, unknown>): SqlResponseCache {
    const version = createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
    const namespace = `${serviceName}:${version}`;
    if (settings.service !== null) {
      const shared = ctx.sharedCache?.(settings.service, namespace) ?? Promise.reject(new Error('no cache services'));
      return new SqlResponseCache(
        shared.then(
          (cache: SharedCache): Store => ({
            get: (key) => cache.get(key),
            set: (key, value) => cache.set(key, value, settings.ttlSeconds),
            clear: () => cache.clear(),
          }),
          () => null,
        ),
      );
    }
    return new SqlResponseCache(
      Promise.resolve(new ResponseCache(settings.ttlSeconds * 1000, ctx.platformCache?.(`sql:${namespace}`) ?? null)),
    );
  }

  /** Answers `call` from the cache or through `run` (keeping the answer), or runs a write and clears the cache after it. */
  async through(call: ServiceCall, run: () => Promise<ServiceResult>): Promise<ServiceResult> {
    if (isCachedRead(call)) {
      const store = await this.store;
      if (store === null) return run();
      const key = this.key(call);
      const hit = await store.get(key);
      if (typeof hit === 'string') {
        const result = JSON.parse(hit) as ServiceResult;
        return { ...result, headers: { ...result.headers, 'x-cache': 'HIT' } };
      }
      const generation = this.generation;
      const result = await run();
      if ((result.status ?? 200) !== 200) return result;
      if (generation === this.generation) {
        // (The body's JSON text, if the answer holds one, is the body again: not kept twice.)
        const text = JSON.stringify(result.json === undefined ? result : { ...result, json: undefined });
        if (text.length <= MAX_CACHED) await store.set(key, text);
      }
      return { ...result, headers: { ...result.headers, 'x-cache': 'MISS' } };
    }
    if (!mayWrite(call)) return run();
    try {
      return await run();
    } finally {
      // Also after a failed write: a batch may have written some records before it failed.
      await this.clear();
    }
  }

  /** Forgets every entry of the service (for every instance when the store is shared). */
  async clear(): Promise<void> {
    this.generation++;
    await (await this.store)?.clear();
  }

  /** The entry's key: the question and who asks it. */
  private key(call: ServiceCall): string {
    const { auth } = call;
    const caller = [
      auth.isAdmin ? 'admin' : 'role',
      auth.app?.id ?? null,
      auth.role?.id ?? null,
      auth.user?.id ?? null,
      grantsTag(auth.grants),
      auth.rowFilters,
    ];
    const question = JSON.stringify([caller, call.resource, call.trailingSlash, normalisedQuery(call.query)]);
    return createHash('sha256').update(question).digest('base64url');
  }
}
