/**
 * Everything a running platform holds: its model, the system database, the directory of callers,
 * session tokens, and the live services. Opened once per server.
 */
import path from 'node:path';
import { systemClock, type Clock } from '../auth/clock.js';
import { createSessionTokens, type SessionTokens } from '../auth/session-tokens.js';
import { resolveEnv } from '../core/env.js';
import type { PlatformModel, PlatformSettings, ServiceModel } from '../model/platform-model.js';
import { LiveServices } from '../services/live-services.js';
import { getServiceKind } from '../services/registry.js';
import type { RuntimeContext } from '../services/service-kind.js';
import type { LiveSchema } from '../services/sql/live-schema.js';
import { resolveSetting, syncPlatform, type FirstAdmin } from '../system/platform-sync.js';
import { openSystemSchema } from '../system/record-resources/system-schema.js';
import { liveServiceModel, plainServiceModel } from '../system/resources/service-models.js';
import { SystemDirectory } from '../system/system-directory.js';
import {
  openSystemDb,
  StartupError,
  systemDbKind,
  systemStatementTimeout,
  type SystemDb,
  unknownSystemDbScheme,
} from '../system/store/system-db.js';
import { RateLimits } from '../system/limits/rate-limits.js';
import { openRedis, type RedisLink } from '../system/shared/redis-link.js';
import { ChangeFeed } from '../system/shared/change-feed.js';
import { reloadPlatform } from '../system/shared/reload-platform.js';
import { sharedNamespace } from '../system/shared/shared-namespace.js';
import { redisPlatformCache } from '../system/shared/redis-cache.js';
import { CacheClears } from '../system/shared/cache-clears.js';
import { CorsRules } from './cors-rules.js';
import { matchGrant } from '../auth/access.js';
import { BadRequestError, ForbiddenError } from '../core/errors.js';
import type { FileHandler } from '../services/file/file-handler.js';
import { emailTemplateStore } from '../system/store/email-template-store.js';
import type { HookRegistry } from './hooks.js';
import { schemaExtrasStore } from '../system/store/schema-extras-store.js';
import { substituteConfigLookups, type LookupResolver } from '../core/lookups.js';
import { isSharedCacheProvider } from '../services/cache/shared-cache.js';
import type { TaskScheduler } from '../system/scheduler/scheduler-runner.js';
import { AccessUsage } from '../system/access/access-usage.js';
import { DEFAULT_BODY_LIMIT } from '../services/request-body.js';

export interface PlatformOptions {
  /** Platform directory: relative paths in service configs and settings resolve against it. */
  baseDir: string;
  /** Overrides the model's system database: a SQLite file, `:memory:` (tests) or a server URL. */
  systemDatabase?: string;
  /** Time source for sessions (tests inject one). */
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Largest accepted request body in bytes (default 10 MiB), for every endpoint and what services proxy. */
  bodyLimit?: number;
}

export interface PlatformContext {
  model: PlatformModel;
  settings: PlatformSettings;
  db: SystemDb;
  directory: SystemDirectory;
  /** The system database as the records engine serves it (system resources). */
  systemSchema: LiveSchema;
  cors: CorsRules;
  tokens: SessionTokens;
  clock: Clock;
  services: LiveServices;
  runtime: RuntimeContext;
  /** The user's pre/post-process hooks (issue 17), if any. */
  hooks?: HookRegistry;
  /** The administrator created on this start, if any (printed by runServer). */
  createdAdmin: FirstAdmin | null;
  /** The active rate limits and their counters. */
  limits: RateLimits;
  /** The Redis instances share state through (PORTICO_REDIS_URL), if any. */
  redis: RedisLink | null;
  /** News of system changes between instances on one system database. */
  changes: ChangeFeed;
  /** Cache clears (DELETE /system/cache) made on any instance. */
  cacheClears: CacheClears;
  /** Client use of apps, roles and users (/system/access_usage), noted in memory and written every few seconds. */
  accessUsage: AccessUsage;
  /** The runner of /system/scheduler's tasks, once the server is assembled. */
  scheduler?: TaskScheduler;
  close(): Promise<void>;
}

export async function openPlatform(model: PlatformModel, options: PlatformOptions): Promise<PlatformContext> {
  const env = options.env ?? process.env;
  // Service configs take `${env:NAME}` references and, once the directory is read, system lookups (`{name}`, reference 6.6).
  let systemLookup: LookupResolver = () => undefined;
  const runtime: RuntimeContext = {
    baseDir: options.baseDir,
    resolveEnv: (value) => substituteConfigLookups(resolveEnv(value, env), systemLookup),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
  };
  const db = await openSystemDb(systemDatabaseTarget(model, options, env, runtime), systemStatementTimeout(env));
  runtime.schemaExtras = schemaExtrasStore(db);
  runtime.emailTemplates = emailTemplateStore(db);
  runtime.serviceDoc = async (serviceId) =>
    (await db.selectFrom('service_doc').select('content').where('service_id', '=', serviceId).executeTakeFirst())?.content ?? null;
  let redisUrl: string;
  try {
    redisUrl = env.PORTICO_REDIS_URL || resolveSetting(runtime.resolveEnv, model.settings.redisUrl ?? '', 'system.redis.url');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const redis = redisUrl
    ? await openRedis(redisUrl).catch(async (error: unknown) => {
        await db.destroy();
        throw error;
      })
    : null;
  const { createdAdmin, jwtSecret } = await syncPlatform(db, model, runtime.resolveEnv, env);
  const directory = new SystemDirectory(db);
  await directory.reload();
  systemLookup = (name) => directory.lookupFor(null, null, null)(name);
  const cors = new CorsRules(db);
  await cors.reload();
  const clock = options.clock ?? systemClock;
  runtime.sharedCache = async (name, namespace) => {
    const model = services.get(name);
    if (model?.type !== 'cache_redis') throw new BadRequestError(`Service '${name}' named as a cache is not a cache_redis service.`);
    const handler = await services.handler(name);
    if (!isSharedCacheProvider(handler)) throw new BadRequestError(`Service '${name}' cannot be used as a cache.`);
    return handler.sharedCache(namespace);
  };
  const namespace = await sharedNamespace(db);
  if (redis) runtime.platformCache = redisPlatformCache(redis, namespace);
  const declared = await withStoredConfigs(db, model.services);
  checkDeclaredConfigs(declared, runtime);
  const services: LiveServices = new LiveServices(runtime, [...declared, ...(await apiServices(db, runtime))]);
  runtime.readServiceFile = async (name, filePath, auth, maxBytes) => {
    const prefix = 'Failed to get attachment file from storage service.';
    const model = services.get(name);
    if (!model?.is_active) throw new BadRequestError(`${prefix} No active service '${name}'.`);
    if (auth.grants !== null && !matchGrant(auth.grants, name.toLowerCase(), filePath.replace(/^\/+/, '').toLowerCase(), 'GET')) {
      throw new ForbiddenError(`${prefix} You do not have enough privileges to access file: ${filePath} in service ${name}`);
    }
    // By its type's group before opening it: naming `system` (a type without a handler) was a 501,
    // and a database or broker service was opened (and a 503 when down) only to be refused.
    const notFiles = new BadRequestError(`${prefix} Service '${name}' is not a file service.`);
    if (getServiceKind(model.type)?.group !== 'File') throw notFiles;
    const handler = await services.handler(name);
    // Duck-typed: the file kind's code (and mime-db) loads only when a platform has a file service.
    if (!isFileHandler(handler)) throw notFiles;
    return handler.readFile(filePath, maxBytes);
  };
  const limits = new RateLimits(db, redis, namespace);
  await limits.reload();
  const ctx: PlatformContext = {
    model,
    settings: model.settings,
    db,
    directory,
    clock,
    services,
    runtime,
    createdAdmin,
    cors,
    limits,
    redis,
    changes: new ChangeFeed(db, redis, `${namespace}:changes`, () => reloadPlatform(ctx)),
    cacheClears: new CacheClears(db),
    accessUsage: new AccessUsage(db, () => clock.now()),
    systemSchema: await openSystemSchema(db),
    tokens: createSessionTokens(jwtSecret, clock),
    async close() {
      await ctx.scheduler?.close();
      await ctx.accessUsage.close();
      await ctx.changes.close();
      await services.close();
      await redis?.close();
      // A pool some of whose connections broke (the server gone, a connection ended for want of an answer) reports it on closing: they are closed all the same.
      await db.destroy().catch(() => undefined);
    },
  };
  await ctx.cacheClears.start();
  await ctx.changes.start();
  return ctx;
}

/** Declared services whose config the API may change (the `user` service) take the stored config. */
async function withStoredConfigs(db: SystemDb, declared: readonly ServiceModel[]): Promise<ServiceModel[]> {
  const rows = await db.selectFrom('service').select(['id', 'config']).where('type', '=', 'user').where('origin', '!=', 'api').execute();
  const stored = new Map(rows.map((row) => [row.id, JSON.parse(row.config) as Record<string, unknown>]));
  return declared.map((service) =>
    stored.has(service.id) ? { ...service, config: stored.get(service.id) as Record<string, unknown> } : service,
  );
}

/**
 * The active declared services' configs as opening them would check them (model.json is trusted,
 * and env values are known only now): a value no service opens with, such as max_connections 0,
 * stops the server with one line naming the service, rather than answering 500 on every call.
 */
function checkDeclaredConfigs(declared: readonly ServiceModel[], runtime: RuntimeContext): void {
  for (const service of declared) {
    const check = getServiceKind(service.type)?.checkConfig;
    if (!service.is_active || check === undefined) continue;
    let config: Record<string, unknown>;
    try {
      config = runtime.resolveEnv(service.config);
    } catch {
      continue; // An unresolvable reference is reported when the service is called, as before.
    }
    try {
      check(config);
    } catch (error) {
      throw new StartupError(`Portico: service '${service.name}' cannot be opened: ${(error as Error).message}`);
    }
  }
}

/**
 * Services created through the API in an earlier run. One whose database cannot be read now is
 * still listed (and reports its error when called) rather than stopping the server.
 */
async function apiServices(db: SystemDb, runtime: RuntimeContext): Promise<ServiceModel[]> {
  const rows = await db.selectFrom('service').selectAll().where('origin', '=', 'api').orderBy('id').execute();
  return Promise.all(rows.map((row) => liveServiceModel(row, runtime).catch(() => plainServiceModel(row))));
}

/**
 * Where the system database is: the caller's override, else PORTICO_SYSTEM_DATABASE_URL, else
 * platform.yaml's `system.database` (a SQLite path relative to the platform directory, or a URL).
 */
function systemDatabaseTarget(model: PlatformModel, options: PlatformOptions, env: NodeJS.ProcessEnv, runtime: RuntimeContext): string {
  const declared = model.settings.systemDatabase;
  const target =
    options.systemDatabase ||
    env.PORTICO_SYSTEM_DATABASE_URL ||
    // `${env:...}` stays a reference in the model (a SQLite path or a URL alike) and resolves here.
    resolveSetting(runtime.resolveEnv, declared.type === 'sqlite' ? declared.database : declared.url, 'system.database');
  const badScheme = unknownSystemDbScheme(target);
  if (badScheme !== null) {
    const source = !options.systemDatabase && env.PORTICO_SYSTEM_DATABASE_URL ? 'PORTICO_SYSTEM_DATABASE_URL' : 'system.database';
    throw new StartupError(`Portico: ${source}: ${badScheme}`);
  }
  return target === ':memory:' || systemDbKind(target) !== 'sqlite' ? target : path.resolve(options.baseDir, target);
}

function isFileHandler(handler: object): handler is FileHandler {
  return typeof (handler as Partial<FileHandler>).readFile === 'function';
}
