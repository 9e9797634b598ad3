/** The config keys every SQL service kind shares, their JSON Schema and their normalised values. */

export interface SqlServiceOptions {
  /** Default and maximum number of records a list returns. */
  maxRecords: number;
  /** PUT/PATCH by id create missing records; POST with an existing key updates it. */
  allowUpsert: boolean;
  /** Record keys and table names in the database's case instead of lower case. */
  keepCase: boolean;
}

export const DEFAULT_MAX_RECORDS = 1000;

/** JSON Schema properties of the shared keys. */
export const sqlConfigProperties: Record<string, unknown> = {
  max_records: {
    type: 'integer',
    minimum: 1,
    default: DEFAULT_MAX_RECORDS,
    description: 'Default and maximum number of records a table list returns; larger client limits are clamped.',
  },
  allow_upsert: {
    type: 'boolean',
    default: false,
    description: 'PUT/PATCH by identifier create records that do not exist; POST with an existing key updates it.',
  },
  keep_case: {
    type: 'boolean',
    default: false,
    description: "Keep the database's case in table and field names instead of lower-casing them.",
  },
  cache_enabled: {
    type: 'boolean',
    default: false,
    title: 'Data Retrieval Caching Enabled',
    description:
      'Keep the answers of `_table` reads for cache_ttl seconds, per caller; any write through the service and DELETE /system/cache/{service} clear them.',
  },
  cache_ttl: {
    type: 'integer',
    minimum: 0,
    default: 0,
    title: 'Cache Time To Live (seconds)',
    description: 'Seconds a cached answer is kept; 0 caches nothing.',
  },
  cache_service: {
    type: 'string',
    description:
      "A cache_redis service to keep the cached answers in (shared by every instance); default: the platform's Redis when it has one, else in process.",
  },
};

/** The data retrieval cache of a (resolved) config: its TTL and the cache service it uses, or null when off. */
export interface SqlCacheSettings {
  ttlSeconds: number;
  /** The `cache_redis` service named by `cache_service`, or null. */
  service: string | null;
}

/** The cache settings, or null when caching is off (`cache_enabled` not true, or a TTL that is not a positive whole number). */
export function sqlCacheSettings(config: Record<string, unknown>): SqlCacheSettings | null {
  if (config.cache_enabled !== true) return null;
  const ttl = Number(config.cache_ttl ?? 0);
  if (!Number.isInteger(ttl) || ttl <= 0) return null;
  const service = typeof config.cache_service === 'string' && config.cache_service !== '' ? config.cache_service : null;
  return { ttlSeconds: ttl, service };
}

/** Options from a (resolved) service config; invalid or non-positive max_records means the default. */
export function sqlServiceOptions(config: Record<string, unknown>): SqlServiceOptions {
  const max = Number(config.max_records);
  return {
    maxRecords: Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_RECORDS,
    allowUpsert: config.allow_upsert === true,
    keepCase: config.keep_case === true,
  };
}
