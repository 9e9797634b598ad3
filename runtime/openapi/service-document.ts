/**
 * Whole OpenAPI 3.0 documents: one per service (`GET /api/v2/{service}/_spec`,
 * `GET /api/v2/api_docs/{service}`) and the combined one (`GET /api/v2/api_docs`), built from
 * service fragments plus the shared components, security schemes and error responses.
 */
import type { InfoObject, OpenAPIObject, OperationObject, PathItemObject, PathsObject, SecuritySchemeObject } from 'openapi3-ts/oas30';
import type { ServiceModel } from '../model/platform-model.js';
import { dropUnusedShared, mergeComponents, type NamedFragment } from './component-merge.js';
import type { OpenApiFragment } from './fragment.js';
import { uniqueNamer } from './code-identifiers.js';
import { bodySchemasByReference } from './request-body-components.js';
import { componentRef, ERROR_RESPONSES, sharedComponents } from './shared-components.js';

export const OPENAPI_VERSION = '3.0.3';
/** The API version shown in `info.version`: the `/api/v2/` of every path. */
export const API_VERSION = '2.0';

/** What a document needs to know of a service. */
export type ServiceDocInfo = Pick<ServiceModel, 'name' | 'label' | 'description' | 'type'>;

/** Credentials the server accepts (spec: Authentication; the X-DreamFactory-* aliases real clients send). */
const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Service-API-Key', description: 'API key of the app.' },
  SessionTokenHeader: { type: 'apiKey', in: 'header', name: 'X-Service-Session-Token', description: 'Session token from a login.' },
  DreamFactoryApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-DreamFactory-API-Key', description: 'Alias of X-Service-API-Key.' },
  DreamFactorySessionTokenHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-DreamFactory-Session-Token',
    description: 'Alias of X-Service-Session-Token.',
  },
  BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Session token as a bearer token.' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'API key as a query parameter.' },
  SessionTokenQuery: { type: 'apiKey', in: 'query', name: 'session_token', description: 'Session token as a query parameter.' },
};

/** Key and token together (the usual call), or any single credential (logins need the key only). */
const SECURITY = [{ ApiKeyHeader: [], SessionTokenHeader: [] }, ...Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }))];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Tags every operation with the service, and adds the description and error responses it lacks (a conflict only where it writes). */
function decorate(item: PathItemObject, service: string): PathItemObject {
  for (const method of METHODS) {
    const operation: OperationObject | undefined = item[method];
    if (operation === undefined) continue;
    operation.tags = [service];
    // Every operation has a description (spec, Discovery): where a builder gave none, its summary says it.
    if (operation.description === undefined && operation.summary !== undefined) operation.description = operation.summary;
    for (const { status, name, writesOnly } of ERROR_RESPONSES) {
      if (writesOnly && method === 'get') continue;
      operation.responses[status] ??= componentRef('responses', name);
    }
  }
  return item;
}

function tag(service: ServiceDocInfo): { name: string; description: string } {
  return { name: service.name, description: service.description || service.label };
}

/** A copy of each fragment (merging renames inside them), in service-name order. */
function namedCopies(entries: Array<{ service: ServiceDocInfo; fragment: OpenApiFragment }>): NamedFragment[] {
  return [...entries]
    .sort((a, b) => (a.service.name < b.service.name ? -1 : a.service.name > b.service.name ? 1 : 0))
    .map(({ service, fragment }) => ({ service: service.name, fragment: structuredClone(fragment) }));
}

/** Assembles a document; `paths` maps each fragment's path to its path in the document. */
function document(
  info: InfoObject,
  serverUrl: string,
  fragments: NamedFragment[],
  services: Map<string, ServiceDocInfo>,
  pathOf: (service: string, path: string) => string,
): OpenAPIObject {
  const shared = sharedComponents();
  // Request bodies reference schema components (spec, Discovery), a remote API's own document's too.
  for (const { fragment } of fragments) bodySchemasByReference(fragment, Object.keys(shared.schemas ?? {}));
  // The combined document namespaces each service's components, so their names are stable.
  const components = mergeComponents(shared, fragments, { namespace: services.size > 1 });
  const paths: PathsObject = {};
  for (const { service, fragment } of fragments) {
    for (const [path, item] of Object.entries(fragment.paths)) paths[pathOf(service, path)] = decorate(item, service);
  }
  return {
    openapi: OPENAPI_VERSION,
    info,
    servers: [{ url: serverUrl }],
    tags: fragments.map(({ service }) => tag(services.get(service)!)),
    security: structuredClone(SECURITY),
    paths,
    components: { ...dropUnusedShared(components, shared, fragments, paths), securitySchemes: structuredClone(SECURITY_SCHEMES) },
  };
}

/** The document of one service: paths relative to `/api/v2/{service}`. */
export function serviceDocument(service: ServiceDocInfo, fragment: OpenApiFragment, group?: string): OpenAPIObject {
  const info: InfoObject = {
    title: service.label || service.name,
    description: service.description,
    version: API_VERSION,
    'x-service-type': service.type,
  };
  if (group !== undefined) info['x-service-group'] = group;
  return document(
    info,
    `/api/v2/${service.name}`,
    namedCopies([{ service, fragment }]),
    new Map([[service.name, service]]),
    (_, path) => path,
  );
}

/**
 * The combined document of several services: paths prefixed with `/{service}` (the root becomes
 * `/{service}`), one tag per service, components merged (each service's under its prefix),
 * duplicate operationIds made unique with a numeric suffix.
 */
export function combinedDocument(entries: Array<{ service: ServiceDocInfo; fragment: OpenApiFragment }>, info: InfoObject): OpenAPIObject {
  const services = new Map(entries.map(({ service }) => [service.name, service]));
  const doc = document(structuredClone(info), '/api/v2', namedCopies(entries), services, (service, path) =>
    path === '/' ? `/${service}` : `/${service}${path}`,
  );
  const operationId = uniqueNamer();
  for (const item of Object.values(doc.paths) as PathItemObject[]) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation?.operationId !== undefined) operation.operationId = operationId(operation.operationId);
    }
  }
  return doc;
}
