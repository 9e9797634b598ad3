/**
 * The `system` service: administration of the platform. Each resource is a small module; this
 * file routes to them and states which resources are open and which are for administrators.
 */
import { readCredentials } from '../auth/credentials.js';
import { BadRequestError, NotFoundError, UnauthorizedError, messages } from '../core/errors.js';
import { wrapList } from '../core/envelope.js';
import type { InternalCall, InternalService } from '../http/internal-service.js';
import type { PlatformContext } from '../http/platform-context.js';
import type { Verb } from '../model/platform-model.js';
import type { ServiceResult } from '../services/service-kind.js';
import { listApps } from './resources/app-resource.js';
import { environment } from './resources/environment.js';
import { login, logout, refresh } from './sessions.js';

const RESOURCES = ['admin', 'admin/session', 'app', 'environment'];

export function createSystemService(ctx: PlatformContext): InternalService {
  return {
    access(verb: Verb, resource) {
      const path = resource.join('/').toLowerCase();
      if (path === 'admin/session') return { exception: true, adminOnly: false };
      if (path === 'environment' && verb === 'GET') return { exception: true, adminOnly: false };
      return { exception: false, adminOnly: true };
    },
    async handle(call: InternalCall): Promise<ServiceResult> {
      const [resource = '', ...rest] = call.resource;
      const path = [resource, ...rest].join('/');
      const unsupported = () => new BadRequestError(messages.verbNotSupported(call.verb, path, 'system'));
      switch (resource) {
        case '':
          if (call.verb !== 'GET') throw unsupported();
          return { body: wrapList(RESOURCES.map((name) => ({ name }))) };
        case 'environment':
          if (call.verb !== 'GET' || rest.length > 0) throw unsupported();
          return { body: environment(ctx) };
        case 'app':
          if (call.verb !== 'GET' || rest.length > 1) throw unsupported();
          return { body: await listApps(ctx, call.query, rest[0]) };
        case 'admin':
          if (rest[0] === 'session' && rest.length === 1) return adminSession(ctx, call);
          break;
      }
      throw new NotFoundError(messages.resourceNotFound(path, 'system'));
    },
  };
}

async function adminSession(ctx: PlatformContext, call: InternalCall): Promise<ServiceResult> {
  switch (call.verb) {
    case 'POST':
      return { body: await login(ctx, 'admin', call.body, call.host) };
    case 'GET':
      if (!call.session) throw call.tokenError ?? new UnauthorizedError('There is no valid session for the current request.');
      return { body: await refresh(ctx, 'admin', call.session.token, false, call.host) };
    case 'PUT':
      return { body: await refresh(ctx, 'admin', readCredentials(call.headers, call.query).token, true, call.host) };
    case 'DELETE':
      return { body: await logout(ctx, call.session?.claims ?? null) };
    default:
      throw new BadRequestError(messages.verbNotSupported(call.verb, 'admin/session', 'system'));
  }
}
