/**
 * What the email kinds share: POST /api/v2/{service} sends one message (email-request.ts), other
 * verbs and sub-paths are 400; the answer is `{"count": n}` with n the recipients the message went
 * to; the OpenAPI document; `send` for the platform's own mail (password reset, ...).
 */
import type { SchemaObject } from 'openapi3-ts/oas30';
import { coreMessages } from '../../core/messages.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { componentRef, jsonContent } from '../../openapi/shared-components.js';
import type { ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import { emailFromCall, type EmailServiceSettings } from './email-request.js';
import type { Mailer, MailMessage } from './mail-message.js';
import { messageSchema } from './message-body.js';

export abstract class EmailHandler implements ServiceHandler, Mailer {
  constructor(
    protected readonly name: string,
    private readonly settings: EmailServiceSettings,
    private readonly summary: string,
  ) {}

  abstract send(message: MailMessage): Promise<void>;

  async handle(call: ServiceCall): Promise<ServiceResult> {
    try {
      if (call.resource.length > 0) throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), this.name);
      if (call.verb !== 'POST') throw coreMessages.verbNotSupported.error(call.verb, '', this.name);
      const message = await emailFromCall(call, this.settings);
      await this.send(message);
      return { body: { count: message.to.length + message.cc.length + message.bcc.length } };
    } finally {
      call.stream?.resume();
    }
  }

  openapi(): OpenApiFragment {
    return emailOpenApi(this.summary);
  }

  async close(): Promise<void> {}
}

const requestSchema: SchemaObject = {
  ...messageSchema,
  properties: {
    ...messageSchema.properties,
    template: { type: 'string', description: 'Name of an email template (/system/email_template) whose fields the request completes.' },
    template_id: { type: 'integer', description: 'Id of an email template.' },
    import_url: { description: 'URL (or list, or comma-separated URLs) of files to attach.' },
    attachment: { description: 'Same as import_url.' },
  },
  additionalProperties: {
    type: 'string',
    description: 'Any other field is merge data: `{field}` in subject and bodies is replaced by its value.',
  },
};

export function emailOpenApi(summary: string): OpenApiFragment {
  return {
    paths: {
      '/': {
        post: {
          operationId: 'sendEmail',
          summary,
          description:
            "Sends one message. Subject and bodies take `{field}` merge data (service parameters, the template, the request) and the caller's lookups. Multipart requests send the fields as form fields and attach every uploaded file. With no body, the query parameters are the request.",
          parameters: [
            { name: 'template', in: 'query', required: false, description: 'Email template name.', schema: { type: 'string' } },
            { name: 'template_id', in: 'query', required: false, description: 'Email template id.', schema: { type: 'integer' } },
          ],
          requestBody: {
            required: false,
            description: 'The message.',
            content: {
              ...jsonContent(componentRef('schemas', 'EmailRequest')),
              'multipart/form-data': { schema: componentRef('schemas', 'EmailForm') },
            },
          },
          responses: {
            200: {
              description: 'How many recipients the message went to.',
              content: jsonContent(componentRef('schemas', 'EmailResponse')),
            },
          },
        },
      },
    },
    components: {
      schemas: {
        EmailRequest: structuredClone(requestSchema),
        EmailForm: {
          type: 'object',
          additionalProperties: true,
          description: 'The fields of the message as form fields; every uploaded file is attached.',
        },
        EmailResponse: { type: 'object', properties: { count: { type: 'integer', description: 'Recipients the message went to.' } } },
      },
    },
  };
}

/** The service's `parameters` (`[{name, value}]` or a map) as merge fields. */
export function mergeParameters(value: unknown): Record<string, string> {
  if (Array.isArray(value)) {
    return Object.fromEntries(
      value.filter((p): p is { name: string; value: unknown } => typeof p?.name === 'string').map((p) => [p.name, String(p.value ?? '')]),
    );
  }
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v ?? '')]));
  return {};
}
