/**
 * The service kinds the generator knows, as a small interface over runtime/services/registry.ts
 * so that config tests can run against a fixed set of kinds.
 */
import { getServiceKind, listServiceKinds } from '../../runtime/services/registry.js';
import type { ServiceKind } from '../../runtime/services/service-kind.js';

export interface KindRegistry {
  getServiceKind(type: string): ServiceKind | undefined;
  listServiceKinds(): ServiceKind[];
}

/** The runtime's registry: the only list of service kinds. */
export const serviceKindRegistry: KindRegistry = { getServiceKind, listServiceKinds };
