/** mysql2 errors (MySQL/MariaDB error numbers) -> PorticoErrors naming API fields. */
import { BadRequestError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { fieldName, missingColumn, missingTable, missingViewSource, SOCKET_ERROR_CODES } from '../driver-errors.js';
import { schemaMessages } from '../../schema/schema-messages.js';
import { sqlMessages, type ValueProblem } from '../../sql-messages.js';

interface MysqlError extends Error {
  /** mysql2's name of the error number; absent for numbers it does not know (MariaDB's own, as 1969). */
  code?: string;
  errno?: number;
  sqlMessage?: string;
}

const CONNECTION_CODES = new Set([...SOCKET_ERROR_CODES, 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR']);
/**
 * The server is shutting down (1053), or ended the connection (MariaDB's 1927, `KILL CONNECTION` of
 * a busy one); or the database user may have no more: its connections are all taken (1203, the
 * server's max_user_connections; 1226, the user's own MAX_USER_CONNECTIONS, or another of its
 * resource limits used up for the hour).
 */
const CONNECTION_ERRNOS = new Set([1053, 1927, 1203, 1226]);
/** The server ran out of memory (1037, 1038 sort memory, 1041) or of threads (1135): resource exhaustion, the spec's 503. */
const EXHAUSTED_ERRNOS = new Set([1037, 1038, 1041, 1135]);
/** The statement was stopped: `KILL QUERY` (1317). */
const INTERRUPTED_ERRNOS = new Set([1317]);
/** The statement ran into the service's statement_timeout: MariaDB's max_statement_time (1969), MySQL's max_execution_time (3024). */
const TIMED_OUT_ERRNOS = new Set([1969, 3024]);

/**
 * Whether an error is the connection lost while a statement sent on it was under way (the server
 * may finish it), not one refused or already closed before the statement.
 */
export function lostWhileRunning(error: unknown): boolean {
  if (!(error instanceof Error) || (error as { fatal?: unknown }).fatal !== true) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'PROTOCOL_CONNECTION_LOST' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * The server takes no writes: read_only or super_read_only (1290, which other options raise too:
 * told apart by its text), InnoDB in read-only mode (1874, MariaDB's 1836).
 */
function readOnly(error: MysqlError): boolean {
  if (error.errno === 1874 || error.errno === 1836) return true;
  return error.errno === 1290 && /read[-_]only/i.test(error.sqlMessage ?? error.message);
}

/** Value errors by error number: what they say about the value. */
const VALUE_ERRNOS = new Map<number, ValueProblem>([
  [1406, 'too long'],
  [1264, 'out of range'],
  [1690, 'out of range'],
  [1292, 'not a valid date or time'],
  [1367, 'not valid for the field type'],
  [1265, 'not valid for the field type'],
  [1366, 'not valid for the field type'],
  // 'Cannot get geometry object from data you send to the GEOMETRY field': a spatial column given other data.
  [1416, 'not valid for the field type'],
  [1411, 'not a valid date or time'],
  [1300, 'unstorable text'],
  [3140, 'not valid JSON'],
  [4038, 'not valid JSON'],
  [1365, 'division by zero'],
]);

/**
 * The server's limits: placeholders per statement (1390), columns (1117), packet size (1153),
 * thread stack (1436), range optimizer memory (3170), join size (1104), regexp (1139).
 */
const LIMIT_ERRNOS = new Set([1390, 1117, 1153, 1436, 3170, 1104, 1139]);

function isMysqlError(error: unknown): error is MysqlError {
  return (
    error instanceof Error &&
    (typeof (error as { code?: unknown }).code === 'string' || typeof (error as { errno?: unknown }).errno === 'number')
  );
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

/** Maps constraint, value, limit, DDL, concurrency and connection errors; null for anything else. */
export function translateMysqlError(error: unknown, table: TableModel | null): PorticoError | null {
  // mysql2's own errors of a connection lost before (or while) a statement was sent carry `fatal` and no server error number.
  if (error instanceof Error && (error as { fatal?: unknown }).fatal === true && (error as { errno?: unknown }).errno === undefined)
    return sqlMessages.databaseUnavailable.error();
  if (!isMysqlError(error)) return null;
  if (CONNECTION_CODES.has(error.code ?? '') || CONNECTION_ERRNOS.has(error.errno ?? -1) || EXHAUSTED_ERRNOS.has(error.errno ?? -1))
    return sqlMessages.databaseUnavailable.error();
  if (INTERRUPTED_ERRNOS.has(error.errno ?? -1)) return sqlMessages.databaseBusy.error();
  if (TIMED_OUT_ERRNOS.has(error.errno ?? -1)) return sqlMessages.statementTimeout.error();
  // The disk is full (1021), a table reached its size limit (1114).
  if (error.errno === 1021 || error.errno === 1114) return sqlMessages.databaseFull.error();
  if (readOnly(error)) return sqlMessages.databaseReadOnly.error();
  // Access denied (to the server, to the database); a database that is not there (dropped).
  if (error.errno === 1045 || error.errno === 1044) return sqlMessages.connectionRefused.error();
  if (error.errno === 1049) return sqlMessages.databaseMissing.error();
  const errno = error.errno ?? -1;
  const message = error.sqlMessage ?? error.message;
  const column = columnIn(message);
  const field = column === null ? null : fieldName(column, table);
  if (LIMIT_ERRNOS.has(errno)) return sqlMessages.databaseLimit.error();
  // 1292 is also MySQL's "Truncated incorrect INTEGER value" (a column changed to a type its values do not fit).
  const problem = errno === 1292 && !/date|time/i.test(message) ? 'not valid for the field type' : VALUE_ERRNOS.get(errno);
  if (problem !== undefined) return sqlMessages.valueRefused.error(problem, field);
  switch (errno) {
    case 1048:
      return sqlMessages.notNull.error(field);
    // 'Column length too big for column 's' (max = 16383); use BLOB or TEXT instead': a string's length beyond its varchar.
    case 1074:
      return schemaMessages.stringLengthTooLarge.error(field ?? column ?? '', Number(/max = (\d+)/.exec(message)?.[1] ?? 0));
    // 'Too big precision 100 specified for 'v'. Maximum is 65.', 'Too big scale specified for 'v'. Maximum is 38': a decimal PostgreSQL takes.
    case 1425:
    case 1426: {
      const name = /for '([^']+)'/.exec(message)?.[1] ?? '';
      const max = /Maximum is (\d+)/.exec(message)?.[1] ?? '';
      return new BadRequestError(
        `Invalid '${errno === 1425 ? 'scale' : 'precision'}' for field '${fieldName(name, table)}': at most ${max} on this database.`,
        { field: fieldName(name, table) },
      );
    }
    case 1364:
      return sqlMessages.required.error(field);
    case 1062:
    case 1586:
      return sqlMessages.duplicate.error(duplicateFields(message, table));
    case 1451:
    case 1452:
    case 1216:
    case 1217:
      return sqlMessages.foreignKey.error();
    case 4025:
    case 3819:
      return sqlMessages.checkFailed.error(/constraint [`']?([^`'\s]+)[`']?/i.exec(message)?.[1] ?? null);
    // A routine's own SIGNAL: its text is the routine author's message to the caller.
    case 1644:
      return new BadRequestError(message);
    case 1050: {
      const name = /Table '([^']+)' already exists/.exec(message)?.[1] ?? table?.name ?? '';
      return schemaMessages.alreadyExists.error('table', name);
    }
    // ER_NO_SUCH_TABLE: `Table 'db.item' doesn't exist`, the table dropped or renamed outside the service.
    case 1146: {
      const name = /Table '([^']+)' doesn't exist/.exec(message)?.[1] ?? table?.sourceName;
      return name === undefined ? null : missingTable(name, table);
    }
    // ER_VIEW_INVALID: `View 'db.v' references invalid table(s) or column(s) ...`: MariaDB keeps a view whose table
    // was dropped outside the service, and no longer describes it (the catalog read again leaves it out).
    case 1356:
      return table?.isView ? missingViewSource(table, null) : null;
    // ER_BAD_FIELD_ERROR: `Unknown column 'note' in 'field list'`, dropped or renamed outside the service.
    case 1054: {
      const name = /^Unknown column '([^']+)'/.exec(message)?.[1];
      return name === undefined ? null : missingColumn(name, table);
    }
    case 1060:
      return schemaMessages.fieldExists.error(/'([^']+)'/.exec(message)?.[1] ?? '', table?.name ?? '');
    case 1213:
    case 1205:
      return sqlMessages.concurrentChange.error();
    default:
      return null;
  }
}
