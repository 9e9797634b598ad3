// STUB (lead): replaced by the emit/OpenAPI work. Signature is the contract.
import type { OpenApiFragment } from './fragment.js';

/** The system service's paths. */
export function systemServiceOpenApi(): OpenApiFragment {
  return { paths: {}, components: {} };
}
