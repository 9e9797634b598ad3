/**
 * `/system/limit_cache` (reference 5.11): the counters of the limits, an each_user limit's one per
 * user (inactive limits count nothing but are listed too). GET lists them: `/limit_cache/{limit id}`
 * one limit's (its counter, or an each_user limit's list), `ids=` some limits', `user_id=` one
 * user's. DELETE `/limit_cache/{limit id}` (or `ids=`) resets those limits' counters, lifting
 * their lock-outs, for every user or, with `user_id=`, for one; DELETE with `force=true` or
 * `allow_delete=true` resets all.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { coreMessages } from '../../core/messages.js';
import { sqlMessages } from '../../services/sql/sql-messages.js';
import { MAX_INTEGER } from '../record-resources/resource-definition.js';
import { isEachUser } from './limit-rules.js';
import type { CounterFilter } from './rate-limits.js';

function wholeNumber(text: string, parameter: string): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value)) throw coreMessages.parameterNotInteger.error(parameter);
  // Beyond what an id column holds (PostgreSQL refuses to compare it): no record has it.
  if (value > MAX_INTEGER) throw coreMessages.recordNotFound.error(text.trim());
  return value;
}

/** The limits and user a request names; `single` when it names one limit in the path. */
function filterOf(call: InternalCall, rest: readonly string[]): CounterFilter & { single: boolean } {
  if (rest.length > 1) throw coreMessages.resourceNotFound.error(['limit_cache', ...rest].join('/'), 'system');
  const filter: CounterFilter & { single: boolean } = { single: rest[0] !== undefined };
  if (rest[0] !== undefined) {
    if (!/^\d+$/.test(rest[0]) || Number(rest[0]) > MAX_INTEGER) throw coreMessages.recordNotFound.error(rest[0]);
    filter.limitIds = [Number(rest[0])];
  } else {
    const ids = pick(call.query, 'ids');
    if (ids !== undefined && ids.trim() !== '') filter.limitIds = ids.split(',').map((id) => wholeNumber(id.trim(), 'ids'));
  }
  const user = pick(call.query, 'user_id');
  if (user !== undefined && user.trim() !== '') filter.userId = wholeNumber(user.trim(), 'user_id');
  return filter;
}

export async function limitCache(ctx: PlatformContext, call: InternalCall, rest: readonly string[]): Promise<unknown> {
  const filter = filterOf(call, rest);
  if (call.verb === 'GET') {
    const states = await ctx.limits.states(filter);
    if (!filter.single) return wrapList(states);
    const limit = await ctx.limits.find(filter.limitIds![0]);
    if (!limit) throw coreMessages.recordNotFound.error(rest[0]);
    // An each_user limit has a list of counters, unless one user's is asked for.
    return isEachUser(limit.type) && filter.userId === undefined ? wrapList(states) : (states[0] ?? null);
  }
  if (call.verb !== 'DELETE') throw coreMessages.verbNotSupported.error(call.verb, 'limit_cache', 'system');
  if (filter.limitIds === undefined && !toBool(pick(call.query, 'force')) && !toBool(pick(call.query, 'allow_delete'))) {
    throw sqlMessages.noDeleteCriteria.error();
  }
  const missing = await ctx.limits.reset(filter);
  if (missing.length > 0) throw coreMessages.recordNotFound.error(String(missing[0]));
  return { success: true };
}

/** `related=limit_cache_by_limit_id` on /system/limit: each limit's counters. */
export async function attachCounters(ctx: PlatformContext, records: Array<Record<string, unknown>>): Promise<void> {
  const ids = records.map((record) => Number(record.id));
  const states = ids.length === 0 ? [] : await ctx.limits.states({ limitIds: ids });
  for (const record of records) {
    record.limit_cache_by_limit_id = states
      .filter((state) => state.limit_id === Number(record.id))
      .map(({ id, key, user_id, max, attempts, remaining }) => ({ id, key, user_id, max, attempts, remaining }));
  }
}
