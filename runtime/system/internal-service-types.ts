/**
 * The service types the runtime serves itself: `system`, `swagger` (api_docs) and `user`. They
 * are listed by GET /system/service_type and configured in platform.yaml like any other type, but
 * requests to them are routed by the runtime (http/api-dispatch.ts), never opened through the
 * service-kind registry. Lookups of a type name go through here, so that both lists are one.
 */
import { getServiceKind, listServiceKinds } from '../services/registry.js';
import type { ServiceKind, ServiceType } from '../services/service-kind.js';
import { userConfigSchema } from './user/user-config.js';

const anyConfig = (configSchema: Record<string, unknown> = {}) => ({ type: 'object', additionalProperties: true, ...configSchema });

export const internalServiceTypes: readonly ServiceType[] = [
  {
    type: 'system',
    label: 'System Management',
    group: 'System',
    description: 'Manages the platform: administrators, users, apps, services, roles and settings.',
    configSchema: anyConfig(),
  },
  { type: 'swagger', label: 'API Docs', group: 'API Doc', description: 'OpenAPI documents of every service.', configSchema: anyConfig() },
  {
    type: 'user',
    label: 'User Management',
    group: 'User',
    description: 'Sessions, registration and passwords of regular users.',
    configSchema: anyConfig(userConfigSchema),
  },
];

/** A service type by id: a registered family (with its introspection) or one of the runtime's own. */
export function findServiceType(type: string): (ServiceType & Pick<ServiceKind, 'introspect'>) | undefined {
  return getServiceKind(type) ?? internalServiceTypes.find((internal) => internal.type === type);
}

/** Every service type, sorted by id. */
export function listServiceTypes(): ServiceType[] {
  return [...listServiceKinds(), ...internalServiceTypes].sort((a, b) => a.type.localeCompare(b.type));
}
