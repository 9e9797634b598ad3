// STUB: replaced by the emit/OpenAPI work. Signature is the contract.
import type { SqlServiceModel } from '../model/platform-model.js';
import type { OpenApiFragment } from './fragment.js';

/** OpenAPI paths (relative to the service) and components of a SQL database service. */
export function sqlServiceOpenApi(service: SqlServiceModel): OpenApiFragment {
  void service;
  return { paths: {}, components: {} };
}
