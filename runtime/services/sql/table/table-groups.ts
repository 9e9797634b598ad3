/**
 * Grouped reads of `GET _table/{table}`: `group` (alias `group_by`) lists the grouping fields,
 * `fields` may add aggregates (`COUNT(*)`, `SUM(price)`, ... returned as `COUNT_ALL`, `SUM_price`),
 * `having` filters groups (the filter grammar with aggregates), `order` takes group fields and
 * aggregate aliases. `filter`, `limit`, `offset`, `include_count` and `count_only` work as on
 * plain lists, counting groups.
 */
import { BadRequestError } from '../../../core/errors.js';
import { wrapList, type ListMeta } from '../../../core/envelope.js';
import type { ServiceResult } from '../../service-kind.js';
import { compileFilter } from '../filter/filter-compiler.js';
import { parseFilter } from '../filter/filter-parser.js';
import { aggregatePlan, parseAggregate } from '../query/aggregates.js';
import { allOf } from '../query/conditions.js';
import { countGroups, selectRows, type OrderBy } from '../query/record-reader.js';
import { selectionOf, type FieldPlan, type TablePlan } from '../query/table-plan.js';
import { filterParams } from '../request-options.js';
import { INTEGER_TYPES } from '../schema/native-types.js';
import { sqlMessages } from '../sql-messages.js';
import { filterReach } from './table-access.js';
import { db, filterCondition, type TableOp } from './table-op.js';

const NUMERIC_TYPES: ReadonlySet<string> = new Set([...INTEGER_TYPES, 'float', 'double', 'decimal', 'money']);

/** Whether the request is a grouped read: `group`, `having`, or an aggregate in `fields`. */
export function isGrouped(op: TableOp): boolean {
  const { params } = op;
  return params.group !== null || params.having !== null || (params.fields ?? []).some((name) => parseAggregate(name) !== null);
}

function groupField(plan: TablePlan, name: string): FieldPlan {
  const field = plan.field(name);
  if (field === undefined) throw sqlMessages.invalidGroupField.error(name);
  return field;
}

/** The selected group fields and aggregates; every plain field must be grouped. */
function groupedSelection(plan: TablePlan, names: readonly string[] | null, group: readonly FieldPlan[]): FieldPlan[] {
  if (names === null) {
    if (group.length === 0) throw new BadRequestError("A grouped read needs 'group' fields or aggregates in 'fields'.");
    return [...group];
  }
  return names.map((name) => {
    const aggregate = parseAggregate(name);
    if (aggregate !== null) {
      if (aggregate.field === null) return aggregatePlan('count', null, plan.dialect);
      const field = plan.field(aggregate.field);
      if (field === undefined) throw sqlMessages.invalidField.error(name);
      // SQLite and MySQL sum text as 0, PostgreSQL has no such sum: refused alike.
      if ((aggregate.fn === 'sum' || aggregate.fn === 'avg') && !NUMERIC_TYPES.has(field.field.type)) {
        throw new BadRequestError(`Aggregate '${name}' needs a numeric field: '${field.name}' is of type ${field.field.type}.`, {
          field: field.name,
        });
      }
      return aggregatePlan(aggregate.fn, field, plan.dialect);
    }
    const field = plan.field(name);
    if (field === undefined) throw sqlMessages.invalidField.error(name);
    if (!group.includes(field)) {
      throw new BadRequestError(`Field '${field.name}' must be one of the 'group' fields or an aggregate when records are grouped.`, {
        field: field.name,
      });
    }
    return field;
  });
}

/** Order terms: group fields, or aggregates by their alias. */
function groupedOrder(op: TableOp, selected: readonly FieldPlan[], group: readonly FieldPlan[]): OrderBy[] {
  return op.params.order.map((term) => {
    const lower = term.field.toLowerCase();
    const aggregate = selected.find((f) => f.aggregate !== null && f.name.toLowerCase() === lower);
    const field = aggregate ?? group.find((f) => f === op.plan.field(term.field));
    if (field === undefined) throw sqlMessages.invalidOrderField.error(term.field);
    return { field, direction: term.direction, nulls: term.nulls };
  });
}

/** `GET _table/{table}` with grouping. */
export async function listGroups(op: TableOp): Promise<ServiceResult> {
  const { plan, params } = op;
  if (op.related.length > 0) throw new BadRequestError("'related' can not be combined with grouped reads.");
  const group = (params.group ?? []).map((name) => groupField(plan, name));
  const selected = groupedSelection(plan, params.fields, group);
  const where = allOf([filterCondition(op), op.rowFilter]);
  const having =
    params.having === null
      ? null
      : compileFilter(parseFilter(params.having), {
          table: plan.table,
          schema: op.ctx.schema.current,
          dialect: op.ctx.dialect.dialect,
          params: filterParams(op.call.body),
          groupFields: group.map((f) => f.name),
          reach: filterReach(op.ctx, op.call.auth),
        });
  if (params.countOnly) return { body: { meta: { count: await countGroups(db(op), plan, where, group, having) } } };

  const max = op.ctx.options.maxRecords;
  const limit = params.limit !== null && params.limit <= max ? params.limit : max;
  const rows = await selectRows(db(op), plan, {
    where,
    selection: selectionOf(selected),
    groupBy: group,
    having,
    order: groupedOrder(op, selected, group),
    limit,
    offset: params.offset,
  });
  if (!params.includeCount) return { body: wrapList(rows) };
  const count = await countGroups(db(op), plan, where, group, having);
  const meta: ListMeta = { count };
  if (count - params.offset > limit) meta.next = params.offset + limit;
  return { body: wrapList(rows, meta) };
}
