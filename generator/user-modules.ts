/**
 * The platform's own TypeScript modules (a custom service's endpoints, hook modules): read and
 * loaded at build time, so that `gen build` can check their exports and put a service's routes in
 * the model. A module is compiled as the server's copy is (types erased) and imported from a
 * transient file in the output directory's `endpoints/` or `hooks/` folder, where that copy will live,
 * so that its imports resolve as they will when serving; `portico/runtime` is the generator's own
 * runtime. The transient file is removed at once; the user's file is only read.
 */
import fs from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SourceMap } from 'node:module';
import { loadFailureReason, thrownAt, type ThrownAt } from '../runtime/core/thrown-at.js';
import { compileUserModule, endpointModulePath } from './emit/create-main-file.js';
import { typescript } from './typescript-compiler.js';

/** The runtime the generator runs on: its TypeScript source in the repository, its JavaScript in the package. */
const RUNTIME_URL = (() => {
  const source = new URL('../runtime/index.ts', import.meta.url);
  return (fs.existsSync(fileURLToPath(source)) ? source : new URL('../runtime/index.js', import.meta.url)).href;
})();

/** Why a module cannot be loaded: missing, or failing while it is compiled or imported; `at` is where, when known. */
export class UserModuleError extends Error {
  constructor(
    message: string,
    readonly missing: boolean,
    readonly at?: ThrownAt,
  ) {
    super(message);
  }
}

/** The first syntax error of a module, 1-based, or null. */
export function syntaxError(file: string, source: string): { line: number; col: number; message: string } | null {
  const ts = typescript();
  const { diagnostics } = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext },
  });
  const first = diagnostics?.find((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error && diagnostic.file !== undefined);
  if (first === undefined || first.file === undefined) return null;
  const { line, character } = first.file.getLineAndCharacterOfPosition(first.start ?? 0);
  return { line: line + 1, col: character + 1, message: ts.flattenDiagnosticMessageText(first.messageText, ' ') };
}

let loads = 0;

/** Whether `file` (relative to the platform directory) lies inside `dir`. */
export function isInside(platformDir: string, file: string, dir: string): boolean {
  const relative = path.relative(dir, path.resolve(platformDir, file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** A module's source text; a missing one is a UserModuleError. */
export async function readUserModule(platformDir: string, file: string): Promise<string> {
  try {
    return await readFile(path.resolve(platformDir, file), 'utf8');
  } catch {
    throw new UserModuleError(`The module '${file}' does not exist (relative to ${platformDir}).`, true);
  }
}

/**
 * Loads a module and answers its namespace (`default` is its default export, if it has one).
 * `copy` is where the server's compiled copy lives in the output directory (an endpoints module by
 * default; `hooks/<name>.mjs` for hooks), so that the module's own imports resolve from there.
 */
export async function loadUserModule(
  platformDir: string,
  file: string,
  outDir: string,
  copy: string = endpointModulePath('_'),
): Promise<Record<string, unknown>> {
  const source = await readUserModule(platformDir, file);
  const sourcePath = path.resolve(platformDir, file);
  const broken = syntaxError(file, source);
  if (broken !== null) {
    throw new UserModuleError(`The module '${file}' does not parse: ${broken.message}`, false, {
      file: sourcePath,
      line: broken.line,
      col: broken.col,
    });
  }
  const compiled = compileUserModule(file, source, true);
  const text = compiled.text.replace(/((?:from|import)\s*\(?\s*)(['"])portico\/runtime\2/g, `$1$2${RUNTIME_URL}$2`);
  const dir = path.join(outDir, path.dirname(copy));
  const temp = path.join(dir, `.load-${process.pid}-${++loads}.mjs`);
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
    await writeFile(temp, text);
    return (await import(pathToFileURL(temp).href)) as Record<string, unknown>;
  } catch (error) {
    // The transient copy's name means nothing to the user: the server's copy will live there.
    const reason = loadFailureReason(error).replaceAll(temp, path.join(outDir, copy));
    throw new UserModuleError(
      `The module '${file}' cannot be loaded: ${reason}`,
      false,
      sourcePlace(error, temp, sourcePath, compiled) ?? undefined,
    );
  } finally {
    await rm(temp, { force: true });
    // Folders made for the load go again when nothing else is in them (rmdir refuses otherwise).
    for (let folder = dir; created !== undefined; folder = path.dirname(folder)) {
      if (
        !(await rmdir(folder).then(
          () => true,
          () => false,
        )) ||
        folder === created
      )
        break;
    }
  }
}

/**
 * Where a load failed, in the user's files: a place in the transient copy mapped back to the
 * module's TypeScript line (through the compiler's source map), a place in another of the user's
 * files as it is; null when the stack names none (a package that cannot be found).
 */
function sourcePlace(
  error: unknown,
  temp: string,
  sourcePath: string,
  compiled: { map: string | undefined; linesBefore: number },
): ThrownAt | null {
  const at = thrownAt(error);
  if (at === null || at.file !== temp) return at;
  if (compiled.map === undefined) return null;
  try {
    const entry = new SourceMap(JSON.parse(compiled.map)).findEntry(at.line - 1 - compiled.linesBefore, Math.max(at.col - 1, 0));
    if (!('originalLine' in entry)) return null;
    return { file: sourcePath, line: entry.originalLine + 1, col: entry.originalColumn + 1 };
  } catch {
    return null;
  }
}
