/**
 * What a caller governed by a role (a restricted administrator, or a user whose role may write
 * roles, users, administrators or apps) may give: roles, role grants, restricted administrators'
 * tabs and role assignments (a user's or administrator's role for an app, an app's default role)
 * no wider than its own role (auth/grant-width.ts: service, component, verbs, requestors, row
 * filters only as they are or with more added by AND), and no change at all to the grants of a
 * role that governs the caller. Whatever way the write comes in (an id, ids=, filter=, a batch,
 * nested grants or assignments, a package import) it is judged on what it leaves in the
 * transaction: what it changed is checked, what it left as it was is not (a console saving a
 * record back whole). An unrestricted administrator keeps full power. Only system writes of such
 * callers pay for this.
 */
import { describeWider, type WiderAccess, widerAccess } from '../../auth/grant-width.js';
import type { Grant } from '../../auth/principals.js';
import { ForbiddenError } from '../../core/errors.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { Key, Prepared, WriteContext } from '../record-resources/resource-handler.js';
import type { SystemDb } from '../store/system-db.js';
import { grantOf } from '../system-directory.js';

/** The resources whose writes can give access: roles (their grants), administrators and users (their assignments), apps (their default role). */
export type GrantingKind = 'role' | 'person' | 'app';

/** What the records a write may change held before it. */
interface Before {
  /** The grants of roles (signature), by role id. */
  grants: Map<number, string>;
  /** `app:role` assignments, by user id. */
  assignments: Map<number, Set<string>>;
  /** Default role, by app id. */
  appRoles: Map<number, number | null>;
}

const STATE = 'role-width';
/** Ids read per query (well under every driver's bound-parameter limit). */
const BATCH = 500;

/** Nested children naming a parent other than their own (moved there): that parent changes too. */
const MOVES: Partial<Record<GrantingKind, [string, string]>> = {
  role: ['role_service_access_by_role_id', 'role_id'],
  person: ['user_to_app_to_role_by_user_id', 'user_id'],
};

async function inBatches<T>(ids: Iterable<number>, read: (slice: number[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  const rows: T[] = [];
  for (let start = 0; start < unique.length; start += BATCH) rows.push(...(await read(unique.slice(start, start + BATCH))));
  return rows;
}

/** The grants of the roles as access decisions take them. */
async function grantsOf(db: SystemDb, roleIds: Iterable<number>): Promise<Map<number, Grant[]>> {
  const rows = await inBatches(roleIds, (slice) =>
    db.selectFrom('role_service_access').selectAll().where('role_id', 'in', slice).execute(),
  );
  const byRole = new Map<number, Grant[]>();
  if (rows.length === 0) return byRole;
  const services = new Map((await db.selectFrom('service').select(['id', 'name']).execute()).map((s) => [s.id, s.name.toLowerCase()]));
  for (const row of rows) {
    const list = byRole.get(row.role_id) ?? [];
    list.push(grantOf(row, services));
    byRole.set(row.role_id, list);
  }
  return byRole;
}

/** Grants compared as a set (their order and ids are no change). */
export const grantSignature = (grants: readonly Grant[] | undefined): string =>
  JSON.stringify((grants ?? []).map((g) => JSON.stringify(g)).sort());

async function assignmentsOf(db: SystemDb, userIds: Iterable<number>): Promise<Map<number, Array<{ app_id: number; role_id: number }>>> {
  const rows = await inBatches(userIds, (slice) =>
    db.selectFrom('user_to_app_to_role').select(['user_id', 'app_id', 'role_id']).where('user_id', 'in', slice).execute(),
  );
  const byUser = new Map<number, Array<{ app_id: number; role_id: number }>>();
  for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row]);
  return byUser;
}

/** The parents the records' nested children move to. */
function movedTo(kind: GrantingKind, prepared: readonly Prepared[], keys: readonly Key[]): number[] {
  const move = MOVES[kind];
  if (move === undefined) return [];
  const ids: number[] = [];
  for (const [index, p] of prepared.entries())
    for (const child of p.nested[move[0]] ?? []) {
      const to = Number(child[move[1]] ?? Number.NaN);
      if (Number.isSafeInteger(to) && String(to) !== String(keys[index])) ids.push(to);
    }
  return ids;
}

/** Whether a record's write can change what it gives: grants sent, assignments or tabs sent, a default role set. */
function gives(kind: GrantingKind, p: Prepared): boolean {
  if (kind === 'app') return p.columns.role_id !== undefined && p.columns.role_id !== null;
  const move = MOVES[kind] as [string, string];
  return (p.nested[move[0]]?.length ?? 0) > 0 || (kind === 'person' && (p.notes?.restriction ?? null) !== null);
}

/** Before the write (inside its transaction): what the records it may change hold. */
export async function noteGrantedAccess(w: WriteContext, kind: GrantingKind, keys: Key[], prepared: Prepared[]): Promise<void> {
  if (!prepared.some((p) => gives(kind, p))) return;
  const ids = [...keys.map(Number), ...movedTo(kind, prepared, keys)];
  const before: Before = { grants: new Map(), assignments: new Map(), appRoles: new Map() };
  w.state.set(STATE, before);
  let roles: number[] = ids;
  if (kind === 'person') {
    const assignments = await assignmentsOf(w.db, ids);
    for (const [user, rows] of assignments) before.assignments.set(user, new Set(rows.map((row) => `${row.app_id}:${row.role_id}`)));
    roles = [...assignments.values()].flat().map((row) => row.role_id);
  }
  if (kind === 'app') {
    const apps = await inBatches(ids, (slice) => w.db.selectFrom('app').select(['id', 'role_id']).where('id', 'in', slice).execute());
    for (const app of apps) before.appRoles.set(app.id, app.role_id);
    return;
  }
  const grants = await grantsOf(w.db, roles);
  for (const role of new Set(roles)) before.grants.set(role, grantSignature(grants.get(role)));
}

/** The roles that decide for the caller: the one of this request and every one assigned to it. */
export async function governingRoles(db: SystemDb, call: InternalCall): Promise<Set<number>> {
  const roles = new Set<number>();
  if (call.auth.role) roles.add(call.auth.role.id);
  const self = call.auth.user?.id;
  if (self !== undefined)
    for (const row of await db.selectFrom('user_to_app_to_role').select('role_id').where('user_id', '=', self).execute())
      roles.add(row.role_id);
  return roles;
}

/** The grants of the caller's role (all of them: for calls and scripts). */
export function callerGrants(ctx: PlatformContext, call: InternalCall): readonly Grant[] {
  return (call.auth.role ? ctx.directory.roles.get(call.auth.role.id)?.grants : undefined) ?? [];
}

/** The refusal of a role reaching further than the caller's (given to a role, or assigned). */
export function widerRefusal(role: string, roleId: number | null, wider: WiderAccess, what: 'role' | 'assignment'): ForbiddenError {
  const rule =
    what === 'role'
      ? 'a caller governed by a role may give a role no access its own role lacks'
      : 'a caller governed by a role may assign (to a user, an administrator, an app or open registration) only roles no wider than its own';
  return new ForbiddenError(
    `Access Forbidden. Role '${role}' would allow ${describeWider(wider)}, which the caller's role does not: ${rule}.`,
    {
      role_id: roleId,
      service: wider.service,
      component: wider.component,
      verb: wider.verb,
    },
  );
}

/** The refusal of a change to the grants of a role governing the caller. */
export function ownRoleRefusal(role: string, roleId: number | null): ForbiddenError {
  return new ForbiddenError(
    `Access Forbidden. Role '${role}' governs the caller: a caller governed by a role cannot change its own role's grants; ask an unrestricted administrator.`,
    { role_id: roleId },
  );
}

async function roleName(db: SystemDb, id: number): Promise<string> {
  return (await db.selectFrom('role').select('name').where('id', '=', id).executeTakeFirst())?.name ?? String(id);
}

/** Refuses a role reaching further than the caller's own. */
async function assertWithinCaller(w: WriteContext, roleId: number, grants: readonly Grant[], what: 'role' | 'assignment'): Promise<void> {
  const wider = widerAccess(grants, callerGrants(w.ctx, w.call));
  if (wider !== null) throw widerRefusal(await roleName(w.db, roleId), roleId, wider, what);
}

/** After a record is written (inside the transaction): what it changed gives no access wider than the caller's. */
export async function assertGrantedAccess(w: WriteContext, kind: GrantingKind, key: Key, prepared: Prepared): Promise<void> {
  if (!gives(kind, prepared)) return;
  const before = w.state.get(STATE) as Before;
  const id = Number(key);
  if (kind === 'app') {
    const row = await w.db.selectFrom('app').select('role_id').where('id', '=', id).executeTakeFirst();
    const role = row?.role_id ?? null;
    if (role === null || (before.appRoles.has(id) && before.appRoles.get(id) === role)) return;
    await assertWithinCaller(w, role, (await grantsOf(w.db, [role])).get(role) ?? [], 'assignment');
    return;
  }
  const targets = [id, ...movedTo(kind, [prepared], [key])];
  if (kind === 'role') {
    const grants = await grantsOf(w.db, targets);
    const mine = await governingRoles(w.db, w.call);
    for (const role of new Set(targets)) {
      if (grantSignature(grants.get(role)) === (before.grants.get(role) ?? grantSignature([]))) continue;
      if (mine.has(role)) throw ownRoleRefusal(await roleName(w.db, role), role);
      await assertWithinCaller(w, role, grants.get(role) ?? [], 'role');
    }
    return;
  }
  const assignments = await assignmentsOf(w.db, targets);
  const rows = [...assignments.entries()].flatMap(([user, list]) => list.map((row) => ({ user, ...row })));
  const grants = await grantsOf(w.db, new Set(rows.map((row) => row.role_id)));
  for (const row of rows) {
    const unchanged =
      before.assignments.get(row.user)?.has(`${row.app_id}:${row.role_id}`) === true &&
      before.grants.get(row.role_id) === grantSignature(grants.get(row.role_id));
    if (!unchanged) await assertWithinCaller(w, row.role_id, grants.get(row.role_id) ?? [], 'assignment');
  }
}

/** The roles a `user` service's config gives self-registered users (open_reg_role_id, app_role_map). */
function registrationRoles(config: string | null): Set<number> {
  let parsed: unknown;
  try {
    parsed = config === null ? null : JSON.parse(config);
  } catch {
    return new Set();
  }
  const object = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const entries = Array.isArray(object.app_role_map) ? (object.app_role_map as Array<Record<string, unknown>>) : [];
  const ids = [object.open_reg_role_id, ...entries.map((entry) => entry?.role_id)];
  return new Set(ids.filter((id): id is number => typeof id === 'number' && Number.isInteger(id) && id > 0));
}

/** A `user` service's config change gives self-registered users no role wider than the caller's that it did not give before. */
export async function assertRegistrationRoles(w: WriteContext, before: string | null, after: string): Promise<void> {
  const given = registrationRoles(before);
  const added = [...registrationRoles(after)].filter((id) => !given.has(id));
  if (added.length === 0) return;
  const grants = await grantsOf(w.db, added);
  for (const role of added) await assertWithinCaller(w, role, grants.get(role) ?? [], 'assignment');
}
