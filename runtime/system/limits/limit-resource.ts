/**
 * `/system/limit` (reference 5.11): rate limit records with the reference's validation messages.
 * The period is stored as its index and shown as its label; `key_text` is computed and unique.
 * Limits declared in platform.yaml are read-only here.
 */
import { BadRequestError } from '../../core/errors.js';
import type { Key, Prepared, ResourceBehaviour, WriteContext } from '../record-resources/resource-handler.js';
import { limitResource } from '../record-resources/system-records.js';
import { attachCounters } from './limit-cache.js';
import {
  isEachUser,
  LIMIT_VERBS,
  limitKeyText,
  needsEndpoint,
  needsService,
  needsUser,
  normaliseEndpoint,
  periodIndex,
  PERIODS,
  type LimitFields,
} from './limit-rules.js';
import { systemMessages } from '../system-messages.js';

/** The length of the longest key_text every system database holds (MySQL's varchar(255)). */
const KEY_TEXT_MAX = 255;

/** The reference's messages for a bad rate, period or verb, before the schema sees them. */
function normalise(record: Record<string, unknown>): void {
  if ('rate' in record) {
    const rate = typeof record.rate === 'string' && /^\s*\d+\s*$/.test(record.rate) ? Number(record.rate) : record.rate;
    if (typeof rate !== 'number' || !Number.isInteger(rate)) throw systemMessages.limitRateNotInteger.error();
    record.rate = rate;
  }
  if ('period' in record) {
    const index = periodIndex(record.period);
    if (index === undefined) throw systemMessages.limitPeriodInvalid.error(PERIODS);
    record.period = index;
  }
  if ('verb' in record && record.verb !== null && record.verb !== '') {
    const verb = typeof record.verb === 'string' ? record.verb.trim().toUpperCase() : record.verb;
    if (typeof verb !== 'string' || !LIMIT_VERBS.includes(verb as never)) throw systemMessages.limitVerbInvalid.error();
    record.verb = verb;
  } else if ('verb' in record) record.verb = null;
}

/** Checks the fields a type needs and computes key_text, refusing a second limit with the same key. */
async function check(w: WriteContext, verb: 'create' | 'update' | 'delete', keys: Key[], prepared: Prepared[]): Promise<void> {
  if (verb === 'delete') return;
  const existing =
    verb === 'update' && keys.length > 0 ? await w.db.selectFrom('limits').selectAll().where('id', 'in', keys.map(Number)).execute() : [];
  const seen = new Set<string>();
  for (const [index, p] of prepared.entries()) {
    const id = verb === 'update' ? Number(keys[index]) : undefined;
    const row: Record<string, unknown> = { period: 0, ...existing.find((r) => r.id === id), ...p.columns };
    const name = String(row.name);
    const type = String(row.type);
    const fields: LimitFields = {
      type,
      user_id: needsUser(type) && !isEachUser(type) ? ((row.user_id as number | null) ?? null) : null,
      role_id: type === 'instance.role' ? ((row.role_id as number | null) ?? null) : null,
      service_id: needsService(type) ? ((row.service_id as number | null) ?? null) : null,
      endpoint: needsEndpoint(type) ? normaliseEndpoint((row.endpoint as string | null) ?? null) : null,
      verb: (row.verb as string | null) ?? null,
      period: Number(row.period),
    };
    if (needsUser(type) && !isEachUser(type) && fields.user_id === null)
      throw new BadRequestError(`user_id must be specified with this limit type. Limit: ${name}`, { field: 'user_id' });
    if (type === 'instance.role' && fields.role_id === null)
      throw new BadRequestError(`role_id must be specified with this limit type. Limit: ${name}`, { field: 'role_id' });
    if (needsService(type)) {
      if (fields.service_id === null)
        throw new BadRequestError('service_id must be specified with this limit type.', { field: 'service_id' });
      const service = await w.db.selectFrom('service').select('id').where('id', '=', fields.service_id).executeTakeFirst();
      if (!service) throw new BadRequestError(`No service exists for ${name} limit.`, { field: 'service_id' });
    }
    if (needsEndpoint(type) && fields.endpoint === null)
      throw new BadRequestError(`endpoint must be specified with this limit type. Limit: ${name}`, { field: 'endpoint' });
    const keyText = limitKeyText(fields);
    // The key holds the endpoint: past what the key_text column holds (255 on MySQL), the endpoint is what is too long.
    if (keyText.length > KEY_TEXT_MAX && fields.endpoint !== null) {
      throw systemMessages.limitEndpointTooLong.error(fields.endpoint.length - (keyText.length - KEY_TEXT_MAX), name);
    }
    const taken = await w.db.selectFrom('limits').select('id').where('key_text', '=', keyText).executeTakeFirst();
    if (seen.has(keyText) || (taken && taken.id !== id)) throw systemMessages.limitExists.error();
    seen.add(keyText);
    // Only the fields of the type are kept: the key says what the limit is.
    Object.assign(p.columns, fields, { key_text: keyText });
    if (verb === 'create' && p.columns.is_active === undefined) p.columns.is_active = 1;
  }
}

export const limitBehaviour: ResourceBehaviour = {
  def: limitResource,
  originEditable: () => [],
  normalise,
  check,
  // Two creates of one limit at once: the second stored finds key_text taken, as check words it.
  duplicates: { key_text: () => systemMessages.limitExists.error() },
  async committed(w) {
    await w.ctx.limits.reload();
  },
  computed: { limit_cache_by_limit_id: attachCounters },
};
