/**
 * `_table/{table}` and `_table/{table}/{id}`: routes record requests to reads and writes
 * (reference 2.1-2.4, spec "Table endpoints"). Every condition is a Kysely expression with bound values.
 */
import { answerOf, type Answer } from '../../../core/answer.js';
import type { ServiceCall, ServiceResult } from '../../service-kind.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { sqlMessages } from '../sql-messages.js';
import { isGrouped, listGroups } from './table-groups.js';
import { openTableOp, toError, type TableOp } from './table-op.js';
import { getRecord, listRecords } from './table-reads.js';
import { createRecords, deleteRecord, deleteRecords, updateRecord, updateRecords } from './table-writes.js';

/**
 * Serves `_table/{table}` (id undefined) and `_table/{table}/{id}`: the answer at once when the
 * operation answers at once (a SQLite read or write), else a promise of it; what the operation
 * throws or rejects with as a rejection with an error naming the table. An unknown table throws.
 */
export function handleTableRecords(
  ctx: SqlServiceContext,
  call: ServiceCall,
  table: string,
  id: string | undefined,
): Answer<ServiceResult> {
  return answerOf(operate, openTableOp(ctx, call, table, id), id, opError);
}

function opError(error: unknown, op: TableOp): unknown {
  return toError(op)(error);
}

function operate(op: TableOp, id: string | undefined): Answer<ServiceResult> {
  switch (op.call.verb) {
    case 'GET':
      if (id !== undefined) return getRecord(op, id);
      return isGrouped(op) ? listGroups(op) : listRecords(op);
    case 'POST':
      if (id !== undefined) throw sqlMessages.createById.error();
      return createRecords(op);
    case 'PUT':
    case 'PATCH':
      return id === undefined ? updateRecords(op) : updateRecord(op, id);
    case 'DELETE':
      return id === undefined ? deleteRecords(op) : deleteRecord(op, id);
  }
}
