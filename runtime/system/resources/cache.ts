/**
 * GET /system/cache lists the services with a cache of their own; DELETE
 * /system/cache[/{service}] (reference 5.13) asks services that cache (a SOAP service its
 * WSDL and responses, a database its catalog and cached reads) to clear it; the platform's own in-memory directory and CORS rules are
 * re-read too. The clear reaches every instance on the system database (shared/cache-clears.ts).
 */
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceHandler } from '../../services/service-kind.js';
import { coreMessages } from '../../core/messages.js';
import { systemMessages } from '../system-messages.js';

type Cacheable = ServiceHandler & { clearCache(): Promise<void> | void };

const cacheable = (handler: ServiceHandler): handler is Cacheable => typeof (handler as Partial<Cacheable>).clearCache === 'function';

/** The runtime's own services keep no cache of their own beyond the directory. */
const INTERNAL_TYPES = new Set(['system', 'user', 'swagger']);

export async function clearCache(ctx: PlatformContext, service?: string): Promise<{ success: true }> {
  await clearHere(ctx, service);
  await ctx.cacheClears.record(service ?? null);
  return { success: true };
}

/** Clears this instance's caches: one service's, or (no service) every service's and the directory. */
export async function clearHere(ctx: PlatformContext, service?: string): Promise<{ success: true }> {
  if (service !== undefined) {
    const model = ctx.services.get(service);
    if (!model) throw coreMessages.serviceNotFound.error(service);
    if (INTERNAL_TYPES.has(model.type)) {
      await Promise.all([ctx.directory.reload(), ctx.cors.reload()]);
      return { success: true };
    }
    const handler = await ctx.services.handler(service);
    if (!cacheable(handler)) throw systemMessages.noCacheControl.error();
    await handler.clearCache();
    return { success: true };
  }
  await Promise.all([ctx.directory.reload(), ctx.cors.reload()]);
  for (const model of ctx.services.list()) {
    if (INTERNAL_TYPES.has(model.type)) continue;
    // A service that cannot be opened now has nothing cached.
    const handler = await ctx.services.handler(model.name).catch(() => null);
    if (handler && cacheable(handler)) await handler.clearCache();
  }
  return { success: true };
}

/** The services that keep a cache the API can clear (those that cannot be opened now have none). */
export async function listCaches(ctx: PlatformContext): Promise<Array<Record<string, unknown>>> {
  const caches: Array<Record<string, unknown>> = [];
  for (const model of ctx.services.list()) {
    if (INTERNAL_TYPES.has(model.type) || !model.is_active) continue;
    const handler = await ctx.services.handler(model.name).catch(() => null);
    if (handler && cacheable(handler))
      caches.push({ name: model.name, label: model.label, description: model.description, type: model.type });
  }
  return caches;
}
