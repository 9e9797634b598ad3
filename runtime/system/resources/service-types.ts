/**
 * GET /system/service_type[/{name}]: the service-kind registry as the reference lists it
 * (reference 5.13), each kind's config JSON Schema as the reference's field descriptors:
 * `fields` picks keys, `group=` keeps some groups.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toList, type RawQuery } from '../../core/query-params.js';
import { configDescriptors } from '../../services/config-descriptors.js';
import type { ServiceType } from '../../services/service-kind.js';
import { findServiceType, listServiceTypes } from '../internal-service-types.js';
import { systemMessages } from '../system-messages.js';

/** Types a platform has exactly one service of. */
const SINGLETONS = new Set(['system', 'user', 'swagger']);

/**
 * Groups whose services carry an OpenAPI document of their own (service_doc_by_service_id). The
 * reference's Script group does too; Portico's one Script type, `custom`, documents itself from
 * its module's routes.
 */
const DOCUMENTED_GROUPS = new Set(['Remote Service']);

function describe(kind: ServiceType): Record<string, unknown> {
  return {
    name: kind.type,
    label: kind.label,
    description: kind.description,
    group: kind.group,
    singleton: SINGLETONS.has(kind.type),
    dependencies_required: null,
    subscription_required: false,
    service_definition_editable: DOCUMENTED_GROUPS.has(kind.group),
    config_schema: configDescriptors(kind.configSchema),
  };
}

function select(record: Record<string, unknown>, fields: string[] | null): Record<string, unknown> {
  if (fields === null || fields.includes('*')) return record;
  return Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]));
}

export function serviceTypes(query: RawQuery, name?: string): unknown {
  const fields = toList(pick(query, 'fields'));
  if (name !== undefined) {
    const kind = findServiceType(name);
    if (!kind) throw systemMessages.serviceTypeNotFound.error(name);
    return select(describe(kind), fields);
  }
  const groups = toList(pick(query, 'group'))?.map((g) => g.toLowerCase()) ?? null;
  const kinds = listServiceTypes().filter((kind) => groups === null || groups.includes(kind.group.toLowerCase()));
  return wrapList(kinds.map((kind) => select(describe(kind), fields)));
}
