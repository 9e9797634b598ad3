/**
 * What a catalog lists but the API can not serve: a view the database can not describe (one
 * naming a table dropped since: SQLite fails to read it, MariaDB lists it without columns), a
 * table without columns (PostgreSQL's `create table t ()`). They are left out with a warning, and
 * so are the foreign keys to them. Keys naming columns the catalog does not list (the hidden
 * `row_end` of a MariaDB system-versioned table's primary key) keep only the listed columns.
 */
import type { CatalogTable } from './catalog.js';

export interface ServableCatalog {
  catalog: CatalogTable[];
  /** What was left out and why, one sentence each. */
  warnings: string[];
}

export function servableTables(catalog: readonly CatalogTable[]): ServableCatalog {
  const warnings: string[] = [];
  const kept: CatalogTable[] = [];
  for (const table of catalog) {
    const kind = table.isView ? 'view' : 'table';
    if (table.unreadable !== undefined) warnings.push(`${kind} "${table.name}" can not be read (${table.unreadable}): it is not served.`);
    else if (table.columns.length === 0) warnings.push(`${kind} "${table.name}" has no columns the database describes: it is not served.`);
    else kept.push(table);
  }
  const hidden = kept.some((table) => !allListed(table, table.primaryKey) || table.uniqueKeys.some((key) => !allListed(table, key)));
  if (warnings.length === 0 && !hidden) return { catalog: [...catalog], warnings };
  const keptNames = new Set(kept.map((table) => table.name));
  const removed = new Set(catalog.filter((table) => !keptNames.has(table.name)).map((table) => table.name.toLowerCase()));
  return {
    warnings,
    catalog: kept.map((table) => ({
      ...table,
      primaryKey: table.primaryKey.filter((column) => allListed(table, [column])),
      uniqueKeys: table.uniqueKeys.filter((key) => allListed(table, key)),
      foreignKeys: table.foreignKeys.filter((fk) => allListed(table, fk.columns) && !removed.has(fk.refTable.toLowerCase())),
    })),
  };
}

function allListed(table: CatalogTable, columns: readonly string[]): boolean {
  return columns.every((column) => table.columns.some((listed) => listed.name === column));
}
