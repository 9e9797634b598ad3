/**
 * The platform's own modules (hooks, custom endpoints) as main.mjs names them for runServer: the
 * compiled copy `gen build` wrote, imported at start. One that throws as it loads, cannot link, or
 * lacks its export stops the server with one line naming the module, the place (in the module's
 * TypeScript, through the copy's inline source map; in the compiled copy when it has none) and the
 * reason, instead of Node's stack trace.
 */
import { fileURLToPath } from 'node:url';
import { loadFailureReason, originalPlace, shownPath, thrownAt } from '../core/thrown-at.js';
import { EndpointModuleError, readEndpointSet } from '../services/custom/endpoints.js';
import { StartupError } from '../system/store/system-db.js';
import type { HookModule } from './hooks.js';

/** A compiled module main.mjs names: `file` is the platform's TypeScript, `module` its compiled copy. */
export interface UserModuleRef {
  file: string;
  module: URL;
  /** The export to use (default `default`). */
  export?: string;
}

/** A hook module main.mjs names for runServer to import. */
export type HookModuleRef = UserModuleRef & Omit<HookModule, 'hooks' | 'file'>;

export function isModuleRef(value: unknown): value is UserModuleRef {
  return typeof value === 'object' && value !== null && (value as { module?: unknown }).module instanceof URL;
}

/** Imports a compiled module and answers its export; a failure is a StartupError in one line about `subject` (`the hook module hooks/a.ts`). */
async function importExport(subject: string, ref: UserModuleRef): Promise<unknown> {
  const compiled = fileURLToPath(ref.module);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(ref.module.href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(compiled)) {
      throw new StartupError(
        `Portico: ${subject} is missing its compiled copy ${shownPath(compiled)}; run \`npx gen build\` in the platform directory.`,
      );
    }
    const thrown = thrownAt(error);
    const at = thrown === null ? null : originalPlace(thrown);
    const place = at === null ? '' : ` (at ${shownPath(at.file)}:${at.line}${at.col > 0 ? `:${at.col}` : ''})`;
    throw new StartupError(`Portico: ${subject} cannot be loaded: ${loadFailureReason(error)}${place}. Fix it and run \`npx gen build\`.`);
  }
  const name = ref.export ?? 'default';
  if (namespace[name] === undefined) {
    const wanted = name === 'default' ? 'no default export' : `no export named '${name}'`;
    throw new StartupError(`Portico: ${subject} has ${wanted} (${shownPath(compiled)}); run \`npx gen build\`.`);
  }
  return namespace[name];
}

/** The hook modules, imported where main.mjs names them by URL; the others as given. */
export async function importHookModules(
  hooks: ReadonlyArray<HookModule | HookModuleRef | Readonly<Record<string, unknown>>>,
): Promise<Array<HookModule | Readonly<Record<string, unknown>>>> {
  const modules: Array<HookModule | Readonly<Record<string, unknown>>> = [];
  for (const entry of hooks) {
    if (!isModuleRef(entry)) {
      modules.push(entry);
      continue;
    }
    const { file, timeoutMs, transaction } = entry as HookModuleRef;
    const exported = (await importExport(`the hook module ${file}`, entry)) as Readonly<Record<string, unknown>>;
    modules.push({ file, hooks: exported, ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(transaction ? { transaction } : {}) });
  }
  return modules;
}

/**
 * The custom services' modules by service, imported where main.mjs names them by URL, and their
 * routes checked now: a module that cannot serve stops the server rather than failing its first request.
 */
export async function importEndpointModules(endpoints: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const modules: Record<string, unknown> = {};
  for (const [service, entry] of Object.entries(endpoints)) {
    const exported = isModuleRef(entry) ? await importExport(`the endpoint module ${entry.file} (service '${service}')`, entry) : entry;
    try {
      readEndpointSet(exported);
    } catch (error) {
      if (!(error instanceof EndpointModuleError)) throw error;
      const file = isModuleRef(entry) ? entry.file : service;
      throw new StartupError(`Portico: the endpoint module ${file} (service '${service}') cannot serve: ${error.message}.`);
    }
    modules[service] = exported;
  }
  return modules;
}
