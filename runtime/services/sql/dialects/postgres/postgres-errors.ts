/** node-postgres errors (SQLSTATE codes) -> PorticoErrors naming API fields. */
import { BadRequestError, ConflictError, ServiceUnavailableError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { conflict, fieldName, valueError } from '../driver-errors.js';

interface PgError extends Error {
  code: string;
  column?: string;
  detail?: string;
  table?: string;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300']);

function isPgError(error: unknown): error is PgError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** `Key (a, b)=(1, x) already exists.` -> ['a', 'b'] */
function keyColumns(detail: string | undefined): string[] {
  const match = /^Key \(([^)]*)\)=/.exec(detail ?? '');
  return match === null ? [] : match[1].split(',').map((column) => column.trim().replace(/^"|"$/g, ''));
}

/** Maps constraint, value, DDL, concurrency and connection errors; null for anything else. */
export function translatePostgresError(error: unknown, table: TableModel | null): PorticoError | null {
  if (!isPgError(error)) return null;
  const { code, message } = error;
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return new ServiceUnavailableError(`The database is unavailable: ${message}`);
  switch (code) {
    case '23502': {
      const field = fieldName(error.column ?? '', table);
      return new BadRequestError(`Field '${field}' can not be NULL.`, { field });
    }
    case '23505':
      return conflict(keyColumns(error.detail).map((column) => fieldName(column, table)));
    case '23503':
      return new ConflictError('Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.');
    case '23514':
      return new BadRequestError(`Check constraint failed: ${message}.`);
    case '22001': case '22003': case '22007': case '22008': case '22P02': case '22P05': case '22023': case '2202E': case '22030': case '22032':
      return valueError(message, error.column === undefined ? null : fieldName(error.column, table));
    case '42P07': {
      const name = /relation "([^"]+)" already exists/.exec(message)?.[1] ?? table?.name ?? '';
      return new ConflictError(`A table with name '${name}' already exist in the database.`);
    }
    case '42701':
      return new BadRequestError(message.replace(/^column "([^"]+)" of relation "([^"]+)" already exists$/, "Field '$1' already exists in table '$2'."));
    case '40001': case '40P01': case '55P03':
      return new ConflictError(`The records were changed concurrently; try again. (${message})`);
    default:
      return null;
  }
}
