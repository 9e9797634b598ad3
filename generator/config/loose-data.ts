/**
 * Reading config data that may still be invalid: the cross-reference checks run even when the
 * schema found problems, so that every problem is reported at once.
 */

export type Loose = Record<string, unknown>;

export function isRecord(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object items of a list with their indexes; anything else yields nothing. */
export function objectItems(value: unknown): Array<[number, Loose]> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, index): Array<[number, Loose]> => (isRecord(item) ? [[index, item]] : []));
}

/** A string field, or undefined when absent or of another type (the schema reports that). */
export function stringField(item: Loose, key: string): string | undefined {
  const value = item[key];
  return typeof value === 'string' ? value : undefined;
}
