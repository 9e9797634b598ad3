// STUB: replaced by the filter-grammar work. Signature is the contract.
import { NotImplementedError } from '../../../core/errors.js';

/** A parsed filter expression (shape defined by the parser). */
export type FilterNode = { kind: string; position: number };

/** Parses a filter string to an AST; throws BadRequestError naming the position and what was expected. */
export function parseFilter(text: string): FilterNode {
  throw new NotImplementedError(`filter parsing is not implemented yet: ${text}`);
}
