/**
 * The service types the generator knows (the registry's families and the runtime's own types),
 * as a small interface so that config tests can run against a fixed set of types.
 */
import type { ServiceKind, ServiceType } from '../../runtime/services/service-kind.js';
import { findServiceType, listServiceTypes } from '../../runtime/system/internal-service-types.js';

/** A type as the generator uses it: its config schema, and introspection where the type has some. */
export type KnownServiceType = ServiceType & Pick<ServiceKind, 'introspect'>;

export interface KindRegistry {
  getServiceKind(type: string): KnownServiceType | undefined;
  listServiceKinds(): KnownServiceType[];
}

/** The runtime's list of service types (runtime/system/internal-service-types.ts). */
export const serviceKindRegistry: KindRegistry = { getServiceKind: findServiceType, listServiceKinds: listServiceTypes };
