/**
 * Identifier helpers shared by the OpenAPI builders and the generator's emitters, so that a table
 * gets the same PascalCase name in operationIds, TypeScript types and Prisma models.
 */

/** ASCII words of a name: runs of letters and digits. */
function words(text: string): string[] {
  return text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
}

/** `contact_info` -> `ContactInfo`; the inner case of each word is kept (`ContactInfo` stays). */
export function pascalCase(text: string): string {
  return words(text)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `contact_info` -> `contactInfo`. */
export function camelCase(text: string): string {
  const pascal = pascalCase(text);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/**
 * A namer that hands out each wanted name once: the name itself when free, else the name with
 * the first free suffix 2, 3, ... Callers ask in a fixed order, so results are deterministic.
 */
export function uniqueNamer(taken: Iterable<string> = []): (wanted: string) => string {
  const used = new Set(taken);
  return (wanted) => {
    let name = wanted;
    for (let suffix = 2; used.has(name); suffix++) name = `${wanted}${suffix}`;
    used.add(name);
    return name;
  };
}
