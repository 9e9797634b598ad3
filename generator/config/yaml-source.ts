/**
 * A YAML file read with positions: value paths (as in JSON pointers) map back to line and column,
 * so every config problem can be shown as `platform.yaml:LINE:COL`.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Diagnostic, DiagnosticCode } from '../diagnostics.js';

export type ValuePath = ReadonlyArray<string | number>;

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export class YamlSource {
  readonly file: string;
  readonly document: Document;
  private readonly lines: string[];
  private readonly lineCounter: LineCounter;

  /** `file` is the name shown in diagnostics. */
  constructor(file: string, text: string) {
    this.file = file;
    this.lines = text.split(/\r?\n/);
    this.lineCounter = new LineCounter();
    this.document = parseDocument(text, { lineCounter: this.lineCounter, prettyErrors: false });
  }

  /**
   * YAML syntax errors: every duplicate key, and the first other error (those after it are
   * usually its echoes).
   */
  syntaxDiagnostics(): Diagnostic[] {
    const duplicates = this.document.errors.filter((error) => error.code === 'DUPLICATE_KEY');
    const first = this.document.errors.find((error) => error.code !== 'DUPLICATE_KEY');
    return [...duplicates, ...(first ? [first] : [])].map((error) => {
      const { line, col } = this.lineCounter.linePos(error.pos[0]);
      const hint = this.lines[line - 1]?.includes('${') ? ' Quote values holding ${env:...} inside { } or [ ].' : '';
      return this.diagnostic({ file: this.file, line, col }, 'PCO101', `${error.message}.${hint}`);
    });
  }

  /** The document as plain data; an empty document is an empty object. */
  toJS(): unknown {
    return this.document.toJS() ?? {};
  }

  /**
   * Where the value at `path` is written (or its key, with `key: true`). A path that is not in the
   * file (a default, a missing key) falls back to the nearest enclosing node that is.
   */
  locate(path: ValuePath, options: { key?: boolean } = {}): SourceLocation {
    let node: unknown = this.document.contents;
    let offset = rangeStart(node) ?? 0;
    for (const [index, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(this.document);
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) break;
        const wantKey = options.key === true && index === path.length - 1;
        const valueStart = rangeStart(pair.value);
        offset = wantKey || valueStart === undefined || isEmptyScalar(pair.value) ? (rangeStart(pair.key) ?? offset) : valueStart;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        node = node.items[segment];
        offset = rangeStart(node) ?? offset;
      } else {
        break;
      }
    }
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.file, line, col };
  }

  /** A diagnostic at a location, with a one-line code frame. */
  diagnostic(location: SourceLocation, code: DiagnosticCode, message: string): Diagnostic {
    return { code, message, ...location, frame: this.frame(location) };
  }

  /** A diagnostic at the value (or key) of a path. */
  diagnosticAt(path: ValuePath, code: DiagnosticCode, message: string, options: { key?: boolean } = {}): Diagnostic {
    return this.diagnostic(this.locate(path, options), code, message);
  }

  private frame({ line, col }: SourceLocation): string {
    const text = this.lines[line - 1];
    if (text === undefined) return '';
    const gutter = String(line).padStart(4);
    return `${gutter} | ${text}\n${' '.repeat(gutter.length)} | ${' '.repeat(Math.max(0, col - 1))}^`;
  }
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null)?.range?.[0];
}

/** `key:` with nothing after it: the null scalar sits at the end of the line, the key is clearer. */
function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && node.source === '';
}
