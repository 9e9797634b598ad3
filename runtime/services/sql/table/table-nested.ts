/**
 * Nested writes (reference 2.7): a record written through POST, PUT or PATCH may carry related
 * records under a relationship's name. They are written with the record, in one transaction
 * (the batch's, in rollback mode), so that a failure undoes the record and its related records
 * together.
 *
 * - belongs_to (an object), before the record: created, or updated when it carries its key and
 *   exists; the record's foreign key is then set to it.
 * - has_many (an array) and has_one (an object), after the record: a child without its key is
 *   created; with its key and more fields it is updated (created when missing); with its key only
 *   it is linked. A child whose foreign key is given as null is unlinked, or deleted when the key
 *   cannot be null and `allow_related_delete=true`.
 * - many_many (an array): each child is created or updated as above, then linked through a new
 *   junction row unless linked already; a child carrying `"{table}.{field}": null` (this table and
 *   the field the junction points at) is unlinked instead.
 */
import type { Kysely } from 'kysely';
import { BadRequestError, PorticoError } from '../../../core/errors.js';
import { pick, toBool } from '../../../core/query-params.js';
import type { RelationModel, TableModel, Verb } from '../../../model/platform-model.js';
import { atomically } from '../query/atomic.js';
import { allOf, findRecordKey, keyCondition, keyText } from '../query/conditions.js';
import { selectRows } from '../query/record-reader.js';
import {
  deleteRows,
  insertRow,
  insertValues,
  toPorticoError,
  updateRows,
  updateValues,
  type Row,
  type WriteTarget,
} from '../query/record-writer.js';
import { selectionOf, type FieldPlan, type TablePlan } from '../query/table-plan.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { relationOf } from './table-related.js';
import { coreMessages } from '../../../core/messages.js';
import { sqlMessages } from '../sql-messages.js';

export interface Nested {
  relation: RelationModel;
  value: unknown;
}

/**
 * Checks each write a nested record makes into another table, with the verb it amounts to (a
 * record created is a POST, one updated or relinked a PATCH, one removed a DELETE); throws when
 * the caller may not. Null when nothing is checked.
 */
export type NestedGuard = ((verb: Verb, table: string, relation: RelationModel) => void) | null;

/** The relationship values a record carries, or an empty list. */
export function nestedValues(table: TableModel, record: Row): Nested[] {
  const found: Nested[] = [];
  for (const key in record) {
    const relation = relationOf(table, key);
    if (relation !== undefined && record[key] !== undefined) found.push({ relation, value: record[key] });
  }
  return found;
}

/** Whether any of the records carries related records (nestedValues, without collecting them). */
export function carriesNested(table: TableModel, records: readonly Row[]): boolean {
  for (const record of records) {
    for (const key in record) if (record[key] !== undefined && relationOf(table, key) !== undefined) return true;
  }
  return false;
}

/** The parent fields nested writes of these records join on (added to what the write returns). */
export function nestedJoinFields(plan: TablePlan, records: readonly Row[]): FieldPlan[] {
  const fields: FieldPlan[] = [];
  for (const record of records) {
    for (const { relation } of nestedValues(plan.table, record)) {
      const field = plan.field(relation.field[0]);
      if (field !== undefined && !fields.includes(field)) fields.push(field);
    }
  }
  return fields;
}

const PREFIX: Record<RelationModel['type'], string> = {
  belongs_to: 'Failed to update belongs-to assignment.',
  has_many: 'Failed to update many to one assignment.',
  has_one: 'Failed to update many to one assignment.',
  many_many: 'Failed to update many to one map assignment.',
};

/**
 * Runs `write` with the `nested` records of `record` (see nestedValues) all or nothing (query/atomic.ts).
 * A record without nested records is written by `write` alone (table-writes.ts withNested).
 */
export function writeWithNested(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  table: TableModel,
  record: Row,
  nested: readonly Nested[],
  allowRelatedDelete: boolean,
  write: (conn: Kysely<any>, record: Row) => Row | Promise<Row>,
  guard: NestedGuard = null,
): Promise<Row> {
  const run = async (trx: Kysely<any>) => {
    const own = { ...record };
    for (const item of nested.filter((n) => n.relation.type === 'belongs_to')) {
      await guarded(ctx, item.relation, () => writeBelongsTo(ctx, trx, item, own, guard));
    }
    const row = await write(trx, own);
    for (const item of nested.filter((n) => n.relation.type !== 'belongs_to')) {
      await guarded(ctx, item.relation, () => writeChildren(ctx, trx, table, item, row, allowRelatedDelete, guard));
    }
    return row;
  };
  return atomically(conn, run);
}

/** `allow_related_delete` of the request. */
export function allowRelatedDelete(query: Record<string, string | string[] | undefined>): boolean {
  return toBool(pick(query, 'allow_related_delete'));
}

async function guarded(ctx: SqlServiceContext, relation: RelationModel, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    const inner = toPorticoError(error, ctx.dialect, ctx.schema.table(relation.refTable), 'update');
    throw new PorticoError(inner.status, `${PREFIX[relation.type]}\n${inner.message}`, {
      relation: relation.name,
      ...(inner.context ?? {}),
    });
  }
}

function asObject(value: unknown, relation: RelationModel): Row {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError(`Related record '${relation.name}' must be a JSON object.`, { relation: relation.name });
  }
  return value as Row;
}

function asList(value: unknown, relation: RelationModel): Row[] {
  const list = relation.type === 'has_one' && !Array.isArray(value) ? [value] : value;
  if (!Array.isArray(list))
    throw new BadRequestError(`Related records '${relation.name}' must be a JSON array.`, { relation: relation.name });
  return list.map((item) => asObject(item, relation));
}

/** Writes to related tables return their key (every field without one) and the fields needed for linking. */
function target(plan: TablePlan, ctx: SqlServiceContext, fields: readonly FieldPlan[]): WriteTarget {
  const base = plan.keys.fields;
  return { plan, dialect: ctx.dialect, output: selectionOf([...base, ...fields.filter((f) => !base.includes(f))]) };
}

function field(plan: TablePlan, name: string | null): FieldPlan {
  const found = name === null ? undefined : plan.field(name);
  if (found === undefined) throw sqlMessages.modelHasNoField.error(name, plan.table.name);
  return found;
}

/**
 * Creates the record, or updates it when it carries its key and exists (creating it with that key
 * when it does not); `extra` values (a foreign key) are written too. Returns the written row.
 */
async function saveRecord(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  plan: TablePlan,
  record: Row,
  extra: Row,
  output: readonly FieldPlan[],
  relation: RelationModel,
  guard: NestedGuard,
): Promise<Row> {
  const to = target(plan, ctx, output);
  const key = plan.primaryKey.length === 0 ? null : findRecordKey(plan.primaryKey, record);
  const merged = { ...record, ...extra };
  const insert = () => {
    guard?.('POST', plan.table.name, relation);
    return insertRow(conn, to, insertValues(plan, merged));
  };
  if (key === null) return insert();
  const where = keyCondition(plan.primaryKey, key);
  const values = updateValues(plan, merged, plan.primaryKey);
  if (guard !== null && Object.keys(values).length > 0) {
    // An update when the record exists, else a create with its key.
    const existing = await selectRows(conn, plan, { where, selection: selectionOf(plan.primaryKey), limit: 1 });
    guard(existing.length > 0 ? 'PATCH' : 'POST', plan.table.name, relation);
  }
  const rows =
    Object.keys(values).length > 0
      ? await updateRows(conn, to, where, values)
      : await selectRows(conn, plan, { where, selection: to.output, limit: 1 });
  return rows[0] ?? insert();
}

async function writeBelongsTo(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  { relation, value }: Nested,
  own: Row,
  guard: NestedGuard,
): Promise<void> {
  if (value === null) return;
  const parent = ctx.schema.plan(relation.refTable);
  const refField = field(parent, relation.refField[0]);
  const row = await saveRecord(ctx, conn, parent, asObject(value, relation), {}, [refField], relation, guard);
  own[relation.field[0]] = row[refField.name];
}

async function writeChildren(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  table: TableModel,
  { relation, value }: Nested,
  parentRow: Row,
  allowDelete: boolean,
  guard: NestedGuard,
): Promise<void> {
  const parentValue = parentRow[relation.field[0]];
  if (parentValue === undefined || parentValue === null) {
    throw new BadRequestError(`The record has no value in '${relation.field[0]}' to relate '${relation.name}' to.`);
  }
  if (relation.type === 'many_many') {
    for (const child of asList(value, relation)) await linkThroughJunction(ctx, conn, table, relation, parentValue, child, guard);
    return;
  }
  const plan = ctx.schema.plan(relation.refTable);
  const foreignKey = field(plan, relation.refField[0]);
  for (const child of asList(value, relation)) {
    const fkGiven = Object.keys(child).find((key) => plan.field(key) === foreignKey);
    if (fkGiven !== undefined && child[fkGiven] === null) {
      await unlinkChild(ctx, conn, plan, foreignKey, child, allowDelete, relation, guard);
      continue;
    }
    const rest = { ...child };
    if (fkGiven !== undefined) delete rest[fkGiven];
    await saveRecord(ctx, conn, plan, rest, { [foreignKey.name]: parentValue }, [], relation, guard);
  }
}

async function unlinkChild(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  plan: TablePlan,
  foreignKey: FieldPlan,
  child: Row,
  allowDelete: boolean,
  relation: RelationModel,
  guard: NestedGuard,
): Promise<void> {
  const key = plan.primaryKey.length === 0 ? null : findRecordKey(plan.primaryKey, child);
  if (key === null)
    throw new BadRequestError(`Required id field(s) not found in related record: ${plan.primaryKey.map((f) => f.name).join(', ')}.`);
  const to = target(plan, ctx, []);
  const where = keyCondition(plan.primaryKey, key);
  if (foreignKey.field.allowNull || allowDelete) guard?.(foreignKey.field.allowNull ? 'PATCH' : 'DELETE', plan.table.name, relation);
  const done = foreignKey.field.allowNull
    ? await updateRows(conn, to, where, updateValues(plan, { [foreignKey.name]: null }, plan.primaryKey))
    : allowDelete
      ? await deleteRows(conn, to, where)
      : null;
  if (done === null) {
    throw new BadRequestError(
      `Field '${foreignKey.name}' of '${plan.table.name}' can not be NULL: unlinking needs allow_related_delete=true, which deletes the record.`,
      { field: foreignKey.name },
    );
  }
  if (done.length === 0) throw coreMessages.recordNotFound.error(keyText(key));
}

async function linkThroughJunction(
  ctx: SqlServiceContext,
  conn: Kysely<any>,
  table: TableModel,
  relation: RelationModel,
  parentValue: unknown,
  child: Row,
  guard: NestedGuard,
): Promise<void> {
  const junction = ctx.schema.plan(relation.junctionTable ?? '');
  const near = field(junction, relation.junctionField);
  const far = field(junction, relation.junctionRefField);
  const related = ctx.schema.plan(relation.refTable);
  const refField = field(related, relation.refField[0]);
  const marker = `${table.name}.${relation.field[0]}`.toLowerCase();
  const unlinkKey = Object.keys(child).find((key) => key.toLowerCase() === marker);
  const link = (refValue: unknown) => allOf([keyCondition([near], [parentValue]), keyCondition([far], [refValue])]);
  const to = target(junction, ctx, [near, far]);

  if (unlinkKey !== undefined && child[unlinkKey] === null) {
    const refValue = child[refField.name] ?? (findRecordKey([refField], child) ?? [])[0];
    if (refValue === undefined || refValue === null)
      throw new BadRequestError(`Required field '${refField.name}' not found in related record to unlink.`);
    guard?.('DELETE', junction.table.name, relation);
    await deleteRows(conn, to, link(refField.encode(refValue)));
    return;
  }
  const rest = { ...child };
  if (unlinkKey !== undefined) delete rest[unlinkKey];
  const row = await saveRecord(ctx, conn, related, rest, {}, [refField], relation, guard);
  const refValue = row[refField.name];
  const linked = await selectRows(conn, junction, { where: link(refValue), selection: selectionOf([near]), limit: 1 });
  if (linked.length === 0) {
    guard?.('POST', junction.table.name, relation);
    await insertRow(conn, to, insertValues(junction, { [near.name]: parentValue, [far.name]: refValue }));
  }
}
