/** The OpenAPI fragment of the api_docs service: the combined document and one service's document. */
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation, pathParameter } from './operation-builder.js';

export function docsServiceOpenApi(): OpenApiFragment {
  const document = { description: 'An OpenAPI 3 document.', schema: { type: 'object' as const, additionalProperties: true } };
  return {
    paths: {
      '/': {
        get: jsonOperation({
          operationId: 'getApiDocs',
          summary: 'One document of every service the caller may reach.',
          response: document,
        }),
      },
      '/{service}': {
        parameters: [pathParameter('service', 'Name of the service.')],
        get: jsonOperation({
          operationId: 'getApiDocsService',
          summary: 'The document of one service (as its `_spec`).',
          response: document,
        }),
      },
    },
    components: {},
  };
}
