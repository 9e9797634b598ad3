/**
 * Tables and columns whose API names collide. API names are lower-cased (unless the service keeps
 * the database's case) and tables are looked up case-insensitively, so `"Contact"` beside `contact`
 * on PostgreSQL or MariaDB, or columns `name`, `"Name"` and `"NAME"` of one table, would be one
 * name in the API: a record would hold one of the columns' values under `name`, generated types
 * would declare `name` three times. One of each set is served: the one already written as its API
 * name (`contact`, `name`), else the first in the catalog; the others are left out with a warning,
 * and so are the keys that name a column left out and the foreign keys to a table left out.
 */
import type { CatalogTable } from './catalog.js';

export interface ServedCatalog {
  catalog: CatalogTable[];
  /** What was left out and why, one sentence each. */
  warnings: string[];
}

/** The catalog without the tables and columns whose API names another one already has. */
export function withoutNameCollisions(catalog: readonly CatalogTable[], apiName: (source: string) => string): ServedCatalog {
  const warnings: string[] = [];
  const servedTables = pickServed(
    catalog.map((table) => table.name),
    apiName,
    (kept, dropped) => `tables ${quoteList([kept, ...dropped])} have one API name '${apiName(kept)}': only "${kept}" is served.`,
    warnings,
  );
  const tables = catalog
    .filter((table) => servedTables.has(table.name))
    .map((table) => {
      const served = pickServed(
        table.columns.map((column) => column.name),
        apiName,
        (kept, dropped) =>
          `columns ${quoteList([kept, ...dropped])} of table "${table.name}" have one API name '${apiName(kept)}': only "${kept}" is served.`,
        warnings,
      );
      return { table, served };
    });
  if (warnings.length === 0) return { catalog: [...catalog], warnings };
  const servedColumns = new Map(tables.map(({ table, served }) => [table.name, served]));
  const names = new Set(catalog.map((table) => table.name));
  // A foreign key names its table as written (the exact name, or another case of it on MySQL).
  const target = (refTable: string) =>
    names.has(refTable) ? refTable : catalog.find((table) => table.name.toLowerCase() === refTable.toLowerCase())?.name;
  const allServed = (columns: readonly string[], of: ReadonlySet<string> | undefined) =>
    of !== undefined && columns.every((column) => of.has(column));
  return {
    warnings,
    catalog: tables.map(({ table, served }) => ({
      ...table,
      columns: table.columns.filter((column) => served.has(column.name)),
      primaryKey: allServed(table.primaryKey, served) ? table.primaryKey : [],
      uniqueKeys: table.uniqueKeys.filter((key) => allServed(key, served)),
      foreignKeys: table.foreignKeys.filter((fk) => {
        const to = target(fk.refTable);
        return (
          allServed(fk.columns, served) &&
          (to === undefined || allServed(fk.refColumns, servedTables.has(to) ? servedColumns.get(to) : undefined))
        );
      }),
    })),
  };
}

/** The names served: one per API name, the one equal to it when there is one, else the first. */
function pickServed(
  names: readonly string[],
  apiName: (source: string) => string,
  warning: (kept: string, dropped: string[]) => string,
  warnings: string[],
): Set<string> {
  const groups = new Map<string, string[]>();
  for (const name of names) groups.set(apiName(name), [...(groups.get(apiName(name)) ?? []), name]);
  const served = new Set<string>();
  for (const [api, group] of groups) {
    const kept = group.find((name) => name === api) ?? group[0]!;
    served.add(kept);
    if (group.length > 1)
      warnings.push(
        warning(
          kept,
          group.filter((name) => name !== kept),
        ),
      );
  }
  return served;
}

function quoteList(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  return quoted.length === 2 ? quoted.join(' and ') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}
