/**
 * What a POST to an email service asks for (reference service-types.md §3.2): the message fields
 * from a JSON or multipart body (or, with no body, the query), a template by name or id from
 * /system/email_template, `{field}` merge data (service parameters < template < request) and the
 * caller's lookups in subject and bodies, attachments uploaded as multipart files or fetched from
 * `import_url` / `attachment` URLs.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../../core/errors.js';
import { pick } from '../../core/query-params.js';
import { eachUploadedFile, isMultipart } from '../multipart.js';
import { header, readAll, readJson } from '../request-body.js';
import type { EmailTemplateStore, RuntimeContext, ServiceCall } from '../service-kind.js';
import { fillTemplate, type MailAttachment, type MailMessage } from './mail-message.js';
import { messageFromBody } from './message-body.js';
import { decodePercent } from '../../core/percent-decoding.js';
import { shownUrl, withoutUrlSecrets } from '../../core/shown-url.js';

/** Largest attachment total of one message. */
const MAX_ATTACHMENTS = 25 * 1024 * 1024;
const MESSAGE_FIELDS = new Set([
  'to',
  'cc',
  'bcc',
  'subject',
  'body_text',
  'body_html',
  'from_name',
  'from_email',
  'reply_to_name',
  'reply_to_email',
]);

export interface EmailServiceSettings {
  /** The service's `parameters`: merge fields of every message. */
  parameters: Record<string, string>;
  templates?: EmailTemplateStore;
  /** Sender of messages that name none. */
  defaultFrom: { email: string; name?: string } | null;
  readServiceFile?: RuntimeContext['readServiceFile'];
  /** Largest JSON body in bytes: the server's configured body limit (413 beyond). */
  bodyLimit: number;
}

async function readBody(call: ServiceCall, attachments: MailAttachment[], bodyLimit: number): Promise<Record<string, unknown>> {
  if (!call.stream)
    return call.body !== undefined && call.body !== null && typeof call.body === 'object' ? (call.body as Record<string, unknown>) : {};
  if (isMultipart(header(call.headers, 'content-type'))) {
    let total = 0;
    return eachUploadedFile(
      call.stream,
      call.headers,
      async (part) => {
        const content = await readAll(part.stream, MAX_ATTACHMENTS - total);
        total += content.length;
        attachments.push({ filename: part.filename || 'attachment', content, ...(part.mimeType ? { contentType: part.mimeType } : {}) });
      },
      // The attachments, and room for the message's fields.
      MAX_ATTACHMENTS + 8 * 1024 * 1024,
    );
  }
  const json = await readJson(call.stream, bodyLimit);
  if (json === undefined) return {};
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new BadRequestError('The request body must be a JSON object describing the message.');
  return json as Record<string, unknown>;
}

/** The last segment of a URL's path, decoded when it can be (`a%zz` stays as written). */
function lastSegment(url: URL): string {
  const segment = url.pathname.split('/').pop() || 'attachment';
  return decodePercent(segment) ?? segment;
}

/**
 * An attachment fetched from a URL, read up to `max` bytes (413 beyond: an endless answer was
 * buffered whole until the timeout); a failure while reading it is a 400 like one before it.
 */
async function fetchAttachment(url: string, max: number): Promise<MailAttachment> {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new BadRequestError(`Failed to import attachment file from url. '${shownUrl(url)}' is not a URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new BadRequestError('Failed to import attachment file from url. Only http and https URLs are imported.');
  let response: Response;
  try {
    response = await fetch(parsed, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new BadRequestError(`Failed to import attachment file from url. ${withoutUrlSecrets((error as Error).message)}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new BadRequestError(`Failed to import attachment file from url. The server answered ${response.status}.`);
  }
  let content: Buffer;
  try {
    content = await readAll(response.body ? Readable.fromWeb(response.body as WebReadableStream) : undefined, max);
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    if (error instanceof PayloadTooLargeError) throw new PayloadTooLargeError('The attachment is too large.');
    throw new BadRequestError(`Failed to import attachment file from url. ${withoutUrlSecrets((error as Error).message)}`);
  }
  return {
    filename: lastSegment(parsed),
    content,
    ...(response.headers.get('content-type') ? { contentType: response.headers.get('content-type') as string } : {}),
  };
}

type AttachmentRef = { url: string } | { service: string; path: string };

/** `import_url` / `attachment` values: URLs (lists, comma-separated) and `{service, path}` of file services. */
function attachmentRefs(value: unknown): AttachmentRef[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean)
      .map((url) => ({ url }));
  if (Array.isArray(value)) return value.flatMap(attachmentRefs);
  if (value !== null && typeof value === 'object') {
    const ref = value as Record<string, unknown>;
    const path = ref.path ?? ref.file_path;
    if (typeof ref.service !== 'string' || typeof path !== 'string' || ref.service === '' || path === '') {
      throw new BadRequestError('Failed to get attachment file from storage service. No service name and file path provided in request.');
    }
    return [{ service: ref.service, path }];
  }
  return [];
}

const strings = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

/** The message a POST asks to send. */
export async function emailFromCall(call: ServiceCall, settings: EmailServiceSettings): Promise<MailMessage> {
  const attachments: MailAttachment[] = [];
  let body = await readBody(call, attachments, settings.bodyLimit);
  // With no body, the query is the request (a send by URL alone).
  if (Object.keys(body).length === 0 && attachments.length === 0)
    body = Object.fromEntries(
      Object.entries(call.query).map(([key, value]) => [key, Array.isArray(value) ? value[value.length - 1] : value]),
    );
  const templateName = body.template ?? pick(call.query, 'template');
  const templateId = body.template_id ?? pick(call.query, 'template_id');
  // An object or a list named no template: the 404 said `Email Template '[object Object]' not found`.
  for (const [field, value] of [
    ['template', templateName],
    ['template_id', templateId],
  ] as const) {
    if (value !== undefined && typeof value !== 'string' && typeof value !== 'number')
      throw new BadRequestError(`Field '${field}' must be the ${field === 'template' ? 'name' : 'id'} of an email template.`, { field });
  }
  let template: Record<string, unknown> = {};
  if (templateName !== undefined || templateId !== undefined) {
    const found =
      templateName !== undefined
        ? await settings.templates?.find({ name: String(templateName) })
        : await settings.templates?.find({ id: Number(templateId) });
    if (!found)
      throw new NotFoundError(
        templateName !== undefined ? `Email Template '${templateName}' not found` : `Email Template id '${templateId}' not found`,
      );
    template = Object.fromEntries(
      Object.entries(found).filter(
        ([key, value]) => MESSAGE_FIELDS.has(key) && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0),
      ),
    );
  } else if (Object.keys(body).filter((key) => MESSAGE_FIELDS.has(key)).length === 0) {
    throw new BadRequestError('No valid data in request.');
  }
  const fields: Record<string, unknown> = { ...template, ...body };
  if ((fields.from_email === undefined || fields.from_email === '') && settings.defaultFrom) {
    fields.from_email = settings.defaultFrom.email;
    if (fields.from_name === undefined && settings.defaultFrom.name) fields.from_name = settings.defaultFrom.name;
  }
  const message = messageFromBody(fields);
  const data = { ...settings.parameters, ...strings(template), ...strings(body) };
  const fill = (text: string, html: boolean) => {
    const merged = fillTemplate(text, data, html);
    return call.auth.lookup ? fillTemplate(merged, call.auth.lookup, html) : merged;
  };
  message.subject = fill(message.subject, false);
  message.body_text = fill(message.body_text, false);
  message.body_html = fill(message.body_html, true);
  const attached = () => attachments.reduce((sum, item) => sum + item.content.length, 0);
  for (const ref of [...attachmentRefs(body.import_url), ...attachmentRefs(body.attachment)]) {
    if ('url' in ref) attachments.push(await fetchAttachment(ref.url, MAX_ATTACHMENTS - attached()));
    else {
      if (!settings.readServiceFile)
        throw new BadRequestError('Failed to get attachment file from storage service. No file services here.');
      attachments.push(await settings.readServiceFile(ref.service, ref.path, call.auth, MAX_ATTACHMENTS - attached()));
    }
  }
  if (attachments.length > 0) message.attachments = attachments;
  return message;
}
