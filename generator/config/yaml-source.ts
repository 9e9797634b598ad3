/**
 * A YAML file read with positions: value paths (as in JSON pointers) map back to line and column,
 * so every config problem can be shown as `platform.yaml:LINE:COL`.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
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
  /** The plain data, or why the document has none (an alias to no anchor, an alias bomb). */
  private readonly data: { value: unknown } | { problem: Diagnostic };

  /** `file` is the name shown in diagnostics. */
  constructor(file: string, text: string) {
    this.file = file;
    this.lines = text.split(/\r?\n/);
    this.lineCounter = new LineCounter();
    this.document = parseDocument(text, { lineCounter: this.lineCounter, prettyErrors: false });
    this.data = this.readData();
  }

  /**
   * YAML syntax errors: every duplicate key, and the first other error (those after it are
   * usually its echoes); else a tag YAML does not know, a key that is not a scalar, or an alias
   * that cannot be expanded.
   */
  syntaxDiagnostics(): Diagnostic[] {
    const duplicates = this.document.errors.filter((error) => error.code === 'DUPLICATE_KEY');
    const first =
      this.document.errors.find((error) => error.code !== 'DUPLICATE_KEY') ??
      this.document.warnings.find((warning) => warning.code === 'TAG_RESOLVE_FAILED');
    const errors = [...duplicates, ...(first ? [first] : [])].map((error) => {
      const { line, col } = this.lineCounter.linePos(error.pos[0]);
      const hint = this.lines[line - 1]?.includes('${') ? ' Quote values holding ${env:...} inside { } or [ ].' : '';
      const message =
        error.code === 'MULTIPLE_DOCS'
          ? "The file holds more than one YAML document (a second '---'); a platform is one document"
          : /Maximum call stack size/.test(error.message)
            ? 'Lists or mappings nest too deeply here'
            : error.message.replace(/\.$/, '');
      return this.diagnostic({ file: this.file, line, col }, 'PCO101', `${message}.${hint}`);
    });
    if (errors.length > 0) return errors;
    const key = this.firstCollectionKey();
    if (key !== undefined) return [this.diagnostic(this.position(key), 'PCO101', 'A key must be a plain name, not a list or mapping.')];
    return 'problem' in this.data ? [this.data.problem] : [];
  }

  /** The document as plain data; an empty document is an empty object. */
  toJS(): unknown {
    if ('problem' in this.data) throw new Error(`${this.data.problem.message} (call syntaxDiagnostics first)`);
    return this.data.value;
  }

  /** The data once, as it expands aliases: at most 100 of them, so that an alias bomb ("billion laughs") stays small. */
  private readData(): { value: unknown } | { problem: Diagnostic } {
    if (this.document.errors.length > 0 || this.firstCollectionKey() !== undefined) return { value: {} };
    try {
      return { value: this.document.toJS({ maxAliasCount: 100 }) ?? {} };
    } catch (error) {
      const aliases: Node[] = [];
      visit(this.document, {
        Alias: (_key, node) => {
          aliases.push(node);
        },
      });
      const unresolved = aliases.find((node) => isAlias(node) && node.resolve(this.document) === undefined);
      const at = this.position(unresolved ?? aliases[0]);
      const message =
        unresolved && isAlias(unresolved)
          ? `Alias *${unresolved.source} names no anchor &${unresolved.source} defined before it.`
          : /resource exhaustion/i.test((error as Error).message)
            ? 'Aliases expand too far (more than 100 expansions, as in an alias bomb); write the values out instead.'
            : `Cannot read the document: ${(error as Error).message}.`;
      return { problem: this.diagnostic(at, 'PCO101', message) };
    }
  }

  /** The first mapping key that is a list or a mapping (`? [a, b]`), which plain data cannot hold. */
  private firstCollectionKey(): Node | undefined {
    let found: Node | undefined;
    visit(this.document, {
      Pair: (_key, pair) => {
        if (pair.key !== null && (isMap(pair.key) || isSeq(pair.key))) {
          found = pair.key as Node;
          return visit.BREAK;
        }
        return undefined;
      },
    });
    return found;
  }

  private position(node: Node | undefined): SourceLocation {
    const { line, col } = this.lineCounter.linePos(rangeStart(node) ?? 0);
    return { file: this.file, line, col };
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
    const whole = this.lines[line - 1];
    if (whole === undefined) return '';
    // A long line is shown around the column, cut with '…'.
    let text = whole;
    let caret = Math.max(0, col - 1);
    if (whole.length > FRAME_WIDTH) {
      const start = Math.max(0, Math.min(caret - FRAME_WIDTH / 2, whole.length - FRAME_WIDTH));
      text = `${start > 0 ? '…' : ''}${whole.slice(start, start + FRAME_WIDTH)}${start + FRAME_WIDTH < whole.length ? '…' : ''}`;
      caret = caret - start + (start > 0 ? 1 : 0);
    }
    const gutter = String(line).padStart(4);
    return `${gutter} | ${text}\n${' '.repeat(gutter.length)} | ${' '.repeat(caret)}^`;
  }
}

/** Characters of a line a code frame shows. */
const FRAME_WIDTH = 100;

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null)?.range?.[0];
}

/** `key:` with nothing after it: the null scalar sits at the end of the line, the key is clearer. */
function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && node.source === '';
}
