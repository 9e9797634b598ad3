/** better-sqlite3 errors -> PorticoErrors that name API fields instead of `table.column`. */
import { BadRequestError, ConflictError, ServiceUnavailableError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { conflict, fieldName } from '../driver-errors.js';

/** `t.a, t.b` (SQLite's list of failing columns) -> API field names. */
function fieldNames(list: string, table: TableModel | null): string[] {
  return list.split(',').map((part) => fieldName(part.trim().split('.').pop() ?? part.trim(), table));
}

/** Maps constraint, type and lock errors; returns null for anything else. */
export function translateSqliteError(error: unknown, table: TableModel | null): PorticoError | null {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return null;
  const code = (error as Error & { code: string }).code;
  const message = error.message;
  const after = (prefix: string) => message.slice(message.indexOf(prefix) + prefix.length);
  switch (code) {
    case 'SQLITE_CONSTRAINT_NOTNULL': {
      const field = fieldNames(after('failed: '), table)[0];
      return new BadRequestError(`Field '${field}' can not be NULL.`, { field });
    }
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
    case 'SQLITE_CONSTRAINT_UNIQUE':
      return conflict(fieldNames(after('failed: '), table));
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return new ConflictError('Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.');
    case 'SQLITE_CONSTRAINT_CHECK':
      return new BadRequestError(`Check constraint failed: ${after('failed: ')}.`);
    case 'SQLITE_CONSTRAINT_DATATYPE':
    case 'SQLITE_MISMATCH':
      return new BadRequestError(`Invalid value type: ${message}.`);
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new ServiceUnavailableError('The database is busy; try again.');
    default: {
      const exists = /^(table|index) "?([^"]+?)"? already exists/.exec(message);
      if (exists) return new ConflictError(`A ${exists[1]} with name '${exists[2]}' already exist in the database.`);
      return null;
    }
  }
}
