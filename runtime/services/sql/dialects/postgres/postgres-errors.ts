/** node-postgres errors (SQLSTATE codes) -> PorticoErrors naming API fields. */
import { BadRequestError, ConflictError, ServiceUnavailableError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { checkFailed, concurrentChange, conflict, databaseLimit, fieldName, foreignKeyFailed, valueError, type ValueProblem } from '../driver-errors.js';

interface PgError extends Error {
  code: string;
  column?: string;
  constraint?: string;
  detail?: string;
  table?: string;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300']);

/** Data exceptions (class 22) by what they say about the value. */
const VALUE_CODES = new Map<string, ValueProblem>([
  ['22001', 'too long'], ['22003', 'out of range'], ['22008', 'not a valid date or time'], ['22007', 'not a valid date or time'],
  ['22P02', 'not valid for the field type'], ['22023', 'not valid for the field type'], ['2202E', 'not valid for the field type'],
  ['22021', 'unstorable text'], ['22P05', 'unstorable text'], ['22030', 'not valid JSON'], ['22032', 'not valid JSON'],
]);

/**
 * Program limits (class 54: statement too complex, too many columns or arguments) and the
 * protocol error of a statement with more than 65,535 parameters, whose count wraps in the Bind
 * message ("bind message has N parameter formats but M parameters"): the connection survives it.
 */
function isLimit(code: string): boolean {
  return code.startsWith('54') || code === '08P01';
}

function isPgError(error: unknown): error is PgError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** `Key (a, b)=(1, x) already exists.` -> ['a', 'b']; an expression index's `lower(email)` -> ['email']. */
function keyColumns(detail: string | undefined): string[] {
  const match = /^Key \((.*?)\)=\(/.exec(detail ?? '');
  return match === null ? [] : match[1].split(',').map((column) => column.trim()
    .replace(/^\w+\((.*)\)$/, '$1').replace(/::\w+$/, '').replace(/^"|"$/g, ''));
}

/** Maps constraint, value, limit, DDL, concurrency and connection errors; null for anything else. */
export function translatePostgresError(error: unknown, table: TableModel | null): PorticoError | null {
  if (!isPgError(error)) return null;
  const { code, message } = error;
  if (isLimit(code)) return databaseLimit();
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return new ServiceUnavailableError('The database is unavailable; try again later.');
  const problem = VALUE_CODES.get(code);
  if (problem !== undefined) return valueError(problem, error.column === undefined ? null : fieldName(error.column, table));
  switch (code) {
    case '23502': {
      const field = fieldName(error.column ?? '', table);
      return new BadRequestError(`Field '${field}' can not be NULL.`, { field });
    }
    case '23505':
      return conflict(keyColumns(error.detail).map((column) => fieldName(column, table)));
    case '23503':
      return foreignKeyFailed();
    case '23514':
      return checkFailed(error.constraint ?? null);
    case '22025':
      return new BadRequestError("Invalid 'like' pattern: it may not end with an escape character.");
    // A routine's own RAISE EXCEPTION: its text is the routine author's message to the caller.
    case 'P0001':
      return new BadRequestError(message);
    case '42P07': {
      const name = /relation "([^"]+)" already exists/.exec(message)?.[1] ?? table?.name ?? '';
      return new ConflictError(`A table with name '${name}' already exist in the database.`);
    }
    case '42701': {
      const names = /^column "([^"]+)" of relation "([^"]+)" already exists$/.exec(message);
      return new BadRequestError(names ? `Field '${names[1]}' already exists in table '${names[2]}'.` : 'A field of that name already exists.');
    }
    case '40001': case '40P01': case '55P03':
      return concurrentChange();
    default:
      return null;
  }
}
