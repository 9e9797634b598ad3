/**
 * `gen dev`: builds, serves, and rebuilds on change. platform.yaml, the hook modules it names and
 * local WSDL files are watched; database schemas are polled (introspected every `pollMs`). A rebuild prints which
 * generated files changed and swaps the server without dropping a request: one node:http server
 * keeps the port and hands each request to the current build's Fastify instance (its `routing`);
 * the previous instance is closed once the requests it was given have finished.
 *
 * It serves what the generated main.mjs serves: the model the build wrote to model.json, with the
 * same precompiled route schemas as the generated routes.json files (runtime/openapi/record-schemas.ts).
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Env } from '../../runtime/core/env.js';
import { resolveEnv } from '../../runtime/core/env.js';
import { createServer } from '../../runtime/http/create-server.js';
import type { HookModule } from '../../runtime/http/hooks.js';
import type { ServiceRoutes } from '../../runtime/http/generated-routes.js';
import { listenFailure, startupSummary } from '../../runtime/http/run-server.js';
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { tableRouteSchemas } from '../../runtime/openapi/record-schemas.js';
import { isRecord } from '../config/loose-data.js';
import type { LoadedConfig } from '../config/load-config.js';
import { DiagnosticError, formatDiagnosticReport, isUserError } from '../diagnostics.js';
import { buildSummary, type CliIo } from '../cli/cli-io.js';
import { hookModulePath, type HookSource } from '../emit/create-main-file.js';
import { buildPlatform, databaseSchemas, liveDatabaseSchemas, loadEndpointModules } from '../pipeline.js';
import { loadUserModule } from '../user-modules.js';

export interface DevOptions {
  configPath: string;
  outDir?: string;
  port: number;
  host: string;
  /** Milliseconds between database schema polls; null: no polling. */
  pollMs: number | null;
  /** Milliseconds a previous build may take to finish its requests before it is closed anyway. */
  drainMs?: number;
}

/** A build being served, and the requests it was handed that have not finished. */
interface Instance {
  app: FastifyInstance;
  model: PlatformModel;
  inFlight: number;
  /** Called when inFlight drops to 0. */
  idle: (() => void) | null;
}

/** Files (and directories, for a WSDL's imports) whose change rebuilds. */
interface Watched {
  files: Set<string>;
  /** Directories in which any .wsdl or .xsd file counts. */
  wsdlDirs: Set<string>;
}

const DEBOUNCE_MS = 100;
const DEFAULT_DRAIN_MS = 30_000;

export class DevServer {
  private current: Instance | null = null;
  private readonly server: http.Server;
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private watched: Watched = { files: new Set(), wsdlDirs: new Set() };
  private schemas: Record<string, string> = {};
  private pollTimer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private building: Promise<void> | null = null;
  private pendingReason: string | null = null;
  private closed = false;
  private address = '';

  constructor(
    private readonly options: DevOptions,
    private readonly io: CliIo,
  ) {
    this.server = http.createServer((request, response) => this.handle(request, response));
    this.server.on('clientError', (error: Error, socket: Duplex) => this.clientError(error, socket));
  }

  /** First build, listen, watch. Resolves with the address once serving (or waiting for a build that works). */
  async start(): Promise<string> {
    await this.rebuild(null);
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(this.options.port, this.options.host, () => resolve());
      });
    } catch (error) {
      await this.close(); // the port is taken: nothing must keep the process alive
      throw new DiagnosticError([{ code: 'PCO501', message: listenFailure(error, this.options.host, this.options.port).message }]);
    }
    const { port } = this.server.address() as AddressInfo;
    this.address = `http://${this.options.host}:${port}`;
    if (this.current) this.io.stdout(`${await startupSummary(this.current.app, this.current.model, this.address)}\n`);
    else this.io.stdout(`Portico dev: listening on ${this.address}/api/v2 (503 until platform.yaml builds)\n`);
    const poll =
      this.options.pollMs === null ? 'database schemas not polled' : `database schemas polled every ${formatMs(this.options.pollMs)}`;
    this.io.stdout(`Watching ${this.describeWatched()}; ${poll}. Ctrl-C stops.\n`);
    if (this.options.pollMs !== null) this.pollTimer = setInterval(() => void this.poll(), this.options.pollMs);
    return this.address;
  }

  /** Stops watching and serving; requests in flight finish first. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.debounce) clearTimeout(this.debounce);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    await this.building;
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.current) await this.retire(this.current);
    this.current = null;
    await closing;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const instance = this.current;
    if (instance === null) {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 503, message: 'The platform does not build yet: see the output of gen dev.' } }));
      return;
    }
    instance.inFlight++;
    response.once('close', () => {
      instance.inFlight--;
      if (instance.inFlight === 0) instance.idle?.();
    });
    instance.app.routing(request, response);
  }

  /** Requests Node's parser refuses answer as the current build answers them (spec error shape). */
  private clientError(error: Error, socket: Duplex): void {
    if (this.current) this.current.app.server.emit('clientError', error, socket);
    else socket.destroy(error);
  }

  /** Rebuilds for `reason` (null: the first build), after any build under way; changes during a build rebuild once more. */
  private schedule(reason: string): void {
    if (this.closed) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      if (this.building) {
        this.pendingReason = reason;
        return;
      }
      void this.rebuild(reason);
    }, DEBOUNCE_MS);
  }

  private async rebuild(reason: string | null): Promise<void> {
    let done!: () => void;
    this.building = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await this.buildAndSwap(reason);
    } catch (error) {
      // The first build's failures end `gen dev` as any command's do; later ones keep the last build serving.
      if (reason === null) throw error;
      const text = isUserError(error)
        ? `error: ${error.message}`
        : `${error instanceof Error ? error.stack : String(error)}\n\nThis is a bug in Portico. Please report it with the output above.`;
      this.io.stderr(`${text}\n${this.current ? 'Still serving the last build that worked.\n' : ''}`);
    } finally {
      this.building = null;
      done();
    }
    const next = this.pendingReason;
    this.pendingReason = null;
    if (next !== null && !this.closed) await this.rebuild(next);
  }

  private async buildAndSwap(reason: string | null): Promise<void> {
    const start = performance.now();
    if (reason !== null) this.io.stdout(`\n${reason}: rebuilding\n`);
    let built: Awaited<ReturnType<typeof buildPlatform>>;
    try {
      built = await buildPlatform({ configPath: this.options.configPath, outDir: this.options.outDir, cwd: this.io.cwd, env: this.io.env });
    } catch (error) {
      if (!(error instanceof DiagnosticError)) throw error;
      this.io.stderr(formatDiagnosticReport(error.diagnostics));
      this.io.stderr(this.current ? 'Still serving the last build that worked.\n' : 'Nothing to serve until platform.yaml builds.\n');
      // The config names the files to watch; until it loads, watch platform.yaml alone.
      if (this.watchers.size === 0)
        this.watch({ files: new Set([path.resolve(this.io.cwd, this.options.configPath)]), wsdlDirs: new Set() });
      return;
    }
    const { plan, model, outDir, loaded } = built;
    this.watch(watchedFiles(loaded, model, this.io.env));
    this.schemas = databaseSchemas(model);
    const changes = [
      ...plan.added.map((file) => `  add     ${file}`),
      ...plan.changed.map((file) => `  change  ${file}`),
      ...plan.removed.map((file) => `  remove  ${file}`),
    ];
    if (reason !== null) this.io.stdout(changes.length > 0 ? `${changes.join('\n')}\n` : 'No generated file changed.\n');
    this.io.stdout(buildSummary(this.io, outDir, model, plan, performance.now() - start));
    if (this.current !== null && changes.length === 0) return;

    let app: FastifyInstance;
    try {
      app = await createServer(model, {
        baseDir: loaded.platformDir,
        routes: serviceRoutes(model),
        hooks: await importHooks(loaded.platformDir, outDir, built.hooks),
        logLevel: this.io.env.PORTICO_LOG_LEVEL,
        // The custom endpoints main.mjs would import, fresh from their TypeScript.
        endpoints: await loadEndpointModules(loaded, model, outDir),
      });
      await app.ready();
    } catch (error) {
      this.io.stderr(`The new build cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
      if (this.current) this.io.stderr('Still serving the last build that worked.\n');
      return;
    }
    const previous = this.current;
    this.current = { app, model, inFlight: 0, idle: null };
    if (previous === null) return;
    const waiting = previous.inFlight;
    this.io.stdout(
      `Reloaded: ${this.address}/api/v2 serves the new build${waiting > 0 ? ` (${waiting} request${waiting === 1 ? '' : 's'} finishing on the previous one)` : ''}.\n`,
    );
    void this.retire(previous);
  }

  /** Closes an instance once the requests it was handed have finished (or after drainMs). */
  private async retire(instance: Instance): Promise<void> {
    if (instance.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.drainMs ?? DEFAULT_DRAIN_MS);
        instance.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await instance.app.close();
  }

  /** Introspects the databases; a changed schema rebuilds. */
  private async poll(): Promise<void> {
    if (this.building || this.closed) return;
    let live: Record<string, string>;
    try {
      live = await liveDatabaseSchemas({
        configPath: this.options.configPath,
        outDir: this.options.outDir,
        cwd: this.io.cwd,
        env: this.io.env,
      });
    } catch {
      return; // an invalid platform.yaml: its watcher reports it
    }
    const changed = Object.keys(live).filter((name) => name in this.schemas && live[name] !== this.schemas[name]);
    if (changed.length === 0 || this.building) return;
    // Seen once: a build that fails on it (a grant on a dropped table) is not retried every poll.
    this.schemas = { ...this.schemas, ...live };
    this.schedule(`Database schema of ${changed.map((name) => `'${name}'`).join(', ')} changed`);
  }

  /** Watches the directories of the files (non-recursive: editors replace files by renaming). */
  private watch(watched: Watched): void {
    this.watched = watched;
    const dirs = new Set([...[...watched.files].map((file) => path.dirname(file)), ...watched.wsdlDirs]);
    for (const [dir, watcher] of this.watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (this.watchers.has(dir) || !fs.existsSync(dir)) continue;
      const watcher = fs.watch(dir, (_event, name) => {
        if (name === null) return;
        const file = path.join(dir, name.toString());
        const wsdlFile = this.watched.wsdlDirs.has(dir) && /\.(wsdl|xsd)$/i.test(file);
        if (this.watched.files.has(file) || wsdlFile) this.schedule(`${path.relative(this.io.cwd, file) || file} changed`);
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    }
  }

  private describeWatched(): string {
    const files = [...this.watched.files].map((file) => path.relative(this.io.cwd, file) || file);
    return files.join(', ') || this.options.configPath;
  }
}

/**
 * The hook modules as main.mjs passes them, loaded afresh from their TypeScript on every build
 * with `portico/runtime` pointing at the runtime this server runs on (as the custom endpoints
 * are): the package's servers load a bundled copy of it, and a hook's PorticoError or
 * NotFoundError must be this server's classes for its `instanceof` checks, and the hook's own.
 */
async function importHooks(platformDir: string, outDir: string, hooks: readonly HookSource[]): Promise<HookModule[]> {
  const modules: HookModule[] = [];
  for (const hook of hooks) {
    const module = await loadUserModule(platformDir, hook.file, outDir, hookModulePath(hook.file));
    const exported = module[hook.export];
    if (typeof exported !== 'object' || exported === null) throw new Error(`${hook.file} exports no hooks as '${hook.export}'.`);
    modules.push({ file: hook.file, timeoutMs: hook.timeoutMs, transaction: hook.transaction, hooks: exported as Record<string, unknown> });
  }
  return modules;
}

/**
 * platform.yaml, the hook modules, the custom services' modules, and the WSDL files of SOAP
 * services read from disk (with the directories holding them, for imported schemas).
 */
function watchedFiles(loaded: LoadedConfig, model: PlatformModel, env: Env): Watched {
  const files = new Set([loaded.path, ...loaded.config.hooks.map((hook) => path.resolve(loaded.platformDir, hook.file))]);
  for (const service of model.services) {
    if (service.kind === 'custom') files.add(path.resolve(loaded.platformDir, String(service.config.module)));
  }
  const wsdlDirs = new Set<string>();
  for (const service of loaded.config.services) {
    if (service.type !== 'soap' || !isRecord(service.config) || typeof service.config.wsdl !== 'string') continue;
    let wsdl: string;
    try {
      wsdl = resolveEnv(service.config.wsdl, env).trim();
    } catch {
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(wsdl) && !/^[a-z]:[\\/]/i.test(wsdl)) continue; // a URL
    // A bare name is looked for in the platform's wsdl/ directory, then beside platform.yaml (wsdl-source.ts).
    const candidates = /[\\/]/.test(wsdl) ? [wsdl] : [path.join('wsdl', wsdl), wsdl];
    for (const candidate of candidates) {
      const file = path.resolve(loaded.platformDir, candidate);
      files.add(file);
      wsdlDirs.add(path.dirname(file));
    }
  }
  return { files, wsdlDirs };
}

/** The route schemas the generated routes.json files hold (same function, same model). */
function serviceRoutes(model: PlatformModel): ServiceRoutes[] {
  return model.services.flatMap((service) =>
    service.kind === 'sql'
      ? [
          {
            service: service.name,
            tables: Object.fromEntries(service.schema.tables.map((table) => [table.name, tableRouteSchemas(table, service.dialect)])),
          },
        ]
      : [],
  );
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
