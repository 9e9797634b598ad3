/**
 * GET /system/access_usage (the reference's df-system access-usage audit, read by its system MCP
 * server): one row per app, role or user (`subject`, default app) with when it was last used and
 * last refused, and cleanup flags: `never_used` (no allowed request noted), `stale` (last use over
 * `stale_days` ago, default 90), `disabled_but_attempted` (inactive, yet refused within
 * `stale_days`), `role_unreferenced` (roles: no app, user assignment, limit or registration
 * setting names it; null for others). Users also carry last_login_date and is_sys_admin. API keys
 * are never shown. `include_never_used=false` leaves out the subjects never used.
 */
import { BadRequestError } from '../../core/errors.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { formatTimestamp } from '../store/system-db.js';
import { userServiceConfig } from '../user/user-config.js';
import type { SubjectType } from './access-usage.js';

const SUBJECTS: readonly SubjectType[] = ['app', 'role', 'user'];
const DAY_MS = 86_400_000;

type Row = Record<string, unknown>;

function staleDays(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 90;
  const days = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(days) || days < 1) {
    throw new BadRequestError("Parameter 'stale_days' must be a whole number of days, at least 1.", { field: 'stale_days' });
  }
  return days;
}

/** The subjects of a type: id, name (an app's or role's name, a user's email), is_active, and a user's extras. */
async function subjects(ctx: PlatformContext, type: SubjectType): Promise<Row[]> {
  const db = ctx.db;
  if (type === 'app') return db.selectFrom('app').select(['id', 'name', 'is_active']).orderBy('id').execute();
  if (type === 'role') return db.selectFrom('role').select(['id', 'name', 'is_active']).orderBy('id').execute();
  const users = await db.selectFrom('user').select(['id', 'email', 'is_active', 'is_sys_admin', 'last_login_date']).orderBy('id').execute();
  return users.map(({ email, ...rest }) => ({ ...rest, name: email }));
}

/** The roles something points at: apps' default roles, user assignments, limits, the registration settings. */
async function referencedRoles(ctx: PlatformContext): Promise<Set<number>> {
  const db = ctx.db;
  const [apps, assigned, limits] = await Promise.all([
    db.selectFrom('app').select('role_id').execute(),
    db.selectFrom('user_to_app_to_role').select('role_id').execute(),
    db.selectFrom('limits').select('role_id').execute(),
  ]);
  const config = userServiceConfig(ctx);
  return new Set(
    [...apps, ...assigned, ...limits, { role_id: config.openRegRoleId }, ...config.appRoleMap]
      .map((row) => row.role_id)
      .filter((id): id is number => id !== null),
  );
}

export async function accessUsageReport(ctx: PlatformContext, call: InternalCall): Promise<unknown> {
  const subject = (pick(call.query, 'subject') ?? 'app').trim().toLowerCase();
  if (!SUBJECTS.includes(subject as SubjectType)) {
    throw new BadRequestError(`Parameter 'subject' must be one of ${SUBJECTS.join(', ')}.`, { field: 'subject' });
  }
  const type = subject as SubjectType;
  const days = staleDays(pick(call.query, 'stale_days'));
  const includeNeverUsed = pick(call.query, 'include_never_used') === undefined || toBool(pick(call.query, 'include_never_used'));
  // What this instance noted is read back with the rest.
  await ctx.accessUsage.flush();
  const now = ctx.clock.now();
  const cutoff = formatTimestamp(new Date(now - days * DAY_MS));
  const [records, usage, referenced] = await Promise.all([
    subjects(ctx, type),
    ctx.db.selectFrom('access_usage').selectAll().where('subject_type', '=', type).execute(),
    type === 'role' ? referencedRoles(ctx) : Promise.resolve(null),
  ]);
  const byId = new Map(usage.map((row) => [row.subject_id, row]));
  const rows = records.flatMap((record) => {
    const id = Number(record.id);
    const used = byId.get(id);
    const active = Number(record.is_active) === 1;
    const lastUsed = used?.last_used_at ?? null;
    const lastDenied = used?.last_denied_at ?? null;
    if (lastUsed === null && !includeNeverUsed) return [];
    const row: Row = {
      subject_type: type,
      subject_id: id,
      name: record.name,
      is_active: active,
      last_used_at: lastUsed,
      last_denied_at: lastDenied,
      last_service: used?.last_service ?? null,
      last_status: used?.last_status ?? null,
      requests_30d: null,
      top_services: null,
      never_used: lastUsed === null,
      stale: lastUsed !== null && lastUsed < cutoff,
      disabled_but_attempted: !active && lastDenied !== null && lastDenied >= cutoff,
      role_unreferenced: referenced === null ? null : !referenced.has(id),
    };
    if (type === 'user')
      Object.assign(row, { last_login_date: record.last_login_date ?? null, is_sys_admin: Number(record.is_sys_admin) === 1 });
    return [row];
  });
  return {
    resource: rows,
    meta: { count: rows.length, generated_at: formatTimestamp(new Date(now)), ledger_available: false, stale_days: days },
  };
}
