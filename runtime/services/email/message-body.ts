/** The message fields of an email request body (reference 3.2), checked, and their OpenAPI schema. */
import type { SchemaObject } from 'openapi3-ts/oas30';
import { BadRequestError } from '../../core/errors.js';
import { coreMessages } from '../../core/messages.js';
import { addresses, type MailMessage } from './mail-message.js';

export const messageSchema: SchemaObject = {
  type: 'object',
  properties: {
    to: { description: 'Recipients: addresses, `{email, name}` objects, or a comma-separated string.' },
    cc: {},
    bcc: {},
    subject: { type: 'string' },
    body_text: { type: 'string' },
    body_html: { type: 'string' },
    from_name: { type: 'string' },
    from_email: { type: 'string' },
    reply_to_name: { type: 'string' },
    reply_to_email: { type: 'string' },
  },
};

function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw coreMessages.fieldNotString.error(field);
  return value;
}

/** The message of a POST body (reference email service fields). */
export function messageFromBody(body: unknown): MailMessage {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequestError('The request body must be a JSON object describing the message.');
  const fields = body as Record<string, unknown>;
  const sender = (emailField: string, nameField: string) => {
    const email = text(fields, emailField);
    if (email === '') return null;
    const [address] = addresses(email, emailField);
    const name = text(fields, nameField);
    return name ? { ...address, name } : address;
  };
  const message: MailMessage = {
    to: addresses(fields.to, 'to'),
    cc: addresses(fields.cc, 'cc'),
    bcc: addresses(fields.bcc, 'bcc'),
    from: sender('from_email', 'from_name'),
    reply_to: sender('reply_to_email', 'reply_to_name'),
    subject: text(fields, 'subject'),
    body_text: text(fields, 'body_text'),
    body_html: text(fields, 'body_html'),
  };
  if (message.to.length + message.cc.length + message.bcc.length === 0)
    throw new BadRequestError("Field 'to' is required: the message has no recipient.", { field: 'to' });
  return message;
}
