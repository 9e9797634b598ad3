/**
 * Brings the system database in line with the frozen model at start: services and roles declared
 * in platform.yaml (and the built-ins) are written with their declared values; what the API
 * created is left alone. Apps and the `user` service's config (registration) may also be changed
 * through the API: platform.yaml seeds them, and its values are written again only when they
 * differ from those of the previous start (a changed platform.yaml is a new seed), so changes
 * made through the API persist. Also creates the first administrator, the default email
 * templates and the JWT secret.
 */
import { randomBytes } from 'node:crypto';
import { verbsToMask } from '../auth/principals.js';
import { generateApiKey, hashPassword } from '../auth/passwords.js';
import type { AppModel, PlatformModel } from '../model/platform-model.js';
import { EnvNotSetError } from '../core/env.js';
import { formatTimestamp, lockForStartup, StartupError, upsert, type SystemDb } from './store/system-db.js';
import { syncDeclaredLimits } from './limits/declared-limits.js';
import { DEFAULT_TEMPLATES } from './system-mail.js';

/** Apps every platform has (spec: fresh install). */
export const BUILTIN_APPS: AppModel[] = [
  { name: 'admin', label: 'Admin', description: 'The administration app.', is_active: true, apiKey: null, role: null, origin: 'builtin' },
  {
    name: 'api_docs',
    label: 'API Docs',
    description: 'The API documentation app.',
    is_active: true,
    apiKey: null,
    role: null,
    origin: 'builtin',
  },
  {
    name: 'file_manager',
    label: 'File Manager',
    description: 'The file manager app.',
    is_active: true,
    apiKey: null,
    role: null,
    origin: 'builtin',
  },
];

export interface FirstAdmin {
  email: string;
  /** Set only when the password was generated here and must be shown once. */
  generatedPassword: string | null;
}

export interface SyncResult {
  /** The administrator created on this start, if any. */
  createdAdmin: FirstAdmin | null;
  jwtSecret: string;
}

type Resolve = <T>(value: T) => T;

/**
 * A platform setting's `${env:...}` references resolved at start (`setting` says which, in
 * platform.yaml's words): an unset variable stops the server with one line naming it and the
 * setting, not a 500's stack trace.
 */
export function resolveSetting<T>(resolveEnv: Resolve, value: T, setting: string): T {
  try {
    return resolveEnv(value);
  } catch (error) {
    if (!(error instanceof EnvNotSetError)) throw error;
    throw new StartupError(
      `Portico: environment variable ${error.variable} is not set; platform.yaml's ${setting} refers to it (\${env:${error.variable}}). Set it and start again.`,
    );
  }
}

export async function syncPlatform(db: SystemDb, model: PlatformModel, resolveEnv: Resolve, env: NodeJS.ProcessEnv): Promise<SyncResult> {
  const now = formatTimestamp(new Date());
  return db.transaction().execute(async (trx) => {
    await lockForStartup(trx);
    // Services: declared ones take their declared values; stale declared ones go.
    const declaredIds = model.services.map((s) => s.id);
    await trx
      .deleteFrom('service')
      .where('origin', '!=', 'api')
      .where('id', 'not in', declaredIds.length ? declaredIds : [-1])
      .execute();
    for (const s of model.services) {
      const values = {
        name: s.name,
        label: s.label,
        description: s.description,
        is_active: s.is_active ? 1 : 0,
        type: s.type,
        origin: s.origin,
        last_modified_date: now,
      };
      // The user service's config is seeded below, once the roles it names have ids.
      const update = s.type === 'user' ? values : { ...values, config: JSON.stringify(s.config) };
      await upsert(
        trx,
        'service',
        'id',
        { id: s.id, ...values, config: JSON.stringify(s.config), created_date: now, created_by_id: null, last_modified_by_id: null },
        update,
      );
    }
    const serviceIds = new Map(model.services.map((s) => [s.name, s.id]));

    for (const role of model.roles) {
      const values = { description: role.description, is_active: role.is_active ? 1 : 0, origin: role.origin, last_modified_date: now };
      await upsert(
        trx,
        'role',
        'name',
        { name: role.name, ...values, created_date: now, created_by_id: null, last_modified_by_id: null },
        values,
      );
      const { id } = await trx.selectFrom('role').select('id').where('name', '=', role.name).executeTakeFirstOrThrow();
      await trx.deleteFrom('role_service_access').where('role_id', '=', id).execute();
      for (const grant of role.grants) {
        await trx
          .insertInto('role_service_access')
          .values({
            role_id: id,
            service_id: grant.service === '*' ? null : (serviceIds.get(grant.service) ?? null),
            component: grant.component,
            verb_mask: verbsToMask(grant.verbs),
            requestor_mask: (grant.requestor.includes('api') ? 1 : 0) | (grant.requestor.includes('script') ? 2 : 0),
            filters: JSON.stringify(grant.filters),
            filter_op: grant.filterOp,
          })
          .execute();
      }
    }

    const declaredRoles = model.roles.map((r) => r.name);
    await trx
      .deleteFrom('role')
      .where('origin', '=', 'platform')
      .where('name', 'not in', declaredRoles.length ? declaredRoles : [''])
      .execute();
    const roleIds = new Map((await trx.selectFrom('role').select(['id', 'name']).execute()).map((r) => [r.name, r.id]));
    const apps = [...BUILTIN_APPS.filter((b) => !model.apps.some((a) => a.name === b.name)), ...model.apps];
    for (const app of apps) {
      const fixedKey = app.apiKey === null ? null : resolveSetting(resolveEnv, app.apiKey, `api_key of app '${app.name}'`);
      const values = {
        label: app.label,
        description: app.description,
        is_active: app.is_active ? 1 : 0,
        role_id: app.role === null ? null : (roleIds.get(app.role) ?? null),
        origin: app.origin,
        last_modified_date: now,
        ...(fixedKey ? { api_key: fixedKey } : {}),
      };
      const exists = await trx.selectFrom('app').select('id').where('name', '=', app.name).executeTakeFirst();
      const reseed = await seedChanged(trx, `app:${app.name}`, { ...values, last_modified_date: undefined, role: app.role });
      if (!exists) {
        await trx
          .insertInto('app')
          .values({
            name: app.name,
            ...values,
            api_key: fixedKey || generateApiKey(),
            type: 0,
            path: null,
            url: null,
            created_date: now,
            created_by_id: null,
            last_modified_by_id: null,
          })
          .execute();
      } else if (reseed) await trx.updateTable('app').set(values).where('id', '=', exists.id).execute();
      else await trx.updateTable('app').set({ origin: app.origin }).where('id', '=', exists.id).execute();
    }

    const declaredApps = apps.map((a) => a.name);
    await trx.deleteFrom('app').where('origin', '!=', 'api').where('name', 'not in', declaredApps).execute();
    await seedUserService(trx, model, roleIds, now);

    await syncDeclaredLimits(trx, model.limits ?? [], roleIds, serviceIds, now);

    const createdAdmin = await ensureAdmin(trx, model, resolveEnv, env, now);
    await seedEmailTemplates(trx, now);

    let jwtSecret = resolveSetting(resolveEnv, model.settings.jwtSecret, 'system.jwt_secret') ?? '';
    if (!jwtSecret) {
      const stored = await trx.selectFrom('system_setting').select('value').where('name', '=', 'jwt_secret').executeTakeFirst();
      jwtSecret = stored?.value ?? randomBytes(32).toString('hex');
      if (!stored) await trx.insertInto('system_setting').values({ name: 'jwt_secret', value: jwtSecret }).execute();
    }
    return { createdAdmin, jwtSecret };
  });
}

/**
 * Records the values platform.yaml declares for a row the API may change; true when they differ
 * from those recorded at the previous start (or there were none), i.e. when they must be written.
 */
async function seedChanged(trx: SystemDb, key: string, declared: unknown): Promise<boolean> {
  const name = `seed:${key}`;
  const value = JSON.stringify(declared);
  const stored = await trx.selectFrom('system_setting').select('value').where('name', '=', name).executeTakeFirst();
  if (stored?.value === value) return false;
  await upsert(trx, 'system_setting', 'name', { name, value }, { value });
  return true;
}

/**
 * The `user` service's config from platform.yaml's registration settings (role names become
 * ids), written when platform.yaml's values changed since the previous start.
 */
async function seedUserService(trx: SystemDb, model: PlatformModel, roleIds: Map<string, number>, now: string): Promise<void> {
  const service = model.services.find((s) => s.type === 'user');
  if (!service) return;
  const { allowOpenRegistration, openRegistrationRole, openRegistrationAppRoles } = model.settings;
  const declared = {
    ...service.config,
    allow_open_registration: allowOpenRegistration,
    open_registration_role: openRegistrationRole,
    open_registration_app_roles: openRegistrationAppRoles,
  };
  if (!(await seedChanged(trx, `service:${service.name}`, declared))) return;
  const appIds = new Map((await trx.selectFrom('app').select(['id', 'name']).execute()).map((a) => [a.name, a.id]));
  const config = {
    ...service.config,
    allow_open_registration: allowOpenRegistration,
    open_reg_role_id: openRegistrationRole === null ? null : (roleIds.get(openRegistrationRole) ?? null),
    app_role_map: Object.entries(openRegistrationAppRoles).flatMap(([app, role]) => {
      const appId = appIds.get(app);
      const roleId = roleIds.get(role);
      return appId === undefined || roleId === undefined ? [] : [{ app_id: appId, role_id: roleId }];
    }),
  };
  await trx
    .updateTable('service')
    .set({ config: JSON.stringify(config), last_modified_date: now })
    .where('id', '=', service.id)
    .execute();
}

/** The default email templates, once: templates deleted through the API later stay deleted. */
async function seedEmailTemplates(trx: SystemDb, now: string): Promise<void> {
  const seeded = await trx.selectFrom('system_setting').select('value').where('name', '=', 'email_templates_seeded').executeTakeFirst();
  if (seeded) return;
  for (const template of DEFAULT_TEMPLATES) {
    await upsert(trx, 'email_template', 'name', {
      ...template,
      to: '[]',
      cc: '[]',
      bcc: '[]',
      from_name: null,
      from_email: null,
      reply_to_name: null,
      reply_to_email: null,
      created_date: now,
      last_modified_date: now,
      created_by_id: null,
      last_modified_by_id: null,
    });
  }
  await trx.insertInto('system_setting').values({ name: 'email_templates_seeded', value: 'true' }).execute();
}

/** Creates the first administrator when there is none: from platform.yaml, else PORTICO_ADMIN_EMAIL/PASSWORD, else a generated password. */
async function ensureAdmin(
  trx: SystemDb,
  model: PlatformModel,
  resolveEnv: Resolve,
  env: NodeJS.ProcessEnv,
  now: string,
): Promise<FirstAdmin | null> {
  const existing = await trx.selectFrom('user').select('id').where('is_sys_admin', '=', 1).executeTakeFirst();
  if (existing) return null;
  const seed = model.admins[0];
  const email = (seed ? resolveSetting(resolveEnv, seed.email, 'admins[0].email') : '') || env.PORTICO_ADMIN_EMAIL || 'admin@portico.local';
  const given = (seed?.password ? resolveSetting(resolveEnv, seed.password, 'admins[0].password') : '') || env.PORTICO_ADMIN_PASSWORD || '';
  const password = given || randomBytes(12).toString('base64url');
  await trx
    .insertInto('user')
    .values({
      name: seed?.name || 'Administrator',
      first_name: seed?.first_name || 'Portico',
      last_name: seed?.last_name || 'Administrator',
      username: null,
      email,
      password: await hashPassword(password),
      is_sys_admin: 1,
      is_active: 1,
      phone: null,
      default_app_id: null,
      last_login_date: null,
      confirm_code: null,
      confirm_code_expiry: null,
      tokens_valid_after: 0,
      created_date: now,
      last_modified_date: now,
      created_by_id: null,
      last_modified_by_id: null,
    })
    .execute();
  return { email, generatedPassword: given ? null : password };
}
