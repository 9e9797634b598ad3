/**
 * A record written by a caller whose grant has row filters must itself satisfy them (reference
 * 6.5), or the caller could create or move rows outside its own scope. The grant's filters (as
 * the AST of row-filters.ts, lookups substituted) are evaluated against the record's values: a
 * field the record does not carry fails on create and is skipped on update.
 */
import type { FilterNode, FilterValue, PredicateNode } from './filter-parser.js';

type Record_ = Record<string, unknown>;

/** The value a literal of a row filter stands for: quoted text as is, else true/false/null/number/text. */
function literalValue(value: FilterValue): unknown {
  if (value.kind !== 'literal') return undefined;
  if (value.quoted) return value.text;
  const text = value.text.trim();
  if (/^true$/i.test(text)) return true;
  if (/^false$/i.test(text)) return false;
  if (/^null$/i.test(text)) return null;
  return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** Numbers compare as numbers (also `'7'` against 7), booleans as 1/0, everything else as text. */
function compare(a: unknown, b: unknown): number {
  const num = (v: unknown) =>
    typeof v === 'boolean' ? Number(v) : typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  const [x, y] = [num(a), num(b)];
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  const [s, t] = [String(a), String(b)];
  return s < t ? -1 : s > t ? 1 : 0;
}

function likeMatches(text: string, pattern: string, mode: 'pattern' | 'contains' | 'starts_with' | 'ends_with'): boolean {
  const lower = text.toLowerCase();
  const wanted = pattern.toLowerCase();
  if (mode === 'contains') return lower.includes(wanted);
  if (mode === 'starts_with') return lower.startsWith(wanted);
  if (mode === 'ends_with') return lower.endsWith(wanted);
  const regex = wanted
    .split('')
    .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${regex}$`, 's').test(lower);
}

function predicate(node: PredicateNode, value: unknown): boolean {
  switch (node.kind) {
    case 'is_null':
      return (value === null) !== node.negated;
    case 'compare': {
      const wanted = literalValue(node.value);
      if (value === null || wanted === null) return (node.operator === '=') === (value === wanted);
      const order = compare(value, wanted);
      return { '=': order === 0, '!=': order !== 0, '>': order > 0, '>=': order >= 0, '<': order < 0, '<=': order <= 0 }[node.operator];
    }
    case 'like':
      return value !== null && likeMatches(String(value), String(literalValue(node.value)), node.mode) !== node.negated;
    case 'in':
      return value !== null && node.values.some((v) => compare(value, literalValue(v)) === 0) !== node.negated;
    case 'between': {
      const inside = value !== null && compare(value, literalValue(node.low)) >= 0 && compare(value, literalValue(node.high)) <= 0;
      return inside !== node.negated;
    }
  }
}

/** Whether `record` satisfies the filter; `fieldKey` finds the record's key for a filter's field name. */
export function recordSatisfies(
  node: FilterNode,
  record: Record_,
  creating: boolean,
  fieldKey: (name: string) => string | undefined,
): boolean {
  switch (node.kind) {
    case 'and':
      return node.operands.every((operand) => recordSatisfies(operand, record, creating, fieldKey));
    case 'or':
      return node.operands.some((operand) => recordSatisfies(operand, record, creating, fieldKey));
    case 'not':
      return !recordSatisfies(node.operand, record, creating, fieldKey);
    default: {
      const key = fieldKey(node.field.path.join('.'));
      if (key === undefined || !(key in record)) return !creating;
      return predicate(node, record[key]);
    }
  }
}
