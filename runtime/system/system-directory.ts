/**
 * The in-memory directory of apps, roles and users, read from the system database and reloaded
 * after every change made through the system service. The request path reads only memory.
 */
import type { RowFilterModel } from '../model/platform-model.js';
import type { AppPrincipal, Grant, RolePrincipal, UserPrincipal } from '../auth/principals.js';
import { isUniqueViolation, upsert, type SystemDb } from './store/system-db.js';

export class SystemDirectory {
  appsByKey = new Map<string, AppPrincipal>();
  roles = new Map<number, RolePrincipal>();
  private users = new Map<number, UserPrincipal | null>();
  /** Counts the times cached users were forgotten: a read that began before one is not cached. */
  private forgotten = 0;
  private revoked = new Set<string>();
  /** Lookup values by scope: system (global), and per app, role and user id. */
  private lookups = {
    system: new Map<string, string>(),
    app: new Map<number, Map<string, string>>(),
    role: new Map<number, Map<string, string>>(),
    user: new Map<number, Map<string, string>>(),
  };

  /** lookupFor's answer for callers without lookups of their own, for the current system scope. */
  private systemOnly: { of: Map<string, string>; lookup: (name: string) => string | undefined } | null = null;

  constructor(private readonly db: SystemDb) {}

  /** Reloads apps, roles with their grants, and revoked tokens; forgets cached users. */
  async reload(): Promise<void> {
    const [apps, roles, grants, services, revoked, lookups] = await Promise.all([
      this.db.selectFrom('app').select(['id', 'name', 'is_active', 'role_id', 'api_key']).execute(),
      this.db.selectFrom('role').select(['id', 'name', 'is_active']).execute(),
      this.db.selectFrom('role_service_access').selectAll().orderBy('id').execute(),
      this.db.selectFrom('service').select(['id', 'name']).execute(),
      this.db.selectFrom('revoked_token').select('jti').execute(),
      this.db.selectFrom('lookup').select(['name', 'value', 'app_id', 'role_id', 'user_id']).execute(),
    ]);
    const serviceNames = new Map(services.map((s) => [s.id, s.name.toLowerCase()]));
    this.appsByKey = new Map(apps.map((a) => [a.api_key, { id: a.id, name: a.name, isActive: a.is_active === 1, roleId: a.role_id }]));
    const grantsByRole = new Map<number, Grant[]>();
    for (const row of grants) {
      const list = grantsByRole.get(row.role_id) ?? [];
      list.push(grantOf(row, serviceNames));
      grantsByRole.set(row.role_id, list);
    }
    this.roles = new Map(
      roles.map((r) => [r.id, { id: r.id, name: r.name, isActive: r.is_active === 1, grants: grantsByRole.get(r.id) ?? [] }]),
    );
    // A revocation is never undone, and one made while this reload ran may be missing from what it
    // read: keep those already known (a logged-out token accepted again until the next reload).
    for (const row of revoked) this.revoked.add(row.jti);
    this.lookups = { system: new Map(), app: new Map(), role: new Map(), user: new Map() };
    for (const row of lookups) {
      const scoped =
        row.user_id !== null
          ? ([this.lookups.user, row.user_id] as const)
          : row.role_id !== null
            ? ([this.lookups.role, row.role_id] as const)
            : row.app_id !== null
              ? ([this.lookups.app, row.app_id] as const)
              : null;
      const map = scoped === null ? this.lookups.system : (scoped[0].get(scoped[1]) ?? scoped[0].set(scoped[1], new Map()).get(scoped[1])!);
      map.set(row.name, row.value ?? '');
    }
    this.users.clear();
    this.forgotten++;
  }

  /** The lookup values a caller sees: the user's over the role's over the app's over the system's (reference 6.6). */
  lookupFor(appId: number | null, roleId: number | null, userId: number | null): (name: string) => string | undefined {
    const { system, app, role, user } = this.lookups;
    const own = userId === null ? undefined : user.get(userId);
    const ofRole = roleId === null ? undefined : role.get(roleId);
    const ofApp = appId === null ? undefined : app.get(appId);
    // Most callers have no lookups of their own: they share one function over the system's (no closure per request).
    if (own === undefined && ofRole === undefined && ofApp === undefined) {
      if (this.systemOnly?.of !== system) this.systemOnly = { of: system, lookup: (name) => system.get(name) };
      return this.systemOnly.lookup;
    }
    const scopes = [own, ofRole, ofApp, system];
    return (name) => {
      for (const scope of scopes) {
        const value = scope?.get(name);
        if (value !== undefined) return value;
      }
      return undefined;
    };
  }

  /** The cached user (null: known not to exist); undefined when not read yet. */
  cachedUser(id: number): UserPrincipal | null | undefined {
    return this.users.get(id);
  }

  /** The user with its app roles, cached until the next reload or forgetUser. */
  async user(id: number): Promise<UserPrincipal | null> {
    const cached = this.users.get(id);
    if (cached !== undefined) return cached;
    const began = this.forgotten;
    const row = await this.db
      .selectFrom('user')
      .select(['id', 'email', 'name', 'is_sys_admin', 'is_active', 'tokens_valid_after'])
      .where('id', '=', id)
      .executeTakeFirst();
    let user: UserPrincipal | null = null;
    if (row) {
      const assignments = await this.db
        .selectFrom('user_to_app_to_role')
        .select(['app_id', 'role_id'])
        .where('user_id', '=', id)
        .orderBy('id')
        .execute();
      user = {
        id: row.id,
        email: row.email,
        name: row.name,
        isSysAdmin: row.is_sys_admin === 1 && assignments.length === 0,
        isAdminAccount: row.is_sys_admin === 1,
        isActive: row.is_active === 1,
        tokensValidAfter: row.tokens_valid_after,
        appRoles: new Map(assignments.map((a) => [a.app_id, a.role_id])),
      };
    }
    // The account may have changed while it was read (a deactivation, a role removed): then this
    // request gets what was read, and the next reads it again.
    if (this.forgotten === began) this.users.set(id, user);
    return user;
  }

  forgetUser(id: number): void {
    this.users.delete(id);
    this.forgotten++;
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  async revoke(jti: string, expiresAt: number): Promise<void> {
    this.revoked.add(jti);
    await upsert(this.db, 'revoked_token', 'jti', { jti, expires_at: expiresAt });
  }

  /**
   * Revokes the token unless it is revoked already (by this instance or another on the same
   * system database): whether this call revoked it. Two refreshes of one token at once race for
   * its row, and only the one that stored it may issue a new token.
   */
  async claimRevocation(jti: string, expiresAt: number): Promise<boolean> {
    if (this.revoked.has(jti)) return false;
    try {
      await this.db.insertInto('revoked_token').values({ jti, expires_at: expiresAt }).execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      this.revoked.add(jti);
      return false;
    }
    this.revoked.add(jti);
    return true;
  }
}

/** A stored grant as access decisions take it (`serviceNames`: lower-case service names by id). */
export function grantOf(
  row: {
    service_id: number | null;
    component: string | null;
    verb_mask: number;
    requestor_mask: number;
    filters: string;
    filter_op: string;
  },
  serviceNames: ReadonlyMap<number, string>,
): Grant {
  return {
    service: row.service_id === null ? null : (serviceNames.get(row.service_id) ?? `#${row.service_id}`),
    component: normaliseComponent(row.component),
    verbMask: row.verb_mask,
    requestorMask: row.requestor_mask,
    filters: rowFilterModels(JSON.parse(row.filters)),
    filterOp: row.filter_op.toLowerCase() === 'or' ? 'or' : 'and',
  };
}

/**
 * A grant's stored row filters as the filter compiler takes them: a value may be stored as a JSON
 * number, boolean or null (the API takes those), and is compared as its text (`5`, `true`, `null`).
 */
export function rowFilterModels(filters: unknown): RowFilterModel[] {
  if (!Array.isArray(filters)) return [];
  return (filters as Array<{ name: string; operator: string; value: unknown }>).map((filter) => ({
    ...filter,
    value: typeof filter.value === 'string' ? filter.value : String(filter.value),
  }));
}

/** Lower-case, without leading or trailing slashes. */
export function normaliseComponent(component: string | null): string {
  return (component ?? '')
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
}
