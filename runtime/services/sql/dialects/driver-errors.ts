/**
 * What every dialect's driver-error translation shares: the errors themselves are worded alike and
 * in our own words in the family's catalogue (../sql-messages.ts: duplicate, foreignKey,
 * valueRefused, ...): a driver's message never reaches a client (it names internals and differs
 * between databases). What no translation knows becomes the caller's fallback, with the driver's
 * error kept as its cause for the server log.
 */
import { PorticoError } from '../../../core/errors.js';
import { coreMessages } from '../../../core/messages.js';
import type { TableModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from './sql-dialect.js';
import { sqlMessages } from '../sql-messages.js';

/** Node's socket errors of a database connection that is refused, lost or never made: the database is unavailable. */
export const SOCKET_ERROR_CODES: readonly string[] = ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH'];

/** The API name of a database column, or the column itself when the table does not know it. */
export function fieldName(column: string, table: TableModel | null): string {
  return table?.fields.find((field) => field.sourceName === column)?.name ?? column;
}

/** Answers saying the service's schema is out of date: what the database no longer has, a table or a column. */
const outdated = new WeakMap<PorticoError, 'table' | 'column'>();

/** A name as the driver writes it (`db.item`, `public.item`, `item.col`) without what qualifies it. */
const bareName = (driverName: string) => driverName.slice(driverName.lastIndexOf('.') + 1);

/**
 * A table dropped or renamed outside the service (psql, a migration, another worker): the spec's
 * 404 for an unknown table, named as the request named it when the driver names the request's
 * table (`db.item`, `public.item`, `main.item` name `item`). The service reads its catalog again
 * on seeing it (isOutdatedSchema).
 */
export function missingTable(driverName: string, table: TableModel | null): PorticoError {
  const bare = bareName(driverName);
  const own = table !== null && table.sourceName.toLowerCase() === bare.toLowerCase();
  // A view of the request reading a table gone: the client asked for the view and may never have heard of that table.
  if (table?.isView && !own) return missingViewSource(table, bare);
  const error = coreMessages.tableNotFound.error(own ? (table as TableModel).name : bare);
  outdated.set(error, 'table');
  return error;
}

/** A view reading a table (`null`: not named by the driver) dropped or renamed outside the service; the catalog is read again. */
export function missingViewSource(view: TableModel, table: string | null): PorticoError {
  const error = sqlMessages.viewSourceMissing.error(view.name, table);
  outdated.set(error, 'table');
  return error;
}

/** Whether an error is a table the database no longer has (missingTable). */
export function isMissingTable(error: unknown): boolean {
  return error instanceof PorticoError && outdated.get(error) === 'table';
}

/**
 * A column of the request's table dropped or renamed outside the service between two requests
 * (`col`, `item.col` as the driver names it): the table changed elsewhere, nothing was stored,
 * and the service reads its catalog again (isOutdatedSchema), so that trying again is served.
 * null for a column the table does not have (a routine's own statement, say): not ours to name.
 */
export function missingColumn(driverName: string, table: TableModel | null): PorticoError | null {
  const bare = bareName(driverName);
  if (table === null || !table.fields.some((field) => field.sourceName === bare)) return null;
  const error = sqlMessages.tableChangedElsewhere.error();
  outdated.set(error, 'column');
  return error;
}

/** Whether an error says the service's schema is out of date (a table or a column gone): its catalog is to be read again. */
export function isOutdatedSchema(error: unknown): boolean {
  return error instanceof PorticoError && outdated.has(error);
}

/**
 * Any error of a database call as a PorticoError: ours unchanged, driver errors the dialect
 * knows translated, anything else `fallback` (worded by the caller, without the driver's text),
 * with the original as its cause for the log.
 */
export function databaseError(error: unknown, dialect: SqlDialectModule, table: TableModel | null, fallback: PorticoError): PorticoError {
  if (error instanceof PorticoError) return error;
  const translated = dialect.translateError(error, table);
  if (translated !== null) return translated;
  fallback.cause = error;
  return fallback;
}

/** A connection failure as translated (the database unavailable, access refused), keeping the driver's error as its cause: `gen build` shows why. */
export function withCause(translated: PorticoError | null, error: unknown): unknown {
  if (translated === null) return error;
  translated.cause ??= error;
  return translated;
}
