/** Checks of generated artefacts shared by the golden and unit tests: Prisma schema and OpenAPI validity. */
import { validate } from '@prisma/prisma-schema-wasm';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenAPIObject, OperationObject, PathItemObject, ReferenceObject, RequestBodyObject } from 'openapi3-ts/oas30';

/** Prisma's validation message for a schema, or null when it is valid. */
export function prismaSchemaError(schema: string): string | null {
  try {
    validate(JSON.stringify({ prismaSchema: schema, noColor: true }));
    return null;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    try {
      return (JSON.parse(text) as { message: string }).message;
    } catch {
      return text;
    }
  }
}

/** Schema violations of an OpenAPI document, or null when it is valid. */
export async function openApiErrors(document: unknown): Promise<unknown> {
  const result = await new Validator().validate(document as Record<string, unknown>);
  return result.valid ? null : result.errors;
}

/** Every `$ref` of a document that points at nothing. */
export function unresolvedRefs(document: unknown): string[] {
  const missing: string[] = [];
  const resolve = (ref: string) =>
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        document,
      );
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        if (key === '$ref' && typeof member === 'string') {
          if (resolve(member) === undefined) missing.push(member);
        } else visit(member);
      }
    }
  };
  visit(document);
  return missing;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Each request body of a document, by where it is: `POST /_table/orders application/json` -> its schema. */
export function requestBodySchemas(document: OpenAPIObject): Array<{ at: string; schema: unknown }> {
  const found: Array<{ at: string; schema: unknown }> = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, PathItemObject>)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (operation?.requestBody === undefined) continue;
      let body = operation.requestBody as RequestBodyObject | ReferenceObject;
      // A body component (`#/components/requestBodies/...`) is walked as the body.
      const named = '$ref' in body ? document.components?.requestBodies?.[body.$ref.replace('#/components/requestBodies/', '')] : body;
      if (named === undefined || '$ref' in named) {
        found.push({ at: `${method.toUpperCase()} ${path}`, schema: body });
        continue;
      }
      body = named;
      for (const [mediaType, media] of Object.entries(body.content)) {
        found.push({ at: `${method.toUpperCase()} ${path} ${mediaType}`, schema: media.schema });
      }
    }
  }
  return found;
}

/** Request bodies whose schema is not a `$ref` to a schema component the document defines. */
export function bodiesNotByReference(document: OpenAPIObject): string[] {
  const schemas = document.components?.schemas ?? {};
  return requestBodySchemas(document)
    .filter(({ schema }) => {
      const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
      if (typeof ref !== 'string' || Object.keys(schema as object).length !== 1 || !ref.startsWith('#/components/schemas/')) return true;
      return schemas[ref.slice('#/components/schemas/'.length)] === undefined;
    })
    .map(({ at }) => at);
}
