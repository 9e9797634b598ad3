/**
 * What each database can do, as plain data and without its driver: the dialect modules carry their
 * row (`SqlDialectModule.capabilities`), and what must not load a driver reads it by the model's
 * dialect name: the OpenAPI documents (built by the generator too) and the generator's checks.
 */
import type { SqlDialect } from '../../../model/platform-model.js';

export interface SqlCapabilities {
  /** Whether the database has stored procedures and functions, served as `_proc` and `_func` (not SQLite). */
  routines: boolean;
  /**
   * Whether a read can lock the rows it selects (`select ... for update`) until its transaction
   * ends. SQLite has no row locks: its one connection serialises writes already.
   */
  rowLocks: boolean;
  /** Whether NULL sorts as larger than every value (PostgreSQL: last ascending, first descending); SQLite and MySQL sort it smallest. */
  nullsSortLargest: boolean;
  /** Whether ORDER BY takes `nulls first`/`nulls last` (not MySQL). */
  nullsClause: boolean;
  /** Whether LIKE takes a backslash as its escape without an ESCAPE clause (not SQLite). */
  likeEscapesByDefault: boolean;
  /** Whether a row of only defaults is inserted as `default values`; MySQL spells it `() values ()`. */
  defaultValuesInsert: boolean;
  /** Whether an auto-increment key takes a keyword (SQLite, MySQL) rather than a type (PostgreSQL `serial`). */
  autoIncrementKeyword: boolean;
  /**
   * The longest `length` a string field takes where the database's refusal names no field
   * (PostgreSQL's varchar: 10485760); null where its error names the field (MySQL) or it sets no
   * limit (SQLite).
   */
  maxStringLength: number | null;
  /** Whether DDL is transactional, so that a failed multi-table create rolls back by itself. */
  transactionalDdl: boolean;
  /** Whether INSERT/UPDATE/DELETE ... RETURNING is available. */
  supportsReturning: boolean;
  /**
   * Whether an insert that returns only an integer key runs without RETURNING or reading the row
   * back: the driver reports the insert id, and RETURNING is costly (SQLite's nearly doubles the
   * time of a one-row write) or missing (MySQL: a second query). An update by key that returns
   * only the key never needs either: every driver reports the rows it matched (MySQL: mysql2's
   * default FOUND_ROWS flag).
   */
  keyInsertsWithoutReturning: boolean;
}

/** The one table of what each database can do. */
export const SQL_CAPABILITIES: Readonly<Record<SqlDialect, Readonly<SqlCapabilities>>> = Object.freeze({
  sqlite: Object.freeze({
    routines: false,
    rowLocks: false,
    nullsSortLargest: false,
    nullsClause: true,
    likeEscapesByDefault: false,
    defaultValuesInsert: true,
    autoIncrementKeyword: true,
    maxStringLength: null,
    transactionalDdl: true,
    supportsReturning: true,
    keyInsertsWithoutReturning: true,
  }),
  postgres: Object.freeze({
    routines: true,
    rowLocks: true,
    nullsSortLargest: true,
    nullsClause: true,
    likeEscapesByDefault: true,
    defaultValuesInsert: true,
    autoIncrementKeyword: false,
    maxStringLength: 10_485_760,
    transactionalDdl: true,
    supportsReturning: true,
    keyInsertsWithoutReturning: false,
  }),
  mysql: Object.freeze({
    routines: true,
    rowLocks: true,
    nullsSortLargest: false,
    nullsClause: false,
    likeEscapesByDefault: true,
    defaultValuesInsert: false,
    autoIncrementKeyword: true,
    maxStringLength: null,
    transactionalDdl: false,
    supportsReturning: false,
    keyInsertsWithoutReturning: true,
  }),
});

/** The resources a SQL service serves beside `_schema` and `_table` where its database has routines. */
export const ROUTINE_RESOURCES = ['_proc', '_func'] as const;
