/**
 * `/system/limit_cache` (reference 5.11): the counters of the active limits; DELETE
 * `/limit_cache/{limit id}` resets one limit's counters (lifting its lock-out), DELETE with
 * `force=true` or `allow_delete=true` resets all.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { coreMessages } from '../../core/messages.js';
import { sqlMessages } from '../../services/sql/sql-messages.js';

export async function limitCache(ctx: PlatformContext, call: InternalCall, rest: readonly string[]): Promise<unknown> {
  if (rest.length > 1) throw coreMessages.resourceNotFound.error(['limit_cache', ...rest].join('/'), 'system');
  const id = rest[0] === undefined ? undefined : Number(rest[0]);
  if (id !== undefined && !Number.isInteger(id)) throw coreMessages.recordNotFound.error(rest[0]);
  if (call.verb === 'GET') {
    const states = await ctx.limits.states();
    if (id === undefined) return wrapList(states);
    const own = states.filter((state) => state.limit_id === id);
    if (own.length === 0) throw coreMessages.recordNotFound.error(String(id));
    return own.length === 1 ? own[0] : wrapList(own);
  }
  if (call.verb !== 'DELETE') throw coreMessages.verbNotSupported.error(call.verb, 'limit_cache', 'system');
  if (id === undefined) {
    if (!toBool(pick(call.query, 'force')) && !toBool(pick(call.query, 'allow_delete'))) {
      throw sqlMessages.noDeleteCriteria.error();
    }
    await ctx.limits.reset();
    return { success: true };
  }
  if (!await ctx.limits.reset(id)) throw coreMessages.recordNotFound.error(String(id));
  return { success: true };
}
