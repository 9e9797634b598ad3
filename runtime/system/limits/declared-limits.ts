/**
 * Limits declared in platform.yaml, written at start with origin `platform` (read-only through
 * the API); declared limits no longer in platform.yaml go.
 */
import type { LimitModel } from '../../model/platform-model.js';
import { upsert, type SystemDb } from '../store/system-db.js';
import { limitKeyText, needsEndpoint, normaliseEndpoint, periodIndex } from './limit-rules.js';

export async function syncDeclaredLimits(
  trx: SystemDb,
  limits: readonly LimitModel[],
  roleIds: ReadonlyMap<string, number>,
  serviceIds: ReadonlyMap<string, number>,
  now: string,
): Promise<void> {
  const keys: string[] = [];
  for (const limit of limits) {
    const fields = {
      type: limit.type,
      user_id: null,
      role_id: limit.type === 'instance.role' && limit.role ? (roleIds.get(limit.role) ?? null) : null,
      service_id: limit.type.includes('service') && limit.service ? (serviceIds.get(limit.service) ?? null) : null,
      endpoint: needsEndpoint(limit.type) ? normaliseEndpoint(limit.endpoint) : null,
      verb: limit.verb,
      period: periodIndex(limit.period) ?? 0,
    };
    const key = limitKeyText(fields);
    keys.push(key);
    const values = {
      ...fields,
      name: limit.name,
      description: limit.description,
      rate: limit.rate,
      is_active: limit.is_active ? 1 : 0,
      origin: 'platform',
      last_modified_date: now,
    };
    await upsert(
      trx,
      'limits',
      'key_text',
      { ...values, key_text: key, created_date: now, created_by_id: null, last_modified_by_id: null },
      values,
    );
  }
  await trx
    .deleteFrom('limits')
    .where('origin', '=', 'platform')
    .where('key_text', 'not in', keys.length ? keys : [''])
    .execute();
}
