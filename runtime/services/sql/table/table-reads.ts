/** `GET _table/{table}[/{id}]`: single records, lists with pagination meta, and reads by ids. */
import { BadRequestError } from '../../../core/errors.js';
import { limits } from '../../../core/request-limits.js';
import { unwrapRecords, wrapList, type ListMeta } from '../../../core/envelope.js';
import type { ServiceResult } from '../../service-kind.js';
import { runBatch } from '../query/batch-runner.js';
import { allOf, keyCondition, keyMatch, keysCondition, parseKey, type Condition } from '../query/conditions.js';
import { countRows, selectByPrimaryKey, selectRows, selectShapedPage } from '../query/record-reader.js';
import { selectFields, selectionOf, type FieldPlan } from '../query/table-plan.js';
import { mayHoldLookups } from '../filter/lookup-substitution.js';
import { taggedRecord } from './record-etag.js';
import { hasRecordBody } from '../request-options.js';
import { attachRelated, missingJoinFields, withJoinFields } from './table-related.js';
import { db, filterCondition, identifiers, idsKeys, orderOf, recordsKeys, toError, type Keyed, type TableOp } from './table-op.js';
import { coreMessages } from '../../../core/messages.js';
import { describeTable } from '../schema/table-description.js';

/**
 * `GET _table/{table}/{id}`: the bare record. The plain read by primary key answers at once when
 * the dialect's runner does (SQLite): no promise, no turn of the microtask queue.
 */
export function getRecord(op: TableOp, id: string): ServiceResult | Promise<ServiceResult> {
  const idFields = identifiers(op);
  if (
    op.params.fields === null &&
    op.params.idField === null &&
    op.rowFilter === null &&
    idFields.length === 1 &&
    op.related.length === 0
  ) {
    const found = selectByPrimaryKey(db(op), op.plan, parseKey(idFields, id)[0]);
    return found instanceof Promise ? found.then((record) => recordFound(record, id)) : recordFound(found, id);
  }
  return getSelectedRecord(op, idFields, id);
}

function recordFound(record: Record<string, unknown> | undefined, id: string): ServiceResult {
  if (record === undefined) throw coreMessages.recordNotFound.error(id);
  return taggedRecord(record);
}

/** A record read with options: `fields`, `id_field`, `related`, or under the caller's row filter. */
async function getSelectedRecord(op: TableOp, idFields: FieldPlan[], id: string): Promise<ServiceResult> {
  const selection = selectFields(op.plan, op.params.fields);
  const rows = await selectRows(db(op), op.plan, {
    where: allOf([keyCondition(idFields, parseKey(idFields, id)), op.rowFilter]),
    selection: withJoinFields(selection, op.related),
    limit: 1,
  });
  if (rows.length === 0) throw coreMessages.recordNotFound.error(id);
  await attachRelated(op.ctx, rows, op.related, missingJoinFields(selection, op.related));
  // The tag stands for the whole record: a read of some fields or with related records has none.
  const whole = op.params.fields === null && op.related.length === 0;
  return whole ? taggedRecord(rows[0]) : { body: rows[0] };
}

async function getByKeys(op: TableOp, idFields: FieldPlan[], keyed: Keyed[]): Promise<ServiceResult> {
  // One `in` list holds every key: its length is bounded as `ids` is.
  if (keyed.length > limits.ids)
    throw new BadRequestError(`Request names ${keyed.length} records by identifier; at most ${limits.ids} are allowed.`, {
      limit: limits.ids,
    });
  const selection = selectFields(op.plan, op.params.fields);
  // Identifiers put the rows in the requested order and join fields find related records; those not asked for are dropped after.
  const read = withJoinFields(selectionOf([...selection.fields, ...idFields.filter((f) => !selection.fields.includes(f))]), op.related);
  const extra = read.fields.filter((f) => !selection.fields.includes(f));
  const rows = await selectRows(db(op), op.plan, {
    where: allOf([
      keysCondition(
        idFields,
        keyed.map((k) => k.key),
      ),
      op.rowFilter,
    ]),
    selection: read,
  });
  const byKey = new Map(
    rows.map((row) => [
      keyMatch(
        idFields,
        idFields.map((f) => row[f.name]),
      ),
      row,
    ]),
  );
  await attachRelated(op.ctx, rows, op.related, extra);
  for (const row of rows) for (const f of extra) delete row[f.name];
  const resource = await runBatch(
    {
      db: db(op),
      items: keyed,
      mode: op.params.continue ? 'continue' : 'default',
      action: 'retrieve',
      toError: toError(op),
    },
    async (_db, item) => {
      const row = byKey.get(keyMatch(idFields, item.key));
      if (row === undefined) throw coreMessages.recordNotFound.error(item.text);
      return row;
    },
  );
  // The list's meta as for any list (spec, envelope rule 5): every record named was found.
  if (op.params.countOnly) return { body: { meta: { count: resource.length } } };
  return { body: wrapList(resource, op.params.includeCount ? { count: resource.length } : undefined) };
}

/** What a list's statement depends on besides limit and offset: filter text, fields, order. */
function shapeOf(op: TableOp): string {
  const { params } = op;
  return `${params.filter}\u0000${params.fields?.join(',') ?? '*'}\u0000${params.order.map((t) => `${t.field} ${t.direction} ${t.nulls ?? ''}`).join(',')}`;
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
  // The filter compiles only when a query needs it: statements of a shared shape are compiled already.
  let compiledWhere: Condition | null | undefined;
  const where = () => {
    if (compiledWhere === undefined) compiledWhere = allOf([filterCondition(op), op.rowFilter]);
    return compiledWhere;
  };
  if (params.countOnly) return { body: { meta: { count: await countRows(db(op), plan, where()) } } };

  const max = op.ctx.options.maxRecords;
  const limitGiven = params.limit !== null && params.limit <= max;
  const limit = limitGiven ? (params.limit as number) : max;
  // Counting is needed for include_count, and (reference 2.4) whenever the client gave no valid limit.
  const counting = params.includeCount || !limitGiven;
  const selection = selectFields(plan, params.fields);
  const pageLimit = counting ? limit + 1 : limit;
  // A filter from the query string alone (no body parameters, no role filter) always compiles alike: share its statement.
  // Not one that may name a related field (`relation.field`) for a caller with grants: it compiles with that table's row filter.
  // Nor one holding lookups (`{name}`): their values are the caller's own.
  const shared =
    op.rowFilter === null &&
    op.call.body === undefined &&
    op.related.length === 0 &&
    params.filter !== null &&
    (op.call.auth.grants === null || !params.filter.includes('.')) &&
    !mayHoldLookups(params.filter);
  const rows = shared
    ? await selectShapedPage(db(op), plan, shapeOf(op), () => ({ where: where(), selection, order: orderOf(op) }), pageLimit, params.offset)
    : await selectRows(db(op), plan, {
        where: where(),
        selection: withJoinFields(selection, op.related),
        order: orderOf(op),
        limit: pageLimit,
        offset: params.offset,
      });
  // One row past the limit tells whether more remain; the count query runs only when that cannot give the total.
  const more = counting && rows.length > limit;
  if (more) rows.length = limit;
  await attachRelated(op.ctx, rows, op.related, missingJoinFields(selection, op.related));
  // `include_schema`: the table as GET _schema/{table} describes it (the reference's legacy admin app builds its data grid from it).
  const schema = params.includeSchema ? { schema: describeTable(op.ctx.schema.current, plan.table) } : {};
  if (!counting) return { body: wrapList(rows, params.includeSchema ? schema : undefined) };

  const count = !more && (rows.length > 0 || params.offset === 0) ? params.offset + rows.length : await countRows(db(op), plan, where());
  const meta: ListMeta = {};
  if (params.includeCount || count > max) meta.count = count;
  if (count - params.offset > limit) meta.next = params.offset + limit;
  Object.assign(meta, schema);
  return { body: wrapList(rows, Object.keys(meta).length > 0 ? meta : undefined) };
}
