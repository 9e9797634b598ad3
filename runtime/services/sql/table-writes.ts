/**
 * `POST`, `PUT`, `PATCH` and `DELETE` on `_table/{table}[/{id}]`: batches with the reference's
 * modes (records/batch-runner.ts), upsert when the service allows it, identifiers or `fields` returned.
 */
import type { Kysely } from 'kysely';
import { BadRequestError, NotFoundError, messages } from '../../core/errors.js';
import { unwrapRecord, unwrapRecords, wrapList } from '../../core/envelope.js';
import type { ServiceResult } from '../service-kind.js';
import { runBatch } from './records/batch-runner.js';
import { allOf, findRecordKey, keyCondition, keyText, parseKey, recordKey, type Condition } from './records/conditions.js';
import { selectRows } from './records/record-reader.js';
import { deleteRows, insertRow, insertValues, updateRows, updateValues, type Row, type WriteTarget } from './records/record-writer.js';
import type { FieldPlan } from './records/table-plan.js';
import { batchMode, forceOption, hasRecordBody } from './request-options.js';
import { sqlMessages } from './sql-messages.js';
import { assertWritable, db, filterCondition, identifiers, idsKeys, recordsKeys, toError, writeTarget, type TableOp } from './table-op.js';

/** Updates the keyed record, or creates it when none matches (allow_upsert). */
async function upsert(conn: Kysely<any>, op: TableOp, target: WriteTarget, idFields: FieldPlan[], key: unknown[], record: Row): Promise<Row> {
  const where = keyCondition(idFields, key);
  const values = updateValues(op.plan, record, idFields);
  const rows = Object.keys(values).length > 0
    ? await updateRows(conn, target, where, values)
    : await selectRows(conn, op.plan, { where, selection: target.output, limit: 1 });
  if (rows.length > 0) return rows[0];
  const insert = insertValues(op.plan, { ...record, ...Object.fromEntries(idFields.map((f, i) => [f.name, key[i]])) });
  return insertRow(conn, target, insert);
}

/** `POST _table/{table}`: creates each record; with allow_upsert a record whose key exists updates it. */
export async function createRecords(op: TableOp): Promise<ServiceResult> {
  assertWritable(op);
  const records = unwrapRecords(op.call.body);
  const idFields = op.params.idField !== null ? identifiers(op) : [...op.plan.primaryKey];
  const target = writeTarget(op, idFields);
  const upsertable = op.ctx.options.allowUpsert && idFields.length > 0;
  const resource = await runBatch({
    db: db(op), items: records, mode: batchMode(op.params), action: 'create', toError: toError(op),
    run: (conn, record) => {
      const key = upsertable ? findRecordKey(idFields, record) : null;
      if (key !== null) return upsert(conn, op, target, idFields, key, record);
      return insertRow(conn, target, insertValues(op.plan, record));
    },
  });
  return { body: wrapList(resource) };
}

/** Updates one keyed record; 404 when none matches, unless upsert creates it. */
async function updateByKey(conn: Kysely<any>, op: TableOp, target: WriteTarget, idFields: FieldPlan[], key: unknown[], text: string, record: Row, values: Row): Promise<Row> {
  if (op.ctx.options.allowUpsert && op.rowFilter === null) return upsert(conn, op, target, idFields, key, record);
  if (Object.keys(values).length === 0) throw new BadRequestError(sqlMessages.noFields());
  const rows = await updateRows(conn, target, allOf([keyCondition(idFields, key), op.rowFilter]) as Condition, values);
  if (rows.length === 0) throw new NotFoundError(messages.recordNotFound(text));
  return rows[0];
}

/** `PUT`/`PATCH _table/{table}/{id}`: only the given fields change (PUT and PATCH alike, reference 2.1). */
export async function updateRecord(op: TableOp, id: string): Promise<ServiceResult> {
  assertWritable(op);
  const idFields = identifiers(op);
  const record = unwrapRecord(op.call.body);
  const key = parseKey(idFields, id);
  const target = writeTarget(op, idFields);
  return { body: await updateByKey(db(op), op, target, idFields, key, id, record, updateValues(op.plan, record, idFields)) };
}

/** `PUT`/`PATCH _table/{table}`: by `ids` (first record's values), by `filter`, or records carrying their keys. */
export async function updateRecords(op: TableOp): Promise<ServiceResult> {
  assertWritable(op);
  const records = unwrapRecords(op.call.body);
  const idFields = identifiers(op);
  const target = writeTarget(op, idFields);
  const mode = batchMode(op.params);
  if (op.params.ids !== null) {
    // The first record's values go to every id (reference 2.1).
    const values = updateValues(op.plan, records[0], idFields);
    const resource = await runBatch({
      db: db(op), items: idsKeys(op, idFields, op.params.ids), mode, action: 'update', toError: toError(op),
      run: (conn, item) => updateByKey(conn, op, target, idFields, item.key, item.text, records[0], values),
    });
    return { body: wrapList(resource) };
  }
  if (op.params.filter !== null) {
    const values = updateValues(op.plan, records[0], idFields);
    if (Object.keys(values).length === 0) throw new BadRequestError(sqlMessages.noFields());
    return { body: wrapList(await updateRows(db(op), target, allOf([filterCondition(op), op.rowFilter]) as Condition, values)) };
  }
  const resource = await runBatch({
    db: db(op), items: records, mode, action: 'update', toError: toError(op),
    run: (conn, record, index) => {
      const key = recordKey(idFields, record, index);
      return updateByKey(conn, op, target, idFields, key, keyText(key), record, updateValues(op.plan, record, idFields));
    },
  });
  return { body: wrapList(resource) };
}

async function deleteByKey(conn: Kysely<any>, op: TableOp, target: WriteTarget, idFields: FieldPlan[], key: unknown[], text: string): Promise<Row> {
  const rows = await deleteRows(conn, target, allOf([keyCondition(idFields, key), op.rowFilter]));
  if (rows.length === 0) throw new NotFoundError(messages.recordNotFound(text));
  return rows[0];
}

/** `DELETE _table/{table}/{id}`. */
export async function deleteRecord(op: TableOp, id: string): Promise<ServiceResult> {
  assertWritable(op);
  const idFields = identifiers(op);
  return { body: await deleteByKey(db(op), op, writeTarget(op, idFields), idFields, parseKey(idFields, id), id) };
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
    const resource = await runBatch({
      db: db(op), items: keyed, mode: batchMode(params), action: 'delete', toError: toError(op),
      run: (conn, item) => deleteByKey(conn, op, target, idFields, item.key, item.text),
    });
    return { body: wrapList(resource) };
  }
  const target = writeTarget(op, op.plan.primaryKey);
  if (params.filter !== null) return { body: wrapList(await deleteRows(db(op), target, allOf([filterCondition(op), op.rowFilter]))) };
  if (forceOption(call.query)) {
    await deleteRows(db(op), target, op.rowFilter);
    return { body: { success: true } };
  }
  throw new BadRequestError(sqlMessages.noDeleteCriteria());
}
