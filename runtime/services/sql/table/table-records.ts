/**
 * `_table/{table}` and `_table/{table}/{id}`: routes record requests to reads and writes
 * (reference 2.1-2.4, spec "Table endpoints"). Every condition is a Kysely expression with bound values.
 */
import type { ServiceCall, ServiceResult } from '../../service-kind.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { sqlMessages } from '../sql-messages.js';
import { isGrouped, listGroups } from './table-groups.js';
import { openTableOp, toError } from './table-op.js';
import { getRecord, listRecords } from './table-reads.js';
import { createRecords, deleteRecord, deleteRecords, updateRecord, updateRecords } from './table-writes.js';

/** Serves `_table/{table}` (id undefined) and `_table/{table}/{id}`. */
export async function handleTableRecords(
  ctx: SqlServiceContext,
  call: ServiceCall,
  table: string,
  id: string | undefined,
): Promise<ServiceResult> {
  const op = openTableOp(ctx, call, table, id);
  try {
    switch (call.verb) {
      case 'GET':
        if (id !== undefined) return await getRecord(op, id);
        return await (isGrouped(op) ? listGroups(op) : listRecords(op));
      case 'POST':
        if (id !== undefined) throw sqlMessages.createById.error();
        return await createRecords(op);
      case 'PUT':
      case 'PATCH':
        return await (id === undefined ? updateRecords(op) : updateRecord(op, id));
      case 'DELETE':
        return await (id === undefined ? deleteRecords(op) : deleteRecord(op, id));
    }
  } catch (error) {
    throw toError(op)(error);
  }
}
