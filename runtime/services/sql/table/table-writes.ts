/**
 * `POST`, `PUT`, `PATCH` and `DELETE` on `_table/{table}[/{id}]`: batches with the reference's
 * modes (query/batch-runner.ts), upsert when the service allows it, nested related records
 * (table-nested.ts), identifiers or `fields` (and `related`) returned.
 */
import type { Kysely } from 'kysely';
import { unwrapRecord, unwrapRecords, wrapList } from '../../../core/envelope.js';
import type { ServiceResult } from '../../service-kind.js';
import { atomically } from '../query/atomic.js';
import { runBatch } from '../query/batch-runner.js';
import { allOf, findRecordKey, keyCondition, keysCondition, keyText, parseKey, recordKey, type Condition } from '../query/conditions.js';
import { selectRows } from '../query/record-reader.js';
import {
  deleteRows,
  insertRow,
  insertValues,
  updateRowByKey,
  updateRows,
  updateValues,
  type Row,
  type WriteTarget,
} from '../query/record-writer.js';
import { selectionOf, type FieldPlan } from '../query/table-plan.js';
import { etagMatches, recordEtag } from './record-etag.js';
import { batchMode, forceOption, hasRecordBody } from '../request-options.js';
import { sqlMessages } from '../sql-messages.js';
import { assertNestedWrite, assertRecordInScope } from './table-access.js';
import { allowRelatedDelete, nestedValues, writeWithNested, type NestedGuard } from './table-nested.js';
import {
  assertWritable,
  db,
  filterCondition,
  finishWritten,
  identifiers,
  idsKeys,
  orderOf,
  recordsKeys,
  toError,
  writeTarget,
  type Keyed,
  type TableOp,
  type TableWriteTarget,
} from './table-op.js';
import { coreMessages } from '../../../core/messages.js';

/** Updates the keyed record, or creates it when none matches (allow_upsert). */
async function upsert(
  conn: Kysely<any>,
  op: TableOp,
  target: WriteTarget,
  idFields: FieldPlan[],
  key: unknown[],
  record: Row,
): Promise<Row> {
  const where = keyCondition(idFields, key);
  const values = updateValues(op.plan, record, idFields);
  const rows =
    Object.keys(values).length > 0
      ? await updateRows(conn, target, where, values)
      : await selectRows(conn, op.plan, { where, selection: target.output, limit: 1 });
  if (rows.length > 0) return rows[0];
  const insert = insertValues(op.plan, { ...record, ...Object.fromEntries(idFields.map((f, i) => [f.name, key[i]])) });
  return insertRow(conn, target, insert);
}

/**
 * Writes one record with the related records it carries (table-nested.ts). A record without any
 * is `write` itself: its row at once when the write answers at once (SQLite), else a promise.
 */
function withNested(
  op: TableOp,
  conn: Kysely<any>,
  record: Row,
  write: (conn: Kysely<any>, record: Row) => Row | Promise<Row>,
): Row | Promise<Row> {
  const nested = nestedValues(op.plan.table, record);
  if (nested.length === 0) return write(conn, record);
  let guard: NestedGuard = null;
  if (op.call.auth.grants !== null) {
    // The role must allow the same verb on every table the nested records reach, and each write
    // there as what it amounts to (a nested record updated by its key is a PATCH, even in a POST).
    for (const { relation } of nested) {
      assertNestedWrite(op.ctx, op.call.auth, op.call.verb, relation.refTable, relation.name);
      if (relation.junctionTable !== null) assertNestedWrite(op.ctx, op.call.auth, op.call.verb, relation.junctionTable, relation.name);
    }
    guard = (verb, table, relation) => assertNestedWrite(op.ctx, op.call.auth, verb, table, relation.name);
  }
  return writeWithNested(op.ctx, conn, op.plan.table, record, nested, allowRelatedDelete(op.call.query), write, guard);
}

/** The answer of a write: its body once `finishWritten` added what `related` asks for. */
function writtenAnswer<T>(
  op: TableOp,
  target: TableWriteTarget,
  result: T | Promise<T>,
  list: boolean,
): ServiceResult | Promise<ServiceResult> {
  if (result instanceof Promise) return result.then((value) => writtenAnswer(op, target, value, list));
  const written = finishWritten(op, target, result);
  if (written instanceof Promise) return written.then((value) => ({ body: list ? wrapList(value as unknown[]) : value }));
  return { body: list ? wrapList(written as unknown[]) : written };
}

/** `POST _table/{table}`: creates each record; with allow_upsert a record whose key exists updates it. */
export function createRecords(op: TableOp): ServiceResult | Promise<ServiceResult> {
  assertWritable(op);
  const records = unwrapRecords(op.call.body);
  const idFields = op.params.idField !== null ? identifiers(op) : [...op.plan.primaryKey];
  const target = writeTarget(op, idFields, records);
  const upsertable = op.ctx.options.allowUpsert && idFields.length > 0;
  const resource = runBatch(
    {
      db: db(op),
      items: records,
      mode: batchMode(op.params),
      action: 'create',
      toError: toError(op),
    },
    (conn, item) =>
      withNested(op, conn, item, (c, record) => {
        assertRecordInScope(op.plan, op.writeScope, record, true);
        const key = upsertable ? findRecordKey(idFields, record) : null;
        if (key !== null) return upsert(c, op, target, idFields, key, record);
        return insertRow(c, target, insertValues(op.plan, record));
      }),
  );
  return writtenAnswer(op, target, resource, true);
}

/**
 * A write of one record by an `id_field` that is neither the primary key nor unique may match
 * several: it runs all or nothing and is refused when it does (it changed or deleted them all).
 */
function oneRecordOnly(
  op: TableOp,
  idFields: FieldPlan[],
  text: string,
  conn: Kysely<any>,
  write: (conn: Kysely<any>) => Row[] | Promise<Row[]>,
): Row[] | Promise<Row[]> {
  if (uniqueKey(op.plan.primaryKey, idFields)) return write(conn);
  return atomically(conn, async (c) => {
    const rows = await write(c);
    if (rows.length > 1) throw sqlMessages.identifierNotUnique.error(text, rows.length, op.plan.table.name);
    return rows;
  });
}

/** Whether the identifying fields are the primary key (in any order) or one unique field: a write by them reaches one record at most. */
function uniqueKey(primaryKey: readonly FieldPlan[], idFields: readonly FieldPlan[]): boolean {
  if (idFields.length === 1 && idFields[0].field.isUnique) return true;
  if (idFields.length !== primaryKey.length) return false;
  for (const f of idFields) if (!primaryKey.includes(f)) return false;
  return true;
}

/** The one record an update by key changed; 404 when it matched none. */
function firstUpdated(rows: Row[], keyed: Keyed): Row {
  if (rows.length === 0) throw coreMessages.recordNotFound.error(keyed.text);
  return rows[0];
}

/**
 * Updates one keyed record; 404 when none matches, unless upsert creates it. A record with
 * nothing to change is an error, unless it only carries related records. Its row at once when the
 * write answers at once (SQLite), else a promise of it.
 */
function updateByKey(
  conn: Kysely<any>,
  op: TableOp,
  target: WriteTarget,
  idFields: FieldPlan[],
  keyed: Keyed,
  record: Row,
): Row | Promise<Row> {
  return withNested(op, conn, record, (nested, own) => {
    const rows = oneRecordOnly(op, idFields, keyed.text, nested, (c) => updateOwn(c, op, target, idFields, keyed, own));
    return rows instanceof Promise ? rows.then((found) => firstUpdated(found, keyed)) : firstUpdated(rows, keyed);
  });
}

/** Whether a record's update values change anything. */
function changesSomething(values: Row): boolean {
  for (const _ in values) return true;
  return false;
}

/** The rows an update of one keyed record changed (several only by a field that is not unique). */
function updateOwn(
  c: Kysely<any>,
  op: TableOp,
  target: WriteTarget,
  idFields: FieldPlan[],
  keyed: Keyed,
  own: Row,
): Row[] | Promise<Row[]> {
  if (op.ctx.options.allowUpsert && op.rowFilter === null) return upsert(c, op, target, idFields, keyed.key, own).then((row) => [row]);
  assertRecordInScope(op.plan, op.writeScope, own, false);
  const values = updateValues(op.plan, own, idFields);
  const changing = changesSomething(values);
  if (changing && op.rowFilter === null) return updateRowByKey(c, target, idFields, keyed.key, values);
  const where = allOf([keyCondition(idFields, keyed.key), op.rowFilter]) as Condition;
  if (changing) return updateRows(c, target, where, values);
  if (nestedValues(op.plan.table, own).length > 0) return selectRows(c, op.plan, { where, selection: target.output, limit: 1 });
  throw sqlMessages.noFields.error();
}

/**
 * `PUT`/`PATCH _table/{table}/{id}`: only the given fields change (PUT and PATCH alike, reference 2.1).
 * The answer at once when the write answers at once (SQLite), else a promise of it.
 */
export function updateRecord(op: TableOp, id: string): ServiceResult | Promise<ServiceResult> {
  assertWritable(op);
  const idFields = identifiers(op);
  const record = unwrapRecord(op.call.body);
  const target = writeTarget(op, idFields, [record]);
  const row = ifMatching(op, idFields, id, (conn) =>
    updateByKey(conn, op, target, idFields, { text: id, key: parseKey(idFields, id) }, record),
  );
  return writtenAnswer(op, target, row, false);
}

/** `PUT`/`PATCH _table/{table}`: by `ids` (first record's values), by `filter`, or records carrying their keys. */
export async function updateRecords(op: TableOp): Promise<ServiceResult> {
  assertWritable(op);
  const records = unwrapRecords(op.call.body);
  if (op.params.ids === null && op.params.filter !== null) {
    // By filter, as a delete by filter: a table without a key can be changed so too (it returns the rows, as its create does).
    const idFields = op.params.idField !== null ? identifiers(op) : [...op.plan.primaryKey];
    const target = writeTarget(op, idFields);
    assertRecordInScope(op.plan, op.writeScope, records[0], false);
    const values = updateValues(op.plan, records[0], idFields);
    if (Object.keys(values).length === 0) throw sqlMessages.noFields.error();
    return {
      body: wrapList(
        await finishWritten(op, target, await updateRows(db(op), target, allOf([filterCondition(op), op.rowFilter]) as Condition, values)),
      ),
    };
  }
  const idFields = identifiers(op);
  const mode = batchMode(op.params);
  if (op.params.ids !== null) {
    // The first record's values go to every id (reference 2.1).
    const target = writeTarget(op, idFields, records.slice(0, 1));
    const resource = await runBatch(
      {
        db: db(op),
        items: idsKeys(op, idFields, op.params.ids),
        mode,
        action: 'update',
        toError: toError(op),
      },
      (conn, item) => updateByKey(conn, op, target, idFields, item, records[0]),
    );
    return { body: wrapList(await finishWritten(op, target, resource)) };
  }
  const target = writeTarget(op, idFields, records);
  const resource = await runBatch(
    {
      db: db(op),
      items: records,
      mode,
      action: 'update',
      toError: toError(op),
    },
    (conn, record, index) => {
      const key = recordKey(idFields, record, index);
      return updateByKey(conn, op, target, idFields, { text: keyText(key), key }, record);
    },
  );
  return { body: wrapList(await finishWritten(op, target, resource)) };
}

/**
 * A single-record write, run only when the record still has the tag `If-Match` names: the check
 * and the write share one transaction, so of two clients that read the same version one wins and
 * the other gets 412. Without the header the write runs as it is.
 */
function ifMatching(op: TableOp, idFields: FieldPlan[], id: string, write: (conn: Kysely<any>) => Row | Promise<Row>): Row | Promise<Row> {
  const header = op.call.headers['if-match'];
  const ifMatch = Array.isArray(header) ? header.join(',') : header;
  if (ifMatch === undefined || ifMatch.trim() === '') return write(db(op));
  const run = async (conn: Kysely<any>) => {
    const where = allOf([keyCondition(idFields, parseKey(idFields, id)), op.rowFilter]) as Condition;
    // Locks the row (SQLite's one connection serialises writes already), so that no other write slips in between.
    const [current] = await selectRows(conn, op.plan, {
      where,
      selection: op.plan.all,
      limit: 1,
      forUpdate: op.ctx.dialect.capabilities.rowLocks,
    });
    if (current === undefined) throw coreMessages.recordNotFound.error(id);
    if (!etagMatches(ifMatch, recordEtag(current))) throw sqlMessages.recordChanged.error(id);
    return write(conn);
  };
  return atomically(db(op), run);
}

async function deleteByKey(
  conn: Kysely<any>,
  op: TableOp,
  target: WriteTarget,
  idFields: FieldPlan[],
  key: unknown[],
  text: string,
): Promise<Row> {
  const rows = await oneRecordOnly(op, idFields, text, conn, (c) =>
    deleteRows(c, target, allOf([keyCondition(idFields, key), op.rowFilter])),
  );
  if (rows.length === 0) throw coreMessages.recordNotFound.error(text);
  return rows[0];
}

/** `DELETE _table/{table}/{id}`. */
export async function deleteRecord(op: TableOp, id: string): Promise<ServiceResult> {
  assertWritable(op);
  const idFields = identifiers(op);
  const target = writeTarget(op, idFields);
  const row = await ifMatching(op, idFields, id, (conn) => deleteByKey(conn, op, target, idFields, parseKey(idFields, id), id));
  return { body: await finishWritten(op, target, row) };
}

/** Keys per DELETE statement of a bounded delete: within every database's count of bound values. */
const DELETE_CHUNK = 1000;

/**
 * A delete by filter with `limit` or `offset` (the spec's query parameters serve list and delete
 * operations alike): the keys of the records a list would return (its order, then the key), then
 * those records, in one transaction so that what is deleted is what was chosen.
 */
async function deleteBounded(op: TableOp, target: WriteTarget, where: Condition | null): Promise<Row[]> {
  const keyFields = op.plan.primaryKey;
  if (keyFields.length === 0) throw sqlMessages.boundedDeleteWithoutKey.error(op.plan.table.name);
  return atomically(db(op), async (conn) => {
    const chosen = await selectRows(conn, op.plan, {
      where,
      selection: selectionOf(keyFields),
      order: orderOf(op),
      // An offset alone skips records and deletes the rest: every database takes OFFSET after a LIMIT.
      limit: op.params.limit ?? Number.MAX_SAFE_INTEGER,
      offset: op.params.offset,
      forUpdate: op.ctx.dialect.capabilities.rowLocks,
    });
    const deleted: Row[] = [];
    for (let i = 0; i < chosen.length; i += DELETE_CHUNK) {
      const keys = chosen.slice(i, i + DELETE_CHUNK).map((row) => keyFields.map((f) => f.encode(row[f.name])));
      deleted.push(...(await deleteRows(conn, target, allOf([keysCondition(keyFields, keys), where]))));
    }
    return deleted;
  });
}

/** `DELETE _table/{table}`: by `ids`, body records or `filter`; everything only with `force=true`. */
export async function deleteRecords(op: TableOp): Promise<ServiceResult> {
  assertWritable(op);
  const { params, call } = op;
  const byKeys = params.ids !== null || hasRecordBody(call.body);
  if (byKeys) {
    const idFields = identifiers(op);
    const target = writeTarget(op, idFields);
    const keyed = params.ids !== null ? idsKeys(op, idFields, params.ids) : recordsKeys(idFields, unwrapRecords(call.body));
    const resource = await runBatch(
      {
        db: db(op),
        items: keyed,
        mode: batchMode(params),
        action: 'delete',
        toError: toError(op),
      },
      (conn, item) => deleteByKey(conn, op, target, idFields, item.key, item.text),
    );
    return { body: wrapList(await finishWritten(op, target, resource)) };
  }
  const target = writeTarget(op, op.plan.primaryKey);
  if (params.filter !== null) {
    const where = allOf([filterCondition(op), op.rowFilter]);
    const bounded = params.limit !== null || params.offset > 0;
    const rows = bounded ? await deleteBounded(op, target, where) : await deleteRows(db(op), target, where);
    return { body: wrapList(await finishWritten(op, target, rows)) };
  }
  if (forceOption(call.query)) {
    await deleteRows(db(op), target, op.rowFilter);
    return { body: { success: true } };
  }
  throw sqlMessages.noDeleteCriteria.error();
}
