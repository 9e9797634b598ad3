/**
 * The `rws` kind (HTTP Service, group Remote Service; reference service-types.md §2): a remote
 * HTTP API proxied under /api/v2/{service}. Its `_spec` is the remote API's own OpenAPI document
 * when one is configured (`openapi`) or stored (service_doc), else a generic pass-through one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { InternalServerError } from '../../core/errors.js';
import { decodePercent } from '../../core/percent-decoding.js';
import { componentRef } from '../../openapi/shared-components.js';
import { DEFAULT_BODY_LIMIT } from '../request-body.js';
import type { ServiceKind } from '../service-kind.js';
import { headerEntries, parameterEntries, rwsConfigSchema } from './rws-config.js';
import { RwsHandler } from './rws-handler.js';

const ANY_VERB = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The document of a remote without one of its own: any path, any verb, passed through. */
export function passThroughOpenApi(base: string): OpenApiFragment {
  const operation = (verb: string, id: string, withPath: boolean) => ({
    operationId: `${verb}${id}`,
    summary: `${verb.toUpperCase()} ${base}${withPath ? '/{path}' : ''} (passed through).`,
    description:
      "Query, body and headers pass through (the caller's credentials and hop-by-hop headers do not); the remote's status, headers and body come back; an error status comes back in the error envelope with the remote's text as message.",
    ...(withPath
      ? {
          parameters: [
            {
              name: 'path',
              in: 'path' as const,
              required: true,
              description: 'Path under the remote base URL (may hold `/`).',
              schema: { type: 'string' as const },
            },
          ],
        }
      : {}),
    ...(verb === 'get' || verb === 'delete'
      ? {}
      : { requestBody: { required: false, content: { '*/*': { schema: componentRef('schemas', 'PassThroughBody') } } } }),
    responses: {
      200: { description: "The remote's response.", content: { '*/*': { schema: {} } } },
      503: { description: 'The remote is unreachable or did not answer in time.' },
    },
  });
  return {
    paths: {
      '/': Object.fromEntries(ANY_VERB.map((verb) => [verb, operation(verb, 'Root', false)])),
      '/{path}': Object.fromEntries(ANY_VERB.map((verb) => [verb, operation(verb, 'Path', true)])),
    },
    components: { schemas: { PassThroughBody: { description: 'Any body: passed through to the remote as it is.' } } },
  };
}

/** A URL as documents may show it: without user name and password. */
function withoutCredentials(text: string): string {
  const url = URL.parse(text);
  if (!url || (url.username === '' && url.password === '')) return text;
  url.username = '';
  url.password = '';
  return url.href.replace(/\/$/, '');
}

/** An error of ours with the library's (the file system's, a parser's) kept as its cause: the log shows it, the client does not. */
function causedBy<E extends Error>(error: E, cause: unknown): E {
  error.cause = cause;
  return error;
}

/** `source`: which document, as the message names it (a file as configured, not its absolute path). */
async function parseDocument(text: string, service: string, source: string): Promise<unknown> {
  try {
    if (text.trim().startsWith('{')) return JSON.parse(text);
    // YAML documents are rare and the parser is large: loaded when one comes.
    const { default: YAML } = await import('yaml');
    return YAML.parse(text);
  } catch (error) {
    throw causedBy(
      new InternalServerError(
        `The OpenAPI document of service '${service}' (${source}) cannot be read: it is neither valid JSON nor valid YAML.`,
      ),
      error,
    );
  }
}

async function readDocumentFile(baseDir: string, file: string, service: string): Promise<string> {
  try {
    return await fs.readFile(path.resolve(baseDir, file), 'utf8');
  } catch (error) {
    throw causedBy(
      new InternalServerError(
        `The OpenAPI document of service '${service}' (file '${file}') cannot be read: the file is missing or unreadable.`,
      ),
      error,
    );
  }
}

/** The remote API's document as this service's fragment (its servers dropped: the service is the server). */
function fragmentOf(document: unknown): OpenApiFragment | null {
  if (document === null || typeof document !== 'object') return null;
  const doc = document as { openapi?: unknown; paths?: unknown; components?: unknown };
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.') || doc.paths === null || typeof doc.paths !== 'object') return null;
  return { paths: doc.paths as OpenApiFragment['paths'], components: (doc.components ?? {}) as OpenApiFragment['components'] };
}

export const rwsKind: ServiceKind = {
  type: 'rws',
  label: 'HTTP Service',
  group: 'Remote Service',
  description: 'A service to handle Remote Web Services',
  configSchema: rwsConfigSchema,
  rawBody: true,
  describe: (service) => passThroughOpenApi(withoutCredentials(String(service.config.base_url ?? ''))),
  async open(service, ctx) {
    const config = ctx.resolveEnv(service.config) as Record<string, unknown>;
    let baseUrl: URL;
    try {
      baseUrl = new URL(String(config.base_url ?? ''));
    } catch {
      throw new InternalServerError(`Remote Web Service base url can not be empty or invalid (service '${service.name}').`);
    }
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
      throw new InternalServerError(`The base URL of service '${service.name}' must be http or https.`);
    let document: OpenApiFragment | null = null;
    if (typeof config.openapi === 'string' && config.openapi !== '') {
      const text = await readDocumentFile(ctx.baseDir, config.openapi, service.name);
      document = fragmentOf(await parseDocument(text, service.name, `file '${config.openapi}'`));
    } else if (config.openapi && typeof config.openapi === 'object') document = fragmentOf(config.openapi);
    if (!document && ctx.serviceDoc && service.id > 0) {
      // Not wrapped: a system database that can not be read now is the error handler's 503 (errorAnswer), as for logins.
      const stored = await ctx.serviceDoc(service.id);
      if (stored) document = fragmentOf(await parseDocument(stored, service.name, 'its stored service document'));
    }
    const headers = headerEntries(config.headers);
    // A name fetch refuses (`X Token`, `X:Y`) made every call a bare 500 "Internal server error.".
    for (const h of headers) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.name))
        throw new InternalServerError(`Header name '${h.name}' of service '${service.name}' is not a valid HTTP header name.`);
    }
    // Credentials in the base URL (`https://user:pw@host/api`): fetch refuses such a URL, so every
    // call was a 503 whose message showed the URL, password included. They go as Basic
    // authentication, as curl sends them (a configured Authorization header still wins).
    if (baseUrl.username !== '' || baseUrl.password !== '') {
      const username = decodePercent(baseUrl.username);
      const password = decodePercent(baseUrl.password);
      // A malformed escape (`p%ss`, `%FF`) threw a bare URIError: every call was a 500 'Internal server error.'.
      if (username === null || password === null)
        throw new InternalServerError(
          `The base URL of service '${service.name}' has a malformed percent-escape in its ${username === null ? 'user name' : 'password'}: write '%' as %25, and escapes as UTF-8.`,
        );
      const basic = Buffer.from(`${username}:${password}`).toString('base64');
      headers.unshift({ name: 'Authorization', value: `Basic ${basic}`, passFromClient: false, mask: 31 });
      baseUrl.username = '';
      baseUrl.password = '';
    }
    const ttl = config.cache_enabled === true ? Number(config.cache_ttl ?? 0) : 0;
    return new RwsHandler({
      name: service.name,
      baseUrl,
      parameters: parameterEntries(config.parameters),
      headers,
      timeoutMs: Number(config.timeout ?? 30) * 1000,
      cacheTtlMs: Number.isFinite(ttl) && ttl > 0 ? ttl * 1000 : 0,
      keepTrailingSlash: config.preserve_forward_trailing_slash === true,
      forwardHeaders: config.forward_headers !== false,
      document: document ?? passThroughOpenApi(baseUrl.href.replace(/\/$/, '')),
      bodyLimit: ctx.bodyLimit ?? DEFAULT_BODY_LIMIT,
    });
  },
};
