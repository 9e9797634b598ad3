/**
 * Email messages as the email services take them: addresses in any of the forms clients send
 * (`a@b.io`, `Ada <a@b.io>`, `{email, name}`, arrays, comma-separated strings) and templates
 * whose `{placeholders}` are filled from data.
 */
import { BadRequestError } from '../../core/errors.js';

export interface Address {
  email: string;
  name?: string;
}

export interface MailMessage {
  to: Address[];
  cc: Address[];
  bcc: Address[];
  from: Address | null;
  reply_to: Address | null;
  subject: string;
  body_text: string;
  body_html: string;
  /** Files sent with the message (reference 3.4: uploads and URLs). */
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType?: string;
}

/** A service handler that can send mail (the email kinds' handlers are). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export function isMailer(handler: object): handler is Mailer {
  return typeof (handler as Partial<Mailer>).send === 'function';
}

/**
 * An address without the characters mail syntax gives a meaning (RFC 5322 specials): nodemailer
 * read `:a(b@c.io` as a group and a comment, was left with no recipient, and the send was a 502.
 */
const EMAIL = String.raw`[^\s"(),:;<>@\[\]\\]+@[^\s"(),:;<>@\[\]\\]+`;
/** `Ada <a@b.io>` or `a@b.io`; a line break is no part of one (`a@b.io\r\nRCPT TO:<x@y.io>` named x@y.io). */
const ADDRESS = new RegExp(`^\\s*(?:"?([^"<\\r\\n]*?)"?\\s*<(${EMAIL})>|(${EMAIL}))\\s*$`);

/** The longest address SMTP carries (RFC 5321 4.5.3.1: a path of 256 octets, brackets included) and local part (64). */
const MAX_ADDRESS = 254;
const MAX_LOCAL_PART = 64;

/** A value as an error message shows it: long ones cut (a 70,000-character address came back whole). */
const shown = (value: string) => (value.length > 100 ? `${value.slice(0, 100)}…` : value);

function oneAddress(value: unknown, field: string): Address {
  if (typeof value === 'string') {
    const match = ADDRESS.exec(value);
    if (!match) throw new BadRequestError(`Field '${field}' holds an invalid email address: '${shown(value)}'.`, { field });
    const email = match[2] ?? match[3];
    // Longer, the SMTP server dropped the connection: a 503 saying the server was unreachable.
    if (Buffer.byteLength(email) > MAX_ADDRESS || Buffer.byteLength(email.slice(0, email.lastIndexOf('@'))) > MAX_LOCAL_PART) {
      throw new BadRequestError(
        `Field '${field}' holds an email address longer than SMTP allows (${MAX_LOCAL_PART} bytes before the @, ${MAX_ADDRESS} in all): '${shown(email)}'.`,
        { field },
      );
    }
    return match[2] ? { email: match[2], ...(match[1] ? { name: match[1].trim() } : {}) } : { email: match[3] };
  }
  if (value !== null && typeof value === 'object' && typeof (value as Address).email === 'string') {
    const { email, name } = value as Address;
    return { ...oneAddress(email, field), ...(typeof name === 'string' && name !== '' ? { name } : {}) };
  }
  throw new BadRequestError(`Field '${field}' must be an email address, an {email, name} object, or a list of them.`, { field });
}

/** The addresses of a field: absent is none. */
export function addresses(value: unknown, field: string): Address[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.map((item, index) => oneAddress(item, `${field}[${index}]`));
  if (typeof value === 'string')
    return value
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => oneAddress(part, field));
  return [oneAddress(value, field)];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Fills `{name}` placeholders from a record or a lookup function; unknown ones stay as written.
 * HTML bodies get escaped values.
 */
export function fillTemplate(
  text: string,
  data: Readonly<Record<string, string>> | ((name: string) => string | undefined),
  html = false,
): string {
  const lookup = typeof data === 'function' ? data : (name: string) => (Object.hasOwn(data, name) ? data[name] : undefined);
  return text.replace(/\{([A-Za-z_][\w.]*)\}/g, (whole, name: string) => {
    const value = lookup(name);
    if (value === undefined) return whole;
    return html ? escapeHtml(value) : value;
  });
}
