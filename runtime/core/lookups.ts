/**
 * Lookup templates (`{name}`, reference 6.6): replaced by the value a resolver knows for the name;
 * unknown names stay as written. Used for service configs (system lookups, when a service opens)
 * and, through the filter AST, for the values of filters.
 */
export type LookupResolver = (name: string) => string | undefined;

const TEMPLATE = /\{([^{}\s]+)\}/g;

/** `text` with every known `{name}` replaced. */
export function substituteLookups(text: string, lookup: LookupResolver): string {
  return text.includes('{') ? text.replace(TEMPLATE, (template, name: string) => lookup(name) ?? template) : text;
}

/** A copy of a config value (strings in objects and arrays) with every known `{name}` replaced. */
export function substituteConfigLookups<T>(value: T, lookup: LookupResolver): T {
  if (typeof value === 'string') return substituteLookups(value, lookup) as T;
  if (Array.isArray(value)) return value.map((item) => substituteConfigLookups(item, lookup)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteConfigLookups(item, lookup)])) as T;
  }
  return value;
}
