/**
 * The OpenAPI fragment of a service as its model describes it: the runtime's own services (system,
 * user, api_docs) from their builders, databases from their tables, SOAP services from their operations. Build time writes these; run
 * time serves live fragments of databases (tables may change) and uses these for the rest.
 */
import type { ServiceModel } from '../model/platform-model.js';
import { getServiceKind } from '../services/registry.js';
import { docsServiceOpenApi } from './docs-openapi.js';
import type { OpenApiFragment } from './fragment.js';
import { soapServiceOpenApi } from './soap-openapi.js';
import { sqlServiceOpenApi } from './sql-openapi.js';
import { systemServiceOpenApi } from './system-openapi.js';
import { userServiceOpenApi } from './user-openapi.js';

const INTERNAL: Record<string, () => OpenApiFragment> = {
  system: systemServiceOpenApi,
  user: userServiceOpenApi,
  swagger: docsServiceOpenApi,
};

/** The fragment of one of the runtime's own services, or null for any other type. */
export function internalServiceFragment(type: string): OpenApiFragment | null {
  return INTERNAL[type]?.() ?? null;
}

/** The fragment the model alone gives; services with nothing to document give empty paths. */
export function modelFragment(service: ServiceModel): OpenApiFragment {
  const internal = internalServiceFragment(service.type);
  if (internal) return internal;
  if (service.kind === 'sql') return sqlServiceOpenApi(service);
  if (service.kind === 'soap') return soapServiceOpenApi(service);
  return getServiceKind(service.type)?.describe?.(service) ?? { paths: {}, components: {} };
}
