/**
 * `main.mjs`: starts the server with the frozen model and the route schemas of each database
 * service. Plain JavaScript, and an ES module whatever the user's package.json says (`.mjs`), so
 * that `node main.mjs` runs it with no TypeScript toolchain in the user's project.
 */
import type { PlatformModel } from '../../runtime/model/platform-model.js';
import { typescript } from '../typescript-compiler.js';
import { LINE_COMMENT_NOTICE } from './generated-notice.js';
import { RUNTIME_SPECIFIER } from './typescript-printer.js';

/** The generated server's entry module; running or importing it starts the server. */
export const SERVER_ENTRY = 'main.mjs';

/** `..` -> `../`: the platform directory as a URL relative to main.mjs. */
function directoryUrl(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

/** Where the route schemas of a database service are written, relative to the output directory. */
export function routesFilePath(service: string): string {
  return `services/${service}/routes.json`;
}

/** Where `gen build` writes the compiled hook module of a platform.yaml `hooks` entry, relative to the output directory. */
export function hookModulePath(file: string): string {
  return `hooks/${file.replace(/\\/g, '/').split('/').pop()?.replace(/\.ts$/, '') ?? 'hook'}.mjs`;
}

/** A user's hook module compiled to plain JavaScript (types erased), so that `node main.mjs` needs no TypeScript toolchain. */
export function compileHookModule(file: string, source: string): string {
  const ts = typescript();
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  return `${LINE_COMMENT_NOTICE}\n// Compiled from ${file}; edit that file, not this one.\n\n${outputText}`;
}

/** A platform.yaml `hooks` entry with the module's TypeScript source. */
export interface HookSource {
  /** The .ts file, relative to platform.yaml. */
  file: string;
  source: string;
  /** `default`, or the named export holding the hooks. */
  export: string;
  timeoutMs: number;
  /** platform.yaml `transaction`: table writes its post_process hooks follow run in one transaction with them. */
  transaction: boolean;
}

/** Where `gen build` writes the compiled module of a custom service, relative to the output directory. */
export function endpointModulePath(service: string): string {
  return `endpoints/${service}.mjs`;
}

export function createMainFile(
  model: PlatformModel,
  platformDirFromOutput: string,
  hooks: readonly HookSource[] = [],
  endpointModules: ReadonlyArray<{ service: string; path: string }> = [],
): string {
  const url = (relative: string) => `new URL(${JSON.stringify(relative)}, import.meta.url)`;
  const routeFiles = model.services.filter((service) => service.kind === 'sql').map((service) => url(`./${routesFilePath(service.name)}`));
  return [
    LINE_COMMENT_NOTICE,
    '',
    `import { runServer } from ${JSON.stringify(RUNTIME_SPECIFIER)};`,
    ...hooks.map((hook, index) => {
      const binding = hook.export === 'default' ? `hooks${index}` : `{ ${hook.export} as hooks${index} }`;
      return `import ${binding} from ${JSON.stringify(`./${hookModulePath(hook.file)}`)};`;
    }),
    ...endpointModules.map((module, index) => `import endpoints${index} from ${JSON.stringify(`./${module.path}`)};`),
    '',
    'await runServer({',
    `  modelUrl: ${url('./model.json')},`,
    `  baseUrl: ${url(directoryUrl(platformDirFromOutput))},`,
    routeFiles.length === 0 ? '  routeFiles: [],' : ['  routeFiles: [', ...routeFiles.map((file) => `    ${file},`), '  ],'].join('\n'),
    ...(hooks.length === 0
      ? []
      : [
          '  hooks: [',
          ...hooks.map(
            (hook, index) =>
              `    { file: ${JSON.stringify(hook.file)}, timeoutMs: ${hook.timeoutMs}, ${hook.transaction ? 'transaction: true, ' : ''}hooks: hooks${index} },`,
          ),
          '  ],',
        ]),
    ...(endpointModules.length === 0
      ? []
      : [`  endpoints: { ${endpointModules.map((module, index) => `${JSON.stringify(module.service)}: endpoints${index}`).join(', ')} },`]),
    '});',
    '',
  ].join('\n');
}
