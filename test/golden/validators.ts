/** Checks of generated artefacts shared by the golden and unit tests: Prisma schema and OpenAPI validity. */
import { validate } from '@prisma/prisma-schema-wasm';
import { Validator } from '@seriousme/openapi-schema-validator';

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
