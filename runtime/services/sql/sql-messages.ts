/**
 * The texts the SQL services' clients see, each with its status, worded as the reference platform
 * words them where it has a text (clients match some: test/unit/runtime/messages.test.ts). The
 * not-found and verb texts every family shares are in core/messages.ts, the `_schema` refusals
 * (table definitions, DDL, seeds, names) in schema/schema-messages.ts. Every other refusal the
 * family writes is here, the checks of one place too, so that a text is found, reworded and kept
 * apart from its neighbours in one file.
 */
import { message } from '../../core/errors.js';

export type RecordAction = 'create' | 'update' | 'delete' | 'retrieve';

const PAST: Record<RecordAction, string> = { create: 'created', update: 'updated', delete: 'deleted', retrieve: 'retrieved' };
const DRIVER: Record<RecordAction, string> = {
  create: 'Failed to create records in',
  update: 'Failed to update records in',
  delete: 'Failed to delete records from',
  retrieve: 'Failed to retrieve records from',
};

/** What was wrong with a value the database refused, in our words. */
export type ValueProblem =
  | 'too long'
  | 'out of range'
  | 'not a valid date or time'
  | 'not valid for the field type'
  | 'unstorable text'
  | 'not valid JSON'
  | 'division by zero';

const VALUE_PROBLEMS: Record<ValueProblem, string> = {
  'too long': 'the value is too long for the field',
  'out of range': 'the number is out of range for the field',
  'not a valid date or time': 'not a valid date or time',
  'not valid for the field type': "not a valid value for the field's type",
  'unstorable text': 'the text holds characters the database can not store',
  'not valid JSON': 'not valid JSON',
  'division by zero': 'it leads to a division by zero',
};

const field = (name: string | null) => ({ field: name });
const at = (position: number) => (position > 0 ? { position } : {});

export const sqlMessages = {
  // Records (`_table`).
  batch: message(
    400,
    (action: RecordAction, rolledBack: boolean) =>
      `Batch Error: Not all requested records could be ${PAST[action]}.${rolledBack ? ' All changes rolled back.' : ''}`,
  ),
  driverFailure: message(500, (action: RecordAction, table: string) => `${DRIVER[action]} '${table}'.`),
  invalidField: message(400, (name: string) => `Invalid field requested: ${name}`, field),
  notNull: message(400, (name: string | null) => `Field '${name}' can not be NULL.`, field),
  required: message(400, (name: string | null) => `Required field '${name}' can not be NULL.`, field),
  /** A value given for a column the database always fills (PostgreSQL's GENERATED ALWAYS identity). */
  generatedAlways: message(400, (name: string | null) => `Field '${name}' can not be set: the database generates its value.`, field),
  noFields: message(400, () => 'No valid fields were found in record.'),
  noDeleteCriteria: message(400, () => 'No filter or records given for delete request.'),
  createById: message(400, () => 'Create record by identifier not currently supported.'),
  idFieldsMissing: message(
    400,
    (index: number, fields: readonly string[]) => `Required id field(s) not found in record ${index}: ${fields.join(', ')}.`,
  ),
  invalidOrderField: message(400, (name: string) => `Invalid field '${name}' in order by clause.`, field),
  invalidGroupField: message(400, (name: string) => `Invalid or unknown field '${name}' in group by clause.`, field),
  readOnlyView: message(400, (table: string) => `Table '${table}' is a view; its records can not be written.`),
  unknownRelation: message(
    400,
    (name: string, table: string) => `Invalid relationship '${name}' requested for table '${table}'.`,
    (name) => ({ related: name }),
  ),
  multiColumnRelation: message(501, () => 'Relating records with multi-column foreign keys is not currently supported.'),
  modelHasNoField: message(400, (name: string | null, table: string) => `The model has no field '${name}' in table '${table}'.`),
  boundedDeleteWithoutKey: message(
    400,
    (table: string) =>
      `Table '${table}' has no primary key: a delete by filter with 'limit' or 'offset' can not tell which records to delete.`,
  ),
  compositeIds: message(
    400,
    (table: string) => `Table '${table}' has a composite identifier: address its records by record bodies, not 'ids'.`,
  ),
  identifierNotUnique: message(
    400,
    (id: string, count: number, table: string) =>
      `Identifier '${id}' matches ${count} records of table '${table}': 'id_field' must name a field whose values are unique.`,
  ),
  recordChanged: message(412, (id: string) => `Record '${id}' has changed since it was read: its ETag no longer matches If-Match.`),

  // Record values (value codecs, filter values, driver refusals).
  /** `position`: where a filter holds the value (0: not in a filter). */
  invalidValueOfType: message(
    400,
    (name: string, type: 'integer' | 'number' | 'boolean', _position?: number) => `Field '${name}' must be a valid ${type}.`,
    (name: string, _type: string, position?: number) => ({ field: name, ...at(position ?? 0) }),
  ),
  integerOutOfRange: message(400, (name: string) => `Field '${name}' is out of range: integers have at most 64 bits.`, field),
  valueTooLong: message(
    400,
    (name: string, maxLength: number) => `Field '${name}' value is too long: at most ${maxLength} characters.`,
    field,
  ),
  notBase64: message(400, (name: string) => `Field '${name}' must be base64-encoded binary data.`, field),
  /** A value the column cannot take (type, range, length, format); `name` null when the driver does not say which field. */
  valueRefused: message(
    400,
    (problem: ValueProblem, name: string | null) =>
      `${name === null ? 'Invalid value' : `Invalid value for field '${name}'`}: ${VALUE_PROBLEMS[problem]}.`,
    (_problem, name) => (name === null ? null : field(name)),
  ),

  // What the database refused (each dialect's driver-error translation).
  /** A duplicate primary or unique key. */
  duplicate: message(
    409,
    (fields: string[]) =>
      `Duplicate entry: a record with the same ${fields.length === 0 ? 'key' : fields.map((f) => `'${f}'`).join(', ')} already exists.`,
    (fields) => ({ fields }),
  ),
  /** The foreign key of a written or deleted record. */
  foreignKey: message(
    409,
    () => 'Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.',
  ),
  /** A check constraint refused a value; its name is the schema's, not the driver's. */
  checkFailed: message(
    400,
    (constraint: string | null) => (constraint ? `Check constraint '${constraint}' failed.` : 'Check constraint failed.'),
    (constraint) => (constraint ? { constraint } : null),
  ),
  /**
   * The request reached a limit of the database itself (expression depth, bound parameters,
   * columns, pattern complexity). The request limits keep clients below them; this is what is left.
   */
  databaseLimit: message(
    400,
    () => 'The request is too large for the database: use fewer filter terms, values, fields or records at once.',
  ),
  /** Ordering, grouping or comparing by a field whose type the database can not compare (PostgreSQL's json). */
  notComparable: message(400, () => 'The database can not compare, order or group the values of a field of this type.'),
  /** A deadlock, serialization failure or lock timeout. */
  concurrentChange: message(409, () => 'The records were changed concurrently; try again.'),
  /** A statement prepared before another client changed its table, inside a transaction that could not run again (PostgreSQL). */
  tableChangedElsewhere: message(
    409,
    () => 'The table was changed by another client while the request ran; nothing was stored. Try again.',
  ),
  /**
   * A view whose table was dropped or renamed outside the service (SQLite and MariaDB keep such a
   * view): 404 as for a dropped table; MariaDB's error does not say which table, SQLite's does.
   */
  viewSourceMissing: message(404, (view: string, table: string | null) =>
    table === null
      ? `View "${view}" reads a table or column that does not exist in the database.`
      : `View "${view}" reads table "${table}", which does not exist in the database.`,
  ),
  databaseUnavailable: message(503, () => 'The database is unavailable; try again later.'),
  /**
   * Every connection of the service's pool stayed busy (with other requests' statements) for its
   * connection_timeout: the database is up, and nothing of this request was sent to it.
   */
  connectionsBusy: message(
    503,
    () =>
      'Every connection of the service to the database stayed busy with other requests for its connection_timeout; nothing was sent to the database, so trying again later is safe.',
  ),
  /** The connection was lost once the database had a write (or its commit): it may have stored it (dialects/unknown-outcome.ts). */
  outcomeUnknown: message(
    503,
    () =>
      'The connection to the database was lost while it stored the change: it may or may not have been stored. Read it back before trying again.',
  ),
  /**
   * The server answers but refuses the service's credentials (or, MySQL, its access to the
   * database): a configuration error (spec: 500).
   */
  connectionRefused: message(500, () => "The database refused the service's connection: check its database name, username and password."),
  /**
   * The server answers but has no database of the service's name: dropped (or not created yet, or
   * being restored). The back-end is unavailable, the spec's 503, as a SQLite file removed from disk
   * is; the service serves it again once it is there, without a restart.
   */
  databaseMissing: message(
    503,
    () => "The service's database does not exist on its server (dropped, or not created yet); try again once it is there.",
  ),
  databaseBusy: message(503, () => 'The database is busy; try again.'),
  /** The database stopped a statement at the service's statement_timeout (waiting on a lock another session holds, or a long statement). */
  statementTimeout: message(
    503,
    () => "The database did not finish the statement within the service's statement_timeout; try again later.",
  ),
  /**
   * The database takes no writes now: a standby (a failover left the service on one), a server or
   * database set read-only for maintenance, a SQLite file on a read-only disk. The spec's 503.
   */
  databaseReadOnly: message(
    503,
    () => 'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.',
  ),
  /** The database's disk (or a table's size limit) is full: resource exhaustion, 503 as the spec says. */
  databaseFull: message(503, () => 'The database has no room left to store the change; try again later.'),

  // The filter grammar. Positions are 1-based character offsets in the filter text; 0 marks a node
  // built in code (role row filters), for which no position is reported.
  malformedFilter: message(
    400,
    (_filter: string, position: number, expected: string, found: string) =>
      `Malformed filter at position ${position}: expected ${expected} but found ${found}`,
    (filter, position, expected, found) => ({ filter, position, expected, found }),
  ),
  unknownFilterField: message(
    400,
    (name: string, _position: number) => `Invalid or unparsable field in filter request: '${name}'`,
    (name, position) => ({ field: name, ...at(position) }),
  ),
  aggregateOutsideHaving: message(
    400,
    (expression: string, _position: number) => `Aggregate function '${expression}' is only allowed in 'having'.`,
    (expression, position) => ({ field: expression, ...at(position) }),
  ),
  notGrouped: message(
    400,
    (name: string, _position: number) => `Field '${name}' in 'having' must be one of the 'group' fields or inside an aggregate function.`,
    (name, position) => ({ field: name, ...at(position) }),
  ),
  unknownFilterRelation: message(
    400,
    (relation: string, _position: number) => `Invalid or unknown relationship in filter request: '${relation}'`,
    (relation, position) => ({ relation, ...at(position) }),
  ),
  /** A related table reached by several relationships: the client must name one. */
  ambiguousFilterRelation: message(
    400,
    (table: string, relations: string[], _position: number) =>
      `Ambiguous relationship in filter request: '${table}' matches ${relations.join(', ')}; use the relationship name.`,
    (table, relations, position) => ({ relation: table, candidates: relations, ...at(position) }),
  ),
  missingFilterParam: message(
    400,
    (name: string, _position: number) => `Missing value for filter parameter ':${name}' in 'params'.`,
    (name, position) => ({ parameter: name, ...at(position) }),
  ),
  /** `why` completes the sentence. */
  unusableFilterParam: message(
    400,
    (name: string, why: string, _position: number) => `Filter parameter ':${name}' ${why}.`,
    (name, _why, position) => ({ parameter: name, ...at(position) }),
  ),
  /** Beyond one of the request limits (core/request-limits.ts). */
  filterTooLarge: message(
    400,
    (what: string, limit: number, _position: number) => `Filter too large: ${what}; at most ${limit} are allowed.`,
    (_what, limit, position) => ({ limit, ...at(position) }),
  ),
  patternTooLong: message(
    400,
    (name: string, limit: number, _position: number) =>
      `Filter pattern for field '${name}' is too long: at most ${limit} characters are allowed.`,
    (name, limit, position) => ({ field: name, limit, ...at(position) }),
  ),
  /**
   * A role's row filter the runtime cannot apply: a platform configuration problem, not the caller's.
   * `reason` completes "the filter is invalid: ..." (the generator reports it at build time).
   */
  invalidRowFilter: message(
    500,
    (_filter: { name: string; operator: string; value: string }, _reason: string) => 'Invalid server-side filter configuration detected.',
    (filter: { name: string; operator: string; value: string }, reason: string) => ({
      name: filter.name,
      operator: filter.operator,
      value: filter.value,
      reason,
    }),
  ),
  /** The model names a table or field that does not exist: the model itself is inconsistent. */
  inconsistentModel: message(500, (detail: string) => `Filter cannot be applied: ${detail}.`),

  // Stored procedures and functions.
  /** PostgreSQL found no function for the argument types: a routine called without a parameter that has no default, an aggregate of a type it does not take. */
  noFunctionMatch: message(
    400,
    () =>
      'The database has no function taking these values: give a routine every parameter that has no default, with values of its type, and aggregates fields of a type they take.',
  ),
  routineNotFound: message(404, (kind: 'Procedure' | 'Function', name: string) => `${kind} '${name}' does not exist in the database.`),
} as const;
