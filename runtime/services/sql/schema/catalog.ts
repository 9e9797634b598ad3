/**
 * What a dialect's introspector reads out of the database catalog, before names, abstract types,
 * labels and relations are derived (schema-assembler.ts does that the same way for every dialect).
 * All names are the database's own.
 */
import type { AbstractType, FieldModel, ReferentialAction } from '../../../model/platform-model.js';

/** Catalog rows by the table they belong to, in the rows' order. */
export function groupByTable<T extends { table_name: string }>(rows: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const list = groups.get(row.table_name);
    if (list === undefined) groups.set(row.table_name, [row]);
    else list.push(row);
  }
  return groups;
}

export interface CatalogColumn {
  name: string;
  /** Native type, lower-case, as declared (`varchar(40)`). */
  dbType: string;
  nullable: boolean;
  /** Already parsed from the catalog's SQL text. */
  default: FieldModel['default'];
  autoIncrement: boolean;
  /** A generated column: its value is computed by the database and never written. */
  computed?: true;
  /** The abstract type when the dialect knows better than the native type's name (enums, JSON checks). */
  type?: AbstractType;
  /** The values of an enumerated column, in the database's order. */
  picklist?: string[];
}

export interface CatalogForeignKey {
  /** Constraint name, or null when the database keeps none (SQLite). */
  name: string | null;
  columns: string[];
  refTable: string;
  /** Empty when the key references the other table's primary key implicitly. */
  refColumns: string[];
  onUpdate: ReferentialAction;
  onDelete: ReferentialAction;
}

export interface CatalogTable {
  name: string;
  schema: string | null;
  isView: boolean;
  /** In the database's column order. */
  columns: CatalogColumn[];
  /** Primary key columns in key order. */
  primaryKey: string[];
  foreignKeys: CatalogForeignKey[];
  /** Unique constraints and unique indexes other than the primary key. */
  uniqueKeys: string[][];
  /**
   * Why the database could not describe the table, when it could not (a view whose definition
   * names a table dropped since): it is left out of the schema with a warning.
   */
  unreadable?: string;
}

/** Reads the catalog's referential action text (`NO ACTION`, `cascade`, ...). */
export function referentialAction(text: string | null | undefined): ReferentialAction {
  const action = (text ?? '').trim().toLowerCase();
  return action === 'restrict' || action === 'cascade' || action === 'set null' || action === 'set default' ? action : 'no action';
}
