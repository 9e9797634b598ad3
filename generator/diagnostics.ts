/**
 * The generator's one error catalogue: stable codes grouped by stage (PCO1xx config, PCO2xx
 * introspection and the checks against its results, PCO3xx emit, PCO4xx write, PCO5xx serve, PCO6xx init), shown as `platform.yaml:LINE:COL: message [CODE]`.
 * generator/README.md lists the same codes (a test keeps the two in step).
 *
 * A DiagnosticError is a user error: the CLI prints its diagnostics without a stack. Anything
 * else that escapes a stage is a bug in Portico and is printed with its stack.
 */
import { closest, distance } from 'fastest-levenshtein';
import { PorticoError } from '../runtime/core/errors.js';

export const diagnosticCatalogue = {
  PCO100: 'Config file cannot be read',
  PCO101: 'YAML syntax error',
  PCO102: 'Unknown key',
  PCO103: 'Missing required key',
  PCO104: 'Wrong value type',
  PCO105: 'Value not allowed',
  PCO106: 'Invalid value',
  PCO107: 'Duplicate name',
  PCO108: 'Unknown service type',
  PCO109: 'Unknown reference',
  PCO110: 'Built-in service override not allowed',
  PCO111: 'Environment variable not set',
  PCO112: 'Service type not registered',
  PCO113: 'Hook module not found',
  PCO114: 'Hook module export not found',
  PCO115: 'Hook module syntax error',
  PCO116: 'Custom endpoint module not found or not loadable',
  PCO117: 'Custom endpoint module invalid',
  PCO118: 'Hook module cannot be loaded or used',
  PCO201: 'Introspection failed',
  PCO202: 'Grant names a missing table, procedure, function or operation',
  PCO203: 'Row filter names a missing column',
  PCO204: 'Invalid row filter',
  PCO301: 'Emitter output invalid',
  PCO401: 'Output cannot be written',
  PCO501: 'Generated server cannot start',
  PCO601: 'Starter source cannot be read',
  PCO602: 'Starter file exists',
} as const;

export type DiagnosticCode = keyof typeof diagnosticCatalogue;

/** One problem, with its place in a file when it has one (1-based line and column). */
export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
  /** File as shown to the user (relative to the working directory). */
  file?: string;
  line?: number;
  col?: number;
  /** Source excerpt with a caret under the column, when known. */
  frame?: string;
}

/** User-facing failure of a stage, carrying every problem found. */
export class DiagnosticError extends PorticoError {
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[]) {
    const sorted = sortDiagnostics(diagnostics);
    super(400, sorted.map(formatDiagnostic).join('\n'), { diagnostics: sorted });
    this.diagnostics = sorted;
  }
}

/** Sorted by file, line, column, then code and message, so output is stable. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.col ?? 0) - (b.col ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}

/** `file:line:col: message [CODE]`, or as much of the place as is known. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const place = [diagnostic.file, diagnostic.line, diagnostic.col].filter((part) => part !== undefined).join(':');
  return `${place ? `${place}: ` : ''}${diagnostic.message} [${diagnostic.code}]`;
}

/** Every diagnostic with its code frame, then a count. */
export function formatDiagnosticReport(diagnostics: readonly Diagnostic[]): string {
  const body = sortDiagnostics(diagnostics)
    .map((diagnostic) => (diagnostic.frame ? `${formatDiagnostic(diagnostic)}\n${diagnostic.frame}` : formatDiagnostic(diagnostic)))
    .join('\n');
  const count = diagnostics.length === 1 ? '1 problem' : `${diagnostics.length} problems`;
  return `${body}\n${count} found.\n`;
}

/** ` Did you mean 'x'?` when a candidate is close enough to the word, else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  if (candidates.length === 0) return '';
  const best = closest(
    word.toLowerCase(),
    [...candidates].map((candidate) => candidate.toLowerCase()),
  );
  const found = candidates.find((candidate) => candidate.toLowerCase() === best)!;
  const edits = distance(word.toLowerCase(), best);
  return edits < word.length && edits <= Math.max(2, Math.ceil(word.length / 3)) ? ` Did you mean '${found}'?` : '';
}

/**
 * Whether an error is one the user can fix: a PorticoError, or a driver or system error (they
 * carry a string `code`, as ENOENT or SQLITE_CANTOPEN). Anything else is a bug in Portico.
 */
export function isUserError(error: unknown): error is Error {
  return error instanceof PorticoError || (error instanceof Error && typeof (error as { code?: unknown }).code === 'string');
}

/** ` (connect ECONNREFUSED 127.0.0.1:5432)`: what the driver said under a translated connection error ('The database is unavailable'), else ''. */
export function causeText(error: unknown): string {
  const cause = error instanceof PorticoError ? (error.cause as (Error & { code?: string; errors?: Error[] }) | undefined) : undefined;
  if (!(cause instanceof Error)) return '';
  const text = cause.message || cause.errors?.map((inner) => inner.message).join('; ') || cause.code || '';
  return text === '' || text === (error as Error).message ? '' : ` (${text})`;
}
