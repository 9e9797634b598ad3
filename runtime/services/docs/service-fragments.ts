/**
 * The OpenAPI fragment of any live service: the runtime's own services (system, user, api_docs)
 * from their builders, every other service from its handler. Discovery documents, the event
 * list and the access-matrix test all read the routes from here.
 */
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceModel } from '../../model/platform-model.js';
import { docsServiceOpenApi } from '../../openapi/docs-openapi.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { systemServiceOpenApi } from '../../openapi/system-openapi.js';
import { userServiceOpenApi } from '../../openapi/user-openapi.js';

const INTERNAL: Record<string, () => OpenApiFragment> = {
  system: systemServiceOpenApi,
  user: userServiceOpenApi,
  swagger: docsServiceOpenApi,
};

export async function serviceFragment(ctx: PlatformContext, service: ServiceModel): Promise<OpenApiFragment> {
  const internal = INTERNAL[service.type];
  if (internal) return internal();
  return (await ctx.services.handler(service.name)).openapi();
}
