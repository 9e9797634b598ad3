/** Row reads: one select shape for lists, ids and single records, plus counts. */
import { sql, type Kysely } from 'kysely';
import { SQL_CAPABILITIES } from '../dialects/dialect-capabilities.js';
import { keyCondition, keyParameters, type Condition } from './conditions.js';
import { runCompiled } from './run-compiled.js';
import { decodeRows, type FieldPlan, type Selection, type TablePlan } from './table-plan.js';

export interface OrderBy {
  field: FieldPlan;
  direction: 'asc' | 'desc';
  /** Where nulls go; absent: first ascending, last descending (as SQLite and MySQL sort them). */
  nulls?: 'first' | 'last';
}

/**
 * ORDER BY one term with its nulls where the client asked, else where SQLite and MySQL put them
 * (smallest): PostgreSQL sorts them largest, so it is told; MySQL has no NULLS clause, so a
 * `col is null` term goes first when the client asks otherwise.
 */
function orderTerm<Q extends { orderBy: (...args: any[]) => Q }>(q: Q, plan: TablePlan, term: OrderBy): Q {
  const { field, aggregate } = term.field;
  // A field compared without case sorts so too (as the other databases' collations sort it).
  const ref = field.ignoreCase && aggregate === null ? sql`lower(${term.field.ref})` : term.field.ref;
  const natural = term.direction === 'asc' ? 'first' : 'last';
  const nulls = term.nulls ?? natural;
  const can = SQL_CAPABILITIES[plan.dialect];
  if ((!field.allowNull && aggregate === null) || (nulls === natural && !can.nullsSortLargest)) {
    return q.orderBy(ref, term.direction);
  }
  if (!can.nullsClause) return q.orderBy(sql`${ref} is null`, nulls === 'first' ? 'desc' : 'asc').orderBy(ref, term.direction);
  return q.orderBy(sql`${ref} ${sql.raw(term.direction)} nulls ${sql.raw(nulls)}`);
}

export interface RowQuery {
  where: Condition | null;
  selection: Selection;
  /** Grouped reads: the selection then holds group fields and aggregates only. */
  groupBy?: readonly FieldPlan[];
  having?: Condition | null;
  order?: readonly OrderBy[];
  limit?: number;
  offset?: number;
  /** `FOR UPDATE`: lock the rows until the transaction ends (not on SQLite). */
  forUpdate?: boolean;
}

/** Primary-key order: lists without `order` come back in it, so that pages are stable. */
function keyOrder(plan: TablePlan): OrderBy[] {
  return plan.primaryKey.map((field) => ({ field, direction: 'asc' }));
}

function buildSelect(db: Kysely<any>, plan: TablePlan, query: RowQuery) {
  let q = db.selectFrom(plan.source).select(query.selection.columns);
  if (query.where !== null) q = q.where(query.where);
  const group = query.groupBy;
  if (group !== undefined && group.length > 0) q = q.groupBy(group.map((f) => f.ref));
  if (query.having) q = q.having(query.having);
  // After the order asked for, what identifies a row (its primary key) or a group (its group fields;
  // aggregates alone have none) breaks ties: without it, PostgreSQL and MariaDB returned rows of equal
  // values in any order, so pages of `order=<field that is not unique>` (or of hashed groups) overlapped.
  const asked = query.order ?? [];
  const identity = group ?? plan.primaryKey;
  const order = [
    ...asked,
    ...identity.filter((field) => !asked.some((term) => term.field === field)).map((field): OrderBy => ({ field, direction: 'asc' })),
  ];
  for (const term of order) q = orderTerm(q, plan, term);
  if (query.forUpdate) q = q.forUpdate();
  return q;
}

/** Selects decoded records keyed by API names. */
export async function selectRows(db: Kysely<any>, plan: TablePlan, query: RowQuery): Promise<Record<string, unknown>[]> {
  const plain =
    query.where === null &&
    query.selection === plan.all &&
    (query.order ?? []).length === 0 &&
    query.limit !== undefined &&
    query.groupBy === undefined;
  if (plain) return selectPage(db, plan, query.limit as number, query.offset ?? 0);
  let q = buildSelect(db, plan, query);
  if (query.limit !== undefined) q = q.limit(query.limit);
  if (query.offset) q = q.offset(query.offset);
  return decodeRows((await q.execute()) as Record<string, unknown>[], query.selection);
}

/**
 * A page of a query that requests of one `shape` (a text naming everything but limit and offset:
 * filter text, fields, order) share: described and compiled once per table plan and shape, then
 * run with the page's limit and offset (the last two bound values).
 */
export async function selectShapedPage(
  db: Kysely<any>,
  plan: TablePlan,
  shape: string,
  describe: () => Omit<RowQuery, 'limit' | 'offset'>,
  limit: number,
  offset: number,
): Promise<Record<string, unknown>[]> {
  const { compiled, selection } = plan.memo(`shape:${shape}`, () => {
    const query = describe();
    return { compiled: buildSelect(db, plan, query).limit(0).offset(0).compile(), selection: query.selection };
  });
  const result = await runCompiled<Record<string, unknown>>(db, compiled, [...compiled.parameters.slice(0, -2), limit, offset]);
  return decodeRows(result.rows, selection);
}

type Row = Record<string, unknown>;

/**
 * Every field of the record with this single-field primary key: the hottest read, so its query is
 * compiled once per table and only the bound key changes.
 */
export function selectByPrimaryKey(db: Kysely<any>, plan: TablePlan, key: unknown): Row | undefined | Promise<Row | undefined> {
  const compiled = plan.memo('byPrimaryKey', () =>
    db
      .selectFrom(plan.source)
      .select(plan.all.columns)
      .where(keyCondition(plan.primaryKey, [0]))
      .compile(),
  );
  // SQLite's runner answers at once: the record comes back as it is, no promise and no turn of the microtask queue.
  const ran = runCompiled<Row>(db, compiled, keyParameters(plan.primaryKey, [key]));
  return ran instanceof Promise ? ran.then((result) => firstRecord(result.rows, plan)) : firstRecord(ran.rows, plan);
}

function firstRecord(rows: Row[], plan: TablePlan): Row | undefined {
  return decodeRows(rows, plan.all)[0];
}

/** A page of every field in primary-key order, compiled once per table like selectByPrimaryKey. */
export async function selectPage(db: Kysely<any>, plan: TablePlan, limit: number, offset: number): Promise<Row[]> {
  const compiled = plan.memo('page', () => {
    let q = db.selectFrom(plan.source).select(plan.all.columns);
    for (const term of keyOrder(plan)) q = q.orderBy(term.field.ref, term.direction);
    return q.limit(0).offset(0).compile();
  });
  const result = await runCompiled<Row>(db, compiled, [limit, offset]);
  return decodeRows(result.rows, plan.all);
}

/** Number of groups a grouped read finds. */
export async function countGroups(
  db: Kysely<any>,
  plan: TablePlan,
  where: Condition | null,
  groupBy: readonly FieldPlan[],
  having: Condition | null,
): Promise<number> {
  // Without group fields the aggregates make one group of every row (none when `having` refuses it).
  let inner = db.selectFrom(plan.source).select((groupBy.length > 0 ? sql`1` : sql`count(*)`).as('one'));
  if (where !== null) inner = inner.where(where);
  if (groupBy.length > 0) inner = inner.groupBy(groupBy.map((f) => f.ref));
  if (having !== null) inner = inner.having(having);
  const row = await db
    .selectFrom(inner.as('grouped'))
    .select(sql<number | bigint | string>`count(*)`.as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Number of rows matching `where`. */
export async function countRows(db: Kysely<any>, plan: TablePlan, where: Condition | null): Promise<number> {
  let q = db.selectFrom(plan.source).select(sql<number | bigint | string>`count(*)`.as('count'));
  if (where !== null) q = q.where(where);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.count);
}
