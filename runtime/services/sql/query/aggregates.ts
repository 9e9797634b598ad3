/**
 * Aggregate expressions of grouped reads: `COUNT(*)`, `COUNT(f)`, `SUM(f)`, `AVG(f)`, `MIN(f)`,
 * `MAX(f)` in `fields` (returned under the reference's aliases `COUNT_ALL`, `SUM_f`, ...), in
 * `having` and in `order` (by alias). Each becomes a FieldPlan whose column is the aggregate.
 */
import { sql, type RawBuilder } from 'kysely';
import type { AbstractType, FieldModel, SqlDialect } from '../../../model/platform-model.js';
import type { FieldPlan } from './table-plan.js';
import { isWideDecimal } from '../../../model/field-rules.js';
import { INTEGER_TYPES } from '../schema/native-types.js';
import { bareField, decodeWideDecimal, type Decoder } from './value-codec.js';

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';

export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set<AggregateFunction>(['count', 'sum', 'avg', 'min', 'max']);

const EXPRESSION = /^(count|sum|avg|min|max)\s*\(\s*(\*|[\p{L}_][\p{L}\p{N}_$]*)\s*\)$/iu;

/** `SUM(price)` -> {fn: 'sum', field: 'price'}; `count(*)` -> field null; null for anything else. */
export function parseAggregate(text: string): { fn: AggregateFunction; field: string | null } | null {
  const match = EXPRESSION.exec(text.trim());
  if (match === null) return null;
  const fn = match[1].toLowerCase() as AggregateFunction;
  if (match[2] === '*' && fn !== 'count') return null;
  return { fn, field: match[2] === '*' ? null : match[2] };
}

/** The reference's alias: `COUNT_ALL`, `SUM_price`. */
export function aggregateAlias(fn: AggregateFunction, field: FieldModel | null): string {
  return `${fn.toUpperCase()}_${field === null ? 'ALL' : field.name}`;
}

/** How values compared with the aggregate are cast: counts are integers, sums and averages numbers. */
function aggregateType(fn: AggregateFunction, field: FieldModel | null): AbstractType {
  if (fn === 'count') return 'integer';
  if (fn === 'sum' || fn === 'avg') return 'double';
  return field?.type ?? 'string';
}

/** A model field standing for the aggregate (for value casting and messages). */
export function aggregateField(fn: AggregateFunction, field: FieldModel | null): FieldModel {
  const name = `${fn.toUpperCase()}(${field === null ? '*' : field.name})`;
  return bareField(name, aggregateType(fn, field));
}

/**
 * `count(*)`, `sum(column)`. PostgreSQL has no min or max of booleans or uuids, which SQLite and
 * MySQL take (as 0/1 and as text): bool_and/bool_or, and the uuid's text, answer alike there.
 */
export function aggregateSql(
  fn: AggregateFunction,
  column: RawBuilder<unknown> | null,
  field: FieldModel | null = null,
  dialect: SqlDialect | null = null,
): RawBuilder<unknown> {
  if (column === null) return sql`count(*)`;
  if (dialect === 'postgres' && field !== null && (fn === 'min' || fn === 'max')) {
    if (field.dbType === 'boolean') return sql`${sql.raw(fn === 'min' ? 'bool_and' : 'bool_or')}(${column})`;
    if (field.dbType === 'uuid') return sql`cast(${sql.raw(fn)}(cast(${column} as text)) as uuid)`;
  }
  return sql`${sql.raw(fn)}(${column})`;
}

// Drivers return exact sums and averages (and 64-bit counts) as text.
const toNumber: Decoder = (value) =>
  typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;

/**
 * How a sum or an average is read. Sums of integers and of decimals, and averages of wide decimals,
 * as a wide decimal column is read (a number while a double holds the digits, else the digits as
 * text): a double lost digits of `12345678901234567890.5 + 1` and of bigint sums beyond 2^53.
 * An average of integers or of narrow decimals stays a number (`1.6666666666666667`, not 20 digits of text).
 */
function numericDecoder(fn: 'sum' | 'avg', field: FieldModel | null): Decoder {
  if (field === null) return toNumber;
  if (field.type === 'decimal') return fn === 'sum' || isWideDecimal(field) ? decodeWideDecimal : toNumber;
  return fn === 'sum' && INTEGER_TYPES.has(field.type) ? decodeWideDecimal : toNumber;
}

/** The aggregate as a selectable, orderable field plan named by its alias. */
export function aggregatePlan(fn: AggregateFunction, field: FieldPlan | null, dialect: SqlDialect): FieldPlan {
  const alias = aggregateAlias(fn, field?.field ?? null);
  const expression = aggregateSql(fn, field === null ? null : field.ref, field?.field ?? null, dialect);
  const decode =
    fn === 'min' || fn === 'max' ? (field?.decode ?? null) : fn === 'count' ? toNumber : numericDecoder(fn, field?.field ?? null);
  return {
    field: aggregateField(fn, field?.field ?? null),
    name: alias,
    ref: sql.id(alias),
    column: expression.as(alias),
    key: alias,
    encode: (value) => value,
    decode,
    forms: null,
    storedCase: null,
    required: false,
    clock: null,
    generated: true,
    computed: false,
    aggregate: fn,
  };
}
