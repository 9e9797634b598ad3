/**
 * GET /system/event (reference 5.10): the events the platform emits, one per route and verb of
 * each service the caller may reach, named `{service}.{path with / as .}.{verb}`
 * (`db._table.{table_name}.get`). Derived from the services' OpenAPI paths, so a new route is
 * a new event.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import { roleReaches } from '../../auth/access.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { serviceFragment } from '../docs/service-fragments.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function mayReach(ctx: PlatformContext, call: InternalCall, service: string): boolean {
  if (call.auth.isAdmin) return true;
  return roleReaches(call.auth.role === null ? undefined : ctx.directory.roles.get(call.auth.role.id), service);
}

export async function events(ctx: PlatformContext, call: InternalCall): Promise<unknown> {
  const only = pick(call.query, 'service');
  const services = ctx.services.list().filter((s) => (only === undefined || s.name === only) && mayReach(ctx, call, s.name));
  if (toBool(pick(call.query, 'services_only'))) return wrapList(services.map((s) => s.name));
  const byService: Record<string, Record<string, { type: 'api'; endpoints: string[]; parameter: null }>> = {};
  for (const service of services) {
    const fragment = await serviceFragment(ctx, service).catch(() => ({ paths: {} }));
    const paths: Record<string, { type: 'api'; endpoints: string[]; parameter: null }> = {};
    for (const [path, item] of Object.entries(fragment.paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const base = [service.name, ...path.split('/').filter((part) => part !== '')].join('.');
      const endpoints = METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).map((method) => `${base}.${method}`);
      if (endpoints.length > 0) paths[path === '/' ? service.name : `${service.name}${path}`] = { type: 'api', endpoints, parameter: null };
    }
    byService[service.name] = paths;
  }
  if (toBool(pick(call.query, 'as_list'))) {
    return wrapList(Object.values(byService).flatMap((paths) => Object.values(paths).flatMap((p) => p.endpoints)));
  }
  return byService;
}
