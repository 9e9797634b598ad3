/**
 * Enforces the active rate limits (reference 6.8): each request a limit applies to ticks that
 * limit's counter; the request after `rate` within a period is refused with 429 and the key stays
 * locked for one period. Counters live in Redis when the platform has one (atomic, shared by
 * every instance; while Redis is away each instance counts on its own) and in process otherwise.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../../core/errors.js';
import type { RedisLink } from '../shared/redis-link.js';
import type { SystemDb } from '../store/system-db.js';
import { limitKeyText, matchLimits, PERIOD_SECONDS, PERIODS, type LimitedRequest, type LimitRule } from './limit-rules.js';
import { systemMessages } from '../system-messages.js';

interface Counter {
  /** What the limiter was built for: rebuilt when the limit's rate or period changes. */
  shape: string;
  limiter: RateLimiterAbstract;
  /** Counter keys this instance has ticked (each_user limits have one per user). */
  keys: Set<string>;
}

/** One counter as /system/limit_cache shows it. */
export interface CounterState {
  id: number;
  limit_id: number;
  name: string;
  key: string;
  max: number;
  attempts: number;
  remaining: number;
}

export class RateLimits {
  private rules: LimitRule[] = [];
  private counters = new Map<number, Counter>();

  constructor(private readonly db: SystemDb, private readonly redis: RedisLink | null, private readonly namespace: string) {}

  /** Reads the active limits again (after a change through /system/limit, or another instance's). */
  async reload(): Promise<void> {
    const rows = await this.db.selectFrom('limits').selectAll().where('is_active', '=', 1).orderBy('id').execute();
    this.rules = rows.map((row) => ({
      id: row.id, name: row.name, type: row.type, rate: row.rate, period: row.period,
      user_id: row.user_id, role_id: row.role_id, service_id: row.service_id, endpoint: row.endpoint, verb: row.verb,
      keyText: row.key_text,
      record: {
        id: row.id, type: row.type, key_text: row.key_text, rate: row.rate, period: PERIODS[row.period] ?? row.period,
        user_id: row.user_id, role_id: row.role_id, service_id: row.service_id, endpoint: row.endpoint, verb: row.verb,
        name: row.name, description: row.description, is_active: true,
      },
    }));
    const live = new Set(this.rules.map((rule) => rule.id));
    for (const id of this.counters.keys()) if (!live.has(id)) this.counters.delete(id);
  }

  get active(): readonly LimitRule[] {
    return this.rules;
  }

  private counter(rule: LimitRule): Counter {
    const shape = `${rule.rate}/${rule.period}`;
    let counter = this.counters.get(rule.id);
    if (counter?.shape === shape) return counter;
    const seconds = PERIOD_SECONDS[rule.period] ?? 60;
    const options = { points: rule.rate, duration: seconds, blockDuration: seconds, keyPrefix: `${this.namespace}:limit:${rule.id}:${shape}` };
    const memory = new RateLimiterMemory(options);
    const limiter = this.redis
      ? new RateLimiterRedis({ ...options, storeClient: this.redis.client, insuranceLimiter: memory, rejectIfRedisNotReady: true })
      : memory;
    counter = { shape, limiter, keys: new Set() };
    this.counters.set(rule.id, counter);
    return counter;
  }

  /** Ticks every limit the request falls under; throws the 429 when any is exceeded. */
  async check(request: LimitedRequest): Promise<void> {
    if (this.rules.length === 0) return;
    const matches = matchLimits(this.rules, request);
    if (matches.length === 0) return;
    const outcomes = await Promise.all(matches.map(async ({ rule, counterKey }) => {
      const counter = this.counter(rule);
      counter.keys.add(counterKey);
      try {
        await counter.limiter.consume(counterKey);
        return null;
      } catch (rejection) {
        // A store error with no fallback left must not refuse the request.
        return rejection instanceof RateLimiterRes ? { rule, res: rejection } : null;
      }
    }));
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

  /** The counters of the active limits: each limit's own key, and the per-user keys this instance has seen. */
  async states(): Promise<CounterState[]> {
    const states: CounterState[] = [];
    for (const rule of this.rules) {
      const counter = this.counter(rule);
      const keys = new Set(counter.keys);
      if (!rule.type.includes('each_user')) keys.add(limitKeyText(rule));
      for (const key of [...keys].sort()) {
        const res = await counter.limiter.get(key).catch(() => null);
        const attempts = Math.min(res?.consumedPoints ?? 0, rule.rate);
        states.push({ id: rule.id, limit_id: rule.id, name: rule.name, key, max: rule.rate, attempts, remaining: rule.rate - attempts });
      }
    }
    return states;
  }

  /** Resets one limit's counters (lifting a lock-out), or every limit's; false when the limit is unknown. */
  async reset(id?: number): Promise<boolean> {
    const rules = id === undefined ? this.rules : this.rules.filter((rule) => rule.id === id);
    if (rules.length === 0) return id === undefined;
    for (const rule of rules) {
      const counter = this.counter(rule);
      const keys = new Set(counter.keys);
      if (!rule.type.includes('each_user')) keys.add(limitKeyText(rule));
      for (const key of keys) await counter.limiter.delete(key).catch(() => false);
    }
    return true;
  }
}
