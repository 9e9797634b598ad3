/**
 * Re-reads everything a running instance keeps in memory from the system database, and clears
 * the caches another instance cleared: used when another instance announces a change
 * (change-feed.ts).
 */
import type { PlatformContext } from '../../http/platform-context.js';
import type { ServiceModel } from '../../model/platform-model.js';
import { clearHere } from '../resources/cache.js';
import { liveServiceModel, plainServiceModel } from '../resources/service-models.js';

export async function reloadPlatform(ctx: PlatformContext): Promise<void> {
  await Promise.all([ctx.directory.reload(), ctx.cors.reload(), ctx.limits.reload(), syncServicesInTurn(ctx)]);
  // A service gone or not cacheable here has nothing to clear.
  for (const service of await ctx.cacheClears.news()) await clearHere(ctx, service ?? undefined).catch(() => undefined);
}

/** The fields that decide how a service is served. */
const shape = (s: ServiceModel) => JSON.stringify([s.name, s.label, s.description, s.is_active, s.type, s.config]);

/** The last sync of each platform: syncs run one after the other. */
const syncing = new WeakMap<PlatformContext, Promise<void>>();

/**
 * Serves the API's services as the system database has them, after any sync under way: a write
 * applies its own change as soon as it commits, but two changes of one service at once may apply
 * in the other order than they committed (the first one's put opening its database slowly), which
 * left the service served with a config the database no longer had. The write then syncs in turn:
 * the last sync begins after the last put ended, and reads what committed last.
 */
export function syncServicesInTurn(ctx: PlatformContext): Promise<void> {
  const next = (syncing.get(ctx) ?? Promise.resolve()).then(() => syncApiServices(ctx));
  syncing.set(
    ctx,
    next.catch(() => undefined),
  );
  return next;
}

/** Services created, changed or deleted through the API (on another instance, or by writes at once on this one). */
async function syncApiServices(ctx: PlatformContext): Promise<void> {
  const rows = await ctx.db.selectFrom('service').selectAll().where('origin', '=', 'api').execute();
  const live = new Map(
    ctx.services
      .list()
      .filter((s) => s.origin === 'api')
      .map((s) => [s.id, s]),
  );
  for (const row of rows) {
    const current = live.get(row.id);
    live.delete(row.id);
    if (current && shape(current) === shape(plainServiceModel(row))) continue;
    const model = await liveServiceModel(row, ctx.runtime).catch(() => plainServiceModel(row));
    await ctx.services.put(model, current?.name ?? model.name);
  }
  for (const gone of live.values()) await ctx.services.remove(gone.name);
}
