/**
 * The `user` service: sessions of regular users (administrators log in at
 * /system/admin/session and are refused here, as the spec says).
 */
import { readCredentials } from '../../auth/credentials.js';
import { BadRequestError, NotFoundError, UnauthorizedError, messages } from '../../core/errors.js';
import { wrapList } from '../../core/envelope.js';
import type { InternalCall, InternalService } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { login, logout, refresh } from '../../system/sessions.js';
import type { ServiceResult } from '../service-kind.js';

const RESOURCES = ['session'];

export function createUserService(ctx: PlatformContext, name: string): InternalService {
  return {
    access(_verb, resource) {
      const path = resource.join('/').toLowerCase();
      return { exception: path === 'session' || path === '', adminOnly: false };
    },
    async handle(call: InternalCall): Promise<ServiceResult> {
      const path = call.resource.join('/');
      if (path === '' && call.verb === 'GET') return { body: wrapList(RESOURCES.map((r) => ({ name: r }))) };
      if (path !== 'session') throw new NotFoundError(messages.resourceNotFound(path, name));
      switch (call.verb) {
        case 'POST':
          return { body: await login(ctx, 'user', call.body, call.host) };
        case 'GET':
          if (!call.session) throw call.tokenError ?? new UnauthorizedError('There is no valid session for the current request.');
          return { body: await refresh(ctx, 'user', call.session.token, false, call.host) };
        case 'PUT':
          return { body: await refresh(ctx, 'user', readCredentials(call.headers, call.query).token, true, call.host) };
        case 'DELETE':
          return { body: await logout(ctx, call.session?.claims ?? null) };
        default:
          throw new BadRequestError(messages.verbNotSupported(call.verb, path, name));
      }
    },
  };
}
