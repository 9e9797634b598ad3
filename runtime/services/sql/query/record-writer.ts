/**
 * Row writes: values from records (validated, encoded, NULL and required checks), then
 * INSERT/UPDATE/DELETE returning the requested columns. Databases without RETURNING read the
 * rows back by key instead.
 */
import { sql, type CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import { PorticoError } from '../../../core/errors.js';
import type { TableModel } from '../../../model/platform-model.js';
import { databaseError } from '../dialects/driver-errors.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { sqlMessages, type RecordAction } from '../sql-messages.js';
import { keyCondition, keyParameters, keysCondition, valuesCondition, type Condition } from './conditions.js';
import { runCompiled } from './run-compiled.js';
import { plainValue, storedCaseParameters } from './stored-uuid-case.js';
import { decodeRows, MAX_MEMOS, type FieldPlan, type Selection, type StatementNode, type TablePlan } from './table-plan.js';

export type Row = Record<string, unknown>;

export interface WriteTarget {
  readonly plan: TablePlan;
  readonly dialect: SqlDialectModule;
  /** What each written record returns (its identifier by default). */
  readonly output: Selection;
}

const NOW = sql`CURRENT_TIMESTAMP`;

/** Any error as a PorticoError: ours unchanged, driver errors translated, the rest a 500 naming the table. */
export function toPorticoError(error: unknown, dialect: SqlDialectModule, table: TableModel, action: RecordAction): PorticoError {
  if (error instanceof PorticoError) return error;
  return databaseError(error, dialect, table, sqlMessages.driverFailure.error(action, table.name));
}

/** Column values of a new record: unknown keys and computed columns dropped, NULL and required fields checked. */
export function insertValues(plan: TablePlan, record: Row): Row {
  const values: Row = {};
  for (const key in record) {
    const f = plan.field(key);
    if (f === undefined || f.clock !== null || f.computed) continue;
    const value = record[key];
    if (value === null || value === undefined) {
      if (f.generated) continue;
      if (!f.field.allowNull) throw sqlMessages.notNull.error(f.name);
      values[f.field.sourceName] = null;
    } else {
      values[f.field.sourceName] = f.storedCase === null ? f.encode(value) : f.storedCase(f.encode(value) as string, false);
    }
  }
  for (const f of plan.required) {
    if (!(f.field.sourceName in values)) throw sqlMessages.required.error(f.name);
  }
  for (const f of plan.fields) if (f.clock !== null) values[f.field.sourceName] = NOW;
  return values;
}

/**
 * Column values of an update (empty when the record changes nothing): identifiers, generated keys
 * and computed columns are never changed.
 */
export function updateValues(plan: TablePlan, record: Row, identifiers: readonly FieldPlan[]): Row {
  const values: Row = {};
  let changing = false;
  for (const key in record) {
    const f = plan.field(key);
    if (f === undefined || f.generated || f.computed || f.clock !== null || identifiers.includes(f)) continue;
    const value = record[key];
    if (value === null || value === undefined) {
      if (!f.field.allowNull) throw sqlMessages.notNull.error(f.name);
      values[f.field.sourceName] = null;
    } else {
      values[f.field.sourceName] = f.storedCase === null ? f.encode(value) : f.storedCase(f.encode(value) as string, true);
    }
    changing = true;
  }
  if (!changing) return values;
  for (const f of plan.fields) if (f.clock === 'update') values[f.field.sourceName] = NOW;
  return values;
}

async function selectWhere(db: Kysely<any>, target: WriteTarget, where: Condition | null): Promise<Row[]> {
  const query = db.selectFrom(target.plan.source).select(target.output.columns);
  const rows = await (where === null ? query : query.where(where)).execute();
  return decodeRows(rows as Row[], target.output);
}

/**
 * The bound values of a statement over `values`, in the order Kysely binds them (column order);
 * database-clock values are SQL, not parameters.
 */
function boundValues(values: Row, columns: readonly string[]): unknown[] {
  const bound: unknown[] = [];
  for (const column of columns) {
    const value = values[column];
    if (value === NOW) continue;
    const parameters = storedCaseParameters(value);
    if (parameters === undefined) bound.push(value);
    else bound.push(...parameters);
  }
  return bound;
}

type WriteKind = 'insert-key' | 'insert' | 'update-key' | 'update';

/** Steps of a statement's path that are neither a column nor a field. */
const KEY_END = 0;
const CLOCK = 1;
const STORED_CASE = 2;

const NO_FIELDS: readonly FieldPlan[] = [];

/**
 * The slot of a write's statement in its plan's tree: its kind, key fields, columns in order, each
 * followed by how it is written when not as a parameter (the clock, a uuid kept as stored: part of
 * the statement's text), then the output fields. The steps missing are made while the plan keeps
 * fewer statements than its bound (shapes come from what clients send: the tree stays bounded);
 * past it, a shape not kept yet has no slot (null) and its statement is compiled for the write alone.
 */
function statementSlot(
  plan: TablePlan,
  kind: WriteKind,
  keyFields: readonly FieldPlan[],
  columns: readonly string[],
  values: Row,
  output: Selection,
): StatementNode | null {
  const create = plan.writes.size < MAX_MEMOS;
  let node = step(plan.writes.root, kind, create);
  for (let i = 0; i < keyFields.length && node !== null; i++) node = step(node, keyFields[i], create);
  if (node !== null) node = step(node, KEY_END, create);
  for (let i = 0; i < columns.length && node !== null; i++) {
    node = step(node, columns[i], create);
    const value = values[columns[i]];
    if (node === null) break;
    if (value === NOW) node = step(node, CLOCK, create);
    else if (storedCaseParameters(value) !== undefined) node = step(node, STORED_CASE, create);
  }
  for (let i = 0; i < output.fields.length && node !== null; i++) node = step(node, output.fields[i], create);
  return node;
}

function step(node: StatementNode, key: unknown, create: boolean): StatementNode | null {
  let next = node.next.get(key);
  if (next === undefined) {
    if (!create) return null;
    next = { next: new Map(), compiled: undefined };
    node.next.set(key, next);
  }
  return next;
}

/** Keeps the statement compiled for a write in its slot (none past the plan's bound); returns it. */
function keep(plan: TablePlan, slot: StatementNode | null, compiled: CompiledQuery): CompiledQuery {
  if (slot === null) return compiled;
  slot.compiled = compiled;
  plan.writes.size++;
  return compiled;
}

/** A record with no values inserts the columns' defaults: `default values`, which MySQL spells `() values ()`. */
function insertQuery(db: Kysely<any>, target: WriteTarget, values: Row) {
  const into = db.insertInto(target.plan.source);
  if (Object.keys(values).length > 0) return into.values(values);
  return target.dialect.capabilities.defaultValuesInsert ? into.defaultValues() : into.values({});
}

/** Whether every output field is a primary-key field whose integer value is known once the row is inserted. */
function insertKeyKnown(target: WriteTarget, values: Row): boolean {
  return target.output.fields.every(
    (f) =>
      target.plan.primaryKey.includes(f) &&
      (typeof values[f.field.sourceName] === 'number' || (f.field.autoIncrement && !(f.field.sourceName in values))),
  );
}

/**
 * Without RETURNING, a key column the database fills from a default expression (MariaDB/MySQL
 * `default (uuid())`) is evaluated first and written as given, so that the row can be read back
 * by its key: the insert id only tells an auto-increment key.
 */
async function keyDefaults(db: Kysely<any>, keyFields: readonly FieldPlan[], values: Row): Promise<void> {
  for (const f of keyFields) {
    const fallback = f.field.default;
    if (f.field.sourceName in values || f.field.autoIncrement || typeof fallback !== 'object' || fallback === null) continue;
    // The expression is the database's own catalog text (information_schema), not a client's.
    const { rows } = await sql<{ value: unknown }>`select ${sql.raw(fallback.expression)} as value`.execute(db);
    values[f.field.sourceName] = rows[0]?.value ?? null;
  }
}

/** The output row of an insert whose key the values or the insert id give. */
function insertedKeyRow(target: WriteTarget, values: Row, insertId: bigint | undefined): Row {
  const row: Row = {};
  for (const f of target.output.fields) row[f.key] = f.field.sourceName in values ? values[f.field.sourceName] : Number(insertId);
  return decodeRows([row], target.output)[0];
}

/** Whether the values give an auto-increment column explicitly (the dialect may then move its sequence on). */
function explicitAutoIncrement(plan: TablePlan, values: Row): boolean {
  for (const f of plan.fields) if (f.field.autoIncrement && f.field.sourceName in values) return true;
  return false;
}

/**
 * Inserts one row and returns its output columns: at once when the runner answers at once (SQLite),
 * else a promise of them.
 */
export function insertRow(db: Kysely<any>, target: WriteTarget, values: Row): Row | Promise<Row> {
  const { plan, dialect } = target;
  const columns = Object.keys(values);
  if (dialect.capabilities.keyInsertsWithoutReturning && insertKeyKnown(target, values)) {
    const slot = statementSlot(plan, 'insert-key', NO_FIELDS, columns, values, target.output);
    const compiled = slot?.compiled ?? keep(plan, slot, insertQuery(db, target, values).compile());
    // SQLite's runner answers at once: no turn of the microtask queue for it (as updateRowByKey).
    const ran = runCompiled<Row>(db, compiled, boundValues(values, columns));
    if (ran instanceof Promise) return ran.then((result) => insertedKeyRow(target, values, result.insertId));
    return insertedKeyRow(target, values, ran.insertId);
  }
  if (dialect.capabilities.supportsReturning) {
    // The statement of one set of columns is compiled once per table; only the values change.
    const slot = statementSlot(plan, 'insert', NO_FIELDS, columns, values, target.output);
    const compiled = slot?.compiled ?? keep(plan, slot, insertQuery(db, target, values).returning(target.output.columns).compile());
    const ran = runCompiled<Row>(db, compiled, boundValues(values, columns));
    if (dialect.afterExplicitKey !== undefined && explicitAutoIncrement(plan, values)) return afterExplicitKeys(db, target, values, ran);
    if (ran instanceof Promise) return ran.then((result) => decodeRows(result.rows, target.output)[0]);
    return decodeRows(ran.rows, target.output)[0];
  }
  return insertReadBack(db, target, values);
}

/** An insert that gave an auto-increment column its value: the dialect's step after it (PostgreSQL moves the sequence on). */
async function afterExplicitKeys(
  db: Kysely<any>,
  target: WriteTarget,
  values: Row,
  ran: QueryResult<Row> | Promise<QueryResult<Row>>,
): Promise<Row> {
  const { plan, dialect } = target;
  const { rows } = await ran;
  for (const f of plan.fields)
    if (f.field.autoIncrement && f.field.sourceName in values) await dialect.afterExplicitKey!(db, plan.table, f.field);
  return decodeRows(rows, target.output)[0];
}

/** An insert without RETURNING whose key is not known beforehand: the row read back. */
async function insertReadBack(db: Kysely<any>, target: WriteTarget, values: Row): Promise<Row> {
  const { plan } = target;
  const keyFields = plan.primaryKey;
  if (keyFields.length > 0) await keyDefaults(db, keyFields, values);
  const result = await insertQuery(db, target, values).executeTakeFirst();
  if (keyFields.length === 0) {
    // No key to find the row by: a row holding the values written (a duplicate holds the same ones).
    const written = plan.fields.filter((f) => f.field.sourceName in values && values[f.field.sourceName] !== NOW);
    if (written.length === 0) return {};
    const where = valuesCondition(
      written,
      written.map((f) => plainValue(values[f.field.sourceName])),
    );
    const rows = await db.selectFrom(plan.source).select(target.output.columns).where(where).limit(1).execute();
    return decodeRows(rows as Row[], target.output)[0] ?? {};
  }
  const key = keyFields.map((f) => (f.field.sourceName in values ? values[f.field.sourceName] : Number(result.insertId)));
  return (await selectWhere(db, target, keyCondition(keyFields, key)))[0] ?? {};
}

/** The bound values of an update by key: the values set, then the key's. */
function updateParameters(values: Row, columns: readonly string[], keyFields: readonly FieldPlan[], key: readonly unknown[]): unknown[] {
  const parameters = boundValues(values, columns);
  for (const value of keyParameters(keyFields, key)) parameters.push(value);
  return parameters;
}

/** Whether every output field is a field of the key whose value is a number (what an update by key then returns is the key). */
function outputIsNumericKey(output: Selection, keyFields: readonly FieldPlan[], key: readonly unknown[]): boolean {
  for (const f of output.fields) if (typeof key[keyFields.indexOf(f)] !== 'number') return false;
  return true;
}

/** The output rows of an update by key that matched `matched` rows: the key's values, one row per row matched. */
function keyRows(target: WriteTarget, keyFields: readonly FieldPlan[], key: readonly unknown[], matched: bigint | undefined): Row[] {
  if (!matched) return [];
  // One row per row matched: a key of fields that are not unique may match several.
  const rows: Row[] = [];
  for (let n = Number(matched); n > 0; n--) {
    const row: Row = {};
    for (const f of target.output.fields) row[f.name] = key[keyFields.indexOf(f)];
    rows.push(row);
  }
  return decodeRows(rows, target.output);
}

/**
 * Updates the row with this key (one field's or several); returns its output columns after the
 * update (none when no row matched): at once when the runner answers at once (SQLite), else a
 * promise of them.
 */
export function updateRowByKey(
  db: Kysely<any>,
  target: WriteTarget,
  keyFields: readonly FieldPlan[],
  key: readonly unknown[],
  values: Row,
): Row[] | Promise<Row[]> {
  const { plan, dialect } = target;
  const columns = Object.keys(values);
  // The key (never changed by an update) is the whole output when it is what the client asked for:
  // the driver's count of matched rows says whether the row exists.
  if (outputIsNumericKey(target.output, keyFields, key)) {
    const slot = statementSlot(plan, 'update-key', keyFields, columns, values, target.output);
    const compiled =
      slot?.compiled ?? keep(plan, slot, db.updateTable(plan.source).set(values).where(keyCondition(keyFields, key)).compile());
    // SQLite's runner answers at once: no turn of the microtask queue for it.
    const ran = runCompiled<Row>(db, compiled, updateParameters(values, columns, keyFields, key));
    if (ran instanceof Promise) return ran.then((result) => keyRows(target, keyFields, key, result.numAffectedRows));
    return keyRows(target, keyFields, key, ran.numAffectedRows);
  }
  if (!dialect.capabilities.supportsReturning) return updateRows(db, target, keyCondition(keyFields, key), values);
  const slot = statementSlot(plan, 'update', keyFields, columns, values, target.output);
  const compiled =
    slot?.compiled ??
    keep(
      plan,
      slot,
      db.updateTable(plan.source).set(values).where(keyCondition(keyFields, key)).returning(target.output.columns).compile(),
    );
  const ran = runCompiled<Row>(db, compiled, updateParameters(values, columns, keyFields, key));
  if (ran instanceof Promise) return ran.then((result) => decodeRows(result.rows, target.output));
  return decodeRows(ran.rows, target.output);
}

/** Two key values: numbers (and 64-bit digit strings) by value, anything else as text. */
function compareKeyValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  if (/^-?\d+$/.test(x) && /^-?\d+$/.test(y)) {
    const difference = BigInt(x) - BigInt(y);
    return difference < 0n ? -1 : difference > 0n ? 1 : 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The rows a write by filter returns, in primary-key order where the output holds the key: RETURNING
 * gives them in the order the database met them (PostgreSQL's updated rows move to the end of its
 * heap) and MySQL's read-back in whatever index it used, so the same request listed its records in
 * another order on each database.
 */
function inKeyOrder(rows: Row[], target: WriteTarget): Row[] {
  const keys = target.plan.primaryKey;
  if (rows.length < 2 || keys.length === 0 || !keys.every((k) => target.output.fields.includes(k))) return rows;
  return rows.sort((a, b) => {
    for (const k of keys) {
      const order = compareKeyValues(a[k.name], b[k.name]);
      if (order !== 0) return order;
    }
    return 0;
  });
}

/** Updates the rows matching `where`; returns their output columns after the update, in key order. */
export async function updateRows(db: Kysely<any>, target: WriteTarget, where: Condition, values: Row): Promise<Row[]> {
  return inKeyOrder(await updateMatching(db, target, where, values), target);
}

async function updateMatching(db: Kysely<any>, target: WriteTarget, where: Condition, values: Row): Promise<Row[]> {
  const { plan, dialect } = target;
  if (dialect.capabilities.supportsReturning) {
    const rows = await db.updateTable(plan.source).set(values).where(where).returning(target.output.columns).execute();
    return decodeRows(rows as Row[], target.output);
  }
  // Without RETURNING: note the matching keys first, since the update may change what `where` matches.
  const keyFields = plan.primaryKey;
  const keys =
    keyFields.length === 0
      ? []
      : (
          await db
            .selectFrom(plan.source)
            .select(keyFields.map((f) => f.column))
            .where(where)
            .execute()
        ).map((row) => keyFields.map((f) => (row as Row)[f.name]));
  if (keyFields.length > 0 && keys.length === 0) return [];
  await db.updateTable(plan.source).set(values).where(where).execute();
  return selectWhere(db, target, keyFields.length === 0 ? where : keysCondition(keyFields, keys));
}

/** Deletes the rows matching `where` (all rows when null); returns their output columns as they were, in key order. */
export async function deleteRows(db: Kysely<any>, target: WriteTarget, where: Condition | null): Promise<Row[]> {
  return inKeyOrder(await deleteMatching(db, target, where), target);
}

async function deleteMatching(db: Kysely<any>, target: WriteTarget, where: Condition | null): Promise<Row[]> {
  const { plan, dialect } = target;
  const remove = where === null ? db.deleteFrom(plan.source) : db.deleteFrom(plan.source).where(where);
  if (dialect.capabilities.supportsReturning) {
    const rows = await remove.returning(target.output.columns).execute();
    return decodeRows(rows as Row[], target.output);
  }
  const rows = await selectWhere(db, target, where);
  if (rows.length > 0) await remove.execute();
  return rows;
}
