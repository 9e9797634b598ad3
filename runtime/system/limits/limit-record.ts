/**
 * The fields of a `/system/limit` record (reference 5.11); its relations are added with the
 * other system records (record-resources/system-records.ts).
 */
import { field, flag, MAX_INTEGER, nullableId, READ_ONLY_AUDITED, resource } from '../record-resources/resource-definition.js';
import { LIMIT_TYPES, LIMIT_VERBS, PERIODS } from './limit-rules.js';

export const limitFields = resource({
  name: 'limit',
  summary: 'Rate limits: how many requests an instance, user, each user, service, endpoint or role may make per period.',
  table: 'limits',
  label: 'Limit',
  plural: 'Limits',
  fields: {
    type: field({ type: 'string', enum: [...LIMIT_TYPES] }, { required: true }),
    rate: field({ type: 'integer', minimum: 1, maximum: MAX_INTEGER, description: 'Requests allowed per period.' }, { required: true }),
    period: field({
      anyOf: [
        { type: 'string', enum: [...PERIODS] },
        { type: 'integer', minimum: 0, maximum: PERIODS.length - 1 },
      ],
      description: `One of ${PERIODS.join(', ')} (label, or its index from 0); shown as the label.`,
    }),
    user_id: field(nullableId, { references: 'user' }),
    role_id: field(nullableId, { references: 'role' }),
    service_id: field(nullableId),
    endpoint: field({ type: ['string', 'null'], maxLength: 255, description: 'Resource path under the service; a `*` matches any rest.' }),
    verb: field({ type: ['string', 'null'], enum: [...LIMIT_VERBS, null] }),
    name: field({ type: 'string', minLength: 1, maxLength: 255 }, { required: true }),
    description: field({ type: ['string', 'null'] }),
    is_active: field(flag),
  },
  readOnly: [...READ_ONLY_AUDITED, 'key_text', 'origin'],
  // The reference's legacy admin app sends its screen's counters with the record.
  ignored: ['cacheData'],
});
