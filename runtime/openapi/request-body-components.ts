/**
 * Request bodies by reference (spec, Discovery: "requestBody referencing components/schemas").
 * The runtime's own builders name their body components; a fragment they did not build (a remote
 * API's own document, served as an HTTP service's `_spec`) may write its bodies inline. Those are
 * moved into `components.schemas`, named after their operation (`CreatePetRequest`), so that every
 * document the server produces references its request bodies.
 */
import type { OperationObject, PathItemObject, RequestBodyObject, SchemaObject } from 'openapi3-ts/oas30';
import { pascalCase, uniqueNamer } from './code-identifiers.js';
import type { OpenApiFragment } from './fragment.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SCHEMA_REF = '#/components/schemas/';
const BODY_REF = '#/components/requestBodies/';

function isSchemaRef(schema: unknown): boolean {
  const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith(SCHEMA_REF);
}

/**
 * Moves, in place, every request body schema of `fragment` that is not a `$ref` to a schema
 * component into a component of its own (one per distinct schema). `reserved` holds the names the
 * document already gives other components (the shared ones). Returns the fragment.
 */
export function bodySchemasByReference(fragment: OpenApiFragment, reserved: Iterable<string> = []): OpenApiFragment {
  const bodies: Array<{ body: RequestBodyObject; name: string }> = [];
  const seen = new Set<RequestBodyObject>();
  const add = (body: unknown, name: string) => {
    if (body === null || typeof body !== 'object' || seen.has(body as RequestBodyObject)) return;
    const content = (body as RequestBodyObject).content;
    if (content === null || typeof content !== 'object') return;
    if (!Object.values(content).some((media) => !isSchemaRef(media?.schema))) return;
    seen.add(body as RequestBodyObject);
    bodies.push({ body: body as RequestBodyObject, name });
  };
  const requestBodies = (fragment.components.requestBodies ?? {}) as Record<string, unknown>;
  for (const [path, item] of Object.entries(fragment.paths as Record<string, PathItemObject>)) {
    if (item === null || typeof item !== 'object') continue;
    for (const method of METHODS) {
      const operation: OperationObject | undefined = item[method];
      const body = operation?.requestBody;
      if (body === undefined || body === null) continue;
      const name = pascalCase(operation?.operationId ?? `${method} ${path}`) || pascalCase(method);
      const ref = (body as { $ref?: unknown }).$ref;
      if (typeof ref === 'string') {
        if (ref.startsWith(BODY_REF)) add(requestBodies[ref.slice(BODY_REF.length)], name);
      } else add(body, name);
    }
  }
  if (bodies.length === 0) return fragment;
  fragment.components.schemas ??= {};
  const schemas = fragment.components.schemas as Record<string, SchemaObject>;
  const namer = uniqueNamer([...Object.keys(schemas), ...reserved]);
  // One component per distinct schema: an operation's body that equals an earlier one shares its name.
  const named = new Map<string, string>();
  for (const { body, name } of bodies) {
    for (const media of Object.values(body.content)) {
      if (isSchemaRef(media.schema)) continue;
      const schema = (media.schema ?? {}) as SchemaObject;
      const key = JSON.stringify(schema);
      let component = named.get(key);
      if (component === undefined) {
        component = namer(`${name}Request`);
        named.set(key, component);
        schemas[component] = schema;
      }
      media.schema = { $ref: `${SCHEMA_REF}${component}` };
    }
  }
  return fragment;
}
