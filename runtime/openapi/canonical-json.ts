/**
 * Canonical JSON: the one serialisation of generated JSON (model.json, OpenAPI documents, route
 * schemas), so that the same data always gives the same bytes.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * JSON with two-space indentation and object keys sorted by code unit, except the members of a
 * JSON Schema `properties` map, which keep their order: it is the table's column order, which
 * readers expect and fast-json-stringify follows when it writes records.
 * `undefined` members are dropped, as JSON.stringify does. No trailing newline.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value, false), null, 2);
}

function canonical(value: unknown, isPropertyMap: boolean): Json {
  if (Array.isArray(value)) return value.map((item) => canonical(item, false));
  if (value === null || typeof value !== 'object') return value as Json;
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  if (!isPropertyMap) keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // fromEntries defines own properties, so a key such as `__proto__` stays data.
  return Object.fromEntries(
    keys.map((key) => [key, canonical((value as Record<string, unknown>)[key], !isPropertyMap && key === 'properties')]),
  );
}
