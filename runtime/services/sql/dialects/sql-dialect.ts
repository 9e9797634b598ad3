/**
 * What differs between SQL databases, kept small: catalog and routine reading, routine calls,
 * DDL column types and table changes, value binding, RETURNING support and driver-error
 * translation. Everything else (query building, records, batches, relations, descriptions) is
 * shared and goes through Kysely.
 */
import type { Kysely } from 'kysely';
import type { PorticoError } from '../../../core/errors.js';
import type { DatabaseSchema, FieldModel, RoutineModel, SqlDialect, TableModel } from '../../../model/platform-model.js';
import type { RuntimeContext } from '../../service-kind.js';
import type { CatalogTable } from '../schema/catalog.js';
import type { SqlCapabilities } from './dialect-capabilities.js';
import type { TableChanges } from '../schema/table-alter.js';
import type { FieldDefinition } from '../schema/table-definition.js';

/** An open database: the Kysely instance every query goes through. */
export interface SqlConnection {
  /** Untyped: the tables are only known at run time. */
  db: Kysely<any>;
  /**
   * A database file's connection: whether the file at its path is still the one it opened, or was
   * removed, or replaced by another (a restored backup). Writes would go to the unlinked file and be
   * lost, so `strict` (a write) looks now (a file moved elsewhere, whose writes are not lost, once the
   * file's watch told of it); a read may get what was seen within the last event-loop turn.
   */
  fileState?(strict: boolean): 'same' | 'missing' | 'replaced';
  /** Told when the service read the database's tables again after a change (`_schema` writes, refresh): statements prepared for them are prepared afresh. */
  schemaChanged?(): void;
  close(): Promise<void>;
}

/** A routine's results: result sets in order, OUT/INOUT values, and a function's single value. */
export interface RoutineOutcome {
  resultSets: Record<string, unknown>[][];
  /** OUT and INOUT parameter values by parameter name. */
  out: Record<string, unknown>;
  /** What a function returning one value returned; undefined for procedures and set-returning functions. */
  value?: unknown;
}

/** Stored procedures and functions of a database that has them. */
export interface RoutineSupport {
  /** Procedures and functions of the service's schema, in a fixed order. */
  read(db: SqlConnection['db']): Promise<RoutineModel[]>;
  /**
   * Runs a routine. `args` holds a value for each IN/INOUT parameter the client gave, by parameter
   * name; parameters left out take the routine's default where the database has defaults, else NULL.
   */
  call(db: SqlConnection['db'], routine: RoutineModel, args: ReadonlyMap<string, unknown>): Promise<RoutineOutcome>;
}

export interface SqlDialectModule {
  dialect: SqlDialect;
  /** Reads tables, views, columns and keys from the catalog, each list in a fixed order. */
  readCatalog(db: SqlConnection['db']): Promise<CatalogTable[]>;
  /** What the database can do: its row of SQL_CAPABILITIES (dialect-capabilities.ts). */
  capabilities: SqlCapabilities;
  /** Stored procedures and functions; null exactly where `capabilities.routines` is false (SQLite). */
  routines: RoutineSupport | null;
  /** The native column type for a `_schema` field definition (`varchar(40)`, `integer`, ...). */
  columnType(field: FieldDefinition): string;
  /** SQL a column definition needs after its other clauses (MySQL's `on update CURRENT_TIMESTAMP`), or null. */
  columnSuffix(field: FieldDefinition): string | null;
  /**
   * How a `{"expression": ...}` default is written in a column definition, where the database
   * wants it otherwise than as given (SQLite: in parentheses, but for a literal or CURRENT_*).
   */
  defaultExpression?(expression: string): string;
  /**
   * Called after an insert that gave an auto-increment field its value, for databases whose
   * generator does not follow such values by itself (PostgreSQL sequences); absent elsewhere.
   */
  afterExplicitKey?(db: SqlConnection['db'], table: TableModel, field: FieldModel): Promise<void>;
  /** How a boolean value is bound. */
  bindBoolean(value: boolean): unknown;
  /** A read conversion this database needs for a field beyond its abstract type's, or null. */
  readConverter(field: FieldModel): ((value: unknown) => unknown) | null;
  /** Adds, changes and drops fields of an existing table (all or nothing where the database allows). */
  alterTable(db: SqlConnection['db'], schema: DatabaseSchema, table: TableModel, changes: TableChanges): Promise<void>;
  /** A driver error as a PorticoError naming API fields, or null when it is of no known kind. */
  translateError(error: unknown, table: TableModel | null): PorticoError | null;
}

/** What a SQL kind loads when a service of it first opens: its dialect and driver. */
export interface SqlKindImplementation {
  dialect: SqlDialectModule;
  /** Opens (and, where configured, creates and seeds) the service's database. */
  connect(config: Record<string, unknown>, ctx: RuntimeContext): Promise<SqlConnection>;
}

/**
 * A SQL service kind: what describes it (listed and validated without loading a driver) and how
 * its implementation loads, so that a server loads only the drivers its services use.
 */
export interface SqlKindDefinition {
  type: string;
  label: string;
  description: string;
  configSchema: Record<string, unknown>;
  /** As ServiceType.checkConfig. */
  checkConfig?(config: Record<string, unknown>): void;
  load(): Promise<SqlKindImplementation>;
}
