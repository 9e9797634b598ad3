/** GET /system/environment: platform version and how to log in (open without credentials). */
import type { PlatformContext } from '../../http/platform-context.js';

export const PLATFORM_VERSION = '7.5.0';

export function environment(ctx: PlatformContext): Record<string, unknown> {
  return {
    platform: {
      version: PLATFORM_VERSION,
      is_hosted: false,
      is_trial: false,
      name: ctx.model.platform.name,
      title: ctx.model.platform.title,
    },
    authentication: {
      admin: { path: 'system/admin/session', verb: 'POST', payload: { email: 'string', password: 'string', duration: 'integer' } },
      user: { path: 'user/session', verb: 'POST', payload: { email: 'string', password: 'string' } },
      oauth: [],
      adldap: [],
      saml: [],
      allow_open_registration: ctx.settings.allowOpenRegistration,
      allow_forever_sessions: false,
      login_attribute: 'email',
    },
    config: {
      always_wrap_resources: true,
      resources_wrapper: 'resource',
      db: { max_records_returned: ctx.settings.maxRecords },
    },
  };
}
