/**
 * The `local_email` kind: every message is written as a JSON file in a directory (relative to the
 * platform directory), for development and tests. POST /api/v2/{service} sends one message.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BadRequestError } from '../../core/errors.js';
import type { SchemaObject } from 'openapi3-ts/oas30';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { jsonOperation } from '../../openapi/operation-builder.js';
import type { ServiceHandler, ServiceKind } from '../service-kind.js';
import { addresses, type Mailer, type MailMessage } from './mail-message.js';
import { coreMessages } from '../../core/messages.js';

const DEFAULT_DIRECTORY = 'data/mail';

const configSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    directory: { type: 'string', minLength: 1, default: DEFAULT_DIRECTORY, description: 'Directory for message files, relative to the platform directory.' },
  },
};

const messageSchema: SchemaObject = {
  type: 'object',
  properties: {
    to: { description: 'Recipients: addresses, `{email, name}` objects, or a comma-separated string.' },
    cc: {}, bcc: {},
    subject: { type: 'string' }, body_text: { type: 'string' }, body_html: { type: 'string' },
    from_name: { type: 'string' }, from_email: { type: 'string' }, reply_to_name: { type: 'string' }, reply_to_email: { type: 'string' },
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
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The request body must be a JSON object describing the message.');
  const fields = body as Record<string, unknown>;
  const sender = (emailField: string, nameField: string) => {
    const email = text(fields, emailField);
    if (email === '') return null;
    const [address] = addresses(email, emailField);
    const name = text(fields, nameField);
    return name ? { ...address, name } : address;
  };
  const message: MailMessage = {
    to: addresses(fields.to, 'to'), cc: addresses(fields.cc, 'cc'), bcc: addresses(fields.bcc, 'bcc'),
    from: sender('from_email', 'from_name'), reply_to: sender('reply_to_email', 'reply_to_name'),
    subject: text(fields, 'subject'), body_text: text(fields, 'body_text'), body_html: text(fields, 'body_html'),
  };
  if (message.to.length + message.cc.length + message.bcc.length === 0) throw new BadRequestError("Field 'to' is required: the message has no recipient.", { field: 'to' });
  return message;
}

class LocalEmailHandler implements ServiceHandler, Mailer {
  constructor(private readonly name: string, private readonly directory: string) {}

  async send(message: MailMessage): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true });
    // Time first, so that a listing of the directory reads in sending order.
    const file = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`;
    await fs.writeFile(path.join(this.directory, file), `${JSON.stringify(message, null, 2)}\n`, { flag: 'wx' });
  }

  async handle(call: Parameters<ServiceHandler['handle']>[0]) {
    if (call.resource.length > 0) throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), this.name);
    if (call.verb !== 'POST') throw coreMessages.verbNotSupported.error(call.verb, '', this.name);
    const message = messageFromBody(call.body);
    await this.send(message);
    return { body: { count: message.to.length + message.cc.length + message.bcc.length } };
  }

  openapi(): OpenApiFragment {
    return {
      paths: {
        '/': {
          post: jsonOperation({
            operationId: 'sendEmail',
            summary: 'Send an email (written as a file in the service\'s directory).',
            body: { description: 'The message.', schema: messageSchema },
            response: { description: 'How many recipients the message had.', schema: { type: 'object', properties: { count: { type: 'integer' } } } },
          }),
        },
      },
      components: {},
    };
  }

  async close(): Promise<void> {}
}

export const localEmailKind: ServiceKind = {
  type: 'local_email',
  label: 'Local Email Service',
  group: 'Email',
  description: 'Writes each message as a file in a directory.',
  configSchema,
  async open(service, ctx) {
    const config = ctx.resolveEnv(service.config);
    const directory = typeof config.directory === 'string' && config.directory !== '' ? config.directory : DEFAULT_DIRECTORY;
    return new LocalEmailHandler(service.name, path.resolve(ctx.baseDir, directory));
  },
};
