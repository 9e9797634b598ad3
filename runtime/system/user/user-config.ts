/**
 * The `user` service's config (reference 5.14, df-user): open registration, the role registering
 * users get (for every app, or per app), and the email service and template of each message the
 * service sends. platform.yaml seeds it (`system.allow_open_registration`, ...); administrators
 * change it through /system/service like any other service config.
 */
import type { PlatformContext } from '../../http/platform-context.js';
import { nullableId, recordId } from '../record-resources/resource-definition.js';

const id = (title: string, description: string) => ({ ...nullableId, default: null, title, description });

/** JSON Schema of the `user` service's config. */
export const userConfigSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: true,
  properties: {
    allow_open_registration: {
      type: 'boolean',
      default: false,
      title: 'Allow Open Registration',
      description: 'Anyone may create an account through POST /user/register.',
    },
    open_reg_role_id: id('Open Reg Role', 'Role a self-registered user gets for every app (unless app_role_map names one for the app).'),
    open_reg_email_service_id: id('Open Reg Email Service', 'Email service of the registration message.'),
    open_reg_email_template_id: id('Open Reg Email Template', 'Email template of the registration message.'),
    invite_email_service_id: id('Invite Email Service', 'Email service of invitations.'),
    invite_email_template_id: id('Invite Email Template', 'Email template of invitations.'),
    password_email_service_id: id('Password Email Service', 'Email service of password-reset messages.'),
    password_email_template_id: id('Password Email Template', 'Email template of password-reset messages.'),
    app_role_map: {
      type: 'array',
      title: 'App Role Map',
      default: [],
      description: 'Role a self-registered user gets for one app, instead of the open registration role.',
      items: {
        type: 'object',
        additionalProperties: true,
        required: ['app_id', 'role_id'],
        properties: {
          app_id: { ...recordId, title: 'App' },
          role_id: { ...recordId, title: 'Role' },
        },
      },
    },
  },
};

export interface UserServiceConfig {
  allowOpenRegistration: boolean;
  openRegRoleId: number | null;
  openRegEmailServiceId: number | null;
  openRegEmailTemplateId: number | null;
  inviteEmailServiceId: number | null;
  inviteEmailTemplateId: number | null;
  passwordEmailServiceId: number | null;
  passwordEmailTemplateId: number | null;
  appRoleMap: Array<{ app_id: number; role_id: number }>;
}

const idOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

/** The live config of the platform's `user` service (as last saved). */
export function userServiceConfig(ctx: PlatformContext): UserServiceConfig {
  const service = ctx.services.list().find((s) => s.type === 'user');
  const config = service?.config ?? {};
  const map = Array.isArray(config.app_role_map) ? (config.app_role_map as Array<Record<string, unknown>>) : [];
  return {
    allowOpenRegistration: config.allow_open_registration === true,
    openRegRoleId: idOrNull(config.open_reg_role_id),
    openRegEmailServiceId: idOrNull(config.open_reg_email_service_id),
    openRegEmailTemplateId: idOrNull(config.open_reg_email_template_id),
    inviteEmailServiceId: idOrNull(config.invite_email_service_id),
    inviteEmailTemplateId: idOrNull(config.invite_email_template_id),
    passwordEmailServiceId: idOrNull(config.password_email_service_id),
    passwordEmailTemplateId: idOrNull(config.password_email_template_id),
    appRoleMap: map.flatMap((entry) => {
      const app = idOrNull(entry.app_id);
      const role = idOrNull(entry.role_id);
      return app !== null && role !== null ? [{ app_id: app, role_id: role }] : [];
    }),
  };
}
