/**
 * What user code threw, in words and with its place: a hook or endpoint module that fails as it
 * loads is reported in one line (the file, the line, the reason), at build and at start, never as
 * Node's stack trace.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What was thrown, in words: some values have none (`Object.create(null)`, a toString that throws). */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  try {
    return String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}

/** The reason a module failed to load: its message, with the error's class when it says more (`SyntaxError: ...`). */
export function loadFailureReason(thrown: unknown): string {
  const words = describeThrown(thrown);
  const name = thrown instanceof Error ? thrown.name : '';
  return name === '' || name === 'Error' ? words : `${name}: ${words}`;
}

/** A place in a file: its path (absolute), 1-based line and column (0 when unknown). */
export interface ThrownAt {
  file: string;
  line: number;
  col: number;
}

// `    at fn (file:///a/b.mjs:6:7)`, `    at file:///a/b.mjs:6:7`, `    at /a/b.js:6:7`; and the
// first line of Node's report of an ES module that cannot link (`file:///a/b.mjs:1`).
const FRAME = /^\s*at (?:.*? \()?((?:file:\/\/|\/)[^()]*?):(\d+):(\d+)\)?$/;
const LINK_LINE = /^(file:\/\/\/[^()\s]*?):(\d+)$/;

/**
 * Where user code threw: the first place in the error's stack that is a file outside
 * node_modules (the module's own line, or the module of its own that it imported), or null.
 * `accept` narrows the files that count (the compiled copy being loaded, say).
 */
export function thrownAt(thrown: unknown, accept: (file: string) => boolean = () => true): ThrownAt | null {
  const stack = thrown instanceof Error && typeof thrown.stack === 'string' ? thrown.stack : '';
  for (const text of stack.split('\n')) {
    const match = FRAME.exec(text) ?? LINK_LINE.exec(text);
    if (match === null) continue;
    let file: string;
    try {
      file = match[1].startsWith('file:') ? fileURLToPath(match[1]) : match[1];
    } catch {
      continue;
    }
    if (file.split(path.sep).includes('node_modules') || !accept(file)) continue;
    return { file, line: Number(match[2]), col: match[3] === undefined ? 0 : Number(match[3]) };
  }
  return null;
}

// The inline map gen build appends to a compiled hook or endpoint module (generator/emit/create-main-file.ts).
const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * A place in a compiled copy mapped back to the TypeScript it was compiled from, through the
 * copy's inline source map (the user edits the .ts, and gen build names .ts lines); the place as
 * given when the file carries no map or the map says nothing of that line. A place with no column
 * (a module that cannot link) is looked up at the line's first character and keeps no column.
 */
export function originalPlace(at: ThrownAt): ThrownAt {
  try {
    const text = fs.readFileSync(at.file, 'utf8');
    const inline = INLINE_MAP.exec(text);
    if (inline === null) return at;
    const map = new SourceMap(JSON.parse(Buffer.from(inline[1], 'base64').toString('utf8')));
    const col = at.col > 0 ? at.col - 1 : (/\S/.exec(text.split('\n')[at.line - 1] ?? '')?.index ?? 0);
    const entry = map.findEntry(at.line - 1, col) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return at;
    const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
    return {
      file: path.resolve(path.dirname(at.file), source),
      line: entry.originalLine + 1,
      col: at.col > 0 ? entry.originalColumn + 1 : 0,
    };
  } catch {
    return at;
  }
}

/** A file as the user reads it: relative to the working directory when inside it. */
export function shownPath(file: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
