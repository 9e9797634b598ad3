/** Who is calling, as established by the credentials and access checks of one request. */
import type { RowFilterModel } from '../model/platform-model.js';
import type { Grant } from './principals.js';

export interface AuthContext {
  /** The app identified by the API key, if any. */
  app: { id: number; name: string } | null;
  /** The logged-in user or administrator, if any. */
  user: { id: number; email: string; name: string; isSysAdmin: boolean; isAdminAccount?: boolean } | null;
  /** Administrators bypass role checks. */
  isAdmin: boolean;
  /** The role that decided access (the user's role for the app, else the app's default role). */
  role: { id: number; name: string } | null;
  /** Row filters of the grant that allowed this request, applied as bound parameters. */
  rowFilters: { filters: RowFilterModel[]; op: 'and' | 'or' } | null;
  /**
   * The grants of the caller's role, for the other tables one request reaches (`related` reads,
   * nested writes); null when nothing further is checked (administrators, internal calls).
   */
  grants: readonly Grant[] | null;
  /**
   * The caller's lookup values by name (`{name}` in filters): the user's over the role's over the
   * app's over the system's (reference 6.6). Absent for internal calls.
   */
  lookup?: (name: string) => string | undefined;
}

/** An administrator's context, for internal calls and tests. */
export function adminContext(): AuthContext {
  return { app: null, user: null, isAdmin: true, role: null, rowFilters: null, grants: null };
}
