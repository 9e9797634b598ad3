/**
 * GET /system/event_script[/{name}]: the scripts attached to events. The platform's are its
 * TypeScript hooks (platform.yaml `hooks`, built into the server), one record per event a hook
 * module handles, named as the reference names its event scripts (`db._table.contact.post.pre_process`).
 * They are read only: hooks change with the platform's code, not through the API. The reference's
 * admin console lists them beside each service (its services table waits for this list).
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { systemMessages } from '../system-messages.js';

export interface EventScript {
  name: string;
  type: 'typescript';
  is_active: true;
  allow_event_modification: true;
  /** The modules of the hooks, in the order they run. */
  storage_path: string;
}

function eventScripts(ctx: PlatformContext): EventScript[] {
  return [...(ctx.hooks?.attached() ?? new Map<string, string[]>())]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, modules]) => ({
      name,
      type: 'typescript',
      is_active: true,
      allow_event_modification: true,
      storage_path: modules.join(','),
    }));
}

export function getEventScripts(ctx: PlatformContext, call: InternalCall, name: string | undefined): unknown {
  const scripts = eventScripts(ctx);
  if (name !== undefined) {
    const script = scripts.find((candidate) => candidate.name === name);
    if (!script) throw systemMessages.eventScriptNotFound.error(name);
    return script;
  }
  if (toBool(pick(call.query, 'as_list'))) return wrapList(scripts.map((script) => script.name));
  return toBool(pick(call.query, 'include_count')) ? wrapList(scripts, { count: scripts.length }) : wrapList(scripts);
}
