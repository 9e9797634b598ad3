/**
 * The emit stage: the one place that lists every output file of a platform. Each file is made by
 * a small createXFile function; this list decides which files exist. Pure: no I/O (the
 * templates come in the options), same model -> same bytes.
 */
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { createCombinedOpenApiFile, createServiceOpenApiFile } from './create-openapi-files.js';
import {
  compileHookModule,
  createMainFile,
  endpointModulePath,
  hookModulePath,
  routesFilePath,
  SERVER_ENTRY,
  type HookSource,
} from './create-main-file.js';
import { createEventsFile } from './create-events.js';
import { createModelFile } from './create-model-file.js';
import { createPrismaFile } from './create-prisma-file.js';
import { createReadmeFile, type FileEntry } from './create-readme-file.js';
import { createRoutesFile } from './create-routes-file.js';
import { createTypesFile } from './create-types-file.js';
import { createSoapTypesFile } from './soap/create-soap-types-file.js';

/** Output files by path relative to the output directory (posix separators). */
export type FileMap = Map<string, string>;

/** The template texts the emitters render (read by generator/load-templates.ts). */
export interface Templates {
  /** templates/README.md.hbs: the generated server's README. */
  readme: string;
  /** templates/schema.prisma.hbs: a Prisma schema per database. */
  prismaSchema: string;
}

export interface EmitOptions {
  /** Path from the output directory to the platform directory (posix, e.g. `..`), for resolving relative paths at run time. */
  platformDirFromOutput: string;
  /** Portico's templates, as generator/load-templates.ts reads them. */
  templates: Templates;
  /** Also write openapi.json, the combined document of every service (platform.yaml `output.combined_openapi`). */
  combinedOpenApi?: boolean;
  /** The user's hook modules (platform.yaml `hooks`) with their TypeScript source, compiled to hooks/<name>.mjs. */
  hooks?: ReadonlyArray<HookSource>;
  /** The custom services' modules (config `module`) with their TypeScript source, compiled to endpoints/<service>.mjs. */
  endpoints?: ReadonlyArray<{ service: string; file: string; source: string }>;
}

/**
 * Whether a service's OpenAPI document is the platform's to commit: databases and SOAP services
 * (their documents follow their schemas) and services platform.yaml declares. The other built-ins'
 * documents depend only on the runtime version: they are served live, not written.
 */
function hasOwnDocument(service: PlatformModel['services'][number]): boolean {
  return service.kind === 'sql' || service.kind === 'soap' || service.origin !== 'builtin';
}

/**
 * The shapes of every path emitPlatform writes, and of those earlier versions wrote (main.ts,
 * services/<name>/routes.ts): the write stage prunes a stale generated file only at such a path.
 * A file elsewhere in the output directory is never Portico's to delete, even when it carries the
 * marker (a user's copy of a generated file, another platform's server in a subdirectory).
 */
const EMITTED_PATH_SHAPES: readonly RegExp[] = [
  /^(main\.mjs|main\.ts|events\.ts|model\.json|README\.md|openapi\.json)$/,
  /^(hooks|endpoints)\/[^/]+\.mjs$/,
  /^services\/[^/]+\/(types\.ts|routes\.json|routes\.ts)$/,
  /^prisma\/[^/]+\.prisma$/,
  /^openapi\/[^/]+\.json$/,
];

/** Whether a path relative to the output directory is one emitPlatform writes or once wrote for some platform. */
export function isEmittedPathShape(file: string): boolean {
  return EMITTED_PATH_SHAPES.some((shape) => shape.test(file));
}

interface OutputFile extends FileEntry {
  create(): string;
}

/** Lists every output file of a platform and renders it, in path order. */
export function emitPlatform(model: PlatformModel, options: EmitOptions): FileMap {
  const sqlServices = model.services.flatMap((service) => (service.kind === 'sql' ? [service] : []));
  const soapServices = model.services.flatMap((service) => (service.kind === 'soap' ? [service] : []));
  const files: OutputFile[] = [
    {
      path: SERVER_ENTRY,
      description: 'starts the server (`runServer` of `portico/runtime`).',
      create: () =>
        createMainFile(
          model,
          options.platformDirFromOutput,
          options.hooks ?? [],
          (options.endpoints ?? []).map((module) => ({
            service: module.service,
            file: module.file,
            path: endpointModulePath(module.service),
          })),
        ),
    },
    {
      path: 'events.ts',
      description:
        'every hook event of the platform with the data its hooks see (`defineHooks<Events>` of `portico/runtime`), and `Api`, the database tables of the in-process API of hooks and endpoints.',
      create: () => createEventsFile(model),
    },
    ...(options.hooks ?? []).map((hook) => ({
      path: hookModulePath(hook.file),
      description: `\`${hook.file}\` compiled to JavaScript (the hooks main.mjs passes to \`runServer\`).`,
      create: () => compileHookModule(hook.file, hook.source, hookModulePath(hook.file), options.platformDirFromOutput),
    })),
    ...(options.endpoints ?? []).map((module) => ({
      path: endpointModulePath(module.service),
      description: `\`${module.file}\` compiled to JavaScript (the endpoints of the \`${module.service}\` service).`,
      create: () => compileHookModule(module.file, module.source, endpointModulePath(module.service), options.platformDirFromOutput),
    })),
    {
      path: 'model.json',
      description: 'the platform model (services, tables, roles, apps) the server loads at start.',
      create: () => createModelFile(model),
    },
    ...sqlServices.flatMap((service) => [
      {
        path: `services/${service.name}/types.ts`,
        description: `record and insert types of the \`${service.name}\` tables.`,
        create: () => createTypesFile(service),
      },
      {
        path: routesFilePath(service.name),
        description: `JSON Schemas of the \`${service.name}\` table routes.`,
        create: () => createRoutesFile(service),
      },
      {
        path: `prisma/${service.name}.prisma`,
        description: `Prisma schema of the \`${service.name}\` database.`,
        create: () => createPrismaFile(service, options.templates.prismaSchema),
      },
    ]),
    ...soapServices.map((service) => ({
      path: `services/${service.name}/types.ts`,
      description: `request and response types of the \`${service.name}\` SOAP operations.`,
      create: () => createSoapTypesFile(service),
    })),
    ...model.services.filter(hasOwnDocument).map((service) => ({
      path: `openapi/${service.name}.json`,
      description: `OpenAPI 3 document of the \`${service.name}\` service.`,
      create: () => createServiceOpenApiFile(service),
    })),
    ...(options.combinedOpenApi
      ? [{ path: 'openapi.json', description: 'OpenAPI 3 document of all services.', create: () => createCombinedOpenApiFile(model) }]
      : []),
  ];
  const readme: OutputFile = {
    path: 'README.md',
    description: 'this file.',
    create: () =>
      createReadmeFile(
        model,
        all.map(({ path, description }) => ({ path, description })),
        options.platformDirFromOutput,
        options.templates.readme,
      ),
  };
  const all = [...files, readme].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return new Map(all.map((file) => [file.path, file.create()]));
}
