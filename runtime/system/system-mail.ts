/**
 * Mail the platform sends itself (password-reset codes, registration) through the built-in
 * `email` service, from the email templates of /system/email_template; a committed write whose
 * mail cannot go out is taken back (mailOrUndo).
 */
import type { PlatformContext } from '../http/platform-context.js';
import { fillTemplate, isMailer, type Address } from '../services/email/mail-message.js';
import { systemMessages } from './system-messages.js';

/** The service platform mail goes through. */
export const SYSTEM_MAIL_SERVICE = 'email';

export interface TemplateDefaults {
  name: string;
  description: string;
  subject: string;
  body_text: string;
  body_html: string;
}

/** Templates every platform starts with (reference 10); their text may be changed through the API. */
export const DEFAULT_TEMPLATES: readonly TemplateDefaults[] = [
  {
    name: 'Password Reset Default',
    description: 'Sent when a password reset is requested.',
    subject: 'Password reset',
    body_text:
      'Hello {first_name},\n\nYour password reset code is {code}. It expires in {code_ttl_hours} hours.\nSend it with your email and a new password to POST {reset_path}.\n',
    body_html:
      '<p>Hello {first_name},</p><p>Your password reset code is <b>{code}</b>. It expires in {code_ttl_hours} hours.</p><p>Send it with your email and a new password to POST {reset_path}.</p>',
  },
  {
    name: 'User Registration Default',
    description: 'Sent to users who registered themselves.',
    subject: 'Welcome to {platform}',
    body_text: 'Hello {first_name},\n\nyour account {email} on {platform} is ready.\n',
    body_html: '<p>Hello {first_name},</p><p>your account {email} on {platform} is ready.</p>',
  },
  {
    name: 'User Invite Default',
    description: 'Sent to invite a user.',
    subject: 'You are invited to {platform}',
    body_text:
      'Hello {first_name},\n\nyou have been invited to {platform}.\nTo set your password, send your email, the code {code} and a new password to POST {reset_path} within {code_ttl_hours} hours.\n',
    body_html:
      '<p>Hello {first_name},</p><p>you have been invited to {platform}.</p><p>To set your password, send your email, the code <b>{code}</b> and a new password to POST {reset_path} within {code_ttl_hours} hours.</p>',
  },
];

/** The email service and template a message goes through, when configured (the `user` service's config); else the defaults. */
export interface MailChoice {
  serviceId: number | null;
  templateId: number | null;
}

/**
 * Sends the template named `template` (or the configured one) to one recipient, its
 * placeholders filled from `data`, through the `email` service (or the configured one).
 */
export async function sendTemplateMail(
  ctx: PlatformContext,
  template: string,
  to: Address,
  data: Record<string, string>,
  choice: MailChoice = { serviceId: null, templateId: null },
): Promise<void> {
  const serviceName =
    choice.serviceId === null
      ? SYSTEM_MAIL_SERVICE
      : (ctx.services.list().find((s) => s.id === choice.serviceId)?.name ?? `#${choice.serviceId}`);
  const service = ctx.services.get(serviceName);
  const handler = service?.is_active ? await ctx.services.handler(serviceName) : null;
  if (!handler || !isMailer(handler)) throw systemMessages.noMailService.error(template, serviceName);
  const chosen =
    choice.templateId === null
      ? undefined
      : await ctx.db.selectFrom('email_template').selectAll().where('id', '=', choice.templateId).executeTakeFirst();
  const row = chosen ?? (await ctx.db.selectFrom('email_template').selectAll().where('name', '=', template).executeTakeFirst());
  const text = row ?? DEFAULT_TEMPLATES.find((t) => t.name === template);
  if (!text) throw systemMessages.noMailTemplate.error(template);
  const values = { platform: ctx.model.platform.title, ...data };
  const from = row?.from_email ? { email: row.from_email, ...(row.from_name ? { name: row.from_name } : {}) } : null;
  const replyTo = row?.reply_to_email ? { email: row.reply_to_email, ...(row.reply_to_name ? { name: row.reply_to_name } : {}) } : null;
  await handler.send({
    to: [to],
    cc: [],
    bcc: [],
    from,
    reply_to: replyTo,
    subject: fillTemplate(text.subject, values),
    body_text: fillTemplate(text.body_text, values),
    body_html: fillTemplate(text.body_html, values, true),
  });
}

/**
 * The mail step of a write already committed (an invitation, a registration's welcome, a reset
 * code): a request answered with an error stores nothing, so when the mail cannot go out `undo`
 * takes the write back, and the mail's error is the answer. The one way each such write does it.
 */
export async function mailOrUndo(send: () => Promise<void>, undo: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    await undo();
    throw error;
  }
}
