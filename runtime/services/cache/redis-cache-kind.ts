/**
 * The `cache_redis` kind (group Cache, reference df-cache): key/value endpoints on Redis.
 *
 *   GET    /{svc}            keys (under `prefix=`), wrapped; the reference answers 400 here
 *   GET    /{svc}/{key}      the value; `default=` when missing, `clear=true` (alias `pull`) reads and deletes
 *   POST   /{svc}/{key}      creates (400 when the key exists) → 201 {key: value}
 *   POST   /{svc}            body {key: value, ...}: creates all or none → 201 {"success":true}
 *   PUT|PATCH /{svc}/{key}   stores → {key: value};  PUT|PATCH /{svc} with a body object stores each
 *   DELETE /{svc}/{key}      → {"success": true|false}
 *
 * `ttl=` (seconds; 0 or below: expired at once) or `forever=true` on writes; else the service's default_ttl. A key is the path
 * after the service (`a/b` stays `a/b`: no `/`-to-`.` folding, so keys cannot collide). Values are
 * kept as JSON. Keys named in a body are checked against the role's grants like path keys.
 */
import type { Redis } from 'ioredis';
import type { SchemaObject } from 'openapi3-ts/oas30';
import { BadRequestError, NotFoundError, PayloadTooLargeError, type PorticoError } from '../../core/errors.js';
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { jsonOperation, pathParameter } from '../../openapi/operation-builder.js';
import { componentRef } from '../../openapi/shared-components.js';
import { checkComponent, mayUse } from '../broker/component-access.js';
import { unavailable, withDeadline } from '../broker/deadline.js';
import type { ServiceCall, ServiceHandler, ServiceKind, ServiceResult } from '../service-kind.js';
import { readRedisCacheConfig, redisCacheConfigSchema, type RedisCacheConfig } from './redis-cache-config.js';
import { type SharedCache, type SharedCacheProvider, withOwedClears } from './shared-cache.js';

const MAX_KEY_LENGTH = 1024;
const MAX_LISTED = 10_000;
/** Longest `ttl=` (seconds, about 68 years; `forever=true` for none). */
const MAX_TTL = 2_147_483_647;
/**
 * What ttl() gives for `ttl=0` or below: the value expires at once, so nothing is stored and a
 * replacing write forgets the key (Laravel's put/add with a TTL <= 0, which the reference's cache runs on).
 */
const EXPIRED = -1;
/** Where entries lent to other services live, under the key prefix; left out of listings. */
const LENT = '~responses:';
/**
 * Keys of the lent area are no keys of the API: through it a caller read another service's cached
 * answers (a database's rows its role may not read), or replaced them for every other caller.
 */
const RESERVED = `Cache keys starting with '${LENT}' are reserved for the response caches of other services.`;

/** Creates every key or none: fails (returning the existing ones) when any exists. */
const CREATE_ALL = `
local existing = {}
for i = 1, #KEYS do if redis.call('EXISTS', KEYS[i]) == 1 then table.insert(existing, i) end end
if #existing > 0 then return existing end
local ttl = tonumber(ARGV[1])
if ttl < 0 then return existing end
for i = 1, #KEYS do
  if ttl > 0 then redis.call('SET', KEYS[i], ARGV[i + 1], 'EX', ttl) else redis.call('SET', KEYS[i], ARGV[i + 1]) end
end
return existing`;

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

class RedisCacheHandler implements ServiceHandler, SharedCacheProvider {
  private client: Redis | null = null;
  private closed = false;

  constructor(
    private readonly name: string,
    private readonly config: RedisCacheConfig,
  ) {}

  private async redis(): Promise<Redis> {
    if (!this.client) {
      const { Redis } = await import('ioredis');
      const client = this.config.url ? new Redis(this.config.url, this.config.redis) : new Redis(this.config.redis);
      // Errors surface on the commands; the client reconnects by itself.
      client.on('error', () => undefined);
      this.client = client;
    }
    if (this.client.status === 'wait') await this.run(this.client.connect(), 'connecting').catch(() => undefined);
    return this.client;
  }

  /** A Redis call within the deadline; connection trouble is a 503 naming the service only. */
  private run<T>(work: Promise<T>, what = 'the Redis server did not answer'): Promise<T> {
    return withDeadline(work, this.config.timeoutMs, () => {
      this.dropConnection();
      return unavailable(this.name, `${what} timed out`);
    }).catch((error: unknown) => {
      if ((error as PorticoError).status !== undefined) throw error;
      const message = (error as Error).message ?? '';
      if (/WRONGTYPE|ERR /.test(message)) throw new BadRequestError(`Redis refused the command: ${message}`);
      if (/timed out/i.test(message)) this.dropConnection();
      throw unavailable(this.name, 'the Redis server cannot be reached');
    });
  }

  /**
   * A command that timed out on an open connection: the server or the network stopped answering
   * on it. ioredis reconnects only when a connection closes, and this one stayed open: the service
   * answered 503 for good, also once the server was back. It is closed, and made anew.
   */
  private dropConnection(): void {
    if (this.client && this.client.status === 'ready') this.client.disconnect(true);
  }

  private key(key: string): string {
    return `${this.config.prefix}${key}`;
  }

  private ttl(call: ServiceCall): number {
    if (toBool(pick(call.query, 'forever'))) return 0;
    const text = pick(call.query, 'ttl');
    if (text === undefined || text === '') return this.config.defaultTtl;
    const ttl = Number(text);
    // Beyond what Redis takes (ttl=99999999999999999999), its own error text reached the caller.
    if (!Number.isInteger(ttl) || ttl < -MAX_TTL || ttl > MAX_TTL)
      throw new BadRequestError(`Parameter 'ttl' must be a whole number of seconds up to ${MAX_TTL}, not '${text}'.`, {
        parameter: 'ttl',
      });
    return ttl <= 0 ? EXPIRED : ttl;
  }

  private encode(key: string, value: unknown): string {
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json) > this.config.maxValueBytes) {
      throw new PayloadTooLargeError(
        `The value of key '${key}' is larger than the ${this.config.maxValueBytes} bytes this cache service accepts.`,
      );
    }
    return json;
  }

  async handle(call: ServiceCall): Promise<ServiceResult> {
    const key = call.resource.join('/');
    if (key.length > MAX_KEY_LENGTH) throw new BadRequestError(`Cache keys are at most ${MAX_KEY_LENGTH} characters long.`);
    if (key.startsWith(LENT)) throw new BadRequestError(RESERVED);
    switch (call.verb) {
      case 'GET':
        return key === '' ? this.list(call) : this.get(call, key);
      case 'POST':
        return { status: 201, body: key === '' ? await this.storeMany(call, true) : await this.storeOne(call, key, true) };
      case 'PUT':
      case 'PATCH':
        return { body: key === '' ? await this.storeMany(call, false) : await this.storeOne(call, key, false) };
      case 'DELETE': {
        if (key === '') throw new BadRequestError('No key/resource provided. Please provide a cache key to delete.');
        const redis = await this.redis();
        return { body: { success: (await this.run(redis.del(this.key(key)))) > 0 } };
      }
    }
  }

  private async list(call: ServiceCall): Promise<ServiceResult> {
    const redis = await this.redis();
    const prefix = pick(call.query, 'prefix') ?? '';
    const limitText = pick(call.query, 'limit');
    const limit = limitText === undefined ? MAX_LISTED : Math.min(Math.max(0, Number.parseInt(limitText, 10) || 0), MAX_LISTED);
    const keys = new Set<string>();
    const match = `${escapeGlob(this.key(prefix))}*`;
    let cursor = '0';
    do {
      const [next, found] = await this.run(redis.scan(cursor, 'MATCH', match, 'COUNT', 1000));
      for (const full of found) if (!full.startsWith(`${this.config.prefix}${LENT}`)) keys.add(full.slice(this.config.prefix.length));
      cursor = next;
    } while (cursor !== '0' && keys.size < limit);
    const visible = [...keys]
      .filter((key) => mayUse(call.auth, this.name, key, 'GET'))
      .sort()
      .slice(0, limit);
    return { body: wrapList(visible) };
  }

  private async get(call: ServiceCall, key: string): Promise<ServiceResult> {
    const redis = await this.redis();
    const pull = toBool(pick(call.query, 'clear') ?? pick(call.query, 'pull'));
    const stored = await this.run(pull ? redis.getdel(this.key(key)) : redis.get(this.key(key)));
    if (stored === null) {
      const fallback = pick(call.query, 'default');
      if (fallback === undefined || fallback === '') throw new NotFoundError(`No value found for key '${key}'.`);
      return { body: JSON.stringify(fallback), headers: JSON_TYPE };
    }
    let value: unknown;
    try {
      value = JSON.parse(stored);
    } catch {
      // Not written by this service (another client of the Redis server): its text as it is, not a 500.
      return { body: stored, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    }
    // A string as JSON too: as bare text, "null", "12" or "{}" stored as strings read back as null, a number, an object.
    return typeof value === 'string' ? { body: stored, headers: JSON_TYPE } : { body: value };
  }

  private async storeOne(call: ServiceCall, key: string, create: boolean): Promise<Record<string, unknown>> {
    const value = call.body;
    if (value === undefined || value === null || value === '') throw new BadRequestError('No value/payload provided to store in cache.');
    const json = this.encode(key, value);
    const ttl = this.ttl(call);
    const redis = await this.redis();
    if (ttl === EXPIRED) {
      if (!create) await this.run(redis.del(this.key(key)));
      else if ((await this.run(redis.exists(this.key(key)))) === 1)
        throw new BadRequestError(`Key '${key}' already exists in cache. Use PUT to update existing key.`);
      return { [key]: value };
    }
    const args: Array<string | number> = ttl > 0 ? ['EX', ttl] : [];
    const done = await this.run(
      create ? redis.call('SET', this.key(key), json, ...args, 'NX') : redis.call('SET', this.key(key), json, ...args),
    );
    if (done === null) throw new BadRequestError(`Key '${key}' already exists in cache. Use PUT to update existing key.`);
    return { [key]: value };
  }

  private async storeMany(call: ServiceCall, create: boolean): Promise<{ success: true }> {
    const body = call.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) {
      throw new BadRequestError('Invalid payload provided. Please provide a key/value pair.');
    }
    const entries = Object.entries(body as Record<string, unknown>);
    for (const [key] of entries) {
      if (key === '' || key.length > MAX_KEY_LENGTH) throw new BadRequestError(`Invalid cache key '${key.slice(0, 50)}'.`);
      if (key.startsWith(LENT)) throw new BadRequestError(RESERVED);
      checkComponent(call.auth, this.name, key, call.verb);
    }
    const values = entries.map(([key, value]) => this.encode(key, value));
    const ttl = this.ttl(call);
    const redis = await this.redis();
    const keys = entries.map(([key]) => this.key(key));
    if (create) {
      const existing = await this.run(redis.eval(CREATE_ALL, keys.length, ...keys, ttl, ...values) as Promise<number[]>);
      if (existing.length > 0) {
        throw new BadRequestError(
          `Nothing was stored in cache. One or more key(s) already exists (${existing.map((i) => entries[i - 1][0]).join(',')})`,
        );
      }
    } else if (ttl === EXPIRED) await this.run(redis.del(...keys));
    else {
      const batch = redis.multi();
      keys.forEach((full, i) => {
        if (ttl > 0) batch.set(full, values[i], 'EX', ttl);
        else batch.set(full, values[i]);
      });
      await this.run(batch.exec());
    }
    return { success: true };
  }

  openapi(): OpenApiFragment {
    return redisCacheOpenApi();
  }

  sharedCache(namespace: string): SharedCache {
    const base = this.key(`${LENT}${namespace}:`);
    return withOwedClears({
      get: async (key) => {
        const stored = await this.run((await this.redis()).get(`${base}${key}`));
        return stored === null ? undefined : (JSON.parse(stored) as unknown);
      },
      set: async (key, value, ttlSeconds) => {
        await this.run((await this.redis()).set(`${base}${key}`, JSON.stringify(value), 'EX', Math.max(1, ttlSeconds)));
      },
      clear: async () => {
        const redis = await this.redis();
        let cursor = '0';
        do {
          const [next, found] = await this.run(redis.scan(cursor, 'MATCH', `${escapeGlob(base)}*`, 'COUNT', 1000));
          if (found.length > 0) await this.run(redis.del(...found));
          cursor = next;
        } while (cursor !== '0');
      },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client?.disconnect();
  }
}

export const redisCacheKind: ServiceKind = {
  type: 'cache_redis',
  label: 'Redis',
  group: 'Cache',
  description: 'Key/value cache on a Redis server.',
  configSchema: redisCacheConfigSchema,
  describe: () => redisCacheOpenApi(),
  async open(service, ctx) {
    return new RedisCacheHandler(service.name, readRedisCacheConfig(service.name, ctx.resolveEnv(service.config)));
  },
};

/** The OpenAPI fragment of a cache service. */
export function redisCacheOpenApi(): OpenApiFragment {
  const ttl = {
    name: 'ttl',
    in: 'query' as const,
    description:
      "Seconds before the value expires (default: the service's default_ttl); 0 or below stores nothing and a PUT or PATCH forgets the key.",
    schema: { type: 'integer' as const, minimum: -2_147_483_647, maximum: 2_147_483_647 },
  };
  const forever = {
    name: 'forever',
    in: 'query' as const,
    description: 'Keep the value until it is deleted.',
    schema: { type: 'boolean' as const },
  };
  const keyParam = pathParameter('key', 'The cache key (may contain `/`).');
  // Request bodies reference components (spec, Discovery).
  const pairs = componentRef('schemas', 'CacheEntries');
  const success: SchemaObject = { type: 'object', properties: { success: { type: 'boolean' } } };
  const stored: SchemaObject = { type: 'object', additionalProperties: {}, description: 'The key and the value stored.' };
  const value = componentRef('schemas', 'CacheValue');
  return {
    paths: {
      '/': {
        get: jsonOperation({
          operationId: 'listKeys',
          summary: 'List the keys in the cache, optionally under a prefix.',
          parameters: [
            { name: 'prefix', in: 'query', description: 'Only keys starting with this text.', schema: { type: 'string' } },
            { name: 'limit', in: 'query', description: 'At most this many keys.', schema: { type: 'integer', minimum: 0 } },
          ],
          response: {
            description: 'The keys, sorted.',
            schema: { type: 'object', properties: { resource: { type: 'array', items: { type: 'string' } } } },
          },
        }),
        post: {
          ...jsonOperation({
            operationId: 'createKeys',
            summary: 'Create several keys; none is stored if any exists.',
            parameters: [ttl, forever],
            body: { description: 'Key/value pairs.', schema: pairs },
            response: { description: 'Stored.', schema: success },
          }),
          responses: { '201': { description: 'Stored.', content: { 'application/json': { schema: success } } } },
        },
        put: jsonOperation({
          operationId: 'replaceKeys',
          summary: 'Store several keys, replacing existing ones.',
          parameters: [ttl, forever],
          body: { description: 'Key/value pairs.', schema: pairs },
          response: { description: 'Stored.', schema: success },
        }),
        patch: jsonOperation({
          operationId: 'updateKeys',
          summary: 'Store several keys, replacing existing ones.',
          parameters: [ttl, forever],
          body: { description: 'Key/value pairs.', schema: pairs },
          response: { description: 'Stored.', schema: success },
        }),
      },
      '/{key}': {
        get: jsonOperation({
          operationId: 'getKey',
          summary: 'Read the value of a key.',
          parameters: [
            keyParam,
            { name: 'default', in: 'query', description: 'Returned when the key is missing (instead of 404).', schema: { type: 'string' } },
            { name: 'clear', in: 'query', description: 'Delete the key once read (alias `pull`).', schema: { type: 'boolean' } },
          ],
          response: { description: 'The value.', schema: value },
        }),
        post: {
          ...jsonOperation({
            operationId: 'createKey',
            summary: 'Create a key (400 if it exists).',
            parameters: [keyParam, ttl, forever],
            body: { description: 'The value.', schema: value },
            response: { description: 'Stored.', schema: stored },
          }),
          responses: { '201': { description: 'Stored.', content: { 'application/json': { schema: stored } } } },
        },
        put: jsonOperation({
          operationId: 'replaceKey',
          summary: 'Store the value of a key.',
          parameters: [keyParam, ttl, forever],
          body: { description: 'The value.', schema: value },
          response: { description: 'Stored.', schema: stored },
        }),
        patch: jsonOperation({
          operationId: 'updateKey',
          summary: 'Store the value of a key.',
          parameters: [keyParam, ttl, forever],
          body: { description: 'The value.', schema: value },
          response: { description: 'Stored.', schema: stored },
        }),
        delete: jsonOperation({
          operationId: 'deleteKey',
          summary: 'Delete a key.',
          parameters: [keyParam],
          response: { description: 'Whether a key was deleted.', schema: success },
        }),
      },
    },
    components: {
      schemas: {
        CacheEntries: { type: 'object', additionalProperties: {}, description: 'Keys and their values.' },
        CacheValue: { description: 'Any JSON value.' },
      },
    },
  };
}
