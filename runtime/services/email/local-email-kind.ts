/**
 * The `local_email` kind: every message is written as a JSON file in a directory (relative to the
 * platform directory), for development and tests. POST /api/v2/{service} sends one message.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BODY_LIMIT } from '../request-body.js';
import type { ServiceKind } from '../service-kind.js';
import { EmailHandler, emailOpenApi, mergeParameters } from './email-handler.js';
import type { MailMessage } from './mail-message.js';

const DEFAULT_DIRECTORY = 'data/mail';
const SUMMARY = "Send an email (written as a file in the service's directory).";

const configSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    directory: {
      type: 'string',
      minLength: 1,
      default: DEFAULT_DIRECTORY,
      description: 'Directory for message files, relative to the platform directory.',
    },
  },
};

class LocalEmailHandler extends EmailHandler {
  constructor(
    name: string,
    private readonly directory: string,
    settings: ConstructorParameters<typeof EmailHandler>[1],
  ) {
    super(name, settings, SUMMARY);
  }

  async send(message: MailMessage): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true });
    // Time first, so that a listing of the directory reads in sending order.
    const file = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`;
    const { attachments, ...rest } = message;
    const stored = attachments
      ? {
          ...rest,
          attachments: attachments.map((a) => ({
            filename: a.filename,
            content_type: a.contentType ?? null,
            content: a.content.toString('base64'),
          })),
        }
      : rest;
    await fs.writeFile(path.join(this.directory, file), `${JSON.stringify(stored, null, 2)}\n`, { flag: 'wx' });
  }
}

export const localEmailKind: ServiceKind = {
  type: 'local_email',
  label: 'Local Email Service',
  group: 'Email',
  description: 'Writes each message as a file in a directory.',
  configSchema,
  rawBody: true,
  describe: () => emailOpenApi(SUMMARY),
  async open(service, ctx) {
    const config = ctx.resolveEnv(service.config);
    const directory = typeof config.directory === 'string' && config.directory !== '' ? config.directory : DEFAULT_DIRECTORY;
    return new LocalEmailHandler(service.name, path.resolve(ctx.baseDir, directory), {
      parameters: mergeParameters(config.parameters),
      templates: ctx.emailTemplates,
      readServiceFile: ctx.readServiceFile,
      defaultFrom: null,
      bodyLimit: ctx.bodyLimit ?? DEFAULT_BODY_LIMIT,
    });
  },
};
