/**
 * `_table/{table}` and `_table/{table}/{id}`: routes record requests to reads and writes
 * (reference 2.1-2.4, spec "Table endpoints"). Every condition is a Kysely expression with bound values.
 */
import { BadRequestError, NotImplementedError } from '../../core/errors.js';
import type { CommonParams } from '../../core/query-params.js';
import type { ServiceCall, ServiceResult } from '../service-kind.js';
import type { SqlServiceContext } from './sql-service-context.js';
import { sqlMessages } from './sql-messages.js';
import { openTableOp, toError } from './table-op.js';
import { getRecord, listRecords } from './table-reads.js';
import { createRecords, deleteRecord, deleteRecords, updateRecord, updateRecords } from './table-writes.js';

function rejectUnsupported(params: CommonParams): void {
  for (const [name, value] of [['related', params.related], ['group', params.group], ['having', params.having]] as const) {
    if (value !== null) throw new NotImplementedError(`The '${name}' parameter is not supported by this service yet.`);
  }
}

/** Serves `_table/{table}` (id undefined) and `_table/{table}/{id}`. */
export async function handleTableRecords(ctx: SqlServiceContext, call: ServiceCall, table: string, id: string | undefined): Promise<ServiceResult> {
  const op = openTableOp(ctx, call, table);
  rejectUnsupported(op.params);
  try {
    switch (call.verb) {
      case 'GET': return await (id === undefined ? listRecords(op) : getRecord(op, id));
      case 'POST':
        if (id !== undefined) throw new BadRequestError(sqlMessages.createById());
        return await createRecords(op);
      case 'PUT':
      case 'PATCH': return await (id === undefined ? updateRecords(op) : updateRecord(op, id));
      case 'DELETE': return await (id === undefined ? deleteRecords(op) : deleteRecord(op, id));
    }
  } catch (error) {
    throw toError(op)(error);
  }
}
