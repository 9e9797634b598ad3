/**
 * The platform's own TypeScript modules that services name (a custom service's endpoints): read
 * and loaded at build time, so that `gen build` can check their default export and put their
 * routes in the model. A module is compiled as the server's copy is (types erased) and imported
 * from a transient file in the output directory's `endpoints/` folder, where that copy will live,
 * so that its imports resolve as they will when serving; `portico/runtime` is the generator's own
 * runtime. The transient file is removed at once; the user's file is only read.
 */
import fs from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileHookModule, endpointModulePath } from './emit/create-main-file.js';

/** The runtime the generator runs on: its TypeScript source in the repository, its JavaScript in the package. */
const RUNTIME_URL = (() => {
  const source = new URL('../runtime/index.ts', import.meta.url);
  return (fs.existsSync(fileURLToPath(source)) ? source : new URL('../runtime/index.js', import.meta.url)).href;
})();

/** Why a module cannot be loaded: missing, or failing while it is compiled or imported. */
export class UserModuleError extends Error {
  constructor(
    message: string,
    readonly missing: boolean,
  ) {
    super(message);
  }
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
  const compiled = compileHookModule(file, source).replace(/((?:from|import)\s*\(?\s*)(['"])portico\/runtime\2/g, `$1$2${RUNTIME_URL}$2`);
  const dir = path.join(outDir, path.dirname(copy));
  const temp = path.join(dir, `.load-${process.pid}-${++loads}.mjs`);
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
    await writeFile(temp, compiled);
    return (await import(pathToFileURL(temp).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UserModuleError(`The module '${file}' cannot be loaded: ${error instanceof Error ? error.message : String(error)}`, false);
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
