/**
 * Static routes for reading one record of the tables a generated server was built with: the same
 * dispatch as every other request, but with the precompiled record schema, so Fastify serialises
 * the record with a compiled serialiser instead of JSON.stringify (lists keep JSON.stringify: see
 * record-schemas.ts). When the service has been replaced at run time the schema may be stale,
 * and the reply falls back to plain JSON.
 */
import type { FastifyInstance } from 'fastify';
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
      if (ctx.services.get(service.service) !== bootModel) reply.serializer(JSON.stringify);
      return dispatch(request, reply);
    };
    for (const [table, schemas] of Object.entries(service.tables)) {
      // A post_process hook's answer is sent as the hook made it, not coerced to the columns' types.
      const hooked = ctx.hooks?.rewritesAnswer(service.service, ['_table', table, '{id}'], 'GET') === true;
      app.get(`/api/v2/${service.service}/_table/${table}/:id`, hooked ? {} : { schema: { response: { 200: schemas.record } } }, guarded);
    }
  }
}
