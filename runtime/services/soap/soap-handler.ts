/**
 * Serves a SOAP service: `GET /{service}` lists the operations (`refresh=true` reads the WSDL
 * again), `POST /{service}/{operation}` calls one with the JSON body, `GET` with query parameters.
 * Operation names match ignoring case. The model's operations are served as built; a service
 * without operations (created at run time) reads its WSDL on its first call, so a wrong WSDL
 * surfaces as that call's error. GET results are cached for the service's TTL when caching is on.
 */
import { createHash } from 'node:crypto';
import { pick, toBool, toList, type RawQuery } from '../../core/query-params.js';
import type { ServiceModel, SoapOperationModel, SoapServiceModel } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { soapServiceOpenApi } from '../../openapi/soap-openapi.js';
import type { RuntimeContext, ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import { ResponseCache } from '../response-cache.js';
import type { SharedCache } from '../cache/shared-cache.js';
import { declaredWsdl, LiveContract, readSoapModel } from './soap-contract.js';
import { soapOptions, type SoapOptions } from './soap-config.js';
import { invokeOperation } from './call/soap-invoker.js';
import { SoapTransport } from './call/soap-transport.js';
import { coreMessages } from '../../core/messages.js';
import { soapMessages } from './soap-messages.js';

/** Query parameters that are credentials: never sent on as operation fields, never part of a cache key. */
const CREDENTIALS = new Set(['api_key', 'session_token']);

/** A model with no operations yet, for a service that has not read its WSDL. */
function unreadModel(service: ServiceModel): SoapServiceModel {
  const { id, name, label, type, description, is_active, config, origin } = service;
  return {
    id,
    name,
    label,
    type,
    description,
    is_active,
    config,
    origin,
    kind: 'soap',
    wsdl: declaredWsdl(service),
    endpoints: {},
    operations: [],
    definitions: {},
    warnings: [],
  };
}

export class SoapServiceHandler implements ServiceHandler {
  private readonly config: Record<string, unknown>;
  private readonly options: SoapOptions;
  private readonly transport: SoapTransport;
  /** The model the server was built with, when it has operations. */
  private readonly built: LiveContract | null;
  private contract: Promise<LiveContract> | null;
  /** The last contract read or built, for the OpenAPI fragment. */
  private latest: LiveContract;
  private readonly responses: ResponseCache | null;
  /** The cache service the GET results go to instead, when the config names one. */
  private readonly shared: Promise<SharedCache | null> | null;

  constructor(
    service: ServiceModel,
    private readonly ctx: RuntimeContext,
  ) {
    this.config = ctx.resolveEnv(service.config);
    this.options = soapOptions(this.config, ctx.baseDir);
    this.transport = new SoapTransport(this.options);
    this.built = service.kind === 'soap' && service.operations.length > 0 ? new LiveContract(service) : null;
    this.latest = this.built ?? new LiveContract(unreadModel(service));
    this.contract = this.built && this.options.cacheWsdl ? Promise.resolve(this.built) : null;
    const cacheService =
      typeof this.config.cache_service === 'string' && this.config.cache_service !== '' ? this.config.cache_service : null;
    this.shared =
      this.options.responseTtlMs !== null && cacheService !== null && ctx.sharedCache
        ? ctx.sharedCache(cacheService, service.name).catch(() => null)
        : null;
    // Otherwise in the platform's Redis when it has one, per version of the service's configuration
    // (a changed service never serves older results), else in process.
    const version = createHash('sha256').update(JSON.stringify(this.config)).digest('hex').slice(0, 16);
    this.responses =
      this.options.responseTtlMs === null || this.shared !== null
        ? null
        : new ResponseCache(this.options.responseTtlMs, ctx.platformCache?.(`soap:${service.name}:${version}`) ?? null);
  }

  private async cached(key: string): Promise<unknown> {
    const shared = await this.shared;
    return shared ? shared.get(key) : await this.responses?.get(key);
  }

  private async keep(key: string, body: unknown): Promise<void> {
    const shared = await this.shared;
    if (shared) await shared.set(key, body, Math.ceil((this.options.responseTtlMs ?? 0) / 1000));
    else await this.responses?.set(key, body);
  }

  private async forgetResponses(): Promise<void> {
    await this.responses?.clear();
    await (await this.shared)?.clear();
  }

  async handle(call: ServiceCall): Promise<ServiceResult> {
    const [name, ...rest] = call.resource;
    const service = this.latest.model.name;
    const refresh = toBool(pick(call.query, 'refresh'));
    if (name === undefined) {
      if (call.verb !== 'GET') throw coreMessages.verbNotSupported.error(call.verb, '', service);
      return { body: listing(await this.current(refresh), call.query) };
    }
    if (rest.length > 0) throw coreMessages.resourceNotFound.error(call.resource.join('/'), service);
    if (call.verb !== 'GET' && call.verb !== 'POST') throw coreMessages.verbNotSupported.error(call.verb, name, service);
    const contract = await this.current(false);
    const operation = contract.operation(name);
    if (operation === undefined) throw soapMessages.operationNotFound.error(name);
    const parts = {
      service: contract.model,
      options: this.options,
      transport: this.transport,
      writer: contract.writer,
      reader: contract.reader,
    };
    if (call.verb === 'POST') return { body: await invokeOperation(parts, operation, call.body, call.query) };
    // A GET tunnelled through POST (`?method=GET`, X-HTTP-Method) may carry its fields in a JSON
    // body, as a table list's options may be: they count as query parameters (those win).
    const sent = bodyFields(call.body);
    const query = sent === null ? call.query : { ...sent, ...call.query };
    const key = `${operation.name.toLowerCase()}?${cacheQuery(query)}`;
    const cached = refresh ? undefined : await this.cached(key);
    if (cached !== undefined) return { body: cached };
    const body = await invokeOperation(parts, operation, queryFields(contract, operation, query), call.query);
    await this.keep(key, body);
    return { body };
  }

  /**
   * The operations of the WSDL (read first when not read yet, as a call would: a service created
   * at run time has none in its model; none when it cannot be read).
   */
  async openapi(): Promise<OpenApiFragment> {
    const contract = await this.current(false).catch(() => this.latest);
    return soapServiceOpenApi(contract.model);
  }

  /** The operations (read from the WSDL first when not read yet; none when it cannot be read). */
  async accessComponents(): Promise<string[]> {
    const contract = await this.current(false).catch(() => this.latest);
    return contract.model.operations.map((operation) => operation.name);
  }

  /**
   * Forgets what was read at run time: cached GET results and a WSDL read since start (the next
   * call reads it again, or serves the built model). DELETE /system/cache[/{service}] calls this
   * on every instance.
   */
  async clearCache(): Promise<void> {
    await this.forgetResponses();
    this.contract = this.built && this.options.cacheWsdl ? Promise.resolve(this.built) : null;
    if (this.built) this.latest = this.built;
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  /** The contract to serve: the built or cached one, else the WSDL read now (kept unless cache_wsdl is none). */
  private current(refresh: boolean): Promise<LiveContract> {
    if (this.contract !== null && !refresh) return this.contract;
    const reading = readSoapModel(this.latest.model, this.config.wsdl, this.ctx.baseDir, this.transport).then((model) => {
      this.latest = new LiveContract(model);
      return this.latest;
    });
    if (this.options.cacheWsdl) {
      this.contract = reading;
      // A failed read is tried again on the next call.
      reading.catch(() => {
        if (this.contract === reading) this.contract = null;
      });
      if (refresh) void this.forgetResponses();
    }
    return reading;
  }
}

/** `{resource:[{name}]}`; `as_list=true` gives names, `fields` picks from name and description. */
function listing(contract: LiveContract, query: RawQuery): unknown {
  const operations = contract.model.operations;
  if (toBool(pick(query, 'as_list'))) return { resource: operations.map((operation) => operation.name) };
  const fields = toList(pick(query, 'fields'));
  const wanted =
    fields === null
      ? ['name']
      : fields.includes('*')
        ? ['name', 'description']
        : fields.filter((field) => field === 'name' || field === 'description');
  return {
    resource: operations.map((operation) =>
      Object.fromEntries(wanted.map((field) => [field, field === 'name' ? operation.name : operation.description])),
    ),
  };
}

/** The input fields given as query parameters (the last value of a repeated one, all values of a repeated field). */
function queryFields(contract: LiveContract, operation: SoapOperationModel, query: RawQuery): Record<string, unknown> {
  const shape = contract.view.shape(operation.input.schema);
  const fields: Record<string, unknown> = {};
  if (shape.kind !== 'object') return fields;
  for (const member of shape.members) {
    const value = Object.hasOwn(query, member.key) ? query[member.key] : undefined;
    if (value === undefined || CREDENTIALS.has(member.key)) continue;
    fields[member.key] = Array.isArray(value) && !member.array ? value[value.length - 1] : value;
  }
  return fields;
}

/** The members of a JSON object body as query values (scalars as text, lists of scalars as lists), or null. */
function bodyFields(body: unknown): RawQuery | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const text = (value: unknown) => (value === null || typeof value === 'object' ? undefined : String(value));
  const fields: RawQuery = {};
  for (const [key, value] of Object.entries(body)) {
    const item = Array.isArray(value) ? value.map(text).filter((entry) => entry !== undefined) : text(value);
    if (item !== undefined) fields[key] = item;
  }
  return Object.keys(fields).length === 0 ? null : fields;
}

/** The query as a cache key: sorted, without credentials and `refresh`. */
function cacheQuery(query: RawQuery): string {
  return JSON.stringify(
    Object.entries(query)
      .filter(([name]) => !CREDENTIALS.has(name) && name !== 'refresh')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
