/**
 * The one access decision: credentials, administrator bypass, role grants. Pure, so that every
 * 401/403 rule is shown by a table test.
 */
import type { PorticoError } from '../core/errors.js';
import { coreMessages } from '../core/messages.js';
import type { Verb } from '../model/platform-model.js';
import { VERB_BITS, type AppPrincipal, type Grant, type RolePrincipal, type UserPrincipal } from './principals.js';

export interface AccessRequest {
  verb: Verb;
  /** Lower-case service name. */
  service: string;
  /** Lower-case resource path after the service, without leading or trailing slashes. */
  component: string;
  apiKeyGiven: boolean;
  /** The app of the API key; null when no key was given or the key is unknown. */
  app: AppPrincipal | null;
  /** Why the session token was refused, if it was. */
  tokenError: PorticoError | null;
  user: UserPrincipal | null;
  /** The role resolved for user and app (see resolveRole). */
  role: RolePrincipal | null;
  /** Endpoints open without a role (logins, password reset, environment). */
  exception: boolean;
  /** Endpoints only administrators may call. */
  adminOnly: boolean;
}

export type AccessDecision = { allowed: true; grant: Grant | null } | { allowed: false; error: PorticoError };

/**
 * The role the user's own assignments give them at the app: theirs for it, else a restricted
 * administrator's first role (their roles are what they may do, reference 6.3).
 */
export function assignedRoleId(user: UserPrincipal, app: AppPrincipal): number | undefined {
  return user.appRoles.get(app.id) ?? (user.isAdminAccount ? user.appRoles.values().next().value : undefined);
}

/**
 * The user's role for the app (assignedRoleId), else the app's default role, except for
 * administrators (never an app's default).
 */
export function resolveRole(
  user: UserPrincipal | null,
  app: AppPrincipal | null,
  roles: ReadonlyMap<number, RolePrincipal>,
): RolePrincipal | null {
  if (!app) return null;
  const roleId = user ? (assignedRoleId(user, app) ?? (user.isAdminAccount ? undefined : app.roleId)) : app.roleId;
  return roleId === null || roleId === undefined ? null : (roles.get(roleId) ?? null);
}

/** Who makes a request: a client over HTTP, or a hook or custom endpoint in process (the reference's SCRIPT requestor). */
export type Requestor = 'api' | 'script';

const scriptRoles = new WeakMap<RolePrincipal, RolePrincipal>();

/**
 * The role as a server-side script's call sees it: only the grants whose requestor includes
 * `script` (requestor_mask bit 2), offered to the one access decision as usable (reference 6.5:
 * the requestor type is part of the match).
 */
export function roleForRequestor(role: RolePrincipal | null, requestor: Requestor): RolePrincipal | null {
  if (role === null || requestor === 'api') return role;
  let view = scriptRoles.get(role);
  if (view === undefined) {
    const grants = role.grants
      .filter((grant) => (grant.requestorMask & 2) !== 0)
      .map((grant) => ({ ...grant, requestorMask: grant.requestorMask | 1 }));
    view = { ...role, grants };
    scriptRoles.set(role, view);
  }
  return view;
}

const deny = (error: PorticoError): AccessDecision => ({ allowed: false, error });
/** Allowed without a grant (an exception, an administrator): one shared answer, not an object per request. */
const ALLOWED: AccessDecision = Object.freeze({ allowed: true, grant: null });

export function decideAccess(request: AccessRequest): AccessDecision {
  const { app, user, role } = request;
  if (request.apiKeyGiven && !app) return deny(coreMessages.invalidApiKey.error());
  if (app && !app.isActive) return deny(coreMessages.appInactive.error());
  if (request.exception) return ALLOWED;
  if (request.tokenError) return deny(request.tokenError);
  if (user?.isSysAdmin) return ALLOWED;
  if (!app && !user) return deny(coreMessages.noCredentials.error());
  // Restricted administrators reach administrators' resources where their role grants them.
  if (request.adminOnly && !user?.isAdminAccount) {
    return deny(user ? coreMessages.adminsOnly.error() : coreMessages.noSessionToken.error());
  }
  if (!role) {
    // A user's role is the one for the calling app: without an API key there is none to find.
    if (user && !app) return deny(coreMessages.noApiKey.error());
    return deny(user ? coreMessages.roleNotFound.error() : coreMessages.noSessionToken.error());
  }
  if (!role.isActive) return deny(coreMessages.roleInactive.error());
  const grant = matchGrant(role.grants, request.service, request.component, request.verb);
  if (grant) return { allowed: true, grant };
  if (!user) return deny(coreMessages.noSessionToken.error());
  const target =
    request.component === '' ? `service '${request.service}'` : `component '${request.component}' of service '${request.service}'`;
  return deny(coreMessages.accessForbidden.error(request.verb, target));
}

/**
 * How specifically a grant matches a component; 0 when it does not. Every service < the whole
 * service (`*`) < a component covering the requested one, the longer the covered path the more
 * specific, an exact component above a wildcard of the same path. A component covers its record
 * sub-paths (`_table/orders` covers `_table/orders/5`, as `_table/orders/*` does); a wildcard
 * `x*` covers what starts with `x` (`_table/*`, `_table/ord*`).
 */
function specificity(grant: Grant, service: string, component: string): number {
  if (grant.service === null) return grant.component === '*' || (grant.component === '' && component === '') ? 1 : 0;
  if (grant.service !== service) return 0;
  const granted = grant.component;
  if (granted === '*') return 2;
  if (granted === component) return 4 + 2 * component.length;
  const star = granted.indexOf('*');
  if (star > 0) {
    // `x/*` covers `x` itself too; its path is `x`.
    const prefix = granted.slice(0, star);
    return `${component}/`.startsWith(prefix) && star === granted.length - 1 ? 3 + 2 * prefix.replace(/\/$/, '').length : 0;
  }
  return granted !== '' && component.startsWith(`${granted}/`) ? 3 + 2 * granted.length : 0;
}

/**
 * The grant that allows `verb` on the component, taken from the most specific class of matching
 * grants (a more specific class replaces, not adds to, a less specific one, so that
 * `_table/orders: GET` keeps `_table/orders/5` read-only under `*: all`); null when denied.
 */
export function matchGrant(grants: readonly Grant[], service: string, component: string, verb: Verb): Grant | null {
  let best = 0;
  let matches: Grant[] = [];
  for (const grant of grants) {
    if ((grant.requestorMask & 1) === 0) continue;
    const level = specificity(grant, service, component);
    if (level === 0 || level < best) continue;
    if (level > best) {
      best = level;
      matches = [];
    }
    matches.push(grant);
  }
  const bit = VERB_BITS[verb];
  const allowing = matches.filter((grant) => (grant.verbMask & bit) !== 0);
  return allowing.find((grant) => grant.filters.length > 0) ?? allowing[0] ?? null;
}

/** Whether an active role grants anything on a service (or on every service): listings show only such services. */
export function roleReaches(role: RolePrincipal | null | undefined, service: string): boolean {
  const name = service.toLowerCase();
  return !!role?.isActive && role.grants.some((g) => g.verbMask !== 0 && (g.service === null || g.service === name));
}
