/**
 * The build pipeline: load -> introspect -> model -> emit -> write (or verify), each stage timed.
 * Only `introspect` talks to databases and WSDL hosts, only `write` touches the output directory;
 * `model` and `emit` are pure.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveEnv, type Env } from '../runtime/core/env.js';
import type { PlatformModel, ServiceModel } from '../runtime/model/platform-model.js';
import type { RuntimeContext } from '../runtime/services/service-kind.js';
import { serviceKindRegistry, type KindRegistry } from './config/kind-registry.js';
import { loadConfig, missingEnvDiagnostics, type LoadedConfig } from './config/load-config.js';
import { objectItems, isRecord } from './config/loose-data.js';
import { causeText, DiagnosticError, isUserError, type Diagnostic } from './diagnostics.js';
import { emitPlatform, type FileMap } from './emit/emit-platform.js';
import type { HookSource } from './emit/create-main-file.js';
import { buildModel, serviceModels, type IntrospectionSnapshot } from './model/build-model.js';
import { checkModel } from './model/model-checks.js';
import { verifyFiles, writeFiles, type DriftReport, type WritePlan } from './write/write-files.js';
import { loadTemplates } from './load-templates.js';
import { checkHookModules, hookEventWarnings, readHookModules, userModuleDiagnostic, type HookEvents } from './hook-modules.js';
import { EndpointModuleError } from '../runtime/services/custom/endpoints.js';
import { isInside, loadUserModule, readUserModule, UserModuleError } from './user-modules.js';

export type StageName = 'load' | 'introspect' | 'model' | 'emit' | 'write' | 'verify';

export interface StageTiming {
  stage: StageName;
  /** Whole milliseconds. */
  ms: number;
}

export interface PipelineOptions {
  /** Path of platform.yaml, relative to `cwd`. */
  configPath: string;
  /** Output directory, relative to `cwd`; default `<platform dir>/server`. */
  outDir?: string;
  /** Default process.cwd(). */
  cwd?: string;
  /** Environment for `${env:NAME}` references; default process.env. */
  env?: Env;
  /** Service kinds; default the runtime's registry. */
  kinds?: KindRegistry;
  /** Called after each stage. */
  onStage?(timing: StageTiming): void;
  /** Build from the committed server's model.json instead of introspecting databases and WSDLs (`gen check --offline`). */
  offline?: boolean;
}

export interface ModelResult {
  loaded: LoadedConfig;
  model: PlatformModel;
  /** The hook modules platform.yaml names, read and checked (hook-modules.ts). */
  hooks: HookSource[];
}

export interface GenerateResult extends ModelResult {
  /** Absolute output directory. */
  outDir: string;
  files: FileMap;
  /** The events each hook module names (for `hookWarnings`). */
  hookEvents: HookEvents[];
}

/**
 * Load, introspect and build the model (what `gen inspect` prints), then check the config against
 * it (grants, row filters). Introspection failures and check problems are reported together.
 */
export async function modelPlatform(options: PipelineOptions): Promise<ModelResult> {
  const env = options.env ?? process.env;
  const kinds = options.kinds ?? serviceKindRegistry;
  const loaded = await timed(options, 'load', () =>
    loadConfig(options.configPath, { env, kinds, cwd: options.cwd, deferReferenceProblems: true }),
  );
  const introspected = await timed(options, 'introspect', async () =>
    options.offline
      ? { snapshot: await committedSnapshot(loaded, outputDir(options, loaded)), diagnostics: [], unavailable: new Set<string>() }
      : introspectAll(loaded, { env, kinds, outDir: outputDir(options, loaded) }),
  );
  const model = await timed(options, 'model', async () => buildModel(loaded.config, introspected.snapshot));
  const problems = checkModel(model, loaded.config, loaded.source, { unavailable: introspected.unavailable });
  let hooks: HookSource[] = [];
  const hookProblems: Diagnostic[] = [];
  try {
    hooks = readHookModules(loaded);
  } catch (error) {
    if (!(error instanceof DiagnosticError)) throw error;
    hookProblems.push(...error.diagnostics);
  }
  const diagnostics = [...loaded.deferred, ...introspected.diagnostics, ...problems, ...hookProblems];
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return { loaded, model, hooks };
}

/**
 * What introspection left out without failing (a SOAP service's ports or operations the WSDL does
 * not make usable, a WSDL with no SOAP operation at all, a database's tables or columns whose API
 * names another one has), one `platform.yaml:LINE:COL: warning:
 * ...` line each, at the service's entry: the build goes on, and the user learns why.
 */
export function introspectionWarnings({ loaded, model }: ModelResult): string[] {
  return model.services.flatMap((service) => {
    const warnings = service.kind === 'soap' ? service.warnings : service.kind === 'sql' ? (service.schema.warnings ?? []) : [];
    if (warnings.length === 0) return [];
    const { file, line, col } = loaded.source.locate(declaredEntry(loaded, service.name));
    return warnings.map((warning) => `${file}:${line}:${col}: warning: service '${service.name}': ${warning}`);
  });
}

/** A warning line for each event a hook module names that the platform does not raise (its hook would never run). */
export function hookWarnings({ loaded, model, hookEvents }: GenerateResult): string[] {
  return hookEventWarnings(loaded, model, hookEvents);
}

/** Everything up to the in-memory file map. */
export async function generatePlatform(options: PipelineOptions): Promise<GenerateResult> {
  const { loaded, model, hooks } = await modelPlatform(options);
  const outDir = outputDir(options, loaded);
  const platformDirFromOutput = path.relative(outDir, loaded.platformDir).split(path.sep).join('/') || '.';
  const endpoints = await readEndpointModules(loaded, model, outDir);
  const hookEvents = await checkHookModules(loaded, hooks, outDir);
  const files = await timed(options, 'emit', async () =>
    emitPlatform(model, {
      platformDirFromOutput,
      templates: loadTemplates(),
      combinedOpenApi: loaded.config.output.combined_openapi,
      hooks,
      endpoints,
    }),
  );
  return { loaded, model, hooks, outDir, files, hookEvents };
}

/**
 * The sources of the custom services' modules (compiled into the server by emit). A module must
 * exist and lie outside the generated directory (PCO116, at its `module` entry).
 */
async function readEndpointModules(
  loaded: LoadedConfig,
  model: PlatformModel,
  outDir: string,
): Promise<Array<{ service: string; file: string; source: string }>> {
  const diagnostics: Diagnostic[] = [];
  const modules = [];
  for (const service of model.services) {
    if (service.kind !== 'custom') continue;
    const file = String(service.config.module);
    const at = [...declaredEntry(loaded, service.name), 'config', 'module'];
    if (isInside(loaded.platformDir, file, outDir)) {
      const message = `The module '${file}' of service '${service.name}' is inside the generated directory, which gen build rewrites: keep it next to platform.yaml.`;
      diagnostics.push(loaded.source.diagnosticAt(at, 'PCO116', message));
      continue;
    }
    try {
      modules.push({ service: service.name, file, source: await readUserModule(loaded.platformDir, file) });
    } catch (error) {
      if (!(error instanceof UserModuleError)) throw error;
      diagnostics.push(loaded.source.diagnosticAt(at, 'PCO116', `Service '${service.name}': ${error.message}`));
    }
  }
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return modules;
}

/**
 * Build-time loading of a service's module, for its kind's introspection: a module that is
 * missing or fails to load is PCO116, one without a default export PCO117, each at the service's
 * `module` entry.
 */
function moduleLoader(loaded: LoadedConfig, service: string, outDir: string | undefined): RuntimeContext['loadModule'] {
  if (outDir === undefined) return undefined;
  const at = [...declaredEntry(loaded, service), 'config', 'module'];
  return async (file) => {
    let namespace: Record<string, unknown>;
    try {
      namespace = await loadUserModule(loaded.platformDir, file, outDir);
    } catch (error) {
      if (!(error instanceof UserModuleError)) throw error;
      throw new DiagnosticError([userModuleDiagnostic(loaded, at, 'PCO116', `Service '${service}': ${error.message}`, error)]);
    }
    if (namespace.default === undefined) {
      const message = `Service '${service}': the module '${file}' has no default export; it must \`export default defineEndpoints({ routes: [...] })\`.`;
      throw new DiagnosticError([loaded.source.diagnosticAt(at, 'PCO117', message)]);
    }
    return namespace.default;
  };
}

/**
 * The custom services' modules as the generated main.mjs hands them to runServer (their default
 * exports by service), loaded from their TypeScript (`gen dev` serves these).
 */
export async function loadEndpointModules(loaded: LoadedConfig, model: PlatformModel, outDir: string): Promise<Record<string, unknown>> {
  const endpoints: Record<string, unknown> = {};
  for (const service of model.services) {
    if (service.kind === 'custom')
      endpoints[service.name] = (await loadUserModule(loaded.platformDir, String(service.config.module), outDir)).default;
  }
  return endpoints;
}

/** Generates and writes changed files, pruning stale ones; `dryRun` only plans. */
export async function buildPlatform(options: PipelineOptions & { dryRun?: boolean }): Promise<GenerateResult & { plan: WritePlan }> {
  const generated = await generatePlatform(options);
  const plan = await timed(options, 'write', () => writeFiles(generated.outDir, generated.files, { dryRun: options.dryRun }));
  return { ...generated, plan };
}

/** Generates and compares with the output directory (`gen check`). */
export async function checkPlatform(options: PipelineOptions): Promise<GenerateResult & { drift: DriftReport }> {
  const generated = await generatePlatform(options);
  const drift = await timed(options, 'verify', () => verifyFiles(generated.outDir, generated.files));
  return { ...generated, drift };
}

/**
 * Stage 2: each service's kind adds what introspection finds (tables, operations). Every failing
 * service is reported, at its entry in platform.yaml when it has one.
 */
export async function introspectServices(
  loaded: LoadedConfig,
  options: { env: Env; kinds: KindRegistry; outDir?: string },
): Promise<IntrospectionSnapshot> {
  const { snapshot, diagnostics } = await introspectAll(loaded, options);
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return snapshot;
}

interface Introspected {
  snapshot: IntrospectionSnapshot;
  /** PCO111 for variables introspection needs and lacks, PCO201 for services that cannot be read. */
  diagnostics: Diagnostic[];
  /** Services not introspected because of those problems. */
  unavailable: Set<string>;
}

async function introspectAll(
  loaded: LoadedConfig,
  options: { env: Env; kinds: KindRegistry; outDir?: string },
  only: (service: ServiceModel) => boolean = () => true,
): Promise<Introspected> {
  const ctx: RuntimeContext = { baseDir: loaded.platformDir, resolveEnv: (value) => resolveEnv(value, options.env) };
  const services: Record<string, ServiceModel> = {};
  const diagnostics: Diagnostic[] = [];
  const unavailable = new Set<string>();
  // Independent services are introspected at once (databases and WSDL hosts answer in parallel);
  // results and problems are kept in declaration order, so the output does not depend on timing.
  const results = await Promise.all(
    serviceModels(loaded.config)
      .filter(only)
      .map(async (service) => {
        const kind = options.kinds.getServiceKind(service.type);
        if (!kind?.introspect) return null;
        const entry = declaredEntry(loaded, service.name);
        // The values introspection reads: `${env:...}` in the service's config must be set now.
        const missing = entry.length > 0 ? missingEnvDiagnostics(loaded.source, [...entry, 'config'], options.env) : [];
        if (missing.length > 0) return { service, model: undefined, diagnostics: missing };
        try {
          const loadModule = moduleLoader(loaded, service.name, options.outDir);
          return { service, model: await kind.introspect(service, { ...ctx, loadModule }), diagnostics: [] };
        } catch (error) {
          if (error instanceof DiagnosticError) return { service, model: undefined, diagnostics: error.diagnostics };
          if (error instanceof EndpointModuleError) {
            const message = `Service '${service.name}': the module '${String(service.config.module)}' cannot serve: ${error.message}.`;
            return {
              service,
              model: undefined,
              diagnostics: [loaded.source.diagnosticAt([...entry, 'config', 'module'], 'PCO117', message)],
            };
          }
          if (isProgrammingError(error)) throw error;
          const reason = `${error instanceof Error ? error.message : String(error)}${causeText(error)}`.replace(
            /:\/\/[^@/\s]*@/g,
            '://***@',
          );
          const message = `Introspection of service '${service.name}' (${service.type}) failed: ${reason}`;
          return { service, model: undefined, diagnostics: [loaded.source.diagnosticAt(entry, 'PCO201', message)] };
        }
      }),
  );
  for (const result of results) {
    if (result === null) continue;
    if (result.model !== undefined) services[result.service.name] = result.model;
    else unavailable.add(result.service.name);
    diagnostics.push(...result.diagnostics);
  }
  return { snapshot: { services }, diagnostics, unavailable };
}

/**
 * The live schemas of the platform's database services, as `gen dev` polls them: each SQL
 * service's tables and routines as the model would hold them (JSON), by service name. A database
 * that cannot be read now is left out; the build that follows a change reports it.
 */
export async function liveDatabaseSchemas(options: PipelineOptions): Promise<Record<string, string>> {
  const env = options.env ?? process.env;
  const kinds = options.kinds ?? serviceKindRegistry;
  const loaded = await loadConfig(options.configPath, { env, kinds, cwd: options.cwd, deferReferenceProblems: true });
  const isDatabase = (service: ServiceModel) => kinds.getServiceKind(service.type)?.group === 'Database';
  const { snapshot } = await introspectAll(loaded, { env, kinds }, isDatabase);
  return databaseSchemas(buildModel(loaded.config, snapshot));
}

/** JSON of each SQL service's schema in a model, by service name. */
export function databaseSchemas(model: PlatformModel): Record<string, string> {
  return Object.fromEntries(
    model.services.flatMap((service) => (service.kind === 'sql' ? [[service.name, JSON.stringify(service.schema)]] : [])),
  );
}

/**
 * Errors that mean a bug in Portico's own code rather than a database or WSDL host refusing us:
 * those keep their stack. Everything else a driver or protocol throws during introspection (wrong
 * port or protocol, TLS required, a timeout) is the service's problem, reported at its entry.
 */
function isProgrammingError(error: unknown): boolean {
  return (
    !isUserError(error) &&
    (error instanceof TypeError || error instanceof ReferenceError || error instanceof SyntaxError || error instanceof RangeError)
  );
}

function outputDir(options: PipelineOptions, loaded: LoadedConfig): string {
  return path.resolve(options.cwd ?? process.cwd(), options.outDir ?? path.join(loaded.platformDir, 'server'));
}

/** What introspection found when the committed server was generated: its model.json's services. */
async function committedSnapshot(loaded: LoadedConfig, outDir: string): Promise<IntrospectionSnapshot> {
  const file = path.join(outDir, 'model.json');
  let model: PlatformModel;
  try {
    model = JSON.parse(await readFile(file, 'utf8')) as PlatformModel;
  } catch {
    throw new DiagnosticError([
      {
        code: 'PCO401',
        message: `Cannot check offline: ${path.relative(loaded.platformDir, file) || file} is missing or unreadable; run \`gen build\` first.`,
      },
    ]);
  }
  return {
    services: Object.fromEntries(model.services.filter((service) => service.kind !== 'plain').map((service) => [service.name, service])),
  };
}

/** `['services', index]` of a service declared in platform.yaml, or the top of the file. */
function declaredEntry(loaded: LoadedConfig, name: string): Array<string | number> {
  const raw = loaded.source.toJS();
  const found = isRecord(raw) ? objectItems(raw.services).find(([, entry]) => entry.name === name) : undefined;
  return found ? ['services', found[0]] : [];
}

async function timed<T>(options: PipelineOptions, stage: StageName, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await run();
  options.onStage?.({ stage, ms: Math.round(performance.now() - start) });
  return result;
}
