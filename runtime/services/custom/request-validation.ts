/**
 * Request bodies of custom endpoints checked against their route's JSON Schema (ajv, compiled
 * once per route): the first problem is a 400 in the spec's shape naming the field, worded as
 * the generated routes' validation errors are (`Invalid request: 'name' must be string.`).
 * Each service compiles with an ajv of its own: ajv keeps a schema by its `$id`, so a schema
 * with an `$id` compiled in a shared instance (by another route, another service, or the same
 * module loaded again by `gen build` or `gen dev`) was refused as already existing.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { coreMessages } from '../../core/messages.js';
import type { PorticoError } from '../../core/errors.js';
import type { JsonSchema } from '../../model/platform-model.js';
import { EndpointModuleError } from './endpoints.js';

// ajv-formats is CommonJS with a `default` export; under NodeNext its default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

/** Checks a body; throws the 400 of its first problem. */
export type BodyCheck = (body: unknown) => void;

function problem(error: ErrorObject): PorticoError {
  const pointer = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') pointer.push(String(params.missingProperty));
  if (error.keyword === 'additionalProperties') pointer.push(String(params.additionalProperty));
  const field = pointer.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
  const text =
    error.keyword === 'required'
      ? 'is required'
      : error.keyword === 'additionalProperties'
        ? 'is not a known field'
        : (error.message ?? 'does not match the schema');
  return coreMessages.invalidRequest.error(field === '' ? 'body' : field, text);
}

/** Compiles a route's request schema; a schema ajv cannot compile is an EndpointModuleError naming the route. */
export type BodyChecker = (schema: JsonSchema, route: string) => BodyCheck;

/** The request checks of one service's routes: a schema several routes share (one `$id`) is compiled once. */
export function bodyChecker(): BodyChecker {
  // Not strict: schemas are the user's, in the OpenAPI 3.0 dialect (`nullable`, `example`).
  const ajv = new Ajv({ allErrors: false, allowUnionTypes: true, strict: false });
  addFormats(ajv);
  const compiled = new Map<string, BodyCheck>();
  return (schema, route) => {
    const text = JSON.stringify(schema);
    let check = compiled.get(text);
    if (check !== undefined) return check;
    let validate: ReturnType<typeof ajv.compile>;
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new EndpointModuleError(`the request schema of ${route} is not a valid JSON Schema: ${(error as Error).message}`);
    }
    check = (body) => {
      if (!validate(body)) throw problem(validate.errors![0]);
    };
    compiled.set(text, check);
    return check;
  };
}
