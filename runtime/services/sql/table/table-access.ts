/**
 * The caller's role on the tables of one request: the row filters of the grant that allowed the
 * request (applied to its table, and checked against the records it writes), and the grants on
 * the other tables it reaches — `related` reads (the reference reads them through its normal
 * table GET, so the same checks apply) and nested writes. A table the role does not grant the
 * verb on is refused with 403; a related read gets that table's row filters; a nested write into
 * a table whose grant has row filters is refused, since those rows are not checked against them.
 */
import type { AuthContext } from '../../../auth/auth-context.js';
import { matchGrant } from '../../../auth/access.js';
import type { Grant } from '../../../auth/principals.js';
import { ForbiddenError } from '../../../core/errors.js';
import type { RowFilterModel, Verb } from '../../../model/platform-model.js';
import { compileFilter, type FilterScope } from '../filter/filter-compiler.js';
import { rowFiltersToNode } from '../filter/row-filters.js';
import { recordSatisfies } from '../filter/row-filter-values.js';
import type { FilterNode } from '../filter/filter-parser.js';
import type { Condition } from '../query/conditions.js';
import type { TablePlan } from '../query/table-plan.js';
import type { SqlServiceContext } from '../sql-service-context.js';

/**
 * The values `{name}` stands for in a caller's filters: the session's `{user.id}`, `{user.email}`,
 * `{user.name}`, then the caller's lookups (user over role over app over system, reference 6.6).
 */
export function sessionLookup(auth: AuthContext): (name: string) => string | undefined {
  return (name) => {
    const user = auth.user;
    if (user !== null && name.startsWith('user.')) {
      const session =
        name === 'user.id' ? String(user.id) : name === 'user.email' ? user.email : name === 'user.name' ? user.name : undefined;
      if (session !== undefined) return session;
    }
    return auth.lookup?.(name);
  };
}

/** Row filters as one filter AST, the session's values substituted; null when there are none. */
export function scopeOf(auth: AuthContext, rowFilters: { filters: RowFilterModel[]; op: 'and' | 'or' } | null): FilterNode | null {
  return rowFilters === null ? null : rowFiltersToNode(rowFilters.filters, rowFilters.op, sessionLookup(auth));
}

/** A scope compiled like a client filter on `plan`'s table (values bound, never spliced). */
export function scopeCondition(ctx: SqlServiceContext, plan: TablePlan, scope: FilterNode | null): Condition | null {
  return scope === null ? null : compileFilter(scope, { table: plan.table, schema: ctx.schema.current, dialect: ctx.dialect.dialect });
}

/**
 * Checks a record a caller creates or updates against the scope of its grant (403 otherwise, as
 * the reference), so that no one writes rows outside their own scope. `scope` is null when
 * nothing is checked (no row filters; internal callers, which fill scoped fields themselves).
 */
export function assertRecordInScope(plan: TablePlan, scope: FilterNode | null, record: Record<string, unknown>, creating: boolean): void {
  if (scope === null) return;
  // The record's own key for a field: as written, else matched case-insensitively like the table's fields.
  const fieldKey = (name: string) => {
    if (name in record) return name;
    const field = plan.field(name);
    if (field === undefined) return undefined;
    return Object.keys(record).find((key) => plan.field(key) === field);
  };
  if (!recordSatisfies(scope, record, creating, fieldKey)) throw new ForbiddenError('Denied access to some of the requested fields.');
}

function refused(ctx: SqlServiceContext, verb: Verb, table: string, relation: string): ForbiddenError {
  return new ForbiddenError(
    `Access Forbidden. ${verb} access to component '_table/${table}' of service '${ctx.serviceName}' (through '${relation}') is not allowed by this user's role.`,
    { related: relation },
  );
}

/** The row filter of another table the caller reads through `relation` (null: all rows); 403 when the role may not read it. */
function relatedReadScope(
  ctx: SqlServiceContext,
  auth: AuthContext,
  grants: readonly Grant[],
  table: string,
  relation: string,
): FilterNode | null {
  const grant = matchGrant(grants, ctx.serviceName.toLowerCase(), `_table/${table}`.toLowerCase(), 'GET');
  if (grant === null) throw refused(ctx, 'GET', table, relation);
  return scopeOf(auth, { filters: grant.filters, op: grant.filterOp });
}

/** The row filter of a table read through `related`; 403 when the role may not read it. */
export function relatedReadCondition(ctx: SqlServiceContext, auth: AuthContext, plan: TablePlan, relation: string): Condition | null {
  if (auth.grants === null) return null;
  return scopeCondition(ctx, plan, relatedReadScope(ctx, auth, auth.grants, plan.table.name, relation));
}

/**
 * What a client filter's related fields (`relation.field`) may see of the tables they reach: the
 * same rows a `related` read of that table would, so that a filter cannot test hidden rows.
 * Undefined when nothing is checked (administrators, internal calls).
 */
export function filterReach(ctx: SqlServiceContext, auth: AuthContext): FilterScope['reach'] {
  const grants = auth.grants;
  if (grants === null) return undefined;
  return (table, relation) => relatedReadScope(ctx, auth, grants, table.name, relation.name);
}

/** Checks a nested write into `table` (403 without a grant of `verb`, or when the grant filters rows). */
export function assertNestedWrite(ctx: SqlServiceContext, auth: AuthContext, verb: Verb, table: string, relation: string): void {
  if (auth.grants === null) return;
  const grant = matchGrant(auth.grants, ctx.serviceName.toLowerCase(), `_table/${table}`.toLowerCase(), verb);
  if (grant === null || grant.filters.length > 0) throw refused(ctx, verb, table, relation);
}
