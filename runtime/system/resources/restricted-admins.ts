/**
 * Restricted administrators (reference 6.3; the reference's admin console offers them as "access
 * by tabs"): an administrator with role assignments, governed by that role like any user. Saving
 * an administrator with `is_restricted_admin: true` and `access_by_tabs` (the console's tabs)
 * gives them a role of their own, `{email}'s role`, granting the system resources and services
 * those tabs need, assigned for the admin app (and api_docs, file_manager when those tabs are
 * chosen); saving them with `is_restricted_admin: false` removes the assignments and that role.
 * `GET /system/role/{id}?accessible_tabs=true` names the tabs a role grants.
 */
import { ALL_VERBS_MASK, VERB_BITS } from '../../auth/principals.js';
import type { SystemDb } from '../store/system-db.js';
import type { WriteContext } from '../record-resources/resource-handler.js';

interface TabAccess {
  /** The service the grant is for: `system` unless named. */
  service?: string;
  component: string;
  verbMask: number;
}

const GET = VERB_BITS.GET;
const ALL = ALL_VERBS_MASK;

/** What each tab of the console needs (the reference's map, kept as it is). */
const TAB_ACCESS: Readonly<Record<string, readonly TabAccess[]>> = {
  apps: [
    { component: 'app/*', verbMask: ALL },
    { component: 'service/*', verbMask: GET },
    { component: 'role/*', verbMask: GET },
  ],
  admins: [
    { component: 'admin/*', verbMask: ALL },
    { component: 'role/*', verbMask: GET },
  ],
  users: [
    { component: 'user/*', verbMask: ALL },
    { component: 'role/*', verbMask: GET },
    { component: 'app/*', verbMask: GET },
  ],
  services: [
    { component: 'service_type/', verbMask: ALL },
    { component: 'service/*', verbMask: ALL },
  ],
  apidocs: [{ service: 'api_docs', component: '*', verbMask: ALL }],
  'schema/data': [{ service: 'db', component: '*', verbMask: ALL }],
  files: [{ service: 'files', component: '*', verbMask: ALL }],
  scripts: [
    { component: 'event/*', verbMask: ALL },
    { component: 'event_script/*', verbMask: ALL },
    { component: 'script_type/*', verbMask: ALL },
  ],
  config: [
    { component: 'custom/*', verbMask: ALL },
    { component: 'cache/*', verbMask: ALL },
    { component: 'cors/*', verbMask: ALL },
    { component: 'email_template/*', verbMask: ALL },
    { component: 'lookup/*', verbMask: ALL },
    { component: '', verbMask: GET },
    { service: 'logs', component: '*', verbMask: ALL },
    { service: 'email', component: '*', verbMask: ALL },
  ],
  packages: [{ component: 'package/*', verbMask: ALL }],
  limits: [
    { component: 'limit/*', verbMask: ALL },
    { component: 'limit_cache/*', verbMask: ALL },
    { component: 'user/', verbMask: GET },
    { component: 'role/', verbMask: GET },
    { component: '', verbMask: GET },
    { component: 'service/', verbMask: GET },
  ],
  // Not in the reference's map (its consoles send it): what their scheduler pages call. The system
  // listing as for limits, since df-admin-app's page reads GET /system first and sends the admin home when refused.
  scheduler: [
    { component: 'scheduler/*', verbMask: ALL },
    { component: 'service/', verbMask: GET },
    { component: '', verbMask: GET },
  ],
  reports: [{ component: 'service_report/*', verbMask: ALL }],
};

/** What every restricted administrator may do: read roles and administrators, keep their own profile and password. */
const DEFAULT_ACCESS: readonly TabAccess[] = [
  { component: 'role/*', verbMask: GET },
  { component: 'admin/*', verbMask: GET },
  { component: 'admin/profile', verbMask: ALL },
  { component: 'admin/password', verbMask: ALL },
];

/** The apps a restricted administrator's role is assigned for: the console's, and those of the tabs that open other apps. */
const TAB_APPS: Readonly<Record<string, string>> = { apidocs: 'api_docs', files: 'file_manager' };

/** What an administrator record asks for: null when it says nothing about restriction. */
export function requestedRestriction(record: Record<string, unknown>): string[] | false | null {
  if (!('is_restricted_admin' in record)) return null;
  const flag = record.is_restricted_admin;
  if (!(flag === true || flag === 1 || flag === '1' || flag === 'true')) return false;
  const tabs = Array.isArray(record.access_by_tabs) ? record.access_by_tabs.filter((tab): tab is string => typeof tab === 'string') : [];
  // Every tab is no restriction.
  return Object.keys(TAB_ACCESS).every((tab) => tabs.includes(tab)) ? false : tabs;
}

const roleName = (email: string) => `${email.length > 57 ? email.slice(0, 57) : email}'s role`;

/** Gives the administrator the role of the tabs (made or replaced), or (tabs false) removes it. */
export async function applyRestriction(w: WriteContext, adminId: number, tabs: string[] | false): Promise<void> {
  const db = w.db;
  const admin = await db.selectFrom('user').select('email').where('id', '=', adminId).executeTakeFirstOrThrow();
  const assigned = await db.selectFrom('user_to_app_to_role').select('role_id').where('user_id', '=', adminId).execute();
  const own = await ownRoles(db, adminId, roleName(admin.email), [...new Set(assigned.map((row) => row.role_id))]);
  await db.deleteFrom('user_to_app_to_role').where('user_id', '=', adminId).execute();
  if (tabs === false) {
    if (own.length > 0) {
      await db.deleteFrom('role_service_access').where('role_id', 'in', own).execute();
      await db.deleteFrom('role').where('id', 'in', own).execute();
    }
    return;
  }
  const audit = {
    created_date: w.now,
    last_modified_date: w.now,
    created_by_id: w.call.auth.user?.id ?? null,
    last_modified_by_id: w.call.auth.user?.id ?? null,
  };
  let roleId = own[0];
  if (roleId === undefined) {
    const name = await freeRoleName(db, roleName(admin.email));
    await db
      .insertInto('role')
      .values({ name, description: `${admin.email}'s admin role`, is_active: 1, origin: 'api', ...audit })
      .execute();
    // Role names are unique: the name finds the id on every system database kind.
    roleId = (await db.selectFrom('role').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
  } else {
    await db.deleteFrom('role_service_access').where('role_id', '=', roleId).execute();
  }
  const services = new Map((await db.selectFrom('service').select(['id', 'name']).execute()).map((row) => [row.name, row.id]));
  const grants = new Map<string, { service_id: number; component: string; verb_mask: number }>();
  for (const access of [...DEFAULT_ACCESS, ...tabs.flatMap((tab) => TAB_ACCESS[tab] ?? [])]) {
    const serviceId = services.get(access.service ?? 'system');
    // A tab's service the platform does not have grants nothing (never "every service").
    if (serviceId === undefined) continue;
    grants.set(`${serviceId}/${access.component}/${access.verbMask}`, {
      service_id: serviceId,
      component: access.component,
      verb_mask: access.verbMask,
    });
  }
  if (grants.size > 0) {
    await db
      .insertInto('role_service_access')
      .values([...grants.values()].map((grant) => ({ ...grant, role_id: roleId, requestor_mask: 3, filters: '[]', filter_op: 'AND' })))
      .execute();
  }
  const appNames = ['admin', ...tabs.map((tab) => TAB_APPS[tab]).filter((name): name is string => name !== undefined)];
  const apps = await db.selectFrom('app').select('id').where('name', 'in', appNames).orderBy('id').execute();
  if (apps.length > 0)
    await db
      .insertInto('user_to_app_to_role')
      .values(apps.map((app) => ({ user_id: adminId, app_id: app.id, role_id: roleId })))
      .execute();
}

/** The roles among those assigned to the administrator that were made for them (by name, and assigned to nobody else). */
async function ownRoles(db: SystemDb, adminId: number, name: string, roleIds: number[]): Promise<number[]> {
  if (roleIds.length === 0) return [];
  const shared = await db
    .selectFrom('user_to_app_to_role')
    .select('role_id')
    .where('role_id', 'in', roleIds)
    .where('user_id', '!=', adminId)
    .execute();
  const apps = await db.selectFrom('app').select('role_id').where('role_id', 'in', roleIds).execute();
  const taken = new Set([...shared, ...apps].map((row) => row.role_id));
  const roles = await db.selectFrom('role').select(['id', 'name', 'origin']).where('id', 'in', roleIds).orderBy('id').execute();
  const made = (role: string) => role === name || (role.startsWith(`${name} `) && /^\d+$/.test(role.slice(name.length + 1)));
  return roles.filter((role) => !taken.has(role.id) && role.origin === 'api' && made(role.name)).map((role) => role.id);
}

/** The name, or the name with a number when a role has it already. */
async function freeRoleName(db: SystemDb, name: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name} ${n}`;
    if (!(await db.selectFrom('role').select('id').where('name', '=', candidate).executeTakeFirst())) return candidate;
  }
}

/** The tabs a role grants everything of (the configuration tab always: it is the console's home). */
export async function accessibleTabs(db: SystemDb, roleId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('role_service_access')
    .select(['service_id', 'component', 'verb_mask'])
    .where('role_id', '=', roleId)
    .execute();
  const services = new Map((await db.selectFrom('service').select(['id', 'name']).execute()).map((row) => [row.name, row.id]));
  const has = (access: TabAccess) =>
    rows.some(
      (row) =>
        row.service_id === services.get(access.service ?? 'system') &&
        (row.component ?? '') === access.component &&
        row.verb_mask === access.verbMask,
    );
  return Object.entries(TAB_ACCESS)
    .filter(([tab, accesses]) => tab === 'config' || accesses.every(has))
    .map(([tab]) => tab);
}
