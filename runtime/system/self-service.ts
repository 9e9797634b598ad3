/**
 * What administrators and users do for themselves (reference 5.14): read and change their
 * profile, change their password while logged in, and reset a forgotten password with a code
 * sent by email. `/system/admin/*` serves administrators, `/user/*` regular users.
 */
import { randomInt } from 'node:crypto';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { BadRequestError } from '../core/errors.js';
import { pick, toBool } from '../core/query-params.js';
import type { InternalCall } from '../http/internal-service.js';
import type { PlatformContext } from '../http/platform-context.js';
import { assertValid } from './record-resources/json-validator.js';
import { nullableId } from './record-resources/resource-definition.js';
import { assertPasswordAllowed, passwordSecrets } from './resources/password-rules.js';
import { userServiceConfig } from './user/user-config.js';
import { type MailChoice, mailOrUndo, sendTemplateMail } from './system-mail.js';
import { formatTimestamp, systemDialect } from './store/system-db.js';
import { issueSessionToken, renewToken, type SessionKind } from './sessions.js';
import { systemMessages } from './system-messages.js';

/** Reset codes: 32 characters of [0-9A-Z], valid for a day (reference 5.14). */
const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const CODE_LENGTH = 32;
const CODE_TTL_HOURS = 24;

/** The logged-in account of the call (by session token or Basic credentials); 401 without. */
function sessionUserId(call: InternalCall): number {
  const id = call.session?.claims.user_id ?? call.auth.user?.id;
  if (id === undefined) throw call.tokenError ?? systemMessages.noValidSession.error();
  return id;
}

const PROFILE_FIELDS = ['username', 'first_name', 'last_name', 'name', 'email', 'phone', 'default_app_id'] as const;

export async function getProfile(ctx: PlatformContext, call: InternalCall): Promise<Record<string, unknown>> {
  const row = await ctx.db.selectFrom('user').select(PROFILE_FIELDS).where('id', '=', sessionUserId(call)).executeTakeFirst();
  if (!row) throw systemMessages.noValidSession.error();
  return { ...row, security_question: '', oauth_provider: '', adldap: '' };
}

const profileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    first_name: { type: ['string', 'null'], maxLength: 255 },
    last_name: { type: ['string', 'null'], maxLength: 255 },
    username: { type: ['string', 'null'], minLength: 1, maxLength: 255, pattern: '^\\S+$' },
    email: { type: 'string', format: 'email', maxLength: 255 },
    phone: { type: ['string', 'null'], maxLength: 32 },
    default_app_id: nullableId,
    current_password: { type: 'string' },
    security_question: {},
    security_answer: {},
    oauth_provider: {},
    adldap: {},
  },
};

/** Changes the caller's own profile; a new email needs the current password. */
/**
 * A new email ends the account's sessions (their tokens were issued for the old one): the session
 * making the change goes on with the new token the answer carries, as on the reference.
 */
export async function updateProfile(ctx: PlatformContext, call: InternalCall): Promise<{ success: true; session_token?: string }> {
  const id = sessionUserId(call);
  const body = call.body ?? {};
  // A form's blank username is none, as on /system/admin and /system/user (emptyIsNull).
  if (typeof body === 'object' && body !== null && (body as Record<string, unknown>).username === '')
    (body as Record<string, unknown>).username = null;
  assertValid(profileSchema, body, '', 'profile');
  const fields = body as Record<string, unknown>;
  const row = await ctx.db.selectFrom('user').select(['email', 'password']).where('id', '=', id).executeTakeFirstOrThrow();
  if (typeof fields.email === 'string' && fields.email.toLowerCase() !== row.email.toLowerCase()) {
    if (typeof fields.current_password !== 'string')
      throw new BadRequestError('Current Password required to change email', { field: 'current_password' });
    if (!(await verifyPassword(fields.current_password, row.password))) throw systemMessages.passwordMismatch.error('current_password');
  }
  if (fields.default_app_id !== undefined && fields.default_app_id !== null) {
    const app = await ctx.db
      .selectFrom('app')
      .select('id')
      .where('id', '=', fields.default_app_id as number)
      .executeTakeFirst();
    if (!app)
      throw new BadRequestError(`Field 'default_app_id' refers to no app with id ${String(fields.default_app_id)}.`, {
        field: 'default_app_id',
      });
  }
  const changes: Record<string, unknown> = {};
  for (const name of PROFILE_FIELDS) if (fields[name] !== undefined) changes[name] = fields[name];
  if (Object.keys(changes).length > 0) {
    try {
      await ctx.db
        .updateTable('user')
        .set({ ...changes, last_modified_date: formatTimestamp(new Date(ctx.clock.now())), last_modified_by_id: id })
        .where('id', '=', id)
        .execute();
    } catch (error) {
      // A taken email or username is a 409 on every system database kind.
      throw systemDialect(ctx.db).translateError(error, ctx.systemSchema.table('user')) ?? error;
    }
    ctx.directory.forgetUser(id);
    const user = call.session && changes.email !== undefined ? await ctx.directory.user(id) : null;
    if (call.session && user && !ctx.tokens.isHeldBy(call.session.claims, user)) {
      return { success: true, session_token: renewToken(ctx, call.session.claims, user).token };
    }
  }
  return { success: true };
}

function requiredText(body: Record<string, unknown>, field: string, message: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw new BadRequestError(message, { field });
  return value;
}

function newResetCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Gives an account a one-time code (as a password reset does) and mails it with the template:
 * a password reset, or an invitation whose code sets the first password.
 */
export async function mailCode(
  ctx: PlatformContext,
  kind: SessionKind,
  userId: number,
  template: string,
  choice: MailChoice,
): Promise<void> {
  const row = await ctx.db
    .selectFrom('user')
    .select(['id', 'email', 'name', 'first_name', 'confirm_code', 'confirm_code_expiry'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const code = newResetCode();
  const expiry = Math.floor(ctx.clock.now() / 1000) + CODE_TTL_HOURS * 3600;
  const stored = await hashPassword(code);
  await ctx.db.updateTable('user').set({ confirm_code: stored, confirm_code_expiry: expiry }).where('id', '=', row.id).execute();
  await mailOrUndo(
    () =>
      sendTemplateMail(
        ctx,
        template,
        { email: row.email, ...(row.name ? { name: row.name } : {}) },
        {
          first_name: row.first_name || row.name,
          name: row.name,
          email: row.email,
          code,
          code_ttl_hours: String(CODE_TTL_HOURS),
          reset_path: kind === 'admin' ? '/api/v2/system/admin/password' : '/api/v2/user/password',
        },
        choice,
      ),
    // A code that could not be mailed is no code: the one mailed before (if any) stays valid.
    () =>
      ctx.db
        .updateTable('user')
        .set({ confirm_code: row.confirm_code, confirm_code_expiry: row.confirm_code_expiry })
        .where('id', '=', row.id)
        .where('confirm_code', '=', stored)
        .execute(),
  );
}

/** The account of an email at this endpoint: administrators only at the admin one, users only at the user one. */
async function accountByEmail(ctx: PlatformContext, kind: SessionKind, email: string) {
  // Emails compare without case on every system database (PostgreSQL's text does not).
  const row = await ctx.db
    .selectFrom('user')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (!row) throw systemMessages.emailNotFound.error();
  if ((row.is_sys_admin === 1) !== (kind === 'admin')) throw systemMessages.notAuthorizedForAccount.error(email);
  return row;
}

/** Sets a new password: hash, token cut-off (older sessions are refused), reset code cleared. */
async function setPassword(ctx: PlatformContext, id: number, password: string, field: string): Promise<void> {
  assertPasswordAllowed(ctx, password, field);
  const secrets = await passwordSecrets(ctx, password);
  await ctx.db
    .updateTable('user')
    .set({ ...secrets, confirm_code: null, confirm_code_expiry: null })
    .where('id', '=', id)
    .execute();
  ctx.directory.forgetUser(id);
}

/**
 * POST {admin|user}/password: change (`{old_password, new_password}` with a session), request a
 * reset code (`{email}`, with or without `?reset=true`), or reset with the code (`{email, code, new_password}`).
 * `?login=true` also returns a new session token.
 */
export async function changePassword(ctx: PlatformContext, kind: SessionKind, call: InternalCall): Promise<Record<string, unknown>> {
  const body = (call.body ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The request body must be a JSON object.');
  const login = toBool(pick(call.query, 'login'));
  const done = async (id: number) => (login ? { success: true, session_token: await issueSessionToken(ctx, id) } : { success: true });

  // The spec writes a reset request as `{email}` alone; the reference also asks for `?reset=true`.
  const onlyEmail = Object.keys(body).length === 1 && body.email !== undefined;
  if (toBool(pick(call.query, 'reset')) || onlyEmail) {
    const email = requiredText(body, 'email', "Field 'email' is required to request a password reset.");
    const row = await accountByEmail(ctx, kind, email);
    const config = userServiceConfig(ctx);
    await mailCode(ctx, kind, row.id, 'Password Reset Default', {
      serviceId: config.passwordEmailServiceId,
      templateId: config.passwordEmailTemplateId,
    });
    return { success: true };
  }

  if (body.code !== undefined) {
    const email = requiredText(body, 'email', "Field 'email' is required to reset a password with a code.");
    const code = requiredText(body, 'code', 'Invalid confirmation code.');
    const password = requiredText(body, 'new_password', 'Missing new password for reset.');
    const row = await accountByEmail(ctx, kind, email).catch(() => null);
    if (!row?.confirm_code || !(await verifyPassword(code, row.confirm_code))) {
      throw systemMessages.codeNotFound.error();
    }
    if ((row.confirm_code_expiry ?? 0) * 1000 <= ctx.clock.now()) throw systemMessages.codeExpired.error();
    await setPassword(ctx, row.id, password, 'new_password');
    return done(row.id);
  }

  if (body.old_password !== undefined || body.new_password !== undefined) {
    const id = sessionUserId(call);
    if (typeof body.old_password !== 'string' || typeof body.new_password !== 'string') {
      throw new BadRequestError('Both old and new password are required to change the password.', {
        field: typeof body.old_password !== 'string' ? 'old_password' : 'new_password',
      });
    }
    const row = await ctx.db
      .selectFrom('user')
      .select(['email', 'password', 'is_sys_admin'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if ((row.is_sys_admin === 1) !== (kind === 'admin')) throw systemMessages.notAuthorizedForAccount.error(row.email);
    if (!(await verifyPassword(body.old_password, row.password))) throw systemMessages.passwordMismatch.error('old_password');
    await setPassword(ctx, id, body.new_password, 'new_password');
    return done(id);
  }
  throw new BadRequestError('Not enough information provided to change password.');
}
