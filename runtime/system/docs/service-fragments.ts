/**
 * The OpenAPI fragment of any live service: the runtime's own services (system, user, api_docs)
 * from their builders, every other service from its handler. Discovery documents, the event
 * list and the access-matrix test all read the routes from here.
 */
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceModel } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { internalServiceFragment } from '../../openapi/model-fragment.js';

export async function serviceFragment(ctx: PlatformContext, service: ServiceModel): Promise<OpenApiFragment> {
  return internalServiceFragment(service.type) ?? (await ctx.services.handler(service.name)).openapi();
}
