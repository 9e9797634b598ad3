/**
 * Logins, refresh and logout for administrators and users, and the spec's Session object.
 */
import { assignedRoleId, resolveRole } from '../auth/access.js';
import { readCredentials, type BasicCredentials } from '../auth/credentials.js';
import { verifyPassword } from '../auth/passwords.js';
import type { AppPrincipal, UserPrincipal } from '../auth/principals.js';
import type { SessionClaims } from '../auth/session-tokens.js';
import { BadRequestError, PorticoError } from '../core/errors.js';
import { limits } from '../core/request-limits.js';
import type { InternalCall } from '../http/internal-service.js';
import type { PlatformContext } from '../http/platform-context.js';
import type { ServiceResult } from '../services/service-kind.js';
import { formatTimestamp } from './store/system-db.js';
import { coreMessages } from '../core/messages.js';
import { systemMessages } from './system-messages.js';

export type SessionKind = 'admin' | 'user';

/** Where a session is asked for: the request's host, and the app of its API key (its role goes in the session). */

/** `application/json` or a `+json` type, parameters allowed. */
function isJsonContent(header: string | string[] | undefined): boolean {
  const value = (Array.isArray(header) ? header[0] : header)?.split(';')[0].trim().toLowerCase() ?? '';
  return value === 'application/json' || value.endsWith('+json');
}

export interface SessionRequest {
  host: string;
  appId: number | null;
}

export function sessionRequest(call: InternalCall): SessionRequest {
  return { host: call.host, appId: call.auth.app?.id ?? null };
}

/** How long a refreshed session may have been expired: 14 days, as the reference platform. */
const REFRESH_WINDOW_SECONDS = 14 * 24 * 3600;

export interface LoginBody {
  email?: unknown;
  password?: unknown;
  duration?: unknown;
}

/** Absent, null or empty is missing; a number, list or object is there but not a string, and said so. */
function requireString(body: Record<string, unknown>, field: 'email' | 'password'): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw systemMessages.loginMissing.error(field);
  if (typeof value !== 'string') throw coreMessages.fieldNotString.error(field);
  return value;
}

/**
 * The login `duration` in minutes, null when absent: a whole number from 0 to the limit, as a JSON
 * number or as digits (form posts); anything else is a 400 before the credentials are checked.
 */
function sessionDuration(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const minutes = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > limits.sessionMinutes) {
    throw new BadRequestError(`Field 'duration' must be a whole number of minutes from 0 to ${limits.sessionMinutes}.`, {
      field: 'duration',
    });
  }
  return minutes;
}

/** The active account of an email (any case), of one kind or either. */
function findAccount(ctx: PlatformContext, email: string, kind: SessionKind | null) {
  return ctx.db
    .selectFrom('user')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .$if(kind !== null, (query) => query.where('is_sys_admin', '=', kind === 'admin' ? 1 : 0))
    .where('is_active', '=', 1)
    .orderBy('id')
    .executeTakeFirst();
}

const appById = (ctx: PlatformContext, id: number | null): AppPrincipal | null =>
  id === null ? null : ([...ctx.directory.appsByKey.values()].find((app) => app.id === id) ?? null);

/**
 * The role the account's own assignments give it at the calling app must be active (reference
 * 6.3: a 403); an app's default role is not the account's, and is checked by the requests it
 * decides.
 */
async function assertRoleActive(ctx: PlatformContext, userId: number, appId: number | null): Promise<void> {
  const app = appById(ctx, appId);
  const user = app === null ? null : await ctx.directory.user(userId);
  const roleId = user && app ? assignedRoleId(user, app) : undefined;
  if (roleId !== undefined && ctx.directory.roles.get(roleId)?.isActive === false) throw systemMessages.roleNotActive.error();
}

/** Checks credentials and issues a session; administrators only at the admin endpoint, others only at the user endpoint. */
export async function login(
  ctx: PlatformContext,
  kind: SessionKind,
  body: unknown,
  where: SessionRequest,
): Promise<Record<string, unknown>> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw systemMessages.loginMissing.error('email');
  const fields = body as Record<string, unknown>;
  const email = requireString(fields, 'email');
  const password = requireString(fields, 'password');
  const duration = sessionDuration(fields.duration);
  // 0 means "until the browser closes": the token itself keeps the default lifetime.
  const ttl = duration === null || duration === 0 ? ctx.settings.sessionTtlMinutes : duration;
  const row = await findAccount(ctx, email, kind);
  if (!row || !(await verifyPassword(password, row.password))) throw systemMessages.invalidCredentials.error();
  await assertRoleActive(ctx, row.id, where.appId);
  // The password was checked against the row as it was read: a password change, deactivation or
  // email change may have committed since (on any instance). The login is recorded only on the
  // row as it was read, and the session carries the time from before that write: a change that
  // came first refuses the login, one that comes after is later than the session's cut-off.
  const at = ctx.clock.now();
  const recorded = await ctx.db
    .updateTable('user')
    .set({ last_login_date: formatTimestamp(new Date(at)), confirm_code: null })
    .where('id', '=', row.id)
    .where('password', '=', row.password)
    .where('tokens_valid_after', '=', row.tokens_valid_after)
    .where('email', '=', row.email)
    .where('is_active', '=', 1)
    .executeTakeFirst();
  ctx.directory.forgetUser(row.id);
  if (Number(recorded.numUpdatedRows) === 0) throw systemMessages.invalidCredentials.error();
  const { token, claims } = ctx.tokens.issue(row, ttl, row.tokens_valid_after, at);
  return sessionObject(ctx, row.id, token, claims, where);
}

/**
 * Counts a login at the login endpoint of an account's kind against the rate limits, as a
 * POST there would count (no user yet; the app's default role).
 */
async function countLoginAttempt(ctx: PlatformContext, kind: SessionKind, app: AppPrincipal | null): Promise<void> {
  if (ctx.limits.active.length === 0) return;
  const service = ctx.services.list().find((model) => model.type === (kind === 'admin' ? 'system' : 'user'));
  if (!service) return;
  await ctx.limits.check({
    userId: null,
    roleId: resolveRole(null, app, ctx.directory.roles)?.id ?? null,
    serviceId: service.id,
    component: kind === 'admin' ? 'admin/session' : 'session',
    verb: 'POST',
  });
}

/**
 * HTTP Basic authentication (reference 6.1): the active account, administrator or user, of an
 * email and password, for one request; 401 when they do not match. It costs what a login costs:
 * the same account lookup and password check, counted as a login at the endpoint where that
 * account logs in, before the password is checked (a client the rate limits lock out of the
 * login is locked out here too).
 */
export async function authenticateBasic(ctx: PlatformContext, basic: BasicCredentials, app: AppPrincipal | null): Promise<UserPrincipal> {
  // The databases refuse NUL in text: it matches no account.
  const row = basic.email === '' || basic.email.includes('\0') ? undefined : await findAccount(ctx, basic.email, null);
  await countLoginAttempt(ctx, row?.is_sys_admin === 1 ? 'admin' : 'user', app);
  const user = row && (await verifyPassword(basic.password, row.password)) ? await ctx.directory.user(row.id) : null;
  if (!user?.isActive) throw systemMessages.basicCredentialsMismatch.error();
  return user;
}

/** A session token for a user who just set a password or registered: no older than their cut-off. */
export async function issueSessionToken(ctx: PlatformContext, userId: number): Promise<string> {
  const user = await ctx.directory.user(userId);
  if (!user) throw coreMessages.tokenUserUnknown.error();
  return ctx.tokens.issue(user, ctx.settings.sessionTtlMinutes, user.tokensValidAfter).token;
}

/** A new token of a session, for its user as they are now, with the session's lifetime. */
export function renewToken(ctx: PlatformContext, claims: SessionClaims, user: UserPrincipal): { token: string; claims: SessionClaims } {
  const ttlMinutes = Math.max(1, Math.round((claims.exp - claims.iat) / 60));
  return ctx.tokens.issue(user, ttlMinutes, user.tokensValidAfter);
}

/** The Session record of the spec for a user and token. */
export async function sessionObject(
  ctx: PlatformContext,
  userId: number,
  token: string,
  claims: SessionClaims,
  where: SessionRequest,
): Promise<Record<string, unknown>> {
  const row = await ctx.db.selectFrom('user').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  // The role requests with this session and the app's key get: the user's role for the app, else the app's default.
  const app = appById(ctx, where.appId);
  const user = await ctx.directory.user(userId);
  // Administrators have no role, restricted ones (with role assignments) theirs.
  const role = user?.isSysAdmin ? null : resolveRole(user, app, ctx.directory.roles);
  const apps = await ctx.db
    .selectFrom('app')
    .select(['id', 'name', 'label', 'description'])
    .where('is_active', '=', 1)
    .orderBy('id')
    .execute();
  return {
    session_token: token,
    session_id: token,
    id: row.id,
    name: row.name,
    first_name: row.first_name ?? '',
    last_name: row.last_name ?? '',
    email: row.email,
    is_sys_admin: row.is_sys_admin === 1,
    // The console shows a restricted administrator only what their role grants.
    is_root_admin: user?.isSysAdmin === true,
    role: role?.name ?? '',
    role_id: role?.id ?? null,
    last_login_date: row.last_login_date ?? '',
    host: where.host,
    token_expiry_date: formatTimestamp(new Date(claims.exp * 1000)),
    apps: apps.map((app) => ({ id: app.id, name: app.name, label: app.label, description: app.description })),
    ticket: '',
    ticket_expiry: '',
  };
}

/**
 * A refresh makes a new token: it must not outlive a logout, password change, deactivation or
 * email change made on another instance (or worker) that this one's memory has not learnt of yet
 * (the change feed brings it within a second, or a few without Redis). So the session is checked
 * against the database, and the new token carries the time from before that read: a change
 * committed later sets a cut-off past it. Returns the account's cut-off.
 */
async function assertSessionLive(ctx: PlatformContext, claims: SessionClaims): Promise<number> {
  const [row, revoked] = await Promise.all([
    ctx.db
      .selectFrom('user')
      .select(['id', 'email', 'is_active', 'tokens_valid_after'])
      .where('id', '=', claims.user_id)
      .executeTakeFirst(),
    ctx.db.selectFrom('revoked_token').select('jti').where('jti', '=', claims.jti).executeTakeFirst(),
  ]);
  if (!row || !ctx.tokens.isHeldBy(claims, row)) throw coreMessages.tokenUserUnknown.error();
  if (row.is_active !== 1 || revoked !== undefined || claims.iat < row.tokens_valid_after) throw coreMessages.sessionTerminated.error();
  return row.tokens_valid_after;
}

/** Issues a fresh token for a session; `replace` also revokes the old one (PUT refresh). */
export async function refresh(
  ctx: PlatformContext,
  kind: SessionKind,
  token: string | null,
  replace: boolean,
  where: SessionRequest,
): Promise<Record<string, unknown>> {
  if (!token) throw systemMessages.noValidSession.error();
  let claims: SessionClaims;
  try {
    claims = ctx.tokens.verify(token, replace ? REFRESH_WINDOW_SECONDS : 0);
  } catch (error) {
    throw error instanceof PorticoError && replace ? systemMessages.tokenRefreshFailed.error(error.message) : error;
  }
  const user = await ctx.directory.user(claims.user_id);
  // Issued before the account's email changed: not theirs any more (reference 6.2).
  if (user && !ctx.tokens.isHeldBy(claims, user)) throw coreMessages.tokenUserUnknown.error();
  if (!user?.isActive || ctx.directory.isRevoked(claims.jti) || claims.iat < user.tokensValidAfter) {
    throw coreMessages.sessionTerminated.error();
  }
  // The user endpoint serves administrators' sessions too (only its login refuses them), as the
  // reference does: its admin console restores a session with GET /user/session.
  if (kind === 'admin' && !user.isAdminAccount) throw systemMessages.notAuthorized.error();
  const at = ctx.clock.now();
  const cutoff = await assertSessionLive(ctx, claims);
  const ttlMinutes = Math.max(1, Math.round((claims.exp - claims.iat) / 60));
  // The old token is revoked before the new one is issued, by one refresh only: two at once would leave two live tokens.
  if (replace && !(await ctx.directory.claimRevocation(claims.jti, claims.exp + REFRESH_WINDOW_SECONDS)))
    throw coreMessages.sessionTerminated.error();
  const issued = ctx.tokens.issue(user, ttlMinutes, Math.max(cutoff, user.tokensValidAfter), at);
  return sessionObject(ctx, user.id, issued.token, issued.claims, where);
}

/** `{admin/}session`: POST logs in, GET refreshes the sent session, PUT replaces its token, DELETE logs out. */
export async function handleSession(
  ctx: PlatformContext,
  kind: SessionKind,
  call: InternalCall,
  unsupported: () => Error,
): Promise<ServiceResult> {
  switch (call.verb) {
    case 'POST':
      // As the spec lists it: a login whose body is not declared JSON has no email to read.
      if (!isJsonContent(call.headers['content-type'])) throw systemMessages.loginMissing.error('email');
      return { body: await login(ctx, kind, call.body, sessionRequest(call)) };
    case 'GET':
      if (!call.session) throw call.tokenError ?? systemMessages.noValidSession.error();
      return { body: await refresh(ctx, kind, call.session.token, false, sessionRequest(call)) };
    case 'PUT':
      return { body: await refresh(ctx, kind, readCredentials(call.headers, call.query).token, true, sessionRequest(call)) };
    case 'DELETE':
      return { body: await logout(ctx, call.session?.claims ?? null) };
    default:
      throw unsupported();
  }
}

/** Revokes the token; logging out without a session is not an error. */
export async function logout(ctx: PlatformContext, claims: SessionClaims | null): Promise<{ success: true }> {
  if (claims) await ctx.directory.revoke(claims.jti, claims.exp + REFRESH_WINDOW_SECONDS);
  return { success: true };
}
