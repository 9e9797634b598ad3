/**
 * One `_table/{table}` request: the table's plan, the parsed parameters, the caller's row filter,
 * and the helpers reads and writes share (conditions, identifiers, what writes return).
 */
import type { Kysely } from 'kysely';
import { parseCommonParams, type CommonParams } from '../../../core/query-params.js';
import type { ServiceCall } from '../../service-kind.js';
import { compileFilter } from '../filter/filter-compiler.js';
import { parseFilter, type FilterNode } from '../filter/filter-parser.js';
import { keyText, parseKey, recordKey, type Condition } from '../query/conditions.js';
import type { OrderBy } from '../query/record-reader.js';
import { toPorticoError, type Row, type WriteTarget } from '../query/record-writer.js';
import { identifierFields, selectFields, selectionOf, type FieldPlan, type Selection, type TablePlan } from '../query/table-plan.js';
import { fieldsOption, filterParams } from '../request-options.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { sqlMessages, type RecordAction } from '../sql-messages.js';
import { filterReach, scopeCondition, scopeOf, sessionLookup } from './table-access.js';
import { carriesNested, nestedJoinFields } from './table-nested.js';
import { attachRelated, relatedRequests, withJoinFields, type RelatedRequest } from './table-related.js';
import { mayHoldLookups, substituteFilterLookups } from '../filter/lookup-substitution.js';

export interface TableOp {
  ctx: SqlServiceContext;
  call: ServiceCall;
  plan: TablePlan;
  params: CommonParams;
  /** The caller's role row filter, added to every read, update and delete. */
  rowFilter: Condition | null;
  /** The same filter as an AST, which created and updated records must satisfy; null when nothing is checked. */
  writeScope: FilterNode | null;
  action: RecordAction;
  /** The relationships `related` asks for (empty when none). */
  related: RelatedRequest[];
  /** The body options (`fields`, `filter` `params`, ...) may come from: none when the body is one record. */
  optionsBody: unknown;
}

/** A key with the text the client sent for it (for messages). */
export interface Keyed {
  text: string;
  key: unknown[];
}

const ACTIONS: Record<ServiceCall['verb'], RecordAction> = {
  GET: 'retrieve',
  POST: 'create',
  PUT: 'update',
  PATCH: 'update',
  DELETE: 'delete',
};

/**
 * Resolves the table (404 when unknown) and parses what every operation needs. The bare object of
 * a single-record PUT/PATCH is the record (reference 2.1): its fields named `fields`, `order`,
 * `limit`, ... are values, so that request's options come from the query only.
 */
export function openTableOp(ctx: SqlServiceContext, call: ServiceCall, table: string, id?: string): TableOp {
  const plan = ctx.schema.plan(table);
  const optionsBody = id !== undefined && (call.verb === 'PUT' || call.verb === 'PATCH') ? undefined : call.body;
  const params = parseCommonParams(call.query, optionsBody);
  // `*,x` selects every field, and x must be one of them: nothing the client names is dropped unseen.
  if (params.fieldsBesideAll.length > 0) selectFields(plan, params.fieldsBesideAll);
  const related = relatedRequests(ctx, plan, params.related, call.query, optionsBody, call.auth);
  const scope = scopeOf(call.auth, call.auth.rowFilters);
  return {
    ctx,
    call,
    plan,
    params,
    related,
    optionsBody,
    action: ACTIONS[call.verb],
    rowFilter: scopeCondition(ctx, plan, scope),
    // Internal callers (no grants: the system service's scopes) fill scoped fields themselves.
    writeScope: call.auth.grants === null ? null : scope,
  };
}

/** The connection every query of the request goes through. */
export function db(op: TableOp): Kysely<any> {
  return op.ctx.db;
}

/** Turns anything thrown by an operation into a PorticoError naming the table. */
export function toError(op: TableOp) {
  return (error: unknown) => toPorticoError(error, op.ctx.dialect, op.plan.table, op.action);
}

/** The client's `filter` (with body `params`) as a condition, or null. */
export function filterCondition(op: TableOp): Condition | null {
  if (op.params.filter === null) return null;
  const parsed = parseFilter(op.params.filter);
  // Lookups are substituted in the parsed values: data, never syntax.
  const filter = mayHoldLookups(op.params.filter) ? substituteFilterLookups(parsed, sessionLookup(op.call.auth)) : parsed;
  return compileFilter(filter, {
    table: op.plan.table,
    schema: op.ctx.schema.current,
    dialect: op.ctx.dialect.dialect,
    params: filterParams(op.optionsBody),
    reach: filterReach(op.ctx, op.call.auth),
  });
}

/** The `order` terms with their fields checked against the table. */
export function orderOf(op: TableOp): OrderBy[] {
  return op.params.order.map((term) => {
    const field = op.plan.field(term.field);
    if (field === undefined) throw sqlMessages.invalidOrderField.error(term.field);
    return { field, direction: term.direction, nulls: term.nulls };
  });
}

/** `id_field` when given, else the primary key. */
export function identifiers(op: TableOp): FieldPlan[] {
  return identifierFields(op.plan, op.params.idField);
}

/** Keys of the `ids` parameter, each with the text the client sent. */
export function idsKeys(op: TableOp, idFields: FieldPlan[], ids: string[]): Keyed[] {
  if (idFields.length > 1) throw sqlMessages.compositeIds.error(op.plan.table.name);
  return ids.map((text) => ({ text, key: parseKey(idFields, text) }));
}

/** Keys of body records, each of which must carry every identifying field. */
export function recordsKeys(idFields: FieldPlan[], records: Row[]): Keyed[] {
  return records.map((record, index) => {
    const key = recordKey(idFields, record, index);
    return { text: keyText(key), key };
  });
}

const NONE: readonly FieldPlan[] = Object.freeze([]);

function sameFields(a: readonly FieldPlan[], b: readonly FieldPlan[]): boolean {
  if (a.length !== b.length) return false;
  // A plain loop: every write by key comes here (no closure per request).
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A write's target, with the join fields `related` needed that the output drops again. */
export interface TableWriteTarget extends WriteTarget {
  readonly dropAfter: readonly FieldPlan[];
}

/**
 * What writes return: identifiers by default, else the `fields` asked for; with `related`, also
 * the fields the relationships join on (dropped again by `finishWritten`).
 */
export function writeTarget(op: TableOp, idFields: readonly FieldPlan[] | null, records: readonly Row[] = []): TableWriteTarget {
  const fields = fieldsOption(op.call.query, op.optionsBody);
  let output: Selection;
  if (fields === '*') output = op.plan.all;
  else if (fields !== null) output = selectFields(op.plan, fields);
  else output = idFields === null || sameFields(idFields, op.plan.primaryKey) ? op.plan.keys : selectionOf(idFields);
  // Most writes: nothing joined, nothing to drop again.
  if (op.related.length === 0 && !carriesNested(op.plan.table, records))
    return { plan: op.plan, dialect: op.ctx.dialect, output, dropAfter: NONE };
  // Nested writes need the fields their relationships join on, as `related` reads do.
  const needed = withJoinFields(output, op.related).fields;
  const nested = nestedJoinFields(op.plan, records).filter((f) => !needed.includes(f));
  const full = nested.length === 0 && needed.length === output.fields.length ? output : selectionOf([...needed, ...nested]);
  return { plan: op.plan, dialect: op.ctx.dialect, output: full, dropAfter: full.fields.filter((f) => !output.fields.includes(f)) };
}

/** Adds the related records `related` asks for to written rows, as reads do (at once when there is nothing to add). */
export function finishWritten<T>(op: TableOp, target: TableWriteTarget, result: T): T | Promise<T> {
  if (target.dropAfter.length === 0 && op.related.length === 0) return result;
  return attachToWritten(op, target, result);
}

async function attachToWritten<T>(op: TableOp, target: TableWriteTarget, result: T): Promise<T> {
  const rows = (Array.isArray(result) ? result : [result]).filter((row): row is Row => row !== null && typeof row === 'object');
  await attachRelated(op.ctx, rows, op.related, target.dropAfter);
  for (const row of rows) for (const f of target.dropAfter) delete row[f.name];
  return result;
}

/** Views are read-only. */
export function assertWritable(op: TableOp): void {
  if (op.plan.table.isView) throw sqlMessages.readOnlyView.error(op.plan.table.name);
}
