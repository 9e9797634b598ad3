/**
 * GET /system/environment (reference 5.12): how to log in and which apps to offer (open without
 * credentials), plus, once a session or an app's role is present, the platform (an open-source
 * edition: clients do not validate a licence key remotely), server, client and config sections
 * the reference's admin console reads. Administrators also see where the platform runs from.
 */
import os from 'node:os';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { systemDialect } from '../store/system-db.js';
import { userServiceConfig } from '../user/user-config.js';

export const PLATFORM_VERSION = '7.5.0';

/** The reference's (Laravel's) driver names of the system database kinds. */
const DB_DRIVERS = { sqlite: 'sqlite', postgres: 'pgsql', mysql: 'mysql' } as const;

/** The licence value of an open-source edition; the reference's console then checks nothing remotely. */
export const OPEN_SOURCE_LICENSE = 'OPEN SOURCE';

const LOGIN_PAYLOAD = { email: 'string', password: 'string', remember_me: 'bool' };

function header(call: InternalCall, name: string): string {
  const value = call.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * The apps a launch page offers the caller (reference 5.12), active and launchable (type 0 apps
 * are keys only, but the built-in apps count as launchable: they are the reference's own consoles,
 * and its legacy admin app opens its screens only when `admin` is among them): anonymous callers
 * those with a default role; users (restricted administrators among them) those they are
 * assigned to or that have a default role; administrators all of them.
 */
async function launchableApps(ctx: PlatformContext, call: InternalCall): Promise<Array<Record<string, unknown>>> {
  const rows = await ctx.db
    .selectFrom('app')
    .select(['id', 'name', 'description', 'url', 'type', 'role_id', 'origin'])
    .where('is_active', '=', 1)
    .orderBy('id')
    .execute();
  const user = call.auth.user === null ? undefined : await ctx.directory.user(call.auth.user.id);
  const offered = rows.filter((app) => {
    const launchable = app.type !== 0 || app.origin === 'builtin';
    if (call.auth.isAdmin && user) return launchable;
    return launchable && (app.role_id !== null || (user?.appRoles.has(app.id) ?? false));
  });
  return offered.map((app) => ({
    id: app.id,
    name: app.name,
    description: app.description,
    url: app.url ?? '',
    is_default: false,
    allow_fullscreen_toggle: true,
    requires_fullscreen: false,
    toggle_location: 'top',
  }));
}

export async function environment(ctx: PlatformContext, call: InternalCall): Promise<Record<string, unknown>> {
  const registration = userServiceConfig(ctx);
  const platform: Record<string, unknown> = {
    version: PLATFORM_VERSION,
    is_hosted: false,
    is_trial: false,
    license: OPEN_SOURCE_LICENSE,
    name: ctx.model.platform.name,
    title: ctx.model.platform.title,
  };
  const result: Record<string, unknown> = {
    platform,
    authentication: {
      admin: { path: 'system/admin/session', verb: 'POST', payload: LOGIN_PAYLOAD },
      user: { path: 'user/session', verb: 'POST', payload: LOGIN_PAYLOAD },
      oauth: [],
      adldap: [],
      saml: [],
      allow_open_registration: registration.allowOpenRegistration,
      open_reg_email_service_id: registration.openRegEmailServiceId,
      allow_forever_sessions: false,
      login_attribute: 'email',
    },
    apps: await launchableApps(ctx, call),
  };
  if (!call.auth.user && !call.auth.role) return result;

  Object.assign(platform, {
    bitnami_demo: false,
    secured_package_export: false,
    license_key: false,
    install_type: 'portico',
  });
  if (call.auth.isAdmin) {
    Object.assign(platform, {
      // The database in use: PORTICO_SYSTEM_DATABASE_URL may name another than platform.yaml.
      db_driver: DB_DRIVERS[systemDialect(ctx.db).dialect],
      install_path: ctx.runtime.baseDir,
      log_path: '',
      app_debug: false,
      log_mode: 'stdout',
      log_level: 'info',
      cache_driver: 'memory',
      packages: [],
    });
  }
  result.server = { server_os: os.platform(), release: os.release(), version: os.version(), host: os.hostname(), machine: os.machine() };
  const locale = header(call, 'accept-language').split(',')[0]?.split(';')[0]?.trim();
  result.client = { user_agent: header(call, 'user-agent'), ip_address: call.clientIp, locale: locale || 'en' };
  result.config = {
    always_wrap_resources: true,
    resources_wrapper: 'resource',
    db: {
      max_records_returned: ctx.settings.maxRecords,
      time_format: 'H:i:s',
      date_format: 'Y-m-d',
      datetime_format: 'Y-m-d H:i:s',
      timestamp_format: 'Y-m-d H:i:s',
    },
  };
  return result;
}
