/**
 * Enforces the active rate limits (reference 6.8): each request a limit applies to ticks that
 * limit's counter; the request after `rate` within a period is refused with 429 and the key stays
 * locked for one period. Counters live in Redis when the platform has one (atomic, shared by
 * every instance; while Redis is away each instance counts on its own) and in process otherwise.
 * A reset (DELETE /system/limit_cache) reaches the counters every instance keeps in process too:
 * the instance that resets writes a token per limit and user (`*` for every user) into the system
 * database, and the others reset the same counters of their own when they catch up with the
 * change (as cache-clears.ts does for DELETE /system/cache). The worker processes of one instance
 * (`--workers N`) count in process together: their primary keeps the counters (the library's
 * cluster limiter over IPC, whose counters the primary makes as a process serving alone does:
 * long-period-counter.ts, for a '30-day' limit too), so a limit of N allows N requests in all, not N per worker.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../../core/errors.js';
import { deleteByPrefix, type RedisLink } from '../shared/redis-link.js';
import type { Selectable } from 'kysely';
import { upsert, type SystemDb } from '../store/system-db.js';
import type { SystemTables } from '../store/system-tables.js';
import {
  counterKey,
  isEachUser,
  limitKeyText,
  matchLimits,
  needsUser,
  PERIOD_SECONDS,
  PERIODS,
  type LimitedRequest,
  type LimitRule,
} from './limit-rules.js';
import { systemMessages } from '../system-messages.js';
import { memoryCounter } from './long-period-counter.js';

interface Counter {
  /** What the limiter was built for: rebuilt when the limit's rate or period changes. */
  shape: string;
  limiter: RateLimiterAbstract;
  /** Counter keys this instance has ticked (each_user limits have one per user). */
  keys: Set<string>;
  /** The limiter's key prefix (its keys in Redis are `{prefix}:{counter key}`). */
  prefix: string;
  /** The in-process counters (the limiter itself without Redis, its stand-in while Redis is away). */
  memory: RateLimiterAbstract;
}

const RESET_PREFIX = 'limit_reset:';

/** One counter as /system/limit_cache shows it (each_user limits have one per user). */
export interface CounterState {
  id: number;
  limit_id: number;
  name: string;
  key: string;
  /** The user the counter is for (each_user and user limits), else null. */
  user_id: number | null;
  max: number;
  attempts: number;
  remaining: number;
}

/** Which counters /system/limit_cache reads or resets: some limits, one user's. */
export interface CounterFilter {
  limitIds?: readonly number[];
  userId?: number;
}

function toRule(row: Selectable<SystemTables['limits']>): LimitRule {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    rate: row.rate,
    period: row.period,
    user_id: row.user_id,
    role_id: row.role_id,
    service_id: row.service_id,
    endpoint: row.endpoint,
    verb: row.verb,
    keyText: row.key_text,
    record: {
      id: row.id,
      type: row.type,
      key_text: row.key_text,
      rate: row.rate,
      period: PERIODS[row.period] ?? row.period,
      user_id: row.user_id,
      role_id: row.role_id,
      service_id: row.service_id,
      endpoint: row.endpoint,
      verb: row.verb,
      name: row.name,
      description: row.description,
      is_active: row.is_active === 1,
    },
  };
}

/** Set by Portico's primary for its workers (run-server.ts): the primary keeps their in-process counters. */
export const WORKER_COUNTERS_ENV = 'PORTICO_WORKER_COUNTERS';

function countsInPrimary(): boolean {
  return cluster.isWorker && process.env[WORKER_COUNTERS_ENV] === '1';
}

/** What a worker's cluster limiter sends its primary as it starts (rate-limiter-flexible's RateLimiterCluster). */
interface ClusterInit {
  channel: 'rate_limiter_flexible';
  type: 'init';
  opts: { keyPrefix: string; points: number; duration: number; blockDuration: number };
}

function isClusterInit(message: unknown): message is ClusterInit {
  const init = message as Partial<ClusterInit> | null;
  return init?.channel === 'rate_limiter_flexible' && init.type === 'init' && typeof init.opts?.keyPrefix === 'string';
}

/**
 * In Portico's primary of several workers: keeps the counters the workers count in process. The
 * library's primary makes a memory store for each limiter a worker announces, which cannot hold a
 * period longer than a timer waits; this listener, called before the library's, makes each counter
 * first as a process serving alone does (memoryCounter), and the library's primary serves it.
 * test/e2e/workers.test.ts holds a '30-day' limit across two workers.
 */
export async function keepWorkerCounters(): Promise<void> {
  const library = await import('rate-limiter-flexible');
  let counters: Record<string, RateLimiterAbstract> | undefined;
  cluster.on('message', (_worker, message: unknown) => {
    if (counters === undefined || !isClusterInit(message) || counters[message.opts.keyPrefix] !== undefined) return;
    counters[message.opts.keyPrefix] = memoryCounter(library, message.opts);
  });
  counters = (new library.RateLimiterClusterMaster() as unknown as { _rateLimiters?: Record<string, RateLimiterAbstract> })._rateLimiters;
  if (counters === undefined)
    throw new Error("rate-limiter-flexible's cluster primary keeps its counters elsewhere: keepWorkerCounters needs updating.");
}

export class RateLimits {
  private rules: LimitRule[] = [];
  private counters = new Map<number, Counter>();
  private counting: typeof import('rate-limiter-flexible') | undefined;
  /** The reset tokens seen (system_setting `limit_reset:{limit id}:{user id or *}`); undefined before the first reload. */
  private resetsSeen: Map<string, string> | undefined;

  constructor(
    private readonly db: SystemDb,
    private readonly redis: RedisLink | null,
    private readonly namespace: string,
  ) {}

  /** Reads the active limits again (after a change through /system/limit, or another instance's). */
  async reload(): Promise<void> {
    const rows = await this.db.selectFrom('limits').selectAll().where('is_active', '=', 1).orderBy('id').execute();
    this.rules = rows.map(toRule);
    if (this.rules.length > 0) await this.loadCounting();
    const live = new Set(this.rules.map((rule) => rule.id));
    for (const id of this.counters.keys()) if (!live.has(id)) this.counters.delete(id);
    await this.resetsElsewhere();
  }

  /** Resets the counters here that another instance reset (the resets made before this one started found nothing to reset). */
  private async resetsElsewhere(): Promise<void> {
    const rows = await this.db.selectFrom('system_setting').select(['name', 'value']).where('name', 'like', `${RESET_PREFIX}%`).execute();
    const starting = this.resetsSeen === undefined;
    this.resetsSeen ??= new Map();
    for (const { name, value } of rows) {
      // `_` is a LIKE wildcard: the prefix is checked exactly here.
      if (!name.startsWith(RESET_PREFIX) || this.resetsSeen.get(name) === value) continue;
      this.resetsSeen.set(name, value);
      if (starting) continue;
      const [limitId, user] = name.slice(RESET_PREFIX.length).split(':');
      const rule = this.rules.find((candidate) => candidate.id === Number(limitId));
      const counter = this.counters.get(Number(limitId));
      if (rule === undefined || counter === undefined) continue;
      const keys = user === '*' ? [...counter.keys] : this.keysOf(rule, [], Number(user)).map(({ key }) => key);
      // Only what this instance counts itself: the counters in Redis were reset by the instance that reset (and may have counted since).
      for (const key of keys) await counter.memory.delete(key).catch(() => false);
    }
  }

  get active(): readonly LimitRule[] {
    return this.rules;
  }

  /** The counting library loads with the first limit: most platforms have none. */
  private async loadCounting(): Promise<void> {
    this.counting ??= await import('rate-limiter-flexible');
  }

  private counter(rule: LimitRule): Counter {
    const shape = `${rule.rate}/${rule.period}`;
    let counter = this.counters.get(rule.id);
    if (counter?.shape === shape) return counter;
    const seconds = PERIOD_SECONDS[rule.period] ?? 60;
    const options = {
      points: rule.rate,
      duration: seconds,
      blockDuration: seconds,
      keyPrefix: `${this.namespace}:limit:${rule.id}:${shape}`,
    };
    const { RateLimiterCluster, RateLimiterRedis } = this.counting!;
    // A primary that does not answer in time (gone, being replaced) leaves the request uncounted, as a Redis error does.
    const memory = countsInPrimary() ? new RateLimiterCluster({ ...options, timeoutMs: 1000 }) : memoryCounter(this.counting!, options);
    const limiter = this.redis
      ? new RateLimiterRedis({ ...options, storeClient: this.redis.client, insuranceLimiter: memory, rejectIfRedisNotReady: true })
      : memory;
    counter = { shape, limiter, keys: new Set(), prefix: options.keyPrefix, memory };
    this.counters.set(rule.id, counter);
    return counter;
  }

  /** Ticks every limit the request falls under; throws the 429 when any is exceeded. */
  async check(request: LimitedRequest): Promise<void> {
    if (this.rules.length === 0) return;
    const matches = matchLimits(this.rules, request);
    if (matches.length === 0) return;
    const outcomes = await Promise.all(
      matches.map(async ({ rule, counterKey }) => {
        const counter = this.counter(rule);
        counter.keys.add(counterKey);
        try {
          await counter.limiter.consume(counterKey);
          return null;
        } catch (rejection) {
          // A store error with no fallback left must not refuse the request.
          return rejection instanceof this.counting!.RateLimiterRes ? { rule, res: rejection } : null;
        }
      }),
    );
    const exceeded = outcomes.filter((outcome) => outcome !== null);
    if (exceeded.length === 0) return;
    const retryAfter = Math.max(1, ...exceeded.map(({ res }) => Math.ceil(res.msBeforeNext / 1000)));
    const first = exceeded[0];
    throw new TooManyRequestsError(
      systemMessages.limitsExceeded.text(),
      exceeded.map(({ rule }) => ({ id: rule.id, name: rule.name, object: rule.record })),
      {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(first.rule.rate),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + retryAfter),
      },
    );
  }

  /**
   * The counters of the active limits: one per limit, and for an each_user limit one per user the
   * limits apply to (the reference lists every active user who is not an administrator;
   * restricted administrators are limited too), whichever instance counted them.
   */
  async states(filter: CounterFilter = {}): Promise<CounterState[]> {
    const states: CounterState[] = [];
    const rules = await this.named(filter);
    if (rules.length > 0) await this.loadCounting();
    const users = await this.limitedUsers(rules);
    for (const rule of rules) {
      const counter = this.counter(rule);
      const keys = this.keysOf(rule, users, filter.userId);
      const attempts = await this.attempts(
        counter,
        keys.map(({ key }) => key),
      );
      for (const [index, { key, userId }] of keys.entries()) {
        const used = Math.min(attempts[index], rule.rate);
        states.push({
          id: rule.id,
          limit_id: rule.id,
          name: rule.name,
          key,
          user_id: userId,
          max: rule.rate,
          attempts: used,
          remaining: rule.rate - used,
        });
      }
    }
    return states;
  }

  /**
   * Resets counters, lifting lock-outs: of the given limits (all without ids), of one user or of
   * every user. The ids of named limits that do not exist are returned (none reset then).
   */
  async reset(filter: CounterFilter = {}): Promise<number[]> {
    const rules = await this.named(filter);
    const missing = (filter.limitIds ?? []).filter((id) => !rules.some((rule) => rule.id === id));
    if (missing.length > 0) return missing;
    if (rules.length > 0) await this.loadCounting();
    const users = await this.limitedUsers(rules);
    for (const rule of rules) {
      const counter = this.counter(rule);
      const keys = new Set(this.keysOf(rule, users, filter.userId).map(({ key }) => key));
      // Every user's counter of the limit, also of users counted elsewhere and no longer listed.
      if (filter.userId === undefined) for (const key of counter.keys) keys.add(key);
      for (const key of keys) {
        await counter.limiter.delete(key).catch(() => false);
        if (counter.memory !== counter.limiter) await counter.memory.delete(key).catch(() => false);
      }
      if (filter.userId === undefined && isEachUser(rule.type) && this.redis?.ready()) {
        await deleteByPrefix(this.redis.client, `${counter.prefix}:`).catch(() => undefined);
      }
      // The other instances reset what they count in process when they catch up with the change.
      const name = `${RESET_PREFIX}${rule.id}:${filter.userId ?? '*'}`;
      const token = randomBytes(8).toString('hex');
      this.resetsSeen?.set(name, token);
      await upsert(this.db, 'system_setting', 'name', { name, value: token }, { value: token });
    }
    return [];
  }

  /** A limit, active or not. */
  async find(id: number): Promise<LimitRule | undefined> {
    return (await this.named({ limitIds: [id] }))[0];
  }

  /** The limits a filter names (all without ids), active or not. */
  private async named(filter: CounterFilter): Promise<LimitRule[]> {
    if (filter.limitIds?.length === 0) return [];
    let query = this.db.selectFrom('limits').selectAll().orderBy('id');
    if (filter.limitIds !== undefined) query = query.where('id', 'in', [...filter.limitIds]);
    return (await query.execute()).map(toRule);
  }

  /** The users limits apply to: active, and not administrators (restricted ones excepted). */
  private async limitedUsers(rules: readonly LimitRule[]): Promise<number[]> {
    if (!rules.some((rule) => isEachUser(rule.type))) return [];
    const rows = await this.db
      .selectFrom('user')
      .select('id')
      .where('is_active', '=', 1)
      .where((eb) => eb.or([eb('is_sys_admin', '=', 0), eb('id', 'in', eb.selectFrom('user_to_app_to_role').select('user_id'))]))
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** A limit's counter keys: its own, or for an each_user limit each user's (one user's with a user filter). */
  private keysOf(rule: LimitRule, users: readonly number[], userId: number | undefined): Array<{ key: string; userId: number | null }> {
    if (isEachUser(rule.type)) return (userId === undefined ? users : [userId]).map((id) => ({ key: counterKey(rule, id), userId: id }));
    const own = needsUser(rule.type) ? rule.user_id : null;
    if (userId !== undefined && own !== userId) return [];
    return [{ key: limitKeyText(rule), userId: own }];
  }

  /** Requests counted per key: read in one round trip from Redis, else from the limiter (in process). */
  private async attempts(counter: Counter, keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    if (this.redis?.ready()) {
      const pipeline = this.redis.client.pipeline();
      for (const key of keys) pipeline.get(counter.limiter.getKey(key));
      const results = await pipeline.exec().catch(() => null);
      if (results) return results.map(([error, value]) => (error || value === null ? 0 : Number(value) || 0));
    }
    return Promise.all(keys.map(async (key) => (await counter.limiter.get(key).catch(() => null))?.consumedPoints ?? 0));
  }
}
