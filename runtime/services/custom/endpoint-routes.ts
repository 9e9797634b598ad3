/**
 * A custom service's routes: path patterns matched against a request's path segments, and the
 * OpenAPI fragment of the routes (the same at build time, from the model, and when serving, from
 * the module).
 */
import type { OperationObject, PathItemObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas30';
import type { EndpointRouteModel } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { pascalCase, uniqueNamer } from '../../openapi/code-identifiers.js';
import { jsonOperation, pathParameter } from '../../openapi/operation-builder.js';
import { componentRef } from '../../openapi/shared-components.js';

/** A route's path, split: literal segments, `:name` parameters, and `*` (the rest of the path) last. */
export interface RoutePattern {
  segments: ReadonlyArray<{ literal: string } | { param: string } | { rest: true }>;
}

export function routePattern(path: string): RoutePattern {
  return {
    segments: path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) =>
        segment === '*' ? { rest: true as const } : segment.startsWith(':') ? { param: segment.slice(1) } : { literal: segment },
      ),
  };
}

/** The parameters of a match, or null. `*` matches one segment or more. */
export function matchPattern(pattern: RoutePattern, resource: readonly string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  const { segments } = pattern;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if ('rest' in segment) {
      if (i >= resource.length) return null;
      params['*'] = resource.slice(i).join('/');
      return params;
    }
    if (i >= resource.length) return null;
    if ('literal' in segment) {
      if (segment.literal !== resource[i]) return null;
    } else params[segment.param] = resource[i];
  }
  return segments.length === resource.length ? params : null;
}

/** Orders patterns so that the first match is the most specific: literals before parameters before `*`, segment by segment. */
export function bySpecificity(a: RoutePattern, b: RoutePattern): number {
  const rank = (segment: RoutePattern['segments'][number] | undefined) =>
    segment === undefined ? 3 : 'literal' in segment ? 0 : 'param' in segment ? 1 : 2;
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const difference = rank(a.segments[i]) - rank(b.segments[i]);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** `/contacts/:id` as OpenAPI writes it: `/contacts/{id}`; `*` is `{path}`. */
function openApiPath(pattern: RoutePattern): string {
  const parts = pattern.segments.map((segment) =>
    'literal' in segment ? segment.literal : 'param' in segment ? `{${segment.param}}` : '{path}',
  );
  return `/${parts.join('/')}`;
}

/** The access component a role grant names for a route: `contacts`, `contacts/*`. */
export function accessComponent(pattern: RoutePattern): string {
  const literal: string[] = [];
  for (const segment of pattern.segments) {
    if (!('literal' in segment)) return [...literal, '*'].join('/');
    literal.push(segment.literal.toLowerCase());
  }
  return literal.join('/');
}

/**
 * The OpenAPI fragment of a custom service's routes: each request schema a component named after
 * its operation (`PostContactsRequest`; spec, Discovery: request bodies reference components),
 * response schemas inline, path parameters as strings.
 */
export function endpointsOpenApi(routes: readonly EndpointRouteModel[]): OpenApiFragment {
  const paths: Record<string, PathItemObject> = {};
  const schemas: Record<string, SchemaObject> = {};
  const operationId = uniqueNamer();
  const componentName = uniqueNamer();
  for (const route of routes) {
    const pattern = routePattern(route.path);
    const path = openApiPath(pattern);
    const words = pattern.segments.map((segment) =>
      'literal' in segment ? segment.literal : 'param' in segment ? `by ${segment.param}` : 'path',
    );
    const parameters = pattern.segments.flatMap((segment) =>
      'literal' in segment
        ? []
        : [
            pathParameter(
              'param' in segment ? segment.param : 'path',
              'rest' in segment ? 'The rest of the path (may hold `/`).' : 'Path parameter.',
            ),
          ],
    );
    const id = operationId(`${route.method.toLowerCase()}${pascalCase(words.join(' ')) || 'Root'}`);
    const requestName = route.request === undefined ? undefined : componentName(`${pascalCase(id)}Request`);
    if (requestName !== undefined) schemas[requestName] = structuredClone(route.request) as SchemaObject;
    const operation: OperationObject = jsonOperation({
      operationId: id,
      summary: route.summary ?? `${route.method} ${route.path}`,
      description: route.description,
      parameters,
      body:
        requestName === undefined
          ? undefined
          : { description: 'Checked against this schema: a 400 otherwise.', schema: componentRef('schemas', requestName) },
      response: { description: 'Success.', schema: (route.response ?? {}) as SchemaObject },
    });
    // The handler chooses the status (`ctx.reply(201, ...)`), answers 204 when it returns nothing,
    // and may stream any content type where the route declares no response schema.
    // 200 stays explicit (client generators type their answer from it); the range covers the others.
    const { content } = operation.responses['200'] as ResponseObject;
    const success = route.response === undefined ? { ...content, '*/*': { schema: { type: 'string', format: 'binary' } } } : content;
    operation.responses = {
      '200': { description: 'Success.', content: success },
      '2XX': { description: 'Success with another status the handler replies with.', content: success },
      '204': { description: 'The handler answered nothing.' },
    };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return { paths, components: Object.keys(schemas).length === 0 ? {} : { schemas } };
}
