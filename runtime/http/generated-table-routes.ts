/**
 * Static routes for reading one record of the tables a generated server was built with: the same
 * dispatch as every other request, but with the precompiled record schema, so Fastify serialises
 * a record read with `fields` with a compiled serialiser instead of JSON.stringify (lists keep
 * JSON.stringify: see record-schemas.ts; a whole record goes as the JSON text its ETag hashes,
 * ServiceResult.json). When the service has been replaced at run time the schema may be
 * stale, and the reply falls back to plain JSON.
 */
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from '../openapi/record-schemas.js';
import type { Dispatch } from './api-dispatch.js';
import type { ServiceRoutes } from './generated-routes.js';
import type { PlatformContext } from './platform-context.js';

export function registerGeneratedTableRoutes(
  app: FastifyInstance,
  ctx: PlatformContext,
  dispatch: Dispatch,
  routes: readonly ServiceRoutes[],
): void {
  for (const service of routes) {
    const bootModel = ctx.services.get(service.service);
    if (bootModel?.kind !== 'sql') continue;
    const guarded: Dispatch = (request, reply) => {
      if (ctx.services.get(service.service) !== bootModel) reply.serializer(plainJson);
      return dispatch(request, reply);
    };
    for (const [table, schemas] of Object.entries(service.tables)) {
      // A post_process hook's answer is sent as the hook made it, not coerced to the columns' types.
      const hooked = ctx.hooks?.rewritesAnswer(service.service, ['_table', table, '{id}'], 'GET') === true;
      const schema = { response: { 200: ownPropertiesOnly(schemas.record) } };
      app.get(`/api/v2/${service.service}/_table/${table}/:id`, hooked ? {} : { schema }, guarded);
    }
  }
}

/**
 * The serialiser of a stale route: JSON.stringify, but text is sent as it is (Fastify hands a
 * string to the serialiser when the answer has a content type: a record's JSON text, a download).
 */
const plainJson = (payload: unknown): string => (typeof payload === 'string' ? payload : JSON.stringify(payload));

/**
 * The record schema without members every object inherits (a column named `constructor`,
 * `__proto__`, `valueOf`): fast-json-stringify writes a declared member whenever reading it is
 * not undefined, so a record read without that field (`fields=id`) was answered with
 * `"constructor":"function Object() { [native code] }"`. Left out, such a field is written as the
 * other members (`additionalProperties`) are: when the record has it as its own.
 */
export function ownPropertiesOnly(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties === undefined || !Object.keys(properties).some((name) => name in Object.prototype)) return schema;
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !(name in Object.prototype))) };
}
