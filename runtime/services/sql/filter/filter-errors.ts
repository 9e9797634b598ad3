/**
 * Every error the filter grammar raises, in one place so their texts stay consistent.
 * Positions are 1-based character offsets in the filter text; 0 marks a node built in code
 * (role row filters), for which no position is reported.
 */
import { BadRequestError, InternalServerError } from '../../../core/errors.js';

function where(position: number): Record<string, unknown> {
  return position > 0 ? { position } : {};
}

/** A syntax error: what the parser expected at `position` and what it found there. */
export function malformedFilter(filter: string, position: number, expected: string, found: string): BadRequestError {
  return new BadRequestError(
    `Malformed filter at position ${position}: expected ${expected} but found ${found}`,
    { filter, position, expected, found },
  );
}

/** A field that is not a column of the table (or of the related table). */
export function unknownField(field: string, position: number): BadRequestError {
  return new BadRequestError(`Invalid or unparsable field in filter request: '${field}'`, { field, ...where(position) });
}

/** An aggregate function outside `having`. */
export function aggregateNotAllowed(expression: string, position: number): BadRequestError {
  return new BadRequestError(`Aggregate function '${expression}' is only allowed in 'having'.`, { field: expression, ...where(position) });
}

/** A plain field in `having` that is not grouped. */
export function notGrouped(field: string, position: number): BadRequestError {
  return new BadRequestError(`Field '${field}' in 'having' must be one of the 'group' fields or inside an aggregate function.`, { field, ...where(position) });
}

/** A dotted prefix that names neither the table nor one of its relationships. */
export function unknownRelation(relation: string, position: number): BadRequestError {
  return new BadRequestError(`Invalid or unknown relationship in filter request: '${relation}'`, { relation, ...where(position) });
}

/** A related table reached by several relationships: the client must name one. */
export function ambiguousRelation(table: string, relations: string[], position: number): BadRequestError {
  return new BadRequestError(
    `Ambiguous relationship in filter request: '${table}' matches ${relations.join(', ')}; use the relationship name.`,
    { relation: table, candidates: relations, ...where(position) },
  );
}

/** A value that does not cast to the column's type. */
export function invalidValue(field: string, type: 'integer' | 'number' | 'boolean', position: number): BadRequestError {
  return new BadRequestError(`Field '${field}' must be a valid ${type}.`, { field, ...where(position) });
}

/** A `:name` placeholder without a value in the request's `params`. */
export function missingParam(name: string, position: number): BadRequestError {
  return new BadRequestError(`Missing value for filter parameter ':${name}' in 'params'.`, { parameter: name, ...where(position) });
}

/** A `:name` placeholder whose value cannot be used where it stands (`why` completes the sentence). */
export function unusableParam(name: string, why: string, position: number): BadRequestError {
  return new BadRequestError(`Filter parameter ':${name}' ${why}.`, { parameter: name, ...where(position) });
}

/** A filter beyond one of the request limits (runtime/core/request-limits.ts). */
export function filterTooLarge(what: string, limit: number, position: number): BadRequestError {
  return new BadRequestError(`Filter too large: ${what}; at most ${limit} are allowed.`, { limit, ...where(position) });
}

/** A `like` pattern (or contains/starts with/ends with value) beyond the pattern limit. */
export function patternTooLong(field: string, limit: number, position: number): BadRequestError {
  return new BadRequestError(`Filter pattern for field '${field}' is too long: at most ${limit} characters are allowed.`, { field, limit, ...where(position) });
}

/**
 * A role's row filter the runtime cannot apply: a platform configuration problem, not the caller's.
 * `reason` completes "the filter is invalid: ..." (the generator reports it at build time).
 */
export function invalidRowFilter(filter: { name: string; operator: string; value: string }, reason: string): InternalServerError {
  return new InternalServerError('Invalid server-side filter configuration detected.', {
    name: filter.name, operator: filter.operator, value: filter.value, reason,
  });
}

/** The model names a table or field that does not exist: the model itself is inconsistent. */
export function inconsistentModel(detail: string): InternalServerError {
  return new InternalServerError(`Filter cannot be applied: ${detail}.`);
}
