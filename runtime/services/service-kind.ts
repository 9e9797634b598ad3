/**
 * The contract every service family implements. One ServiceKind per spec type id
 * (`sqlite`, `pgsql`, `soap`, `local_file`, ...); the registry (./registry.ts) is the only list.
 *
 * The HTTP layer resolves the service, checks credentials and access, parses the body, then calls
 * `handle` with a framework-neutral ServiceCall. Handlers return data or throw PorticoError.
 */
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext } from '../auth/auth-context.js';
import type { Answer } from '../core/answer.js';
import type { RawQuery } from '../core/query-params.js';
import type { ServiceModel, TableModel, Verb } from '../model/platform-model.js';
import type { OpenApiFragment } from '../openapi/fragment.js';
import type { PlatformCache, SharedCache } from './cache/shared-cache.js';
import type { ServiceApi } from './service-api.js';

export type ServiceGroup =
  | 'System'
  | 'API Doc'
  | 'Database'
  | 'File'
  | 'Email'
  | 'User'
  | 'Remote Service'
  | 'Cache'
  | 'IoT'
  | 'Notification'
  | 'OAuth'
  | 'MCP'
  | 'Script';

/** What the runtime gives a service when it opens it. */
export interface RuntimeContext {
  /** Directory relative paths in service configs resolve against (the platform directory). */
  baseDir: string;
  /** Resolves `${env:NAME}` references in a config value. */
  resolveEnv<T>(value: T): T;
  /**
   * The largest request body the server takes, in bytes (413 beyond): kinds that read their own
   * bodies (`rawBody`) and are not bound by a limit of their own (a proxy) apply it. Absent at build time.
   */
  bodyLimit?: number;
  /** Where the platform keeps what `_schema` clients write about tables and fields; absent at build time. */
  schemaExtras?: SchemaExtrasStore;
  /** A cache service (`cache_redis`) lent for a service's response cache, namespaced; absent at build time. */
  sharedCache?(cacheService: string, namespace: string): Promise<SharedCache>;
  /** The store the platform's instances share (PORTICO_REDIS_URL), namespaced; absent without Redis. */
  platformCache?(namespace: string): PlatformCache;
  /** The platform's email templates (/system/email_template); absent at build time. */
  emailTemplates?: EmailTemplateStore;
  /**
   * A file of a file service, read for the caller (who needs GET on that service and path), at
   * most `maxBytes`: email attachments named as `{service, path}`. Absent at build time.
   */
  readServiceFile?(
    service: string,
    path: string,
    auth: AuthContext,
    maxBytes: number,
  ): Promise<{ filename: string; content: Buffer; contentType: string }>;
  /** The OpenAPI document stored for a service (service_doc_by_service_id), as text; absent at build time. */
  serviceDoc?(serviceId: number): Promise<string | null>;
  /**
   * The default export of a service's user module (a custom service's endpoints), compiled with
   * the server by `gen build` and handed to runServer by main.mjs; absent at build time.
   */
  userModule?(service: string): unknown;
  /**
   * At build time only: loads a user module (a `.ts` file named in a service's config, relative
   * to the platform directory) and answers its default export (`gen build` reads custom
   * endpoints' routes this way).
   */
  loadModule?(file: string): Promise<unknown>;
}

/** An email template as /system/email_template keeps it (reference 3.3). */
export interface EmailTemplate {
  id: number;
  name: string;
  to: unknown;
  cc: unknown;
  bcc: unknown;
  subject: string;
  body_text: string;
  body_html: string;
  from_name: string | null;
  from_email: string | null;
  reply_to_name: string | null;
  reply_to_email: string | null;
}

export interface EmailTemplateStore {
  /** The template of that name or id, or null. */
  find(ref: { name: string } | { id: number }): Promise<EmailTemplate | null>;
}

/** What a `_schema` client set about a table and its fields that the database itself does not keep. */
export interface TableExtras {
  table: string;
  label?: string | null;
  plural?: string | null;
  description?: string | null;
  fields: Array<{ field: string; label?: string | null; description?: string | null; type?: string | null }>;
}

/** The platform's store of table extras (the reference's db_table_extras and db_field_extras), per service. */
export interface SchemaExtrasStore {
  read(serviceId: number): Promise<TableExtras[]>;
  /** Merges: values given replace stored ones, absent ones are kept. */
  write(serviceId: number, extras: TableExtras[]): Promise<void>;
  drop(serviceId: number, table: string, field?: string): Promise<void>;
}

/** One request to a service, after authentication and access control. */
export interface ServiceCall {
  verb: Verb;
  /** Path segments after /api/v2/{service}/, URL-decoded, without empty segments. */
  resource: string[];
  /** Whether the request path ended with a slash (some clients send one). */
  trailingSlash: boolean;
  query: RawQuery;
  /** Parsed JSON body, or undefined when there was none (always undefined for kinds with `rawBody`). */
  body: unknown;
  /** The request body as it arrives, unread, for kinds with `rawBody` (absent when the request has none). */
  stream?: Readable;
  /** The path after /api/v2/{service} as sent (still percent-encoded, dot segments kept), without the query. */
  rawPath?: string;
  headers: Record<string, string | string[] | undefined>;
  auth: AuthContext;
  /** The request's logger (pino, with the request id); absent for calls made outside a request. */
  log?: FastifyBaseLogger;
  /** The in-process API with the caller's rights, for kinds that say `callsApi`. */
  api?: ServiceApi;
}

export interface ServiceResult {
  /** HTTP status; 200 when absent. */
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * The body as JSON text, when the service wrote it already (a record read hashes it for its
   * ETag): sent as is while `body` is still the object it was written from (`of`), so that the
   * record is serialised once. An answer made with another body does not use it; whatever changes
   * that object in place (a post_process hook) drops it.
   */
  json?: { of: unknown; text: string };
}

/**
 * The records a table write's pre_process hooks get, and those refused before them (of a
 * `continue` batch): each with its index in the records sent, put back there for the write to
 * refuse again in its batch error.
 */
export interface HookRecords {
  records: unknown[];
  refused: Array<{ index: number; record: unknown }>;
}

/** A live service: opened from its model, serving calls until closed. */
export interface ServiceHandler {
  /**
   * The answer, at once when the back-end gives it at once (a SQLite read), else a promise of it;
   * an error is always a rejection, never thrown (core/answer.ts).
   */
  handle(call: ServiceCall): Answer<ServiceResult>;
  /** OpenAPI paths (relative to the service) and components of this service (SOAP reads its WSDL for them first). */
  openapi(): OpenApiFragment | Promise<OpenApiFragment>;
  /**
   * Components of this service a role grant can name, besides "" and "*" (GET
   * /{service}?as_access_list=true, which the reference's role editor lists).
   */
  accessComponents?(): Promise<string[]> | string[];
  /** A database's tables as it serves them now (GET /{service}/_spec?model=true); other services leave it out. */
  tables?(): readonly TableModel[];
  /**
   * Runs `work` in one transaction of the service's back-end, with a handler whose calls run in
   * it: committed when `work` resolves, rolled back when it throws (the user's hooks around a
   * table write, runtime/http/hooks.ts). Services without transactions leave it out.
   */
  transaction?<T>(work: (handler: Pick<ServiceHandler, 'handle'>) => Promise<T>): Promise<T>;
  /**
   * The records a table write sends, as the generated hook types promise them (a database's
   * `_table/{table}` writes: `"5"` for an integer column as 5), for its pre_process hooks; a value
   * not of its column's type that cannot be read as one is the write's 400 naming the field; of a
   * `continue` batch, such records are returned as refused, with their indexes, for the write to
   * fail alone. Services whose records are untyped leave it out.
   */
  hookRecords?(call: ServiceCall, records: readonly unknown[]): HookRecords;
  /** Checks that the back-end answers (GET /ready); services without one are always ready. */
  ping?(): Promise<void>;
  /** Whether the back-end it opened has been replaced (a database file restored on disk): the next call opens the service anew. */
  stale?(): boolean;
  close(): Promise<void>;
}

/** A service type as `GET /system/service_type` lists it and platform.yaml configures it. */
export interface ServiceType {
  /** Spec type id, e.g. `sqlite`. */
  type: string;
  label: string;
  group: ServiceGroup;
  description: string;
  /** JSON Schema of the service's `config`. */
  configSchema: Record<string, unknown>;
  /**
   * Checks what the schema cannot say about a config saved through the API (after the schema):
   * throws a 400 PorticoError for a value the service would refuse on its first call.
   */
  checkApiConfig?(config: Record<string, unknown>): void;
  /**
   * Checks a resolved config (env references substituted) as opening the service would, at server
   * start: throws with the message the open would give. model.json is not checked against the schema
   * at start, so a hand-edited value (or an env value) would otherwise be a 500 on the first call.
   */
  checkConfig?(config: Record<string, unknown>): void;
  /**
   * Services of this type are declared in platform.yaml only (their code is compiled with the
   * server); POST /system/service refuses them.
   */
  declaredOnly?: boolean;
}

/** A service family: a service type the registry opens and serves. */
export interface ServiceKind extends ServiceType {
  /** Runs at build time: adds what introspection finds (tables, operations) to the service model. */
  introspect?(service: ServiceModel, ctx: RuntimeContext): Promise<ServiceModel>;
  /** The OpenAPI fragment the model alone gives, for kinds whose endpoints do not depend on what is behind them (build-time documents). */
  describe?(service: ServiceModel): OpenApiFragment;
  /**
   * The kind reads request bodies itself from `ServiceCall.stream` (uploads, proxies): the HTTP
   * layer neither parses nor size-limits them.
   */
  rawBody?: boolean;
  /**
   * A trailing slash is part of the access component (`docs/` is the folder `docs`), as role
   * grants of file services name folders.
   */
  folderComponents?: boolean;
  /** Its handlers call other services in process: every call gets `api` (custom endpoints). */
  callsApi?: boolean;
  /** Opens the service for serving. */
  open(service: ServiceModel, ctx: RuntimeContext): Promise<ServiceHandler>;
}
