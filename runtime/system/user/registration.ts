/**
 * POST /user/register (reference 5.14): open registration, when the `user` service's config
 * allows it (seeded from platform.yaml). The new user gets, for every app, the role app_role_map
 * names for that app, else the open-registration role; `?login=true` also logs the user in.
 */
import { adminContext } from '../../auth/auth-context.js';
import { BadRequestError } from '../../core/errors.js';
import { pick, toBool } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { assertValid } from '../record-resources/json-validator.js';
import { removeCommitted, serveResource } from '../record-resources/resource-handler.js';
import { userBehaviour } from '../resources/record-behaviours.js';
import { issueSessionToken } from '../sessions.js';
import type { ServiceResult } from '../../services/service-kind.js';
import { mailOrUndo, sendTemplateMail } from '../system-mail.js';
import { userServiceConfig, type UserServiceConfig } from './user-config.js';
import { systemMessages } from '../system-messages.js';

const registrationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 255 },
    first_name: { type: 'string', maxLength: 255 },
    last_name: { type: 'string', maxLength: 255 },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    username: { type: 'string', minLength: 1, maxLength: 255, pattern: '^\\S+$' },
    phone: { type: 'string', maxLength: 32 },
    password: { type: 'string' },
    new_password: { type: 'string' },
    password_confirmation: { type: 'string' },
    security_question: {},
    security_answer: {},
  },
};

/** The role id per app id a newly registered user gets (roles deleted since are skipped). */
async function registrationRoles(ctx: PlatformContext, config: UserServiceConfig): Promise<Array<{ app_id: number; role_id: number }>> {
  const apps = await ctx.db.selectFrom('app').select(['id']).orderBy('id').execute();
  return apps.flatMap((app) => {
    const roleId = config.appRoleMap.find((entry) => entry.app_id === app.id)?.role_id ?? config.openRegRoleId;
    return roleId === null || !ctx.directory.roles.has(roleId) ? [] : [{ app_id: app.id, role_id: roleId }];
  });
}

export async function register(ctx: PlatformContext, call: InternalCall): Promise<ServiceResult> {
  const config = userServiceConfig(ctx);
  if (!config.allowOpenRegistration) throw systemMessages.openRegistrationDisabled.error();
  const body = call.body ?? {};
  // A form's blank name or username is none: the name is then made up (below), the username left unset.
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const form = body as Record<string, unknown>;
    for (const field of ['name', 'username']) if (form[field] === '') delete form[field];
  }
  assertValid(registrationSchema, body, '', 'registration');
  const fields = body as Record<string, string | undefined>;
  const password = fields.password ?? fields.new_password;
  if (password === undefined) throw systemMessages.fieldRequired.error('password');
  if (fields.password_confirmation !== undefined && fields.password_confirmation !== password) {
    throw new BadRequestError('The password confirmation does not match.', { field: 'password_confirmation' });
  }
  const email = fields.email as string;
  const name = fields.name ?? ([fields.first_name, fields.last_name].filter(Boolean).join(' ') || email.split('@')[0]);
  const record = {
    name,
    email,
    password,
    ...(fields.first_name !== undefined ? { first_name: fields.first_name } : {}),
    ...(fields.last_name !== undefined ? { last_name: fields.last_name } : {}),
    ...(fields.username !== undefined ? { username: fields.username } : {}),
    ...(fields.phone !== undefined ? { phone: fields.phone } : {}),
    user_to_app_to_role_by_user_id: await registrationRoles(ctx, config),
  };
  // The same checks, hashing and uniqueness as an administrator creating the user; the roles are the user service's
  // (which an administrator chose), not the anonymous caller's to give (resources/role-width-guard.ts).
  const created = await serveResource(
    ctx,
    userBehaviour,
    { ...call, auth: adminContext(), verb: 'POST', query: {}, body: { resource: [record] } },
    undefined,
  );
  const id = (created.body as { resource: Array<{ id: number }> }).resource[0].id;
  // With an email service named for registrations, the new user is told (reference 5.14). A registration
  // answered with an error stores no user: one that cannot be told is deleted again, so that the same
  // email can register once the mail goes out.
  if (config.openRegEmailServiceId !== null) {
    const choice = { serviceId: config.openRegEmailServiceId, templateId: config.openRegEmailTemplateId };
    await mailOrUndo(
      () =>
        sendTemplateMail(ctx, 'User Registration Default', { email, name }, { first_name: fields.first_name || name, name, email }, choice),
      () => removeCommitted(ctx, userBehaviour, { ...call, auth: adminContext() }, [id]),
    );
  }
  if (!toBool(pick(call.query, 'login'))) return { status: 201, body: { success: true } };
  return { status: 201, body: { success: true, session_token: await issueSessionToken(ctx, id) } };
}
