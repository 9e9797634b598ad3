/**
 * The `smtp_email` kind (reference service-types.md §3.1): messages sent through an SMTP server
 * with nodemailer. `encryption`: `tls`/`ssl` is TLS from the first byte (port 465 style),
 * `starttls` requires the upgrade, empty upgrades when the server offers it. Auth when both
 * username and password are set. A refused login or an unreachable server is 503.
 */
import type { Transporter } from 'nodemailer';
import { BadRequestError, InternalServerError, ServiceUnavailableError } from '../../core/errors.js';
import { backendError, networkCode } from '../remote-errors.js';
import { DEFAULT_BODY_LIMIT } from '../request-body.js';
import type { ServiceKind } from '../service-kind.js';
import { EmailHandler, emailOpenApi, mergeParameters } from './email-handler.js';
import type { Address, MailMessage } from './mail-message.js';

const SUMMARY = 'Send an email through the SMTP server.';

const configSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['host'],
  properties: {
    host: { type: 'string', minLength: 1, description: 'SMTP server host name or address.' },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 587, title: 'Port', description: 'SMTP Port (default: 587).' },
    encryption: {
      enum: ['', 'tls', 'ssl', 'starttls'],
      default: '',
      description: 'SMTP Encryption: tls or ssl (TLS from the first byte), starttls (upgrade required), or empty (upgrade when offered).',
    },
    username: { type: 'string', description: 'User name to log in with (with password).' },
    password: { type: 'string', format: 'password', description: 'Password to log in with.' },
    ssl_verify: { type: 'boolean', default: true, title: 'Verify Certificate', description: "Check the server's TLS certificate." },
    timeout: { type: 'integer', minimum: 1, default: 30, description: 'Seconds to wait for the server.' },
    from_email: { type: 'string', description: 'Sender of messages that name none.' },
    from_name: { type: 'string', description: 'Sender name of messages that name none.' },
    parameters: {
      type: 'array',
      description: 'Supply additional parameters to be replaced in the email body.',
      items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' }, active: { type: 'boolean' } } },
    },
  },
};

/** The key under which a send hands its `{ over }` flag to the transport's 'stream' plugin (nodemailer keeps unknown fields in mail.data). */
const HANDED = 'porticoHanded';

const address = (a: Address) => (a.name ? { name: a.name, address: a.email } : a.email);

/** What nodemailer's error of a permanent refusal holds: the SMTP command refused and the server's reply. */
interface SmtpRefusal {
  command?: string;
  response?: string;
}

const REFUSED_PART: Record<string, string> = {
  'MAIL FROM': "the message's sender",
  'RCPT TO': 'every recipient of the message',
};

/**
 * A permanent refusal in our words, with the server's reply (`550 5.1.1 Mailbox unknown`), which
 * says what to change; nodemailer's own prefix ("Can't send mail - all recipients were rejected")
 * is left to the error's cause.
 */
function refusalText(service: string, error: SmtpRefusal): string {
  const reply = (error.response ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
  const part = REFUSED_PART[error.command ?? ''] ?? 'the message';
  return `The SMTP server of service '${service}' refused ${part}${reply === '' ? '.' : `; it answered '${reply}'.`}`;
}

class SmtpEmailHandler extends EmailHandler {
  constructor(
    name: string,
    private readonly transport: Transporter,
    settings: ConstructorParameters<typeof EmailHandler>[1],
  ) {
    super(name, settings, SUMMARY);
  }

  async send(message: MailMessage): Promise<void> {
    // Set once the whole message was handed to the connection (the transport's 'stream' plugin, below).
    const handed = { over: false };
    try {
      await this.transport.sendMail({
        ...({ [HANDED]: handed } as object),
        to: message.to.map(address),
        cc: message.cc.map(address),
        bcc: message.bcc.map(address),
        ...(message.from ? { from: address(message.from) } : {}),
        ...(message.reply_to ? { replyTo: address(message.reply_to) } : {}),
        subject: message.subject,
        ...(message.body_text ? { text: message.body_text } : {}),
        ...(message.body_html ? { html: message.body_html } : {}),
        attachments: (message.attachments ?? []).map((a) => ({
          filename: a.filename,
          content: a.content,
          ...(a.contentType ? { contentType: a.contentType } : {}),
        })),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      const responseCode = (error as { responseCode?: number }).responseCode ?? 0;
      // The connection lost, or silent for the timeout, once the server had the whole message and
      // before it answered: it may have taken (and sent) it. Said so, as a lost database commit is,
      // rather than 'unreachable', which a client takes as safe to send again.
      if (handed.over && responseCode === 0 && (code === 'ECONNECTION' || code === 'ETIMEDOUT' || networkCode(error) !== null)) {
        const unknown = new ServiceUnavailableError(
          `The SMTP server of service '${this.name}' ${code === 'ETIMEDOUT' ? 'did not answer within the timeout' : 'dropped the connection'} after it was handed the whole message, before it confirmed it: the message may or may not have been sent. Check before sending it again.`,
        );
        unknown.cause = error;
        throw unknown;
      }
      if (code === 'EENVELOPE' && responseCode >= 500 && responseCode < 600 && responseCode !== 530) {
        const refused = new BadRequestError(refusalText(this.name, error as SmtpRefusal));
        refused.cause = error;
        throw refused;
      }
      // A transient reply (4xx: 421 closing, 450 busy, 451 local error, 452 out of storage) says "not now": the service is unavailable, not broken.
      if (responseCode >= 400 && responseCode < 500 && code !== 'EAUTH') {
        const unavailable = new ServiceUnavailableError(
          `The SMTP server of service '${this.name}' cannot take the message now (reply ${responseCode}); try again later.`,
        );
        unavailable.cause = error;
        throw unavailable;
      }
      throw backendError('SMTP', this.name, error, {
        login: code === 'EAUTH' || responseCode === 530 || responseCode === 535,
        network:
          networkCode(error) ??
          (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'ETIMEDOUT' || code === 'EDNS' || code === 'ETLS' ? code : null),
        attempt: 'send the message',
      });
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

export const smtpEmailKind: ServiceKind = {
  type: 'smtp_email',
  label: 'SMTP',
  group: 'Email',
  description: 'SMTP-based email service',
  configSchema,
  rawBody: true,
  describe: () => emailOpenApi(SUMMARY),
  async open(service, ctx) {
    const config = ctx.resolveEnv(service.config) as Record<string, unknown>;
    const host = typeof config.host === 'string' ? config.host.trim() : '';
    if (host === '') throw new InternalServerError('Missing SMTP host. Check service configuration.');
    const port = Number(config.port ?? 587);
    if (!Number.isInteger(port) || port <= 0) throw new InternalServerError('Missing SMTP port. Check service configuration.');
    const encryption = typeof config.encryption === 'string' ? config.encryption.toLowerCase() : '';
    const timeout = Number(config.timeout ?? 30) * 1000;
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({
      host,
      port,
      secure: encryption === 'tls' || encryption === 'ssl',
      requireTLS: encryption === 'starttls',
      ...(config.username && config.password ? { auth: { user: String(config.username), pass: String(config.password) } } : {}),
      tls: { rejectUnauthorized: config.ssl_verify !== false },
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    // The message stream's end: every byte of the message went to the connection (the final dot follows at once).
    transport.use('stream', (mail, done) => {
      const handed = (mail.data as Record<string, unknown>)[HANDED] as { over: boolean } | undefined;
      if (handed !== undefined)
        mail.message.processFunc((input) => {
          input.once('end', () => {
            handed.over = true;
          });
          return input;
        });
      done();
    });
    const fromEmail = typeof config.from_email === 'string' && config.from_email !== '' ? config.from_email : null;
    return new SmtpEmailHandler(service.name, transport, {
      parameters: mergeParameters(config.parameters),
      templates: ctx.emailTemplates,
      readServiceFile: ctx.readServiceFile,
      defaultFrom: fromEmail
        ? { email: fromEmail, ...(typeof config.from_name === 'string' && config.from_name ? { name: config.from_name } : {}) }
        : null,
      bodyLimit: ctx.bodyLimit ?? DEFAULT_BODY_LIMIT,
    });
  },
};
