/**
 * Config of the `cache_redis` service (reference df-cache RedisConfig: host, port, password,
 * database_index, default_ttl, options), plus a URL form, TLS, a key prefix, a deadline for
 * every command and a largest value.
 */
import type { RedisOptions } from 'ioredis';
import { millis } from '../broker/deadline.js';

export const redisCacheConfigSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    host: { type: 'string', title: 'Host', default: '127.0.0.1', description: 'IP address or host name of the Redis server.' },
    port: { type: 'integer', title: 'Port', default: 6379, minimum: 1, maximum: 65535, description: 'Redis port number.' },
    url: {
      type: 'string',
      title: 'URL',
      description: 'redis:// or rediss:// URL; when given it replaces host, port, password and database index.',
    },
    username: { type: 'string', description: 'Redis ACL user name (Redis 6 and later).' },
    password: { type: 'string', description: 'Redis password.' },
    database_index: { type: 'integer', title: 'Database Index', default: 0, minimum: 0, description: 'Redis logical database number.' },
    tls: { type: 'boolean', title: 'TLS', default: false, description: 'Connect with TLS.' },
    default_ttl: {
      type: 'integer',
      title: 'Default TTL',
      default: 300,
      minimum: 0,
      description: 'Seconds before a stored value expires when the request gives no ttl; 0 keeps values until deleted.',
    },
    key_prefix: {
      type: 'string',
      title: 'Key Prefix',
      description: "Prefix of this service's keys in Redis (default `portico:cache:{service}:`), so services can share one Redis.",
    },
    timeout_ms: {
      type: 'integer',
      title: 'Timeout (ms)',
      default: 5000,
      minimum: 1,
      description: 'Deadline of each Redis command (connecting included); a late or unreachable server is a 503.',
    },
    max_value_bytes: {
      type: 'integer',
      title: 'Max Value Bytes',
      default: 1048576,
      minimum: 1,
      description: 'Largest value (as JSON) one key may hold; larger requests are 413.',
    },
    options: { type: 'object', description: 'Further ioredis connection options.' },
  },
};

export interface RedisCacheConfig {
  redis: RedisOptions;
  url: string | null;
  prefix: string;
  defaultTtl: number;
  timeoutMs: number;
  maxValueBytes: number;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function readRedisCacheConfig(service: string, config: Record<string, unknown>): RedisCacheConfig {
  const timeoutMs = millis(config.timeout_ms, 5000);
  const options = config.options !== null && typeof config.options === 'object' ? (config.options as RedisOptions) : {};
  return {
    url: text(config.url) ?? null,
    redis: {
      ...options,
      host: text(config.host) ?? '127.0.0.1',
      port: typeof config.port === 'number' ? config.port : 6379,
      username: text(config.username),
      password: text(config.password),
      db: typeof config.database_index === 'number' ? config.database_index : 0,
      ...(config.tls === true ? { tls: {} } : {}),
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 1,
      // Keep coming back after a lost connection, at most every 2 s.
      retryStrategy: (times: number) => Math.min(times * 100, 2000),
    },
    prefix: typeof config.key_prefix === 'string' ? config.key_prefix : `portico:cache:${service}:`,
    defaultTtl: typeof config.default_ttl === 'number' && config.default_ttl >= 0 ? config.default_ttl : 300,
    timeoutMs,
    maxValueBytes: millis(config.max_value_bytes, 1024 * 1024),
  };
}
