/**
 * What a caller governed by a role (a restricted administrator, or a user whose role reaches
 * /system/admin) may not do to administrators, whatever way the write comes in (/system/admin with
 * an id, ids=, filter= or a batch; a role's or app's delete taking assignments with it; a package
 * import, which writes through the same resources): create, change or delete an unrestricted
 * administrator, lift an administrator's restriction (leave it with no role assignments), or change
 * its own role assignments at all. Restricted administrators' other fields, and their roles, stay
 * theirs to manage (the console's Admins tab). An unrestricted administrator keeps full power.
 */
import { ForbiddenError } from '../../core/errors.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { Key, Prepared, WriteContext } from '../record-resources/resource-handler.js';

const ASSIGNMENTS = 'user_to_app_to_role_by_user_id';

const refusals = {
  own: () =>
    new ForbiddenError(
      'Access Forbidden. An administrator governed by a role cannot change its own role assignments or restriction: ask an unrestricted administrator.',
    ),
  unrestricted: (id: number) =>
    new ForbiddenError(
      `Access Forbidden. Administrator ${id} is unrestricted: only an unrestricted administrator may create, change or delete one.`,
      { id },
    ),
  lifted: (id: number) =>
    new ForbiddenError(
      `Access Forbidden. This would leave administrator ${id} with no role assignments, which makes it unrestricted: only an unrestricted administrator may lift a restriction.`,
      { id },
    ),
  created: () =>
    new ForbiddenError(
      'Access Forbidden. A caller governed by a role may create only restricted administrators: send is_restricted_admin true with access_by_tabs, or role assignments.',
    ),
};

/** Whether a role decides for the caller (administrators without role assignments and internal calls are not). */
export function roleGoverned(call: InternalCall): boolean {
  return !call.auth.isAdmin;
}

/** Ids read per query (well under every driver's bound-parameter limit). */
const BATCH = 500;

/** How many role assignments each of the administrators among the ids has (users who are not administrators left out). */
async function assignmentCounts(w: WriteContext, ids: number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += BATCH) {
    const slice = unique.slice(start, start + BATCH);
    const admins = await w.db.selectFrom('user').select('id').where('id', 'in', slice).where('is_sys_admin', '=', 1).execute();
    for (const admin of admins) counts.set(admin.id, 0);
    const rows = await w.db.selectFrom('user_to_app_to_role').select('user_id').where('user_id', 'in', slice).execute();
    for (const row of rows) if (counts.has(row.user_id)) counts.set(row.user_id, (counts.get(row.user_id) ?? 0) + 1);
  }
  return counts;
}

/** Before an update or delete of administrators: none of them (nor one taking an assignment) unrestricted, none the caller's own role. */
export async function assertAdminWriteAllowed(w: WriteContext, keys: Key[], prepared: Prepared[]): Promise<void> {
  const self = w.call.auth.user?.id;
  const targets = keys.map(Number);
  // Administrators an assignment is moved to (a child's user_id naming another record) are changed too.
  const adopters = new Set<number>();
  for (const [index, p] of prepared.entries())
    for (const child of p.nested[ASSIGNMENTS] ?? []) {
      const to = Number(child.user_id ?? Number.NaN);
      if (Number.isSafeInteger(to) && to !== targets[index]) adopters.add(to);
    }
  const counts = await assignmentCounts(w, [...targets, ...adopters]);
  for (const [index, id] of targets.entries()) {
    const p = prepared[index];
    const touchesRole = p !== undefined && ((p.notes?.restriction ?? null) !== null || (p.nested[ASSIGNMENTS]?.length ?? 0) > 0);
    if (id === self && touchesRole) throw refusals.own();
    if (counts.get(id) === 0) throw refusals.unrestricted(id);
    if (p?.notes?.restriction === false) throw refusals.lifted(id);
  }
  // Users who are not administrators are no record of /system/admin to move to (a 400 when it is written).
  for (const id of adopters) {
    if (!counts.has(id)) continue;
    if (id === self) throw refusals.own();
    if (counts.get(id) === 0) throw refusals.unrestricted(id);
  }
}

/** After an administrator is written: still restricted (the assignments it was sent could have removed every one). */
export async function assertStillRestricted(w: WriteContext, verb: 'create' | 'update', key: Key): Promise<void> {
  const id = Number(key);
  if ((await assignmentCounts(w, [id])).get(id) === 0) throw verb === 'create' ? refusals.created() : refusals.lifted(id);
}

/**
 * Before roles or apps are deleted (their assignments go with them): none of the caller's own
 * assignments among those, and no administrator left with none.
 */
export async function assertDeleteKeepsRestrictions(w: WriteContext, column: 'role_id' | 'app_id', keys: Key[]): Promise<void> {
  if (keys.length === 0) return;
  const self = w.call.auth.user?.id;
  const removed = await w.db.selectFrom('user_to_app_to_role').select('user_id').where(column, 'in', keys.map(Number)).execute();
  const losing = new Map<number, number>();
  for (const row of removed) losing.set(row.user_id, (losing.get(row.user_id) ?? 0) + 1);
  if (self !== undefined && losing.has(self)) throw refusals.own();
  const counts = await assignmentCounts(w, [...losing.keys()]);
  for (const [id, count] of counts) if (count <= (losing.get(id) ?? 0)) throw refusals.lifted(id);
}
