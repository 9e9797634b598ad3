// STUB (lead): replaced by the emit/OpenAPI work. Signatures are the contract.
import type { OpenAPIObject } from 'openapi3-ts/oas30';
import type { OpenApiFragment } from './fragment.js';

interface ServiceInfo { name: string; label: string; description: string; type: string }

/** One service's OpenAPI document (servers: /api/v2/{service}). */
export function serviceDocument(service: ServiceInfo, fragment: OpenApiFragment, group?: string): OpenAPIObject {
  return { openapi: '3.0.0', info: { title: service.label, version: '2.0', description: service.description, 'x-group': group }, servers: [{ url: `/api/v2/${service.name}` }], paths: fragment.paths, components: fragment.components };
}

/** Every service in one document (servers: /api/v2, paths prefixed with /{service}). */
export function combinedDocument(entries: Array<{ service: ServiceInfo; fragment: OpenApiFragment }>, info: { title: string; description: string }): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  for (const { service, fragment } of entries) for (const [p, item] of Object.entries(fragment.paths)) paths[`/${service.name}${p === '/' ? '' : p}`] = item;
  return { openapi: '3.0.0', info: { ...info, version: '2.0' }, servers: [{ url: '/api/v2' }], paths };
}
