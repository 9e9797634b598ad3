/**
 * ServiceModels of services created through the API, from their system-database rows: database
 * kinds are introspected (so discovery and typed routes know their tables), other kinds load
 * what they need lazily on their first call (a SOAP service its WSDL).
 */
import { BadRequestError } from '../../core/errors.js';
import type { ServiceModel } from '../../model/platform-model.js';
import { findServiceType } from '../internal-service-types.js';
import type { RuntimeContext } from '../../services/service-kind.js';
import type { ServiceTable } from '../store/system-tables.js';

type ServiceRow = Pick<ServiceTable, 'id' | 'name' | 'label' | 'type' | 'description' | 'is_active' | 'config' | 'origin'>;

/** The plain model of a row: what every kind starts from. */
export function plainServiceModel(row: ServiceRow): ServiceModel {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    type: row.type,
    description: row.description,
    is_active: row.is_active === 1,
    config: JSON.parse(row.config) as Record<string, unknown>,
    origin: row.origin as ServiceModel['origin'],
    kind: 'plain',
  };
}

/** The model a live service is served from; a database that cannot be read is a 400 naming the service. */
export async function liveServiceModel(row: ServiceRow, runtime: RuntimeContext): Promise<ServiceModel> {
  const model = plainServiceModel(row);
  const kind = findServiceType(row.type);
  if (!kind?.introspect || kind.group !== 'Database') return model;
  try {
    return await kind.introspect(model, runtime);
  } catch (error) {
    throw new BadRequestError(`Service '${row.name}' could not be opened: ${error instanceof Error ? error.message : String(error)}`, {
      field: 'config',
    });
  }
}
