/**
 * Compiles a filter AST to a Kysely boolean expression. Identifiers come from the model (quoted
 * by the dialect through sql.id); every value from the filter is a bound parameter. Nothing of the
 * filter text ever becomes SQL text.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DatabaseSchema, RelationModel, SqlDialect, TableModel } from '../../../model/platform-model.js';
import { limits } from '../../../core/request-limits.js';
import { resolveField, type FieldContext, type ResolvedField } from './filter-fields.js';
import type { CompareOperator, FilterNode, FilterValue, PredicateNode } from './filter-parser.js';
import { SQL_CAPABILITIES } from '../dialects/dialect-capabilities.js';
import { INTEGER_TYPES } from '../schema/native-types.js';
import { castValue, LIKE_ESCAPE, literalPattern, valueTexts, type BoundValue } from './filter-values.js';
import { FLOAT4_MAX, uuidForms } from '../query/value-codec.js';
import { sqlMessages } from '../sql-messages.js';

export interface FilterScope {
  table: TableModel;
  schema: DatabaseSchema;
  dialect: SqlDialect;
  /** Values for `:name` placeholders (from the request body's `params`). */
  params?: Record<string, unknown>;
  /** Alias the outer query gives the table; defaults to the table's source name. */
  alias?: string;
  /** For `having`: the grouped fields (API names); aggregates are allowed only then. */
  groupFields?: readonly string[];
  /**
   * The caller's view of another table a related field (`relation.field`) reaches: the row filter
   * its rows must also satisfy (null: all rows), or a thrown 403 when the caller may not read it.
   * Absent when nothing is checked (administrators, internal calls).
   */
  reach?: (table: TableModel, relation: RelationModel) => FilterNode | null;
}

const SQL_OPERATORS: Record<CompareOperator, string> = { '=': '=', '!=': '<>', '>': '>', '>=': '>=', '<': '<', '<=': '<=' };
/** Types PostgreSQL can LIKE without a cast to text. */
const TEXT_TYPES = new Set(['string', 'text']);

/** Compiles a filter AST to a Kysely boolean expression with bound parameters. */
export function compileFilter(node: FilterNode, scope: FilterScope): Expression<SqlBool> {
  const context: FieldContext = {
    table: scope.table,
    schema: scope.schema,
    qualifier: scope.alias ?? scope.table.sourceName,
    groupFields: scope.groupFields,
    dialect: scope.dialect,
  };
  return compileNode(node, context, { ...scope, bound: { count: 0 } });
}

/** The scope while compiling: also the number of values bound so far (databases cap parameters per statement). */
interface CompileScope extends FilterScope {
  bound: { count: number };
}

function bind(scope: CompileScope, count: number, position: number): void {
  scope.bound.count += count;
  if (scope.bound.count > limits.filterValues)
    throw sqlMessages.filterTooLarge.error(`more than ${limits.filterValues} values`, limits.filterValues, position);
}

function compileNode(node: FilterNode, context: FieldContext, scope: CompileScope): RawBuilder<SqlBool> {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const operands = node.operands.map((operand) => compileNode(operand, context, scope));
      return sql<SqlBool>`(${sql.join(operands, node.kind === 'and' ? sql` and ` : sql` or `)})`;
    }
    case 'not':
      return sql<SqlBool>`not (${compileNode(node.operand, context, scope)})`;
    default: {
      const target = resolveField(node.field, context);
      const predicate = compilePredicate(node, target, scope);
      const reached =
        target.reached === undefined || scope.reach === undefined ? null : scope.reach(target.reached.table, target.reached.relation);
      if (reached === null || target.reached === undefined) return target.wrap(predicate);
      // The related rows the predicate may test are those the caller could read; the row filter is
      // the platform's own configuration, compiled as such (it reaches no further tables).
      const { table, alias } = target.reached;
      const rowFilter = compileNode(
        reached,
        { table, schema: scope.schema, qualifier: alias },
        { table, schema: scope.schema, dialect: scope.dialect, alias, bound: scope.bound },
      );
      return target.wrap(sql<SqlBool>`(${predicate} and ${rowFilter})`);
    }
  }
}

function compilePredicate(node: PredicateNode, target: ResolvedField, scope: CompileScope): RawBuilder<SqlBool> {
  if (target.field.ignoreCase && node.kind !== 'is_null') {
    // Both sides in lower case (an index on lower(column) still serves `=`).
    return compileComparison(node, { ...target, column: sql`lower(${target.column})` }, scope, (value) => sql`lower(${value})`);
  }
  return compileComparison(node, target, scope, (value) => value);
}

function compileComparison(
  node: PredicateNode,
  target: ResolvedField,
  scope: CompileScope,
  side: (value: RawBuilder<unknown>) => RawBuilder<unknown>,
): RawBuilder<SqlBool> {
  // PostgreSQL's json has no comparison operators; its text does (as the others compare JSON kept as text).
  const column = scope.dialect === 'postgres' && target.field.type === 'json' ? sql`cast(${target.column} as text)` : target.column;
  bind(scope, node.kind === 'between' ? 2 : 1, node.position);
  switch (node.kind) {
    case 'is_null':
      return node.negated ? sql<SqlBool>`${column} is not null` : sql<SqlBool>`${column} is null`;
    case 'compare': {
      const value = single(node.value, target, scope);
      if (value === null) {
        // Only a null parameter gets here (the parser turns `= null` into is_null).
        if (node.operator === '=') return sql<SqlBool>`${column} is null`;
        if (node.operator === '!=') return sql<SqlBool>`${column} is not null`;
        throw paramError(node.value, `can not be null with '${node.operator}'`);
      }
      const forms = uuidForms(target.field, scope.dialect);
      if (forms !== null && (node.operator === '=' || node.operator === '!=')) {
        // A uuid stored in either case (SQLite's text): both canonical forms, so an index still serves the lookup.
        bind(scope, 1, node.position);
        const items = sql.join(forms(value).map((form) => sql.val(form)));
        return node.operator === '=' ? sql<SqlBool>`${column} in (${items})` : sql<SqlBool>`${column} not in (${items})`;
      }
      return sql<SqlBool>`${column} ${sql.raw(SQL_OPERATORS[node.operator])} ${side(param(value, target, scope))}`;
    }
    case 'in': {
      const forms = uuidForms(target.field, scope.dialect);
      const cast = node.values.flatMap((value) => list(value, target, scope));
      const values = forms === null ? cast : cast.flatMap((value) => forms(value) as BoundValue[]);
      // Only parameters holding empty arrays leave the list empty.
      if (values.length === 0) throw paramError(node.values[0], 'must not be an empty list');
      bind(scope, values.length - 1, node.position);
      const items = sql.join(values.map((value) => side(param(value, target, scope))));
      return node.negated ? sql<SqlBool>`${column} not in (${items})` : sql<SqlBool>`${column} in (${items})`;
    }
    case 'between': {
      const low = side(param(nonNull(node.low, target, scope, "in 'between'"), target, scope));
      const high = side(param(nonNull(node.high, target, scope, "in 'between'"), target, scope));
      return node.negated ? sql<SqlBool>`${column} not between ${low} and ${high}` : sql<SqlBool>`${column} between ${low} and ${high}`;
    }
    case 'like': {
      const [text] = valueTexts(node.value, scope.params, false);
      if (text === null) throw paramError(node.value, 'can not be null in a pattern');
      if (text.length > limits.patternLength)
        throw sqlMessages.patternTooLong.error(target.label, limits.patternLength, node.value.position);
      const not = node.negated ? sql`not ` : sql``;
      const subject = likeSubject(column, target, scope.dialect);
      if (node.mode === 'pattern') {
        // A backslash escapes % and _, as PostgreSQL and MySQL take it by default (SQLite has no default escape).
        const escapeClause = SQL_CAPABILITIES[scope.dialect].likeEscapesByDefault ? sql`` : sql` escape '\\'`;
        return sql<SqlBool>`${subject} ${not}like ${side(sql.val(likePattern(text, scope.dialect)))}${escapeClause}`;
      }
      return sql<SqlBool>`${subject} ${not}like ${side(sql.val(literalPattern(text, node.mode)))} escape ${sql.lit(LIKE_ESCAPE)}`;
    }
  }
}

/**
 * What a pattern is matched against: PostgreSQL has no LIKE for numbers, dates or uuids (the others
 * convert implicitly), and its booleans as text are `true`/`false` where the others store 1/0.
 */
function likeSubject(
  column: RawBuilder<unknown> | Expression<unknown>,
  target: ResolvedField,
  dialect: SqlDialect,
): RawBuilder<unknown> | Expression<unknown> {
  if (dialect !== 'postgres' || TEXT_TYPES.has(target.field.type)) return column;
  if (target.field.type === 'boolean') return sql`cast(cast(${column} as integer) as text)`;
  return sql`cast(${column} as text)`;
}

/**
 * A pattern ending in a lone backslash (the escape character) as MySQL takes it, a backslash
 * itself: PostgreSQL refuses such a pattern and SQLite matches nothing with it.
 */
function likePattern(text: string, dialect: SqlDialect): string {
  if (dialect === 'mysql') return text;
  const trailing = /\\+$/.exec(text)?.[0].length ?? 0;
  return trailing % 2 === 1 ? `${text}\\` : text;
}

/**
 * A value as a bound parameter. PostgreSQL gives a parameter compared with an integer column that
 * column's type, and refused a value beyond it (`amount > 3000000000` on an integer) where SQLite
 * and MySQL answer the comparison: integers beyond 16 bits are bound as bigint there, and numbers
 * beyond a real column's range (`ratio > 1e39`) as double precision (others keep the real's rounding).
 */
function param(value: BoundValue, target: ResolvedField, scope: FilterScope): RawBuilder<unknown> {
  if (scope.dialect !== 'postgres') return sql.val(value);
  const wide = typeof value === 'string' || (typeof value === 'number' && Math.abs(value) > 32767);
  if (wide && INTEGER_TYPES.has(target.field.type)) return sql`cast(${sql.val(value)} as bigint)`;
  const real = ['real', 'float4'].includes(target.field.dbType.toLowerCase());
  if (real && Math.abs(Number(value)) > FLOAT4_MAX) return sql`cast(${sql.val(value)} as double precision)`;
  return sql.val(value);
}

/** One value cast to the column's type; null only for a null parameter. */
function single(value: FilterValue, target: ResolvedField, scope: FilterScope): BoundValue | null {
  const text = valueTexts(value, scope.params, false)[0];
  return text === null ? null : castValue(text, target.field, target.label, scope.dialect, value.position);
}

function nonNull(value: FilterValue, target: ResolvedField, scope: FilterScope, where: string): BoundValue {
  const cast = single(value, target, scope);
  if (cast === null) throw paramError(value, `can not be null ${where}`);
  return cast;
}

/** A list item: a literal, a parameter, or a parameter holding an array of values. */
function list(value: FilterValue, target: ResolvedField, scope: FilterScope): BoundValue[] {
  return valueTexts(value, scope.params, true).map((text) => {
    if (text === null) throw paramError(value, 'can not be null in a list');
    return castValue(text, target.field, target.label, scope.dialect, value.position);
  });
}

/** Only parameters can be null or empty lists, so these errors name the parameter. */
function paramError(value: FilterValue, why: string): Error {
  return sqlMessages.unusableFilterParam.error(value.kind === 'param' ? value.name : value.text, why, value.position);
}
