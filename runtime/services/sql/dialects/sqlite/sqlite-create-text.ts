/**
 * What a SQLite table's CREATE TABLE text says that the model does not hold, for a rebuild to
 * carry over (sqlite-table-rebuild.ts): CHECK constraints (on a column or on the table, named or
 * not), a column's COLLATE, generated columns' definitions, and the table options (WITHOUT
 * ROWID, STRICT). The text is split at its top-level commas by a small tokenizer that knows
 * SQLite's quotes ('text', "name", `name`, [name]) and comments; nothing is evaluated.
 */

interface Token {
  kind: 'word' | 'name' | 'string' | 'group' | 'other';
  /** The token as written. */
  text: string;
  /** A word or a quoted name unquoted (words as written). */
  value: string;
  start: number;
  end: number;
}

const CLOSERS: Record<string, string> = { '"': '"', '`': '`', '[': ']', "'": "'" };

/** The end (exclusive) of the quoted text opening at `i`; doubled closers are escapes (not in [...]). */
function quotedEnd(text: string, i: number): number {
  const close = CLOSERS[text[i]];
  let j = i + 1;
  while (j < text.length) {
    if (text[j] === close) {
      if (close !== ']' && text[j + 1] === close) j += 2;
      else return j + 1;
    } else j++;
  }
  return text.length;
}

/** The end (exclusive) of a comment opening at `i`, or `i` when none does. */
function commentEnd(text: string, i: number): number {
  if (text.startsWith('--', i)) {
    const newline = text.indexOf('\n', i);
    return newline === -1 ? text.length : newline + 1;
  }
  if (text.startsWith('/*', i)) {
    const close = text.indexOf('*/', i + 2);
    return close === -1 ? text.length : close + 2;
  }
  return i;
}

/** The end (exclusive) of the parenthesised group opening at `i`. */
function groupEnd(text: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text[j];
    const skipped = commentEnd(text, j);
    if (skipped !== j) j = skipped;
    else if (c in CLOSERS) j = quotedEnd(text, j);
    else {
      if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return j + 1;
      j++;
    }
  }
  return text.length;
}

function unquote(token: string): string {
  const open = token[0];
  const close = CLOSERS[open];
  const inner = token.slice(1, token.endsWith(close) ? -1 : undefined);
  return close === ']' ? inner : inner.split(close + close).join(close);
}

/** The top-level tokens of `text` (a parenthesised group is one token). */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const skipped = commentEnd(text, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    let end: number;
    let kind: Token['kind'];
    if (c === "'") [end, kind] = [quotedEnd(text, i), 'string'];
    else if (c in CLOSERS) [end, kind] = [quotedEnd(text, i), 'name'];
    else if (c === '(') [end, kind] = [groupEnd(text, i), 'group'];
    else if (/[\p{L}\p{N}_$]/u.test(c)) {
      end = i + 1;
      while (end < text.length && /[\p{L}\p{N}_$]/u.test(text[end])) end++;
      kind = 'word';
    } else [end, kind] = [i + 1, 'other'];
    const written = text.slice(i, end);
    out.push({ kind, text: written, value: kind === 'name' ? unquote(written) : written, start: i, end });
    i = end;
  }
  return out;
}

/** The names an expression mentions (words and quoted names, in nested groups too), lower-cased. */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const token of tokens(text)) {
    if (token.kind === 'group') for (const name of namesIn(token.text.slice(1, -1))) names.add(name);
    else if (token.kind === 'word' || token.kind === 'name') names.add(token.value.toLowerCase());
  }
  return names;
}

/** A CHECK constraint as written (`constraint c check (...)` or `check (...)`), with the names it mentions. */
export interface CheckText {
  text: string;
  names: ReadonlySet<string>;
}

export interface ColumnText {
  name: string;
  /** The definition after the name (type and constraints), as written. */
  rest: string;
  checks: CheckText[];
  /** `collate <name>`, as written, or null. */
  collate: string | null;
  /** A generated column (`generated always as (...)` or `as (...)`), with the names its expression mentions. */
  generated: ReadonlySet<string> | null;
}

export interface CreateTableText {
  /** By lower-case column name. */
  columns: Map<string, ColumnText>;
  /** The table's CHECK constraints (its other constraints are in the model). */
  checks: CheckText[];
  /** What follows the column list (`without rowid`, `strict`), as written, or ''. */
  options: string;
}

const TABLE_CONSTRAINT = new Set(['constraint', 'primary', 'unique', 'check', 'foreign']);

/** The parts of `text` between top-level commas. */
function commaParts(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const token of tokens(text)) {
    if (token.kind === 'other' && token.text === ',') {
      parts.push(text.slice(from, token.start));
      from = token.end;
    }
  }
  parts.push(text.slice(from));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The CHECK clauses among `list` (each with a `constraint <name>` before it, when there is one). */
function checksIn(text: string, list: Token[]): CheckText[] {
  const checks: CheckText[] = [];
  list.forEach((token, i) => {
    const next = list[i + 1];
    if (token.kind !== 'word' || token.value.toLowerCase() !== 'check' || next?.kind !== 'group') return;
    const named = i >= 2 && list[i - 2].kind === 'word' && list[i - 2].value.toLowerCase() === 'constraint';
    const start = named ? list[i - 2].start : token.start;
    checks.push({ text: text.slice(start, next.end), names: namesIn(next.text.slice(1, -1)) });
  });
  return checks;
}

function columnText(part: string): ColumnText | null {
  const list = tokens(part);
  const [first] = list;
  if (first === undefined || (first.kind !== 'word' && first.kind !== 'name' && first.kind !== 'string')) return null;
  const rest = list.slice(1);
  const collateAt = rest.findIndex((t) => t.kind === 'word' && t.value.toLowerCase() === 'collate');
  const collation = collateAt === -1 ? undefined : rest[collateAt + 1];
  const asAt = rest.findIndex((t, i) => t.kind === 'word' && t.value.toLowerCase() === 'as' && rest[i + 1]?.kind === 'group');
  return {
    name: first.kind === 'word' ? first.value : unquote(first.text),
    rest: part.slice(first.end).trim(),
    checks: checksIn(part, rest),
    collate: collation === undefined ? null : part.slice(rest[collateAt].start, collation.end),
    generated: asAt === -1 ? null : namesIn(rest[asAt + 1].text.slice(1, -1)),
  };
}

/** Reads a CREATE TABLE text from sqlite_master; null when it has no column list (`create table t as select`). */
export function parseCreateTable(text: string): CreateTableText | null {
  const list = tokens(text);
  const body = list.find((token) => token.kind === 'group');
  if (body === undefined) return null;
  const columns = new Map<string, ColumnText>();
  const checks: CheckText[] = [];
  for (const part of commaParts(body.text.slice(1, -1))) {
    const [first] = tokens(part);
    if (first?.kind === 'word' && TABLE_CONSTRAINT.has(first.value.toLowerCase())) {
      checks.push(...checksIn(part, tokens(part)));
      continue;
    }
    const column = columnText(part);
    if (column !== null) columns.set(column.name.toLowerCase(), column);
  }
  return { columns, checks, options: text.slice(body.end).trim() };
}
