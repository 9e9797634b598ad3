/**
 * The limits on what one request may ask for, checked before anything reaches a database so that
 * every database answers alike with our own 400 (the README's limits table lists them). They sit
 * well inside the tightest driver limit: SQLite's expression depth of 1,000, its 32,766 bound
 * variables and 50,000-byte LIKE patterns; PostgreSQL's 65,535 parameters and 1,664 columns.
 */
import { coreMessages } from './messages.js';

export const limits = {
  /** Comparisons (`a = 1`, `b in (...)`, ...) in one `filter` or `having`. */
  filterTerms: 500,
  /** Values one `filter` or `having` binds, `in` lists and list parameters counted item by item. */
  filterValues: 10_000,
  /** Characters of a `like` pattern or a `contains` / `starts with` / `ends with` value. */
  patternLength: 1_000,
  /** Entries of `fields`, `order`, `group`, `related` and `id_field`. */
  listItems: 500,
  /** Identifiers in `ids`. */
  ids: 10_000,
  /** `limit` and `offset`: whole numbers JSON can carry exactly. */
  maxPaging: Number.MAX_SAFE_INTEGER,
  /** Login `duration`, in minutes: one year. */
  sessionMinutes: 525_600,
} as const;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Whether integer text (`-12`, `+7`) fits a signed 64-bit integer, the widest any database keys or integer columns hold. */
export function fitsInt64(text: string): boolean {
  // At most 18 digits always fits (2^63 has 19): every key and most values end here, without a BigInt.
  if (text.length <= 18) return true;
  const digits = text.replace(/^[+-]?0*/, '');
  if (digits.length > 19) return false;
  const value = BigInt(text.startsWith('+') ? text.slice(1) : text);
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * Whether integer text fits a 64-bit integer column: signed, or for an unsigned one (MySQL's
 * `bigint unsigned`) also 2^63 up to 2^64 - 1.
 */
export function fitsInt64Column(text: string, unsigned: boolean): boolean {
  if (fitsInt64(text)) return true;
  if (!unsigned || text.replace(/^[+-]?0*/, '').length > 20) return false;
  const value = BigInt(text.startsWith('+') ? text.slice(1) : text);
  return value >= 0n && value <= UINT64_MAX;
}

/** 400 when a list parameter names more entries than allowed. */
export function checkListLength(parameter: string, items: readonly string[] | null, max: number = limits.listItems): void {
  if (items !== null && items.length > max) {
    throw coreMessages.parameterTooManyEntries.error(parameter, items.length, max);
  }
}

/** Lone UTF-16 surrogates: not text, and no database stores them faithfully. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a string can not be accepted anywhere (NUL, which PostgreSQL can not store and C-based
 * drivers cut at, or a lone surrogate), or null when it is fine.
 */
export function unacceptableText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

/**
 * The first unacceptable string in a parsed JSON value (keys included), as a path and reason;
 * null when all are fine. Walks with its own stack, so deeply nested bodies cannot overflow ours.
 */
export function findUnacceptableText(value: unknown): { path: string; reason: string } | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      const reason = unacceptableText(item);
      if (reason !== null) return { path, reason };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === 'object') {
      for (const key of Object.keys(item)) {
        const reason = unacceptableText(key);
        if (reason !== null) return { path: path === '' ? 'a key' : `a key in ${path}`, reason };
        stack.push([(item as Record<string, unknown>)[key], path === '' ? key : `${path}.${key}`]);
      }
    }
  }
  return null;
}
