/**
 * What differs between SQL databases, kept small: catalog reading, DDL column types, value
 * binding, RETURNING support and driver-error translation. Everything else (query building,
 * records, batches, descriptions) is shared and goes through Kysely.
 */
import type { Kysely } from 'kysely';
import type { PorticoError } from '../../../core/errors.js';
import type { FieldModel, SqlDialect, TableModel } from '../../../model/platform-model.js';
import type { RuntimeContext } from '../../service-kind.js';
import type { CatalogTable } from '../schema/catalog.js';
import type { FieldDefinition } from '../schema/table-definition.js';

/** An open database: the Kysely instance every query goes through. */
export interface SqlConnection {
  /** Untyped: the tables are only known at run time. */
  db: Kysely<any>;
  close(): Promise<void>;
}

export interface SqlDialectModule {
  dialect: SqlDialect;
  /** Reads tables, views, columns and keys from the catalog, each list in a fixed order. */
  readCatalog(db: SqlConnection['db']): Promise<CatalogTable[]>;
  /** The native column type for a `_schema` field definition (`varchar(40)`, `integer`, ...). */
  columnType(field: FieldDefinition): string;
  /** Whether an auto-increment key takes a keyword (SQLite, MySQL) rather than a type (PostgreSQL `serial`). */
  autoIncrementKeyword: boolean;
  /** Whether INSERT/UPDATE/DELETE ... RETURNING is available. */
  supportsReturning: boolean;
  /** How a boolean value is bound. */
  bindBoolean(value: boolean): unknown;
  /** A read conversion this database needs for a field beyond its abstract type's, or null. */
  readConverter(field: FieldModel): ((value: unknown) => unknown) | null;
  /** A driver error as a PorticoError naming API fields, or null when it is of no known kind. */
  translateError(error: unknown, table: TableModel | null): PorticoError | null;
}

/** A SQL service kind: a dialect plus how a service config becomes a connection. */
export interface SqlKindDefinition {
  type: string;
  label: string;
  description: string;
  configSchema: Record<string, unknown>;
  dialect: SqlDialectModule;
  /** Opens (and, where configured, creates and seeds) the service's database. */
  connect(config: Record<string, unknown>, ctx: RuntimeContext): Promise<SqlConnection>;
}
