/**
 * A fixed set of service kinds for config tests: the runtime's plain kinds and local files, plus descriptors of
 * two database kinds and a SOAP kind, so that these tests do not depend on which kinds the
 * registry holds. Opening them is never needed here.
 */
import type { KindRegistry } from '#generator/config/kind-registry.js';
import { localFileKind } from '#runtime/services/file/file-kinds.js';
import { plainServiceKinds } from '#runtime/services/plain/plain-service-kinds.js';
import { internalServiceTypes } from '#runtime/system/internal-service-types.js';
import type { ServiceGroup, ServiceKind, ServiceType } from '#runtime/services/service-kind.js';

function descriptor(type: string, group: ServiceGroup, configSchema: Record<string, unknown>): ServiceKind {
  return {
    type,
    label: type,
    group,
    description: `${type} for tests`,
    configSchema,
    open: () => Promise.reject(new Error('not opened in config tests')),
  };
}

const databaseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['database'],
  properties: {
    database: { type: 'string' },
    max_records: { type: 'integer', minimum: 1, default: 1000 },
  },
};

export const fixtureKinds: ServiceType[] = [
  ...internalServiceTypes,
  ...plainServiceKinds,
  localFileKind,
  descriptor('sqlite', 'Database', databaseSchema),
  descriptor('pgsql', 'Database', databaseSchema),
  descriptor('soap', 'Remote Service', { type: 'object', required: ['wsdl'], properties: { wsdl: { type: 'string' } } }),
];

export const fixtureRegistry: KindRegistry = {
  getServiceKind: (type) => fixtureKinds.find((kind) => kind.type === type),
  listServiceKinds: () => [...fixtureKinds].sort((a, b) => a.type.localeCompare(b.type)),
};
