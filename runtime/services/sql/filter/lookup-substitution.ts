/**
 * Lookups (`{name}`, reference 6.6) in a parsed client filter: each literal value's templates are
 * replaced by the caller's lookup values after parsing, so that a value is always bound as data
 * and can never become filter syntax. Unknown names stay as written, as on the reference.
 */
import { substituteLookups, type LookupResolver } from '../../../core/lookups.js';
import type { FilterNode, FilterValue } from './filter-parser.js';

/** Whether a filter text may hold a lookup template (then its compiled form is the caller's own). */
export function mayHoldLookups(text: string): boolean {
  return text.includes('{');
}

function value(node: FilterValue, lookup: LookupResolver): FilterValue {
  return node.kind === 'literal' ? { ...node, text: substituteLookups(node.text, lookup) } : node;
}

/** A copy of the filter with lookups substituted in its values. */
export function substituteFilterLookups(node: FilterNode, lookup: LookupResolver): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { ...node, operands: node.operands.map((operand) => substituteFilterLookups(operand, lookup)) };
    case 'not':
      return { ...node, operand: substituteFilterLookups(node.operand, lookup) };
    case 'compare':
    case 'like':
      return { ...node, value: value(node.value, lookup) };
    case 'in':
      return { ...node, values: node.values.map((item) => value(item, lookup)) };
    case 'between':
      return { ...node, low: value(node.low, lookup), high: value(node.high, lookup) };
    case 'is_null':
      return node;
  }
}
