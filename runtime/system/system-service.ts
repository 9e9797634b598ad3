/**
 * The `system` service: administration of the platform. This file routes each resource to its
 * module and states who may call what: the admin session, password reset and environment are
 * open (reference 6.4); service types, events, constants and the resource list follow role
 * grants; everything else is for administrators only.
 */
import { wrapList } from '../core/envelope.js';
import { parseCommonParams, pick, toBool } from '../core/query-params.js';
import type { AccessRule, InternalCall, InternalService } from '../http/internal-service.js';
import type { PlatformContext } from '../http/platform-context.js';
import type { Verb } from '../model/platform-model.js';
import type { ServiceResult } from '../services/service-kind.js';
import { read, serveResource } from './record-resources/resource-handler.js';
import { clearCache, listCaches } from './resources/cache.js';
import { limitCache } from './limits/limit-cache.js';
import { constants } from './resources/constants.js';
import { environment } from './resources/environment.js';
import { getEventScripts } from './resources/event-scripts.js';
import { events } from './resources/events.js';
import { getPackage, postPackage } from './resources/packages.js';
import { RECORD_BEHAVIOURS, customBehaviour } from './resources/record-behaviours.js';
import { scriptTypes } from './resources/script-types.js';
import { accessUsageReport } from './access/access-usage-resource.js';
import { assertRelatedReadable } from './access/related-access.js';
import { serviceTypes } from './resources/service-types.js';
import { changePassword, getProfile, updateProfile } from './self-service.js';
import { handleSession } from './sessions.js';
import { coreMessages } from '../core/messages.js';

/** Every resource of the service, as GET /system lists them. */
export const SYSTEM_RESOURCES = [
  'access_usage',
  'admin',
  'admin/password',
  'admin/profile',
  'admin/session',
  'app',
  'cache',
  'constant',
  'cors',
  'custom',
  'email_template',
  'environment',
  'event',
  'limit',
  'limit_cache',
  'lookup',
  'package',
  'role',
  'scheduler',
  'script_type',
  'service',
  'service_report',
  'service_type',
  'user',
] as const;

const OPEN: AccessRule = { exception: true, adminOnly: false };
const LOGIN: AccessRule = { ...OPEN, login: true };
const ROLE: AccessRule = { exception: false, adminOnly: false };
const ADMIN: AccessRule = { exception: false, adminOnly: true };

/**
 * Resources only administrators may use: accounts (the spec: user listing and creation are
 * administrator-only) and whole-platform export/import. Every other resource follows role grants
 * (component `role`, `app/*`, ...), as on the reference platform; without a grant it is refused.
 */
const ADMIN_ONLY = new Set(['admin', 'user', 'package']);
const WRITE_VERBS = new Set<Verb>(['POST', 'PUT', 'PATCH']);

/** Who may call a system endpoint. */
export function systemAccess(verb: Verb, resource: readonly string[]): AccessRule {
  const path = resource.join('/').toLowerCase();
  if (path === 'admin/session') return verb === 'POST' ? LOGIN : OPEN;
  if (path === 'admin/password' && WRITE_VERBS.has(verb)) return OPEN;
  if (path === 'environment' && verb === 'GET') return OPEN;
  return ADMIN_ONLY.has((resource[0] ?? '').toLowerCase()) ? ADMIN : ROLE;
}

export function createSystemService(ctx: PlatformContext): InternalService {
  return {
    access: systemAccess,
    // Each resource and what is under it (`app/`, `app/*`); sub-resources (`admin/session`) by name.
    accessComponents: () => SYSTEM_RESOURCES.flatMap((r) => (r.includes('/') ? [r] : [`${r}/`, `${r}/*`])),
    async handle(call: InternalCall): Promise<ServiceResult> {
      const [resource = '', ...rest] = call.resource;
      const path = call.resource.join('/');
      const unsupported = () => coreMessages.verbNotSupported.error(call.verb, path, 'system');
      const only = (verb: Verb, maxDepth: number) => {
        if (call.verb !== verb) throw unsupported();
        if (rest.length > maxDepth) throw coreMessages.resourceNotFound.error(path, 'system');
      };
      switch (resource) {
        case '':
          only('GET', 0);
          // `as_list=true`: the names alone (reference 1.4).
          return {
            body: toBool(pick(call.query, 'as_list'))
              ? wrapList([...SYSTEM_RESOURCES])
              : wrapList(SYSTEM_RESOURCES.map((name) => ({ name }))),
          };
        case 'environment':
          only('GET', 0);
          return { body: await environment(ctx, call) };
        case 'service_type':
          only('GET', 1);
          return { body: serviceTypes(call.query, rest[0]) };
        case 'access_usage':
          only('GET', 0);
          return { body: await accessUsageReport(ctx, call) };
        case 'script_type':
          only('GET', 1);
          return { body: scriptTypes(call.query, rest[0]) };
        case 'constant':
          only('GET', 1);
          return { body: constants(rest[0]) };
        case 'event':
          only('GET', 0);
          return { body: await events(ctx, call) };
        case 'event_script':
          // Not in the resource list: the reference's console would open its script editor.
          only('GET', 1);
          return { body: getEventScripts(ctx, call, rest[0]) };
        case 'cache':
          if (call.verb === 'GET') {
            only('GET', 0);
            return { body: wrapList(await listCaches(ctx)) };
          }
          only('DELETE', 1);
          return { body: await clearCache(ctx, rest[0]) };
        case 'limit_cache':
          return { body: await limitCache(ctx, call, rest) };
        case 'package':
          if (rest.length > 0) break;
          if (call.verb === 'GET') return { body: await getPackage(ctx, call) };
          if (call.verb === 'POST') return postPackage(ctx, call);
          throw unsupported();
        case 'admin':
          if (rest[0] === 'session' && rest.length === 1)
            return handleSession(ctx, 'admin', call, () => coreMessages.verbNotSupported.error(call.verb, 'admin/session', 'system'));
          if (rest[0] === 'password' && rest.length === 1) {
            if (!WRITE_VERBS.has(call.verb)) throw unsupported();
            return { body: await changePassword(ctx, 'admin', call) };
          }
          if (rest[0] === 'profile' && rest.length === 1) {
            if (call.verb === 'GET') return { body: await getProfile(ctx, call) };
            if (WRITE_VERBS.has(call.verb)) return { body: await updateProfile(ctx, call) };
            throw unsupported();
          }
          break;
      }
      const behaviour = RECORD_BEHAVIOURS.get(resource);
      if (behaviour && rest.length <= 1) {
        // Records the platform writes (service reports): read and deleted only.
        if (behaviour.def.writes === 'delete' && WRITE_VERBS.has(call.verb)) throw unsupported();
        // GET /system/custom/{name} is the value alone (reference 5.9).
        if (behaviour === customBehaviour && call.verb === 'GET' && rest[0] !== undefined) {
          const { value } = (await read(ctx, ctx.db, behaviour, {}, undefined, rest[0])) as { value: unknown };
          // As JSON whatever it is: a string value sent bare would go out as text/plain, no JSON.
          return { body: JSON.stringify(value ?? null), headers: { 'content-type': 'application/json; charset=utf-8' } };
        }
        // Parsed once: the related-access check and the resource handler read the same parameters.
        const params = parseCommonParams(call.query, call.verb === 'GET' ? call.body : undefined);
        assertRelatedReadable(call.auth, behaviour.def, params, systemAccess);
        return serveResource(ctx, behaviour, call, rest[0], params);
      }
      throw coreMessages.resourceNotFound.error(path, 'system');
    },
  };
}
