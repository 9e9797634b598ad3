/**
 * `main.mjs`: starts the server with the frozen model and the route schemas of each database
 * service. Plain JavaScript, and an ES module whatever the user's package.json says (`.mjs`), so
 * that `node main.mjs` runs it with no TypeScript toolchain in the user's project.
 */
import path from 'node:path';
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

/**
 * A user's module compiled to plain JavaScript (types erased) for its `copy` in the output
 * directory, so that `node main.mjs` needs no TypeScript toolchain. The copy carries its source
 * map inline, naming the TypeScript relative to the copy: a module that fails to load at start is
 * reported at its .ts line (runtime/core/thrown-at.ts), and `node --enable-source-maps` places the
 * stack traces of its hooks there too.
 */
export function compileHookModule(file: string, source: string, copy: string, platformDirFromOutput: string): string {
  const compiled = compileUserModule(file, source, true);
  if (compiled.map === undefined) return compiled.text;
  const map = JSON.parse(compiled.map) as { file?: string; sources: string[]; mappings: string };
  const original = path.posix.join(platformDirFromOutput, file.replace(/\\/g, '/'));
  map.file = path.posix.basename(copy);
  map.sources = [path.posix.relative(path.posix.dirname(copy), original)];
  // The notice above the code has no counterpart in the TypeScript: one empty line of mappings each.
  map.mappings = ';'.repeat(compiled.linesBefore) + map.mappings;
  return `${compiled.text}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/**
 * A user's module compiled as the server's copy is, and with `sourceMap` the map from its code
 * back to the TypeScript (`linesBefore`: the lines of the notice above the code, which the map
 * does not count), so that `gen build` can say on which line of the module a load failed.
 */
export function compileUserModule(
  file: string,
  source: string,
  sourceMap = false,
): { text: string; map: string | undefined; linesBefore: number } {
  const ts = typescript();
  const { outputText, sourceMapText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, sourceMap },
  });
  const notice = `${LINE_COMMENT_NOTICE}\n// Compiled from ${file}; edit that file, not this one.\n\n`;
  // The map is kept in memory: its comment would name a file that is never written.
  const code = sourceMap ? outputText.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n') : outputText;
  return { text: `${notice}${code}`, map: sourceMapText, linesBefore: notice.split('\n').length - 1 };
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
  endpointModules: ReadonlyArray<{ service: string; file: string; path: string }> = [],
): string {
  const url = (relative: string) => `new URL(${JSON.stringify(relative)}, import.meta.url)`;
  const routeFiles = model.services.filter((service) => service.kind === 'sql').map((service) => url(`./${routesFilePath(service.name)}`));
  return [
    LINE_COMMENT_NOTICE,
    '',
    "import module from 'node:module';",
    '',
    // Before the runtime is loaded (hence its dynamic import): the compile cache serves only modules
    // compiled after it is enabled. Its directory is Node's default (NODE_COMPILE_CACHE, else the
    // system's temporary directory), not the project's: a server directory may be read-only.
    '// V8 compiles the runtime from a cache kept between starts (Node.js 22.1 and later; NODE_DISABLE_COMPILE_CACHE=1 turns it off).',
    'module.enableCompileCache?.();',
    `const { runServer } = await import(${JSON.stringify(RUNTIME_SPECIFIER)});`,
    '',
    // The platform's own modules go by URL: runServer imports them, so that one that fails to load
    // stops the server with one line naming it rather than Node's stack trace.
    'await runServer({',
    `  modelUrl: ${url('./model.json')},`,
    `  baseUrl: ${url(directoryUrl(platformDirFromOutput))},`,
    routeFiles.length === 0 ? '  routeFiles: [],' : ['  routeFiles: [', ...routeFiles.map((file) => `    ${file},`), '  ],'].join('\n'),
    ...(hooks.length === 0
      ? []
      : [
          '  hooks: [',
          ...hooks.map(
            (hook) =>
              `    { file: ${JSON.stringify(hook.file)}, module: ${url(`./${hookModulePath(hook.file)}`)}, ${hook.export === 'default' ? '' : `export: ${JSON.stringify(hook.export)}, `}timeoutMs: ${hook.timeoutMs}${hook.transaction ? ', transaction: true' : ''} },`,
          ),
          '  ],',
        ]),
    ...(endpointModules.length === 0
      ? []
      : [
          '  endpoints: {',
          ...endpointModules.map(
            (module) =>
              `    ${JSON.stringify(module.service)}: { file: ${JSON.stringify(module.file)}, module: ${url(`./${module.path}`)} },`,
          ),
          '  },',
        ]),
    '});',
    '',
  ].join('\n');
}
