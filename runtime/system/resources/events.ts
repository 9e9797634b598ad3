/**
 * GET /system/event (reference 5.10): the events the platform emits, one per route and verb of
 * each service the caller may reach, named `{service}.{path with / as .}.{verb}`
 * (`db._table.{table_name}.get`; http/hook-events.ts builds the names, as the dispatch does).
 * Derived from the services' OpenAPI paths, so a new route is a new event.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import { roleReaches } from '../../auth/access.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { serviceFragment } from '../docs/service-fragments.js';
import { endpointPattern, eventName, pathSegments } from '../../http/hook-events.js';

/**
 * One path's events; `hooks` names the events of its endpoints (`{endpoint}.pre_process` /
 * `.post_process`) with the user's hooks attached, and `hook_modules` the modules they come from.
 */
interface PathEvents {
  type: 'api';
  endpoints: string[];
  parameter: null;
  hooks?: string[];
  hook_modules?: Record<string, string[]>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * scriptable=true (reference 5.10): each event followed by the phases a script can attach to, as
 * DreamFactory lists them for an api path: `.pre_process`, `.post_process` and `.queued`.
 */
function scriptableEndpoints(endpoints: string[]): string[] {
  return endpoints.flatMap((event) => [event, `${event}.pre_process`, `${event}.post_process`, `${event}.queued`]);
}

function mayReach(ctx: PlatformContext, call: InternalCall, service: string): boolean {
  if (call.auth.isAdmin) return true;
  return roleReaches(call.auth.role === null ? undefined : ctx.directory.roles.get(call.auth.role.id), service);
}

export async function events(ctx: PlatformContext, call: InternalCall): Promise<unknown> {
  const only = pick(call.query, 'service');
  const services = ctx.services.list().filter((s) => (only === undefined || s.name === only) && mayReach(ctx, call, s.name));
  if (toBool(pick(call.query, 'services_only'))) return wrapList(services.map((s) => s.name));
  // Events with the user's hooks attached (issue 17), each listed on the most specific path whose endpoints name it.
  const attached = ctx.hooks?.attached() ?? new Map<string, string[]>();
  const scriptable = toBool(pick(call.query, 'scriptable'));
  const byService: Record<string, Record<string, PathEvents>> = {};
  for (const service of services) {
    const fragment = await serviceFragment(ctx, service).catch(() => ({ paths: {} }));
    const paths: Record<string, PathEvents> = {};
    const matchers: Array<{ entry: PathEvents; pattern: RegExp; literal: number }> = [];
    for (const [path, item] of Object.entries(fragment.paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const segments = pathSegments(path);
      const methods = METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined);
      if (methods.length === 0) continue;
      const entry: PathEvents = {
        type: 'api',
        endpoints: methods.map((method) => eventName(service.name, segments, method)),
        parameter: null,
      };
      paths[path === '/' ? service.name : `${service.name}${path}`] = entry;
      if (attached.size > 0) matchers.push(...methods.map((method) => ({ entry, ...endpointPattern(service.name, segments, method) })));
    }
    for (const [event, modules] of attached) {
      let best: (typeof matchers)[number] | undefined;
      for (const matcher of matchers)
        if (matcher.pattern.test(event) && (best === undefined || matcher.literal > best.literal)) best = matcher;
      if (best === undefined) continue;
      best.entry.hooks = [...(best.entry.hooks ?? []), event].sort();
      best.entry.hook_modules = { ...best.entry.hook_modules, [event]: modules };
    }
    if (scriptable) for (const entry of Object.values(paths)) entry.endpoints = scriptableEndpoints(entry.endpoints);
    byService[service.name] = paths;
  }
  if (toBool(pick(call.query, 'as_list'))) {
    return wrapList(Object.values(byService).flatMap((paths) => Object.values(paths).flatMap((p) => p.endpoints)));
  }
  return byService;
}
