/**
 * tsc over a project of generated (or user) TypeScript inside the repository, reporting only what
 * it finds in the project's own files (those its tsconfig includes), as `tsc --noEmit -p` would
 * print them. The runtime's sources those files import (portico-source) are read for their types
 * but not checked again: a tsconfig that extends the repository's has its compiler options, under
 * which `npm run typecheck` checks them, and checking them again took most of each run's CPU.
 *
 * For a project under a user's own compiler options, run tsc itself: the runtime must compile
 * under those too.
 */
import path from 'node:path';
import { execa } from 'execa';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Runs in a child process (a program takes ~500 MB), in the order and format tsc reports. */
const SCRIPT = `
import path from 'node:path';
import ts from 'typescript';
const [configFile, cwd] = process.argv.slice(1);
const read = ts.readConfigFile(configFile, ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, path.dirname(configFile), undefined, configFile);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const own = parsed.fileNames.map((file) => program.getSourceFile(file));
let diagnostics = [...(read.error ? [read.error] : []), ...parsed.errors, ...program.getOptionsDiagnostics()];
diagnostics.push(...own.flatMap((source) => program.getSyntacticDiagnostics(source)));
if (diagnostics.length === 0) {
  diagnostics.push(...program.getGlobalDiagnostics(), ...own.flatMap((source) => program.getSemanticDiagnostics(source)));
}
diagnostics = ts.sortAndDeduplicateDiagnostics(diagnostics);
const host = { getCanonicalFileName: (file) => file, getCurrentDirectory: () => cwd, getNewLine: () => '\\n' };
process.stdout.write(ts.formatDiagnostics(diagnostics, host));
process.exitCode = diagnostics.length === 0 ? 0 : 2;
`;

export interface TypecheckResult {
  /** tsc's lines, paths relative to the repository root. */
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}

/** Type-checks the project of `tsconfigFile` (which must extend the repository's tsconfig.json). */
export async function typecheckProject(tsconfigFile: string): Promise<TypecheckResult> {
  const result = await execa(process.execPath, ['--input-type=module', '-e', SCRIPT, tsconfigFile, repoRoot], {
    cwd: repoRoot,
    reject: false,
  });
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
}
