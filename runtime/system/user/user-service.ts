/**
 * The `user` service: sessions, open registration, passwords and profiles of regular users
 * (administrators log in at /system/admin/session and are refused here, as the spec says).
 * Every endpoint is open without a role (reference 6.4); those about the caller need a session.
 */
import { wrapList } from '../../core/envelope.js';
import { pick, toBool } from '../../core/query-params.js';
import type { AccessRule, InternalCall, InternalService } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { Verb } from '../../model/platform-model.js';
import { changePassword, getProfile, updateProfile } from '../self-service.js';
import { handleSession } from '../sessions.js';
import type { ServiceResult } from '../../services/service-kind.js';
import { register } from './registration.js';
import { coreMessages } from '../../core/messages.js';

const RESOURCES = ['password', 'profile', 'register', 'session'];
const WRITE_VERBS = new Set<Verb>(['POST', 'PUT', 'PATCH']);
const OPEN: AccessRule = { exception: true, adminOnly: false };
const LOGIN: AccessRule = { ...OPEN, login: true };

export function createUserService(ctx: PlatformContext, name: string): InternalService {
  return {
    access: (verb, resource) => (verb === 'POST' && resource.join('/').toLowerCase() === 'session' ? LOGIN : OPEN),
    accessComponents: () => RESOURCES,
    async handle(call: InternalCall): Promise<ServiceResult> {
      const path = call.resource.join('/');
      const unsupported = () => coreMessages.verbNotSupported.error(call.verb, path, name);
      switch (path) {
        case '':
          if (call.verb !== 'GET') throw unsupported();
          // `as_list=true`: the names alone (reference 1.4).
          return { body: toBool(pick(call.query, 'as_list')) ? wrapList(RESOURCES) : wrapList(RESOURCES.map((r) => ({ name: r }))) };
        case 'session':
          return handleSession(ctx, 'user', call, unsupported);
        case 'register':
          if (!WRITE_VERBS.has(call.verb)) throw unsupported();
          return register(ctx, call);
        case 'password':
          if (!WRITE_VERBS.has(call.verb)) throw unsupported();
          return { body: await changePassword(ctx, 'user', call) };
        case 'profile':
          if (call.verb === 'GET') return { body: await getProfile(ctx, call) };
          if (WRITE_VERBS.has(call.verb)) return { body: await updateProfile(ctx, call) };
          throw unsupported();
      }
      throw coreMessages.resourceNotFound.error(path, name);
    },
  };
}
