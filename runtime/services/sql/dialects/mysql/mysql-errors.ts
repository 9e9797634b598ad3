/** mysql2 errors (MySQL/MariaDB error numbers) -> PorticoErrors naming API fields. */
import { BadRequestError, ConflictError, ServiceUnavailableError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { conflict, fieldName, valueError } from '../driver-errors.js';

interface MysqlError extends Error {
  code: string;
  errno?: number;
  sqlMessage?: string;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR']);

function isMysqlError(error: unknown): error is MysqlError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** The last quoted part of `column 'x'` / ``column `db`.`t`.`x` ``. */
function columnIn(message: string): string | null {
  const match = /(?:column|Column|Field) ((?:[`'][^`']*[`']\.?)+)/.exec(message);
  if (match === null) return null;
  const parts = match[1].split(/[`']\.?[`']?/).filter((part) => part !== '');
  return parts[parts.length - 1] ?? null;
}

/** `Duplicate entry 'x' for key 't.name'` -> the fields of that key, when the model can tell. */
function duplicateFields(message: string, table: TableModel | null): string[] {
  const key = /for key '([^']+)'/.exec(message)?.[1]?.split('.').pop();
  if (key === undefined || table === null) return [];
  if (key === 'PRIMARY') return table.primaryKey;
  const field = table.fields.find((f) => f.sourceName === key);
  return field === undefined ? [] : [field.name];
}

/** Maps constraint, value, DDL, concurrency and connection errors; null for anything else. */
export function translateMysqlError(error: unknown, table: TableModel | null): PorticoError | null {
  if (!isMysqlError(error)) return null;
  if (CONNECTION_CODES.has(error.code)) return new ServiceUnavailableError(`The database is unavailable: ${error.message}`);
  const message = error.sqlMessage ?? error.message;
  const column = columnIn(message);
  const field = column === null ? null : fieldName(column, table);
  switch (error.errno) {
    case 1048: return new BadRequestError(`Field '${field}' can not be NULL.`, { field });
    case 1364: return new BadRequestError(`Required field '${field}' can not be NULL.`, { field });
    case 1062: case 1586: return conflict(duplicateFields(message, table));
    case 1451: case 1452: case 1216: case 1217:
      return new ConflictError('Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.');
    case 4025: case 3819: return new BadRequestError(`Check constraint failed: ${message}.`);
    case 1406: case 1366: case 1292: case 1264: case 1265: case 1367: case 3140: case 4038:
      return valueError(message, field);
    case 1050: {
      const name = /Table '([^']+)' already exists/.exec(message)?.[1] ?? table?.name ?? '';
      return new ConflictError(`A table with name '${name}' already exist in the database.`);
    }
    case 1060: return new BadRequestError(`Field '${/'([^']+)'/.exec(message)?.[1] ?? ''}' already exists in table '${table?.name ?? ''}'.`);
    case 1213: case 1205: return new ConflictError(`The records were changed concurrently; try again. (${message})`);
    default: return null;
  }
}
