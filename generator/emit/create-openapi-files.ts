/** `openapi/<name>.json` per service and the combined `openapi.json`, from the runtime's builders. */
import type { OpenAPIObject } from 'openapi3-ts/oas30';
import type { PlatformModel, ServiceModel } from '../../runtime/model/platform-model.js';
import { canonicalJson } from '../../runtime/openapi/canonical-json.js';
import { modelFragment as serviceFragment } from '../../runtime/openapi/model-fragment.js';
import { API_VERSION, combinedDocument, serviceDocument } from '../../runtime/openapi/service-document.js';
import { GENERATED_NOTICE } from './generated-notice.js';

/** OpenAPI allows extension members only: the notice goes in `x-generated`. */
function documentFile(document: OpenAPIObject): string {
  return `${canonicalJson({ 'x-generated': GENERATED_NOTICE, ...document })}\n`;
}

export function createServiceOpenApiFile(service: ServiceModel): string {
  return documentFile(serviceDocument(service, serviceFragment(service)));
}

export function createCombinedOpenApiFile(model: PlatformModel): string {
  const entries = model.services.map((service) => ({ service, fragment: serviceFragment(service) }));
  const { title, description } = model.platform;
  return documentFile(combinedDocument(entries, { title, description, version: API_VERSION }));
}
