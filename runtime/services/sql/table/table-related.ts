/**
 * `related=` on `_table` reads and writes (reference 2.7): each record gets one key per requested
 * relationship, named as the relationship (`contact_by_contact_id`, `contact_info_by_contact_id`,
 * `contact_group_by_contact_group_relationship`). belongs_to gives an object or null, has_one an
 * object or null, has_many and many_many arrays. Related rows are read with one `IN` query per
 * relationship (two through a junction), whatever the number of records.
 *
 * Per-relationship options come from the query as `{relationship}.{option}` or
 * `{relationship}_{option}`: `fields`, `filter`, `order` and `limit` (records per parent).
 */
import type { AuthContext } from '../../../auth/auth-context.js';
import { parseOrder, pick, toList, type RawQuery } from '../../../core/query-params.js';
import { checkListLength } from '../../../core/request-limits.js';
import type { RelationModel, TableModel } from '../../../model/platform-model.js';
import { compileFilter } from '../filter/filter-compiler.js';
import { parseFilter } from '../filter/filter-parser.js';
import { allOf, keysCondition, type Condition } from '../query/conditions.js';
import { selectRows, type OrderBy } from '../query/record-reader.js';
import { matchText } from '../query/value-codec.js';
import { selectFields, selectionOf, type FieldPlan, type Selection, type TablePlan } from '../query/table-plan.js';
import { filterParams } from '../request-options.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { sqlMessages } from '../sql-messages.js';
import { filterReach, relatedReadCondition } from './table-access.js';
import { coreMessages } from '../../../core/messages.js';

type Row = Record<string, unknown>;

/** One requested relationship with its options. */
export interface RelatedRequest {
  relation: RelationModel;
  /** The parent's field the relationship joins on. */
  parentField: FieldPlan;
  related: TablePlan;
  /** The related table's field matched against the parent's (through the junction for many_many). */
  relatedField: FieldPlan;
  selection: Selection;
  where: Condition | null;
  order: OrderBy[];
  /** Most related records per parent (has_many, many_many). */
  limit: number;
}

/** Largest `IN` list per query; longer lists are read in chunks. */
const CHUNK = 500;

function option(query: RawQuery, relation: string, name: string): string | undefined {
  const wanted = [`${relation}.${name}`, `${relation}_${name}`].map((key) => key.toLowerCase());
  const key = Object.keys(query).find((candidate) => wanted.includes(candidate.toLowerCase()));
  return key === undefined ? undefined : pick(query, key);
}

function singleField(relation: RelationModel): void {
  if (relation.field.length !== 1 || relation.refField.length !== 1) {
    throw sqlMessages.multiColumnRelation.error();
  }
}

function planField(plan: TablePlan, name: string | null): FieldPlan {
  const field = name === null ? undefined : plan.field(name);
  if (field === undefined) throw sqlMessages.modelHasNoField.error(name, plan.table.name);
  return field;
}

/**
 * The relationships `related` names (`*` for all), with their options; 400 for an unknown name.
 * Empty when the parameter is absent.
 */
export function relatedRequests(
  ctx: SqlServiceContext,
  plan: TablePlan,
  names: readonly string[] | null,
  query: RawQuery,
  body: unknown,
  auth: AuthContext,
): RelatedRequest[] {
  if (names === null) return [];
  const table = plan.table;
  const relations = names.includes('*')
    ? table.relations
    : names.map((name) => {
        const relation = table.relations.find((r) => r.name.toLowerCase() === name.toLowerCase());
        if (relation === undefined) throw sqlMessages.unknownRelation.error(name, table.name);
        return relation;
      });
  return relations.map((relation) => {
    singleField(relation);
    const related = ctx.schema.plan(relation.refTable);
    const relatedField = planField(related, relation.refField[0]);
    const filterText = option(query, relation.name, 'filter')?.trim();
    const clientWhere = filterText
      ? compileFilter(parseFilter(filterText), {
          table: related.table,
          schema: ctx.schema.current,
          dialect: ctx.dialect.dialect,
          params: filterParams(body),
          reach: filterReach(ctx, auth),
        })
      : null;
    const where = allOf([clientWhere, relatedReadCondition(ctx, auth, related, relation.name)]);
    const order = parseOrder(option(query, relation.name, 'order')).map((term) => ({
      field: orderField(related, term.field),
      direction: term.direction,
      nulls: term.nulls,
    }));
    const limitText = option(query, relation.name, 'limit')?.trim();
    const limit = limitText ? Number(limitText) : ctx.options.maxRecords;
    if (!Number.isInteger(limit)) throw coreMessages.parameterNotInteger.error(`${relation.name}.limit`);
    return {
      relation,
      parentField: planField(plan, relation.field[0]),
      related,
      relatedField,
      selection: selectFields(related, relatedFields(toList(option(query, relation.name, 'fields')), relation.name)),
      where,
      order,
      // Below 1 is no valid limit, as for the list itself (reference 2.4): the service maximum.
      limit: limit < 1 ? ctx.options.maxRecords : Math.min(limit, ctx.options.maxRecords),
    };
  });
}

function orderField(plan: TablePlan, name: string): FieldPlan {
  const field = plan.field(name);
  if (field === undefined) throw sqlMessages.invalidOrderField.error(name);
  return field;
}

/** The parent fields the requests join on that `selection` lacks (selected, then dropped after). */
export function missingJoinFields(selection: Selection, requests: readonly RelatedRequest[]): FieldPlan[] {
  const missing: FieldPlan[] = [];
  for (const { parentField } of requests) {
    if (!selection.fields.includes(parentField) && !missing.includes(parentField)) missing.push(parentField);
  }
  return missing;
}

/** `selection` plus the join fields it lacks. */
export function withJoinFields(selection: Selection, requests: readonly RelatedRequest[]): Selection {
  const missing = missingJoinFields(selection, requests);
  return missing.length === 0 ? selection : selectionOf([...selection.fields, ...missing]);
}

const keyOf = (value: unknown) => String(value);

function distinct(values: unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const value of values) if (value !== null && value !== undefined && !seen.has(keyOf(value))) seen.set(keyOf(value), value);
  return [...seen.values()];
}

/** Rows of `plan` whose `field` is one of `values`, read in chunks, in the requested order within each chunk. */
async function rowsWhereIn(
  ctx: SqlServiceContext,
  plan: TablePlan,
  field: FieldPlan,
  values: unknown[],
  selection: Selection,
  where: Condition | null,
  order: OrderBy[],
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let start = 0; start < values.length; start += CHUNK) {
    const chunk = values.slice(start, start + CHUNK);
    rows.push(
      ...(await selectRows(ctx.db, plan, {
        where: allOf([
          keysCondition(
            [field],
            chunk.map((v) => [v]),
          ),
          where,
        ]),
        selection,
        order,
      })),
    );
  }
  return rows;
}

async function attachOne(ctx: SqlServiceContext, rows: Row[], request: RelatedRequest): Promise<void> {
  const { relation, parentField, related, relatedField, where, order, limit } = request;
  const values = distinct(rows.map((row) => row[parentField.name]));
  const extra = request.selection.fields.includes(relatedField) ? null : relatedField;
  const selection = extra === null ? request.selection : selectionOf([...request.selection.fields, extra]);
  const groups = new Map<string, Row[]>();
  const add = (key: string, row: Row) => {
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [row]);
    else list.push(row);
  };

  if (relation.type === 'many_many') {
    const junction = ctx.schema.plan(relation.junctionTable ?? '');
    const near = planField(junction, relation.junctionField);
    const far = planField(junction, relation.junctionRefField);
    const links = values.length === 0 ? [] : await rowsWhereIn(ctx, junction, near, values, selectionOf([near, far]), null, []);
    const parentsOf = new Map<string, string[]>();
    for (const link of links) {
      const target = matchText(far.field, link[far.name]);
      const parent = matchText(near.field, link[near.name]);
      const list = parentsOf.get(target) ?? [];
      if (!list.includes(parent)) list.push(parent);
      parentsOf.set(target, list);
    }
    const targets = distinct(links.map((link) => link[far.name]));
    const found = targets.length === 0 ? [] : await rowsWhereIn(ctx, related, relatedField, targets, selection, where, order);
    for (const row of found)
      for (const parent of parentsOf.get(matchText(relatedField.field, row[relatedField.name])) ?? []) add(parent, row);
  } else {
    const found = values.length === 0 ? [] : await rowsWhereIn(ctx, related, relatedField, values, selection, where, order);
    for (const row of found) add(matchText(relatedField.field, row[relatedField.name]), row);
  }

  const strip = (row: Row): Row => {
    if (extra === null) return row;
    const { [extra.name]: _dropped, ...rest } = row;
    return rest;
  };
  for (const row of rows) {
    const value = row[parentField.name];
    const group = value === null || value === undefined ? [] : (groups.get(matchText(parentField.field, value)) ?? []);
    row[relation.name] =
      relation.type === 'has_many' || relation.type === 'many_many'
        ? group.slice(0, limit).map(strip)
        : group.length > 0
          ? strip(group[0])
          : null;
  }
}

/**
 * Adds the requested related records to `rows` (in place); `dropAfter` are join fields that were
 * selected only for this and are removed afterwards.
 */
export async function attachRelated(
  ctx: SqlServiceContext,
  rows: Row[],
  requests: readonly RelatedRequest[],
  dropAfter: readonly FieldPlan[] = [],
): Promise<void> {
  if (requests.length === 0 || rows.length === 0) return;
  for (const request of requests) await attachOne(ctx, rows, request);
  for (const row of rows) for (const f of dropAfter) delete row[f.name];
}

/** A table's relationships by name as written and case-folded (the first of a folded name), made once per relationship list. */
const relationNames = new WeakMap<readonly RelationModel[], { exact: Map<string, RelationModel>; folded: Map<string, RelationModel> }>();

function namedRelations(relations: readonly RelationModel[]): { exact: Map<string, RelationModel>; folded: Map<string, RelationModel> } {
  let names = relationNames.get(relations);
  if (names === undefined) {
    const folded = new Map<string, RelationModel>();
    for (const relation of relations) if (!folded.has(relation.name.toLowerCase())) folded.set(relation.name.toLowerCase(), relation);
    const exact = new Map<string, RelationModel>();
    for (const relation of relations) if (!exact.has(relation.name)) exact.set(relation.name, folded.get(relation.name.toLowerCase())!);
    names = { exact, folded };
    relationNames.set(relations, names);
  }
  return names;
}

/**
 * Whether a record key names one of the table's relationships (nested writes), in any case: the
 * first relationship whose name folds to the key's. Every key of every written record is looked
 * up (twice per write), so the names are not folded again for each.
 */
export function relationOf(table: TableModel, key: string): RelationModel | undefined {
  if (table.relations.length === 0) return undefined;
  const { exact, folded } = namedRelations(table.relations);
  return exact.get(key) ?? folded.get(key.toLowerCase());
}

/** `{relation}.fields` within the list limit, `*` meaning all (null). */
function relatedFields(fields: string[] | null, relation: string): string[] | null {
  checkListLength(`${relation}.fields`, fields);
  return fields?.filter((f) => f !== '*') ?? null;
}
