/** Starts a generated server: loads its frozen model, builds the app, listens on HOST:PORT. */
import cluster from 'node:cluster';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { PlatformModel } from '../model/platform-model.js';
import { modelShapeProblem } from '../model/model-shape.js';
import { findServiceType } from '../system/internal-service-types.js';
import { StartupError } from '../system/store/system-db.js';
import { keepWorkerCounters, WORKER_COUNTERS_ENV } from '../system/limits/rate-limits.js';
import { relayWorkerNews } from '../system/shared/worker-news.js';
import { createServer } from './create-server.js';
import type { HookModule } from './hooks.js';
import { importEndpointModules, importHookModules, type HookModuleRef, type UserModuleRef } from './user-modules.js';
import { logLevelFrom } from './request-logging.js';
import type { ServiceRoutes } from './generated-routes.js';
import { growYoungGenerationAtOnce, memoryReturnedMessage, returnMemoryWhenIdle } from './idle-memory.js';

/** The generated server's entry, beside model.json: what worker processes run. */
const SERVER_ENTRY = './main.mjs';

export interface RunServerOptions {
  /** URL of the generated model.json. */
  modelUrl: URL;
  /** URL of the platform directory (relative paths in configs resolve against it). */
  baseUrl: URL;
  /** URLs of the generated route schema files (routes.json) of the database services. */
  routeFiles: URL[];
  /**
   * The user's hook modules (compiled by `gen build`), with their files and timeouts: by the URL of
   * the compiled copy (`module`), imported at start, or as imported already.
   */
  hooks?: ReadonlyArray<HookModule | HookModuleRef | Readonly<Record<string, unknown>>>;
  /** The custom services' endpoint modules by service name: by the URL of the compiled copy, or their default exports. */
  endpoints?: Readonly<Record<string, UserModuleRef | unknown>>;
}

/** Reads a generated JSON file (ignoring the generator's `$comment`). */
function readGeneratedJson<T>(url: URL): T {
  const { $comment: _comment, ...data } = JSON.parse(fs.readFileSync(url, 'utf8')) as T & { $comment?: string };
  return data as T;
}

/** Reads a frozen model. */
export function loadModel(url: URL): PlatformModel {
  return readGeneratedJson<PlatformModel>(url);
}

export async function runServer(options: RunServerOptions): Promise<void> {
  const { model, routes } = readServerFiles(options);
  const { port, host } = exitOnStartupError(() => listenAddress(process.env));
  const workers = workerCount(process.env.PORTICO_WORKERS);
  if (workers > 1 && cluster.isPrimary) return runPrimary(model, routes, options, workers, host, `http://${host}:${port}`);
  const app = await start(model, routes, options);
  logStrayRejections(app);
  const address = await app.listen({ port, host }).catch(async (error: unknown) => {
    await app.close().catch(() => undefined);
    return exitOnStartupError(() => {
      throw listenFailure(error, host, port);
    });
  });
  if (cluster.isPrimary) console.log(await startupSummary(app, model, address));
  // After start-up, whose growth stays gradual: the idle RSS after start is unchanged.
  growYoungGenerationAtOnce();
  returnMemoryWhenIdle(app.requestsTaken, (returned) => app.log.debug(memoryReturnedMessage(returned)));
  let draining = false;
  const stop = () => {
    if (draining) return;
    draining = true;
    drainAndExit(app);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A worker drains when its primary is told to stop (a signal to the whole group as well is one stop, not a second signal).
  if (cluster.isWorker)
    process.on('message', (message: unknown) => {
      if ((message as { portico?: unknown } | null)?.portico === DRAIN_MESSAGE) stop();
    });
}

/** What a primary sends its workers to make them drain and exit. */
const DRAIN_MESSAGE = 'drain';

/**
 * A promise rejected with nothing waiting for it (a hook or endpoint that started a call and did
 * not await it, and the call failed after the answer went) is logged: Node's default would end
 * the process, and with it every request in flight.
 */
function logStrayRejections(app: FastifyInstance): void {
  process.on('unhandledRejection', (reason) => {
    app.log.error(
      { err: reason },
      'A promise was rejected with nothing waiting for it (a hook or endpoint that did not await a call?); the server goes on.',
    );
  });
}

/** How long requests in flight may take to finish after SIGTERM/SIGINT before the process exits anyway. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Stops taking connections, lets requests in flight finish, then closes the pools (Fastify's
 * close runs the onClose hooks once the server is idle). A second signal, or a drain past the
 * limit, exits at once.
 */
function drainAndExit(app: FastifyInstance): void {
  const force = () => {
    console.error('Portico: requests still in flight after the drain limit; exiting.');
    process.exit(1);
  };
  setTimeout(force, DRAIN_TIMEOUT_MS).unref();
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  app.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`Portico: shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}

/** PORTICO_LOG_LEVEL (default info); a value that is not a level stops the server with one line. */
function logLevel(): string {
  try {
    return logLevelFrom(process.env.PORTICO_LOG_LEVEL);
  } catch (error) {
    console.error(`Portico: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** PORT (a whole number 0-65535; 0 picks a free port) and HOST, each 8080 and 127.0.0.1 when unset or empty. */
export function listenAddress(env: Record<string, string | undefined>): { port: number; host: string } {
  const text = env.PORT?.trim() ?? '';
  const port = text === '' ? 8080 : /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new StartupError(`PORT must be a whole number from 0 to 65535, not '${env.PORT}'.`);
  return { port, host: env.HOST?.trim() || '127.0.0.1' };
}

/** Why listening failed, in one line: the port taken, HOST not an address of this machine, a port that needs privileges. */
export function listenFailure(error: unknown, host: string, port: number): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return new StartupError(`cannot listen on ${where}: the port is in use; stop what holds it or set PORT.`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAFNOSUPPORT')
    return new StartupError(
      `cannot listen on ${where}: HOST '${host}' is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::).`,
    );
  if (code === 'EACCES')
    return new StartupError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); set PORT.`);
  return new StartupError(`cannot listen on ${where}: ${(error as Error).message}`);
}

/** Runs a start-up step; a StartupError stops the server with its one line. */
function exitOnStartupError<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    console.error(`Portico: ${error.message}`);
    process.exit(1);
  }
}

/** Most workers per CPU: beyond this a typo (PORTICO_WORKERS=1000) would fork the machine to its knees. */
const WORKERS_PER_CPU = 4;

/** PORTICO_WORKERS: a whole number of processes (default 1), at most WORKERS_PER_CPU per CPU. */
export function workerCount(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) {
    console.error(`Portico: PORTICO_WORKERS must be a whole number of at least 1, not '${value}'.`);
    process.exit(1);
  }
  const cpus = os.availableParallelism();
  if (count > WORKERS_PER_CPU * cpus) {
    console.error(
      `Portico: PORTICO_WORKERS must be at most ${WORKERS_PER_CPU * cpus} (${WORKERS_PER_CPU} per CPU; this machine has ${cpus}), not '${value}'.`,
    );
    process.exit(1);
  }
  return count;
}

/**
 * The model and route schemas beside main.mjs; a missing or unreadable file, one that is not JSON,
 * or a model of the wrong shape (edited by hand) stops the server with one line naming the file.
 */
function readServerFiles(options: RunServerOptions): { model: PlatformModel; routes: ServiceRoutes[] } {
  let current = options.modelUrl;
  const stop = (reason: string): never => {
    console.error(`Portico: ${fileURLToPath(current)} ${reason}; run \`npx gen build\` in the platform directory to generate it again.`);
    process.exit(1);
  };
  try {
    const model = loadModel(current);
    const problem = modelShapeProblem(model, (type) => findServiceType(type) !== undefined);
    if (problem !== null) return stop(`is not a model Portico can serve: ${problem}`);
    const routes = options.routeFiles.map((url) => {
      current = url;
      return readGeneratedJson<ServiceRoutes>(url);
    });
    return { model, routes };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return stop('is missing');
    if (error instanceof SyntaxError) return stop(`is not valid JSON (${error.message})`);
    return stop(`cannot be read (${(error as Error).message})`);
  }
}

async function start(model: PlatformModel, routes: ServiceRoutes[], options: RunServerOptions) {
  const opened = async () =>
    createServer(model, {
      baseDir: fileURLToPath(options.baseUrl),
      routes,
      // The platform's own modules first: one that cannot load or serve is the user's to fix.
      hooks: await importHookModules(options.hooks ?? []),
      endpoints: await importEndpointModules(options.endpoints ?? {}),
      logLevel: logLevel(),
    });
  return opened().catch((error: unknown) => {
    // A store the server cannot reach at start, a module that cannot load: the operator's to fix, in one line, exit 1.
    if (!(error instanceof StartupError)) throw error;
    console.error(error.message);
    process.exit(1);
  });
}

/**
 * Several worker processes on one port (node:cluster): the primary migrates and seeds the system
 * database once and prints how to log in, then forks the workers (each a full server; they share
 * state through the system database and Redis as separate instances do) and replaces any that dies.
 */
async function runPrimary(
  model: PlatformModel,
  routes: ServiceRoutes[],
  options: RunServerOptions,
  workers: number,
  host: string,
  address: string,
): Promise<void> {
  const app = await start(model, routes, options);
  const lines = await startupSummary(app, model, address);
  await app.close();
  const entry = fileURLToPath(new URL(SERVER_ENTRY, options.modelUrl));
  if (fs.existsSync(entry)) cluster.setupPrimary({ exec: entry });
  let stopping = false;
  await keepWorkerCounters();
  const fork = () => cluster.fork({ [WORKER_COUNTERS_ENV]: '1' });
  for (let i = 0; i < workers; i++) fork();
  let listening = 0;
  /** Workers serving (their drain handler is set up); the others are still starting. */
  const serving = new Set<number>();
  relayWorkerNews(serving);
  cluster.on('listening', (worker, where) => {
    serving.add(worker.id);
    // PORT=0: the workers share the port the first one was given.
    if (++listening === workers) console.log(`${lines.replaceAll(address, `http://${host}:${where.port}`)}\n  workers: ${workers}`);
  });
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    if (listening === 0) {
      // None has listened yet: the port or HOST is the problem (the worker said which), and another worker would fail alike.
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.kill('SIGTERM');
      process.exit(1);
    }
    console.error(`Portico: worker ${worker.process.pid} exited (${code ?? 'signal'}); starting another.`);
    fork();
  });
  // The workers drain their requests in flight (drainAndExit); the primary exits once they all have,
  // 0 when every one did in time. Exiting earlier would cut them off: a worker exits with its primary.
  const stop = () => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    let left = running.length;
    let failed = false;
    if (left === 0) process.exit(0);
    cluster.on('exit', (worker, code) => {
      // One still starting is ended by the signal: it had no request to drain.
      if (code !== 0 && serving.has(worker.id)) failed = true;
      if (--left === 0) process.exit(failed ? 1 : 0);
    });
    for (const worker of running) {
      if (serving.has(worker.id)) worker.send({ portico: DRAIN_MESSAGE });
      else worker.process.kill('SIGTERM');
    }
    const force = () => {
      console.error('Portico: workers still draining after the drain limit; exiting.');
      for (const worker of running) worker.process.kill('SIGKILL');
      process.exit(1);
    };
    setTimeout(force, DRAIN_TIMEOUT_MS + 5_000).unref();
    // A second signal ends the workers' drain at once, as it does a single process's.
    const hurry = () => {
      for (const worker of running) worker.process.kill('SIGTERM');
    };
    process.once('SIGINT', hurry);
    process.once('SIGTERM', hurry);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What the server prints on start: address, the admin app's key, the administrator. */
export async function startupSummary(app: FastifyInstance, model: PlatformModel, address: string): Promise<string> {
  const ctx = app.portico;
  const adminApp = await ctx.db.selectFrom('app').select('api_key').where('name', '=', 'admin').executeTakeFirstOrThrow();
  const lines = [`Portico: ${model.platform.title} listening on ${address}/api/v2`, `  admin app API key: ${adminApp.api_key}`];
  if (ctx.createdAdmin) {
    lines.push(`  first administrator: ${ctx.createdAdmin.email}`);
    lines.push(
      ctx.createdAdmin.generatedPassword
        ? `  password (shown once): ${ctx.createdAdmin.generatedPassword}`
        : '  password: as set in PORTICO_ADMIN_PASSWORD or platform.yaml',
    );
  } else {
    const admin = await ctx.db.selectFrom('user').select('email').where('is_sys_admin', '=', 1).orderBy('id').executeTakeFirst();
    if (admin) lines.push(`  administrator: ${admin.email} (password as set on first start)`);
  }
  lines.push(
    `  log in: curl -X POST ${address}/api/v2/system/admin/session -H 'Content-Type: application/json' -d '{"email":"...","password":"..."}'`,
  );
  return lines.join('\n');
}
