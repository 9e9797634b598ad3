/**
 * The names SOAP operations go by in the API: documented lowercase with underscores removed (spec,
 * SOAP services), matched without regard to case, by the WSDL name or the documented one.
 */

/** `Get_Quote` -> `getquote`. */
export function documentedName(operation: string): string {
  return operation.toLowerCase().replace(/_/g, '');
}

/**
 * The service's own routes beside its operations: `GET /api/v2/{service}/_spec` serves its OpenAPI
 * document (api-dispatch.ts), so no operation is documented under that name.
 */
export const RESERVED_OPERATION_NAMES: ReadonlySet<string> = new Set(['_spec']);

/**
 * The documented name of each operation, in order, every one distinct and none a reserved route:
 * where two would share one (`Get_Item`, `GetItem`), the operation named so already keeps it and
 * the other keeps its lower-cased WSDL name (`get_item`); a clash beyond that gets a number
 * (`_spec` beside `spec`: `spec2`).
 */
export function documentedNames(operations: readonly string[]): string[] {
  const taken = new Set<string>(RESERVED_OPERATION_NAMES);
  const names: string[] = new Array(operations.length);
  const plain = (name: string) => documentedName(name) === name.toLowerCase();
  const claim = (index: number, wanted: string[]) => {
    let name = wanted.find((candidate) => !taken.has(candidate)) ?? wanted[0];
    for (let n = 2; taken.has(name); n++) name = `${wanted[0]}${n}`;
    taken.add(name);
    names[index] = name;
  };
  operations.forEach((name, index) => {
    if (plain(name)) claim(index, [documentedName(name)]);
  });
  operations.forEach((name, index) => {
    if (!plain(name)) claim(index, [documentedName(name), name.toLowerCase()]);
  });
  return names;
}

/**
 * Operations by the names they are spelt with, the API name and then the WSDL name: a call that
 * spells one exactly gets that operation, also where WSDL names differ only in case
 * (`GetItem`, `GETITEM`: the second is offered as `GETITEM_2`, and `GETITEM` still calls it).
 */
export function operationsByExactName<T extends { name: string; sourceName: string }>(operations: readonly T[]): Map<string, T> {
  const byName = new Map<string, T>(operations.map((operation) => [operation.name, operation]));
  for (const operation of operations) if (!byName.has(operation.sourceName)) byName.set(operation.sourceName, operation);
  return byName;
}

/** Operations by every name the API accepts for them: lower-cased WSDL name and documented name. */
export function operationsByApiName<T extends { name: string }>(operations: readonly T[]): Map<string, T> {
  const byName = new Map<string, T>();
  for (const operation of operations) byName.set(operation.name.toLowerCase(), operation);
  const documented = documentedNames(operations.map((operation) => operation.name));
  operations.forEach((operation, index) => {
    if (!byName.has(documented[index])) byName.set(documented[index], operation);
  });
  return byName;
}
