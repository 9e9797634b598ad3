/** `GET _table/{table}[/{id}]`: single records, lists with pagination meta, and reads by ids. */
import { NotFoundError, messages } from '../../core/errors.js';
import { unwrapRecords, wrapList, type ListMeta } from '../../core/envelope.js';
import type { ServiceResult } from '../service-kind.js';
import { runBatch } from './records/batch-runner.js';
import { allOf, keyCondition, keysCondition, keyText, parseKey } from './records/conditions.js';
import { countRows, selectByPrimaryKey, selectRows } from './records/record-reader.js';
import { selectFields, selectionOf, type FieldPlan } from './records/table-plan.js';
import { hasRecordBody } from './request-options.js';
import { db, filterCondition, identifiers, idsKeys, orderOf, recordsKeys, toError, type Keyed, type TableOp } from './table-op.js';

/** `GET _table/{table}/{id}`: the bare record. */
export async function getRecord(op: TableOp, id: string): Promise<ServiceResult> {
  const idFields = identifiers(op);
  if (op.params.fields === null && op.params.idField === null && op.rowFilter === null && idFields.length === 1) {
    const record = await selectByPrimaryKey(db(op), op.plan, parseKey(idFields, id)[0]);
    if (record === undefined) throw new NotFoundError(messages.recordNotFound(id));
    return { body: record };
  }
  const rows = await selectRows(db(op), op.plan, {
    where: allOf([keyCondition(idFields, parseKey(idFields, id)), op.rowFilter]),
    selection: selectFields(op.plan, op.params.fields),
    limit: 1,
  });
  if (rows.length === 0) throw new NotFoundError(messages.recordNotFound(id));
  return { body: rows[0] };
}

async function getByKeys(op: TableOp, idFields: FieldPlan[], keyed: Keyed[]): Promise<ServiceResult> {
  const selection = selectFields(op.plan, op.params.fields);
  // Identifiers are needed to put the rows in the requested order; those not asked for are dropped after.
  const extra = idFields.filter((f) => !selection.fields.includes(f));
  const rows = await selectRows(db(op), op.plan, {
    where: allOf([keysCondition(idFields, keyed.map((k) => k.key)), op.rowFilter]),
    selection: extra.length === 0 ? selection : selectionOf([...selection.fields, ...extra]),
  });
  const byKey = new Map(rows.map((row) => [keyText(idFields.map((f) => row[f.name])), row]));
  for (const row of rows) for (const f of extra) delete row[f.name];
  const resource = await runBatch({
    db: db(op), items: keyed, mode: op.params.continue ? 'continue' : 'default', action: 'retrieve', toError: toError(op),
    run: async (_db, item) => {
      const row = byKey.get(keyText(item.key));
      if (row === undefined) throw new NotFoundError(messages.recordNotFound(item.text));
      return row;
    },
  });
  return { body: wrapList(resource) };
}

/** `GET _table/{table}`: by ids, by body records, or a filtered page with meta (reference 2.4). */
export async function listRecords(op: TableOp): Promise<ServiceResult> {
  const { plan, params } = op;
  if (params.ids !== null) {
    const idFields = identifiers(op);
    return getByKeys(op, idFields, idsKeys(op, idFields, params.ids));
  }
  if (hasRecordBody(op.call.body)) {
    const idFields = identifiers(op);
    return getByKeys(op, idFields, recordsKeys(idFields, unwrapRecords(op.call.body)));
  }
  const where = allOf([filterCondition(op), op.rowFilter]);
  if (params.countOnly) return { body: { meta: { count: await countRows(db(op), plan, where) } } };

  const max = op.ctx.options.maxRecords;
  const limitGiven = params.limit !== null && params.limit <= max;
  const limit = limitGiven ? (params.limit as number) : max;
  // Counting is needed for include_count, and (reference 2.4) whenever the client gave no valid limit.
  const counting = params.includeCount || !limitGiven;
  const rows = await selectRows(db(op), plan, {
    where, selection: selectFields(plan, params.fields), order: orderOf(op), limit: counting ? limit + 1 : limit, offset: params.offset,
  });
  if (!counting) return { body: wrapList(rows) };

  // One row past the limit tells whether more remain; the count query runs only when that cannot give the total.
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const count = !more && (rows.length > 0 || params.offset === 0) ? params.offset + rows.length : await countRows(db(op), plan, where);
  const meta: ListMeta = {};
  if (params.includeCount || count > max) meta.count = count;
  if (count - params.offset > limit) meta.next = params.offset + limit;
  return { body: wrapList(rows, Object.keys(meta).length > 0 ? meta : undefined) };
}
