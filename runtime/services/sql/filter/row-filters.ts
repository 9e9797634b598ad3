/**
 * Role row filters (`{name, operator, value}` in a grant) as filter ASTs, so they compile through
 * the same checked, parameter-binding compiler as client filters. Values are unquoted first and
 * lookups (`{user.id}`) substituted afterwards, so a lookup's value is always data, never syntax.
 */
import type { RowFilterModel } from '../../../model/platform-model.js';
import { tokenize, type Token } from './filter-lexer.js';
import type { CompareOperator, FieldRef, FilterNode, LikeNode, LiteralValue } from './filter-parser.js';
import { sqlMessages } from '../sql-messages.js';

/** Nodes built here have no place in a filter text. */
const NO_POSITION = 0;

const COMPARE = new Map<string, CompareOperator>([
  ['=', '='],
  ['eq', '='],
  ['!=', '!='],
  ['<>', '!='],
  ['ne', '!='],
  ['>', '>'],
  ['gt', '>'],
  ['>=', '>='],
  ['gte', '>='],
  ['<', '<'],
  ['lt', '<'],
  ['<=', '<='],
  ['lte', '<='],
]);
const LIKE = new Map<string, LikeNode['mode']>([
  ['like', 'pattern'],
  ['contains', 'contains'],
  ['starts with', 'starts_with'],
  ['ends with', 'ends_with'],
  // As the reference's admin console offers them in its role filter picker.
  ['start with', 'starts_with'],
  ['end with', 'ends_with'],
]);
const LOOKUP = /\{([^{}\s]+)\}/g;

/**
 * Turns a grant's row filters into one AST joined by `op`, or null when there are none.
 * Operators are those of the reference platform's server-side filters, in any case; `lookup`
 * resolves `{name}` templates (unknown ones stay as written). An unusable filter is a 500:
 * the platform's configuration is wrong, not the request.
 */
export function rowFiltersToNode(
  filters: RowFilterModel[],
  op: 'and' | 'or',
  lookup: (name: string) => string | undefined,
): FilterNode | null {
  const nodes = filters.map((filter) => rowFilterToNode(filter, lookup));
  if (nodes.length === 0) return null;
  return nodes.length === 1 ? nodes[0] : { kind: op, operands: nodes, position: NO_POSITION };
}

/** ANDs a client filter with a role filter; either may be absent. */
export function combineAnd(a: FilterNode | null, b: FilterNode | null): FilterNode | null {
  if (a === null || b === null) return a ?? b;
  return { kind: 'and', operands: [a, b], position: a.position };
}

function rowFilterToNode(filter: RowFilterModel, lookup: (name: string) => string | undefined): FilterNode {
  const operator = filter.operator.trim().replace(/\s+/g, ' ').toLowerCase();
  const negated = operator.startsWith('not ');
  const base = negated ? operator.slice(4) : operator;
  const field: FieldRef = { path: filter.name.trim().split('.'), position: NO_POSITION };
  const position = NO_POSITION;

  if (operator === 'is null' || operator === 'is not null') {
    return { kind: 'is_null', field, negated: operator === 'is not null', position };
  }
  const compare = COMPARE.get(operator);
  if (compare !== undefined) {
    const value = singleValue(filter, lookup);
    if (value === null && (compare === '=' || compare === '!=')) return { kind: 'is_null', field, negated: compare === '!=', position };
    if (value === null) throw sqlMessages.invalidRowFilter.error(filter, `null can only be compared with = or !=, not ${filter.operator}`);
    return { kind: 'compare', field, operator: compare, value, position };
  }
  const mode = LIKE.get(base);
  if (mode !== undefined) {
    const value = singleValue(filter, lookup);
    if (value === null) throw sqlMessages.invalidRowFilter.error(filter, `${filter.operator} needs a value, not null`);
    return { kind: 'like', field, mode, negated, value, position };
  }
  if (base === 'in') return { kind: 'in', field, negated, values: listValues(filter, lookup), position };
  throw sqlMessages.invalidRowFilter.error(filter, `'${filter.operator}' is not a row filter operator`);
}

/** The value as one literal: a quoted string's content, `null`, or else the text as written. */
function singleValue(filter: RowFilterModel, lookup: (name: string) => string | undefined): LiteralValue | null {
  const text = filter.value.trim();
  if (text.toLowerCase() === 'null') return null;
  const tokens = tryTokenize(text);
  const quoted = tokens !== null && tokens.length === 2 && tokens[0].type === 'string';
  return literal(substitute(quoted ? tokens[0].value : text, lookup), quoted);
}

/**
 * `(1, 2)`, `1,2`, `('a', "b")`: items split at commas outside quotes. An unquoted item may be a
 * lookup holding a comma-separated list, which is split after substitution.
 */
function listValues(filter: RowFilterModel, lookup: (name: string) => string | undefined): LiteralValue[] {
  const text = filter.value.trim().replace(/^\((.*)\)$/s, '$1');
  const tokens = tryTokenize(text);
  if (tokens === null) throw sqlMessages.invalidRowFilter.error(filter, 'the list is not valid filter text (an unclosed quote?)');
  const groups: Token[][] = [[]];
  for (const token of tokens) {
    if (token.type === ',') groups.push([]);
    else if (token.type !== 'end') groups[groups.length - 1].push(token);
  }
  return groups.flatMap((group) => {
    if (group.length === 0) throw sqlMessages.invalidRowFilter.error(filter, 'the list has an empty item');
    if (group.length === 1 && group[0].type === 'string') return [literal(substitute(group[0].value, lookup), true)];
    const last = group[group.length - 1];
    const raw = text.slice(group[0].position - 1, last.position - 1 + last.text.length);
    return substitute(raw, lookup)
      .split(',')
      .map((item) => literal(item.trim(), false));
  });
}

/** Tokens of a row filter value, or null when it is not valid filter text (an unclosed quote). */
function tryTokenize(text: string): Token[] | null {
  try {
    return tokenize(text);
  } catch {
    return null;
  }
}

function literal(text: string, quoted: boolean): LiteralValue {
  return { kind: 'literal', text, quoted, position: NO_POSITION };
}

function substitute(text: string, lookup: (name: string) => string | undefined): string {
  return text.replace(LOOKUP, (template, name: string) => lookup(name) ?? template);
}
