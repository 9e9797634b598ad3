/**
 * The PorticoErrors every dialect's driver-error translation produces, worded alike and in our
 * own words: a driver's message never reaches a client (it names internals and differs between
 * databases). What no translation knows becomes the caller's fallback, with the driver's error
 * kept as its cause for the server log.
 */
import { BadRequestError, ConflictError, PorticoError } from '../../../core/errors.js';
import type { TableModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from './sql-dialect.js';

/** The API name of a database column, or the column itself when the table does not know it. */
export function fieldName(column: string, table: TableModel | null): string {
  return table?.fields.find((field) => field.sourceName === column)?.name ?? column;
}

/** 409: a duplicate primary or unique key. */
export function conflict(fields: string[]): ConflictError {
  const named = fields.length === 0 ? 'key' : fields.map((f) => `'${f}'`).join(', ');
  return new ConflictError(`Duplicate entry: a record with the same ${named} already exists.`, { fields });
}

/** What was wrong with a value the database refused, in our words. */
export type ValueProblem = 'too long' | 'out of range' | 'not a valid date or time' | 'not valid for the field type' | 'unstorable text' | 'not valid JSON';

const VALUE_PROBLEMS: Record<ValueProblem, string> = {
  'too long': 'the value is too long for the field',
  'out of range': 'the number is out of range for the field',
  'not a valid date or time': 'not a valid date or time',
  'not valid for the field type': "not a valid value for the field's type",
  'unstorable text': 'the text holds characters the database can not store',
  'not valid JSON': 'not valid JSON',
};

/** 400: a value the column cannot take (type, range, length, format). */
export function valueError(problem: ValueProblem, field: string | null): BadRequestError {
  const subject = field === null ? 'Invalid value' : `Invalid value for field '${field}'`;
  return new BadRequestError(`${subject}: ${VALUE_PROBLEMS[problem]}.`, field === null ? null : { field });
}

/** 400: a check constraint refused a value; its name is the schema's, not the driver's. */
export function checkFailed(constraint: string | null): BadRequestError {
  return new BadRequestError(constraint ? `Check constraint '${constraint}' failed.` : 'Check constraint failed.', constraint ? { constraint } : null);
}

/**
 * 400: the request reached a limit of the database itself (expression depth, bound parameters,
 * columns, pattern complexity). The request limits keep clients below them; this is what is left.
 */
export function databaseLimit(): BadRequestError {
  return new BadRequestError('The request is too large for the database: use fewer filter terms, values, fields or records at once.');
}

/** 409: the foreign key of a written or deleted record. */
export function foreignKeyFailed(): ConflictError {
  return new ConflictError('Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.');
}

/** 409: a deadlock, serialization failure or lock timeout. */
export function concurrentChange(): ConflictError {
  return new ConflictError('The records were changed concurrently; try again.');
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
