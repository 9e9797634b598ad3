/**
 * Brings the system database in line with the frozen model at start: services, roles and apps
 * declared in platform.yaml (and the built-ins) are written with their declared values; what the
 * API created is left alone. Also creates the first administrator, the default email templates
 * and the JWT secret.
 */
import { randomBytes } from 'node:crypto';
import { verbsToMask } from '../auth/principals.js';
import { generateApiKey, hashPassword } from '../auth/passwords.js';
import type { AppModel, PlatformModel } from '../model/platform-model.js';
import { formatTimestamp, type SystemDb } from './store/system-db.js';
import { DEFAULT_TEMPLATES } from './system-mail.js';

/** Apps every platform has (spec: fresh install). */
export const BUILTIN_APPS: AppModel[] = [
  { name: 'admin', label: 'Admin', description: 'The administration app.', is_active: true, apiKey: null, role: null, origin: 'builtin' },
  { name: 'api_docs', label: 'API Docs', description: 'The API documentation app.', is_active: true, apiKey: null, role: null, origin: 'builtin' },
  { name: 'file_manager', label: 'File Manager', description: 'The file manager app.', is_active: true, apiKey: null, role: null, origin: 'builtin' },
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

export async function syncPlatform(db: SystemDb, model: PlatformModel, resolveEnv: Resolve, env: NodeJS.ProcessEnv): Promise<SyncResult> {
  const now = formatTimestamp(new Date());
  return db.transaction().execute(async (trx) => {
    // Services: declared ones take their declared values; stale declared ones go.
    const declaredIds = model.services.map((s) => s.id);
    await trx.deleteFrom('service').where('origin', '!=', 'api').where('id', 'not in', declaredIds.length ? declaredIds : [-1]).execute();
    for (const s of model.services) {
      const values = { name: s.name, label: s.label, description: s.description, is_active: s.is_active ? 1 : 0, type: s.type, config: JSON.stringify(s.config), origin: s.origin, last_modified_date: now };
      await trx.insertInto('service').values({ id: s.id, ...values, created_date: now, created_by_id: null, last_modified_by_id: null })
        .onConflict((c) => c.column('id').doUpdateSet(values)).execute();
    }
    const serviceIds = new Map(model.services.map((s) => [s.name, s.id]));

    for (const role of model.roles) {
      const values = { description: role.description, is_active: role.is_active ? 1 : 0, origin: role.origin, last_modified_date: now };
      await trx.insertInto('role').values({ name: role.name, ...values, created_date: now, created_by_id: null, last_modified_by_id: null })
        .onConflict((c) => c.column('name').doUpdateSet(values)).execute();
      const { id } = await trx.selectFrom('role').select('id').where('name', '=', role.name).executeTakeFirstOrThrow();
      await trx.deleteFrom('role_service_access').where('role_id', '=', id).execute();
      for (const grant of role.grants) {
        await trx.insertInto('role_service_access').values({
          role_id: id,
          service_id: grant.service === '*' ? null : serviceIds.get(grant.service) ?? null,
          component: grant.component,
          verb_mask: verbsToMask(grant.verbs),
          requestor_mask: (grant.requestor.includes('api') ? 1 : 0) | (grant.requestor.includes('script') ? 2 : 0),
          filters: JSON.stringify(grant.filters),
          filter_op: grant.filterOp,
        }).execute();
      }
    }

    const declaredRoles = model.roles.map((r) => r.name);
    await trx.deleteFrom('role').where('origin', '=', 'platform').where('name', 'not in', declaredRoles.length ? declaredRoles : ['']).execute();
    const roleIds = new Map((await trx.selectFrom('role').select(['id', 'name']).execute()).map((r) => [r.name, r.id]));
    const apps = [...BUILTIN_APPS.filter((b) => !model.apps.some((a) => a.name === b.name)), ...model.apps];
    for (const app of apps) {
      const fixedKey = app.apiKey === null ? null : resolveEnv(app.apiKey);
      const values = {
        label: app.label, description: app.description, is_active: app.is_active ? 1 : 0,
        role_id: app.role === null ? null : roleIds.get(app.role) ?? null, origin: app.origin, last_modified_date: now,
        ...(fixedKey ? { api_key: fixedKey } : {}),
      };
      await trx.insertInto('app').values({
        name: app.name, ...values, api_key: fixedKey || generateApiKey(), type: 0, path: null, url: null,
        created_date: now, created_by_id: null, last_modified_by_id: null,
      }).onConflict((c) => c.column('name').doUpdateSet(values)).execute();
    }

    const declaredApps = apps.map((a) => a.name);
    await trx.deleteFrom('app').where('origin', '!=', 'api').where('name', 'not in', declaredApps).execute();

    const createdAdmin = await ensureAdmin(trx, model, resolveEnv, env, now);
    await seedEmailTemplates(trx, now);

    let jwtSecret = resolveEnv(model.settings.jwtSecret) ?? '';
    if (!jwtSecret) {
      const stored = await trx.selectFrom('system_setting').select('value').where('name', '=', 'jwt_secret').executeTakeFirst();
      jwtSecret = stored?.value ?? randomBytes(32).toString('hex');
      if (!stored) await trx.insertInto('system_setting').values({ name: 'jwt_secret', value: jwtSecret }).execute();
    }
    return { createdAdmin, jwtSecret };
  });
}

/** The default email templates, once: templates deleted through the API later stay deleted. */
async function seedEmailTemplates(trx: SystemDb, now: string): Promise<void> {
  const seeded = await trx.selectFrom('system_setting').select('value').where('name', '=', 'email_templates_seeded').executeTakeFirst();
  if (seeded) return;
  for (const template of DEFAULT_TEMPLATES) {
    await trx.insertInto('email_template').values({
      ...template, to: '[]', cc: '[]', bcc: '[]', from_name: null, from_email: null, reply_to_name: null, reply_to_email: null,
      created_date: now, last_modified_date: now, created_by_id: null, last_modified_by_id: null,
    }).onConflict((c) => c.column('name').doNothing()).execute();
  }
  await trx.insertInto('system_setting').values({ name: 'email_templates_seeded', value: 'true' }).execute();
}

/** Creates the first administrator when there is none: from platform.yaml, else PORTICO_ADMIN_EMAIL/PASSWORD, else a generated password. */
async function ensureAdmin(trx: SystemDb, model: PlatformModel, resolveEnv: Resolve, env: NodeJS.ProcessEnv, now: string): Promise<FirstAdmin | null> {
  const existing = await trx.selectFrom('user').select('id').where('is_sys_admin', '=', 1).executeTakeFirst();
  if (existing) return null;
  const seed = model.admins[0];
  const email = (seed ? resolveEnv(seed.email) : '') || env.PORTICO_ADMIN_EMAIL || 'admin@portico.local';
  const given = (seed?.password ? resolveEnv(seed.password) : '') || env.PORTICO_ADMIN_PASSWORD || '';
  const password = given || randomBytes(12).toString('base64url');
  await trx.insertInto('user').values({
    name: seed?.name || 'Administrator', first_name: seed?.first_name || 'Portico', last_name: seed?.last_name || 'Administrator',
    username: null, email, password: await hashPassword(password), is_sys_admin: 1, is_active: 1, phone: null,
    default_app_id: null, last_login_date: null, confirm_code: null, confirm_code_expiry: null, tokens_valid_after: 0,
    created_date: now, last_modified_date: now, created_by_id: null, last_modified_by_id: null,
  }).execute();
  return { email, generatedPassword: given ? null : password };
}
