/**
 * The hook modules platform.yaml names under `hooks`, read and checked before anything is
 * written: each file exists (PCO113), parses (PCO115) and has the export it names, `default`
 * unless `export` says otherwise (PCO114); two modules may not compile to the same file (PCO107).
 * Problems are positioned in platform.yaml, or in the module for a syntax error. Then each is
 * loaded as the server will load it, and its hooks checked as the server will (PCO118).
 */
import fs from 'node:fs';
import path from 'node:path';
import { HookModuleError, HookRegistry } from '../runtime/http/hooks.js';
import { DiagnosticError, type Diagnostic } from './diagnostics.js';
import { hookModulePath, type HookSource } from './emit/create-main-file.js';
import { platformEvents } from './emit/create-events.js';
import type { PlatformModel } from '../runtime/model/platform-model.js';
import type { LoadedConfig } from './config/load-config.js';
import { typescript } from './typescript-compiler.js';
import { loadUserModule, syntaxError, UserModuleError } from './user-modules.js';

/** The runtime values a module exports by name (`default` included), and whether it re-exports a whole module (unknown names). */
export function valueExports(file: string, source: string): { names: Set<string>; exportsAll: boolean } {
  const ts = typescript();
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names = new Set<string>();
  let exportsAll = false;
  for (const statement of sourceFile.statements) {
    if (ts.isExportAssignment(statement)) {
      if (!statement.isExportEquals) names.add('default');
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue;
      const clause = statement.exportClause;
      if (clause === undefined) exportsAll = true;
      else if (ts.isNamespaceExport(clause)) names.add(clause.name.text);
      else for (const element of clause.elements) if (!element.isTypeOnly) names.add(element.name.text);
    } else if (ts.canHaveModifiers(statement)) {
      const modifiers = ts.getModifiers(statement) ?? [];
      if (!modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
      if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword)) continue;
      if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword)) names.add('default');
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
        }
      } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined) {
        names.add(statement.name.text);
      }
    }
  }
  return { names, exportsAll };
}

/** Reads and checks platform.yaml's hook modules; every problem at once as a DiagnosticError. */
export function readHookModules(loaded: LoadedConfig): HookSource[] {
  const diagnostics: Diagnostic[] = [];
  const compiledTo = new Map<string, number>();
  const hooks = loaded.config.hooks.flatMap(({ file, export: exported, timeout_ms, transaction }, index): HookSource[] => {
    const at = (key: string) => ['hooks', index, key];
    const output = hookModulePath(file);
    const first = compiledTo.get(output);
    if (first !== undefined) {
      diagnostics.push(
        loaded.source.diagnosticAt(
          at('file'),
          'PCO107',
          `The hook module '${file}' compiles to ${output} as hooks[${first}] does: rename one of them.`,
        ),
      );
    } else compiledTo.set(output, index);
    let source: string;
    try {
      source = fs.readFileSync(path.resolve(loaded.platformDir, file), 'utf8');
    } catch {
      diagnostics.push(
        loaded.source.diagnosticAt(
          at('file'),
          'PCO113',
          `The hook module '${file}' does not exist (relative to the directory of platform.yaml).`,
        ),
      );
      return [];
    }
    const broken = syntaxError(file, source);
    if (broken !== null) {
      const shown = path.join(path.dirname(loaded.source.file), file);
      diagnostics.push({
        code: 'PCO115',
        message: `${broken.message} (hook module '${file}')`,
        file: shown,
        line: broken.line,
        col: broken.col,
      });
      return [];
    }
    const { names, exportsAll } = valueExports(file, source);
    if (!names.has(exported) && !exportsAll) {
      const wanted = exported === 'default' ? 'a default export' : `an export named '${exported}'`;
      const found = [...names].filter((name) => name !== 'default');
      const hint =
        exported === 'default'
          ? ` Write \`export default defineHooks({...})\`${found.length > 0 ? `, or name its export with \`export: ${found[0]}\`` : ''}.`
          : found.length > 0
            ? ` It exports ${found.map((name) => `'${name}'`).join(', ')}.`
            : '';
      diagnostics.push(
        loaded.source.diagnosticAt(
          exported === 'default' ? at('file') : at('export'),
          'PCO114',
          `The hook module '${file}' has no ${wanted.replace(/^an? /, '')}: platform.yaml \`hooks\` needs ${wanted}.${hint}`,
        ),
      );
      return [];
    }
    return [{ file, source, export: exported, timeoutMs: timeout_ms, transaction }];
  });
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return hooks;
}

/** A module's problem at its place in the module when known (shown beside platform.yaml), else at its entry in platform.yaml. */
export function userModuleDiagnostic(
  loaded: LoadedConfig,
  entry: ReadonlyArray<string | number>,
  code: Diagnostic['code'],
  message: string,
  error?: UserModuleError,
): Diagnostic {
  const at = error?.at;
  if (at === undefined) return loaded.source.diagnosticAt([...entry], code, message);
  const shown = path.join(path.dirname(loaded.source.file), path.relative(loaded.platformDir, at.file));
  return { code, message, file: shown, line: at.line, ...(at.col > 0 ? { col: at.col } : {}) };
}

/**
 * Loads each hook module as the server will (a transient copy where its compiled copy will live)
 * and checks its hooks as the server will: a module that throws as it loads (PCO118, at the line
 * when known), a hook that is no function or an event name with no phase (PCO118, at its entry).
 */
export async function checkHookModules(loaded: LoadedConfig, hooks: readonly HookSource[], outDir: string): Promise<HookEvents[]> {
  const diagnostics: Diagnostic[] = [];
  const declared: HookEvents[] = [];
  for (const hook of hooks) {
    const index = loaded.config.hooks.findIndex((entry) => entry.file === hook.file);
    const at = (key: string) => ['hooks', index, key];
    let exported: unknown;
    try {
      exported = (await loadUserModule(loaded.platformDir, hook.file, outDir, hookModulePath(hook.file)))[hook.export];
    } catch (error) {
      if (!(error instanceof UserModuleError)) throw error;
      const message = error.message.replace(/^The module /, 'The hook module ');
      diagnostics.push(userModuleDiagnostic(loaded, at('file'), 'PCO118', message, error));
      continue;
    }
    try {
      new HookRegistry([{ file: hook.file, hooks: exported as Record<string, unknown> }]);
      declared.push({ file: hook.file, entry: at('file'), events: Object.keys(exported as Record<string, unknown>) });
    } catch (error) {
      if (!(error instanceof HookModuleError)) throw error;
      const message = `The hook module '${hook.file}' cannot be used: ${error.reason}.`;
      diagnostics.push(loaded.source.diagnosticAt(hook.export === 'default' ? at('file') : at('export'), 'PCO118', message));
    }
  }
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return declared;
}

/** The events a hook module names, with its entry in platform.yaml. */
export interface HookEvents {
  file: string;
  entry: Array<string | number>;
  events: string[];
}

/**
 * `platform.yaml:LINE:COL: warning: ...` for each event a hook module names that the platform does
 * not raise (a misspelt table, another case of a SOAP operation, a path no service has): its hook
 * would never run, and nothing else would say so.
 */
export function hookEventWarnings(loaded: LoadedConfig, model: PlatformModel, declared: readonly HookEvents[]): string[] {
  if (declared.length === 0) return [];
  const raised = platformEvents(model);
  return declared.flatMap(({ file, entry, events }) => {
    const unknown = events.filter((event) => !raised(event));
    if (unknown.length === 0) return [];
    const place = loaded.source.locate(entry);
    return unknown.map(
      (event) =>
        `${place.file}:${place.line}:${place.col}: warning: the hook module '${file}' names the event '${event}', which the platform does not raise (GET /api/v2/system/event lists its events): that hook never runs.`,
    );
  });
}
