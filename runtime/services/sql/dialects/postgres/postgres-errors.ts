/** node-postgres errors (SQLSTATE codes) -> PorticoErrors naming API fields. */
import { BadRequestError, type PorticoError } from '../../../../core/errors.js';
import type { TableModel } from '../../../../model/platform-model.js';
import { fieldName, missingColumn, missingTable, SOCKET_ERROR_CODES } from '../driver-errors.js';
import { schemaMessages } from '../../schema/schema-messages.js';
import { sqlMessages, type ValueProblem } from '../../sql-messages.js';

interface PgError extends Error {
  code: string;
  column?: string;
  constraint?: string;
  detail?: string;
  table?: string;
}

const CONNECTION_CODES = new Set([...SOCKET_ERROR_CODES, '57P01', '57P02', '57P03', '53300']);

/**
 * node-postgres's own errors of a connection that was lost (the server ended it, the network cut
 * it) or could not be had in time (connecting, or waiting for a free one): they carry no code.
 */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|timeout expired|Query read timeout)/;

/**
 * Whether an error is the connection lost while a statement sent on it was under way (the server
 * may finish it): the socket ended or failed. Not a connection that could not be had, nor a
 * client already broken before the statement (neither sent anything).
 */
export function lostWhileRunning(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return /^Connection terminated unexpectedly/.test(error.message) || code === 'ECONNRESET' || code === 'EPIPE';
}

/** Data exceptions (class 22) by what they say about the value. */
const VALUE_CODES = new Map<string, ValueProblem>([
  ['22001', 'too long'],
  ['22003', 'out of range'],
  ['22008', 'not a valid date or time'],
  ['22007', 'not a valid date or time'],
  ['22P02', 'not valid for the field type'],
  ['22023', 'not valid for the field type'],
  ['2202E', 'not valid for the field type'],
  ['22021', 'unstorable text'],
  ['22P05', 'unstorable text'],
  ['22030', 'not valid JSON'],
  ['22012', 'division by zero'],
  ['22032', 'not valid JSON'],
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
  return match === null
    ? []
    : match[1].split(',').map((column) =>
        column
          .trim()
          .replace(/^\w+\((.*)\)$/, '$1')
          .replace(/::\w+$/, '')
          .replace(/^"|"$/g, ''),
      );
}

/** Maps constraint, value, limit, DDL, concurrency and connection errors; null for anything else. */
export function translatePostgresError(error: unknown, table: TableModel | null): PorticoError | null {
  if (error instanceof Error && LOST_CONNECTION.test(error.message)) return sqlMessages.databaseUnavailable.error();
  if (!isPgError(error)) return null;
  const { code, message } = error;
  if (isLimit(code)) return sqlMessages.databaseLimit.error();
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return sqlMessages.databaseUnavailable.error();
  // Bad password or role (class 28); a database that is not there (dropped).
  if (code.startsWith('28')) return sqlMessages.connectionRefused.error();
  if (code === '3D000') return sqlMessages.databaseMissing.error();
  const problem = VALUE_CODES.get(code);
  if (problem !== undefined)
    return sqlMessages.valueRefused.error(problem, error.column === undefined ? null : fieldName(error.column, table));
  switch (code) {
    case '23502': {
      const field = fieldName(error.column ?? '', table);
      return sqlMessages.notNull.error(field);
    }
    // A value for a GENERATED ALWAYS identity: 'cannot insert a non-DEFAULT value into column "id"'.
    case '428C9': {
      const column = /column "(.*)"/.exec(message)?.[1];
      return sqlMessages.generatedAlways.error(column === undefined ? null : fieldName(column, table));
    }
    case '23505':
      return sqlMessages.duplicate.error(keyColumns(error.detail).map((column) => fieldName(column, table)));
    case '23503':
      return sqlMessages.foreignKey.error();
    case '23514':
      return sqlMessages.checkFailed.error(error.constraint ?? null);
    case '22025':
      return new BadRequestError("Invalid 'like' pattern: it may not end with an escape character.");
    // A routine's own RAISE EXCEPTION: its text is the routine author's message to the caller.
    case 'P0001':
      return new BadRequestError(message);
    case '42P07': {
      const name = /relation "([^"]+)" already exists/.exec(message)?.[1] ?? table?.name ?? '';
      return schemaMessages.alreadyExists.error('table', name);
    }
    // undefined_table: `relation "item" does not exist`, the table dropped or renamed outside the service.
    case '42P01': {
      const name = /relation "([^"]+)" does not exist/.exec(message)?.[1] ?? table?.sourceName;
      return name === undefined ? null : missingTable(name, table);
    }
    // undefined_column: `column "note" does not exist`, `column t.note does not exist`, `column "note" of relation
    // "item" does not exist`: dropped or renamed outside the service.
    case '42703': {
      const name = /^column ("[^"]+"|\S+)/.exec(message)?.[1].replaceAll('"', '');
      return name === undefined ? null : missingColumn(name, table);
    }
    case '42701': {
      const names = /^column "([^"]+)" of relation "([^"]+)" already exists$/.exec(message);
      return names ? schemaMessages.fieldExists.error(names[1], names[2]) : new BadRequestError('A field of that name already exists.');
    }
    case '2BP01':
      return schemaMessages.dependentObjects.error();
    // No operator for the type: `json` has no equality or ordering (order, group, ids by a json field).
    case '42883':
      if (/operator/.test(message)) return sqlMessages.notComparable.error();
      // No signature matches: a routine's parameter without a default left out, `max(boolean)`.
      return /^(function|procedure) .* does not exist/.test(message) ? sqlMessages.noFunctionMatch.error() : null;
    // `cached plan must not change result type`: the statement is prepared afresh the next time (postgres-prepared.ts).
    case '0A000':
      return /cached plan/.test(message) ? sqlMessages.tableChangedElsewhere.error() : null;
    case '40001':
    case '40P01':
    case '55P03':
      return sqlMessages.concurrentChange.error();
    // The statement was cancelled: by the service's statement_timeout, or by an operator (pg_cancel_backend).
    case '57014':
      return /statement timeout/.test(message) ? sqlMessages.statementTimeout.error() : sqlMessages.databaseBusy.error();
    case '53100':
      return sqlMessages.databaseFull.error();
    // read_only_sql_transaction: a hot standby, default_transaction_read_only.
    case '25006':
      return sqlMessages.databaseReadOnly.error();
    default:
      // Insufficient resources (class 53: out of memory, of shared memory for locks, a configuration
      // limit) and system errors (class 58: the disk failing under the database): resource
      // exhaustion or a back-end down, the spec's 503.
      if (code.startsWith('53') || code.startsWith('58')) return sqlMessages.databaseUnavailable.error();
      // Any other data exception is a value the column's type refuses: invalid XML content (2200N),
      // a bit string of the wrong length (22026), a range whose bounds are reversed (22000), ...
      if (code.startsWith('22')) {
        return sqlMessages.valueRefused.error(
          'not valid for the field type',
          error.column === undefined ? null : fieldName(error.column, table),
        );
      }
      return null;
  }
}
