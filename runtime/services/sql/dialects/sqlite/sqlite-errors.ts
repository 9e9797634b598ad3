/** better-sqlite3 errors -> PorticoErrors that name API fields instead of `table.column`. */
import type { PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { fieldName, missingColumn, missingTable } from '../driver-errors.js';
import { schemaMessages } from '../../schema/schema-messages.js';
import { sqlMessages } from '../../sql-messages.js';

/** `t.a, t.b` (SQLite's list of failing columns) -> API field names. */
function fieldNames(list: string, table: TableModel | null): string[] {
  return list.split(',').map((part) => fieldName(part.trim().split('.').pop() ?? part.trim(), table));
}

/**
 * SQLite's own limits, reported as SQLITE_ERROR with these texts (depth of an expression tree,
 * bound variables, LIKE pattern complexity, result columns, ORDER BY terms, parser stack).
 */
const LIMIT_MESSAGES =
  /Expression tree is too large|too many SQL variables|pattern too complex|too many columns|too many terms|parser stack overflow|too many arguments/i;

/** Maps constraint, type, limit and lock errors; returns null for anything else. */
export function translateSqliteError(error: unknown, table: TableModel | null): PorticoError | null {
  // better-sqlite3 refuses to bind a bigint beyond 64 bits or an over-long string before SQLite sees it.
  if (error instanceof RangeError && /too big|too large/i.test(error.message)) return sqlMessages.valueRefused.error('out of range', null);
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return null;
  const code = (error as Error & { code: string }).code;
  const message = error.message;
  const after = (prefix: string) => message.slice(message.indexOf(prefix) + prefix.length);
  switch (code) {
    case 'SQLITE_CONSTRAINT_NOTNULL': {
      const field = fieldNames(after('failed: '), table)[0];
      return sqlMessages.notNull.error(field);
    }
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
    case 'SQLITE_CONSTRAINT_UNIQUE':
      return sqlMessages.duplicate.error(fieldNames(after('failed: '), table));
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return sqlMessages.foreignKey.error();
    case 'SQLITE_CONSTRAINT_CHECK':
      return sqlMessages.checkFailed.error(message.includes('failed: ') ? after('failed: ') : null);
    case 'SQLITE_CONSTRAINT_DATATYPE':
    case 'SQLITE_MISMATCH':
      return sqlMessages.valueRefused.error('not valid for the field type', null);
    case 'SQLITE_TOOBIG':
      return sqlMessages.valueRefused.error('too long', null);
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return sqlMessages.databaseBusy.error();
    case 'SQLITE_FULL':
      return sqlMessages.databaseFull.error();
    // The file, or the disk under it, takes no writes (a disk remounted read-only after an error, say).
    case 'SQLITE_READONLY':
      return sqlMessages.databaseReadOnly.error();
    case 'SQLITE_ERROR': {
      if (LIMIT_MESSAGES.test(message)) return sqlMessages.databaseLimit.error();
      // The table dropped or renamed outside the service.
      const missing = /^no such table: (.+)$/.exec(message);
      if (missing) return missingTable(missing[1], table);
      // A column dropped or renamed outside the service: `no such column: item.note`, `no such column: "note" - should
      // this be a string literal...`, `table item has no column named note`.
      const column = /^(?:no such column: |table \S+ has no column named )("[^"]+"|\S+)/.exec(message)?.[1].replaceAll('"', '');
      if (column !== undefined) return missingColumn(column, table);
      break;
    }
  }
  // The disk failed under the file (SQLITE_IOERR_WRITE, _FSYNC, ...): the database is unavailable.
  if (code.startsWith('SQLITE_IOERR')) return sqlMessages.databaseUnavailable.error();
  const exists = /^(table|index) "?([^"]+?)"? already exists/.exec(message);
  if (exists) return schemaMessages.alreadyExists.error(exists[1], exists[2]);
  return null;
}
