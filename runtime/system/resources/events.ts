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

/** One path's events; `hooks` names the `{event}.pre_process` / `.post_process` events with hooks attached. */
interface PathEvents {
  type: 'api';
  endpoints: string[];
  parameter: null;
  hooks?: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function mayReach(ctx: PlatformContext, call: InternalCall, service: string): boolean {
  if (call.auth.isAdmin) return true;
  return roleReaches(call.auth.role === null ? undefined : ctx.directory.roles.get(call.auth.role.id), service);
}

export async function events(ctx: PlatformContext, call: InternalCall): Promise<unknown> {
  const only = pick(call.query, 'service');
  const services = ctx.services.list().filter((s) => (only === undefined || s.name === only) && mayReach(ctx, call, s.name));
  if (toBool(pick(call.query, 'services_only'))) return wrapList(services.map((s) => s.name));
  // Events with the user's hooks attached (issue 17): listed on their path as `hooks`.
  const attached = [...(ctx.hooks?.attached().keys() ?? [])];
  const byService: Record<string, Record<string, PathEvents>> = {};
  for (const service of services) {
    const fragment = await serviceFragment(ctx, service).catch(() => ({ paths: {} }));
    const paths: Record<string, PathEvents> = {};
    for (const [path, item] of Object.entries(fragment.paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const base = [service.name, ...path.split('/').filter((part) => part !== '')].join('.');
      const endpoints = METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).map(
        (method) => `${base}.${method}`,
      );
      if (endpoints.length === 0) continue;
      const entry: PathEvents = { type: 'api', endpoints, parameter: null };
      const hooks = attached.filter((event) => endpoints.some((endpoint) => event.startsWith(`${endpoint}.`))).sort();
      if (hooks.length > 0) entry.hooks = hooks;
      paths[path === '/' ? service.name : `${service.name}${path}`] = entry;
    }
    byService[service.name] = paths;
  }
  if (toBool(pick(call.query, 'as_list'))) {
    return wrapList(Object.values(byService).flatMap((paths) => Object.values(paths).flatMap((p) => p.endpoints)));
  }
  return byService;
}
