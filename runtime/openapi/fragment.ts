/** The part of an OpenAPI 3 document a service contributes: paths relative to the service, and components. */
import type { ComponentsObject, PathsObject } from 'openapi3-ts/oas30';

export interface OpenApiFragment {
  paths: PathsObject;
  components: ComponentsObject;
}
