/** Sizes of native column types from a field definition's length, precision and scale. */
import type { FieldDefinition } from '../schema/table-definition.js';

const DECIMALS = new Set(['decimal', 'numeric']);

/**
 * `type` with its size: as written when it already has one (`varchar(12)`), `(length)` for the
 * `sized` types, `(precision[,scale])` for decimals, else unchanged.
 */
export function sizedType(type: string, field: FieldDefinition, sized: ReadonlySet<string>): string {
  if (type.includes('(')) return type;
  if (sized.has(type) && field.length !== null) return `${type}(${field.length})`;
  const precision = field.precision ?? field.length;
  if (DECIMALS.has(type) && precision !== null)
    return field.scale === null ? `${type}(${precision})` : `${type}(${precision},${field.scale})`;
  return type;
}
