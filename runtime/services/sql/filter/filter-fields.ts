/**
 * Resolves the field of a filter predicate against the model: a column of the table itself, or a
 * column of a related table reached through one relationship (dot notation), which the predicate
 * must then be wrapped in as an EXISTS subquery. Identifiers only ever come from the model.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DatabaseSchema, FieldModel, RelationModel, SqlDialect, TableModel } from '../../../model/platform-model.js';
import { aggregateField, aggregateSql, type AggregateFunction } from '../query/aggregates.js';
import type { FieldRef } from './filter-parser.js';
import { sqlMessages } from '../sql-messages.js';

/** A filter field resolved to a column. */
export interface ResolvedField {
  field: FieldModel;
  /** How errors name the field: `name`, or `relation.name` for a related field. */
  label: string;
  /** The column, qualified by the alias or table it is selected from. */
  column: RawBuilder<unknown>;
  /** Puts a predicate on `column` in its place: itself for the table's own fields, an EXISTS for related ones. */
  wrap: (predicate: RawBuilder<SqlBool>) => RawBuilder<SqlBool>;
  /** For a related field: the table the EXISTS reads, through which relationship, and the alias it gets there. */
  reached?: { table: TableModel; relation: RelationModel; alias: string };
}

/** The table a filter applies to and the name its columns are qualified with. */
export interface FieldContext {
  table: TableModel;
  schema: DatabaseSchema;
  qualifier: string;
  /** Set for `having`: aggregates are allowed, and plain fields must be among the grouped ones. */
  groupFields?: readonly string[];
  /** The database's dialect, where an aggregate's SQL depends on it. */
  dialect?: SqlDialect;
}

/** Resolves `field`, `table.field`, `relation.field` or (in `having`) an aggregate; unknown names are a 400 naming them. */
export function resolveField(ref: FieldRef, context: FieldContext): ResolvedField {
  if (ref.aggregate !== undefined) return resolveAggregate(ref, context);
  const resolved = resolvePlain(ref, context);
  // A related field is never grouped, even when it shares a grouped field's name.
  if (context.groupFields !== undefined && (resolved.reached !== undefined || !context.groupFields.includes(resolved.field.name))) {
    throw sqlMessages.notGrouped.error(resolved.label, ref.position);
  }
  return resolved;
}

function resolveAggregate(ref: FieldRef, context: FieldContext): ResolvedField {
  const fn = ref.aggregate as AggregateFunction;
  if (context.groupFields === undefined) throw sqlMessages.aggregateOutsideHaving.error(`${fn}(${ref.path[0]})`, ref.position);
  const field = ref.path[0] === '*' ? null : findField(context.table, ref.path[0]);
  if (field === undefined) throw sqlMessages.unknownFilterField.error(ref.path[0], ref.position);
  const model = aggregateField(fn, field);
  return {
    field: model,
    label: model.name,
    column: aggregateSql(fn, field === null ? null : column(context.qualifier, field), field, context.dialect ?? null),
    wrap: (predicate) => predicate,
  };
}

function resolvePlain(ref: FieldRef, context: FieldContext): ResolvedField {
  const { table, qualifier } = context;
  const [first, second] = ref.path;
  if (ref.path.length === 1 || (ref.path.length === 2 && isSelf(first, context))) {
    const name = ref.path.length === 1 ? first : second;
    const field = findField(table, name);
    if (field === undefined) throw sqlMessages.unknownFilterField.error(ref.path.join('.'), ref.position);
    return { field, label: field.name, column: column(qualifier, field), wrap: (predicate) => predicate };
  }
  if (ref.path.length !== 2) throw sqlMessages.unknownFilterField.error(ref.path.join('.'), ref.position);
  // A field whose own name holds the dot (`a.b`) before a relation's field.
  const dotted = findField(table, ref.path.join('.'));
  if (dotted !== undefined) return { field: dotted, label: dotted.name, column: column(qualifier, dotted), wrap: (predicate) => predicate };

  const relation = findRelation(table, first, ref.position);
  const related = modelTable(context.schema, relation.refTable);
  const field = findField(related, second);
  if (field === undefined) throw sqlMessages.unknownFilterField.error(ref.path.join('.'), ref.position);
  const alias = freeAlias('rel', [qualifier]);
  return {
    field,
    label: `${relation.name}.${field.name}`,
    column: column(alias, field),
    wrap: (predicate) => exists(relation, context, related, alias, predicate),
    reached: { table: related, relation, alias },
  };
}

function isSelf(name: string, { table, qualifier }: FieldContext): boolean {
  const lower = name.toLowerCase();
  return lower === table.name.toLowerCase() || lower === table.sourceName.toLowerCase() || lower === qualifier.toLowerCase();
}

function findField(table: TableModel, name: string): FieldModel | undefined {
  const lower = name.toLowerCase();
  return table.fields.find((field) => field.name.toLowerCase() === lower);
}

/** By relationship name, else by related table when exactly one relationship leads there. */
function findRelation(table: TableModel, name: string, position: number): RelationModel {
  const lower = name.toLowerCase();
  const named = table.relations.find((relation) => relation.name.toLowerCase() === lower);
  if (named !== undefined) return named;
  const leading = table.relations.filter((relation) => relation.refTable.toLowerCase() === lower);
  if (leading.length > 1)
    throw sqlMessages.ambiguousFilterRelation.error(
      name,
      leading.map((relation) => relation.name),
      position,
    );
  if (leading.length === 0) throw sqlMessages.unknownFilterRelation.error(name, position);
  return leading[0];
}

function modelTable(schema: DatabaseSchema, name: string): TableModel {
  const lower = name.toLowerCase();
  const table =
    schema.tables.find((t) => t.name.toLowerCase() === lower) ?? schema.tables.find((t) => t.sourceName.toLowerCase() === lower);
  if (table === undefined) throw sqlMessages.inconsistentModel.error(`table '${name}' is not in the schema`);
  return table;
}

function modelField(table: TableModel, name: string | null | undefined): FieldModel {
  const field = name == null ? undefined : findField(table, name);
  if (field === undefined) throw sqlMessages.inconsistentModel.error(`field '${name}' is not in table '${table.name}'`);
  return field;
}

function column(qualifier: string, field: FieldModel): RawBuilder<unknown> {
  return sql.id(qualifier, field.sourceName);
}

function tableRef(table: TableModel): RawBuilder<unknown> {
  return table.sourceSchema === null ? sql.id(table.sourceName) : sql.id(table.sourceSchema, table.sourceName);
}

/** An alias for a subquery table that cannot shadow the outer query's qualifier. */
function freeAlias(base: string, taken: string[]): string {
  let alias = base;
  while (taken.some((name) => name.toLowerCase() === alias.toLowerCase())) alias += '_';
  return alias;
}

/** EXISTS over the related rows that satisfy `predicate` (which refers to the related table as `alias`). */
function exists(
  relation: RelationModel,
  context: FieldContext,
  related: TableModel,
  alias: string,
  predicate: RawBuilder<SqlBool>,
): RawBuilder<SqlBool> {
  const { table, schema, qualifier } = context;
  if (relation.type === 'many_many') {
    if (relation.junctionTable === null) throw sqlMessages.inconsistentModel.error(`relationship '${relation.name}' has no junction table`);
    const junction = modelTable(schema, relation.junctionTable);
    const link = freeAlias('jct', [qualifier, alias]);
    const toRelated = sql`${column(alias, modelField(related, relation.refField[0]))} = ${column(link, modelField(junction, relation.junctionRefField))}`;
    const toOuter = sql`${column(link, modelField(junction, relation.junctionField))} = ${column(qualifier, modelField(table, relation.field[0]))}`;
    return sql<SqlBool>`exists (select 1 from ${tableRef(junction)} as ${sql.id(link)} inner join ${tableRef(related)} as ${sql.id(alias)} on ${toRelated} where ${toOuter} and ${predicate})`;
  }
  // belongs_to, has_many and has_one all join refField (on the related table) to field (on this one).
  const joins = relation.field.map(
    (name, i) => sql`${column(alias, modelField(related, relation.refField[i]))} = ${column(qualifier, modelField(table, name))}`,
  );
  return sql<SqlBool>`exists (select 1 from ${tableRef(related)} as ${sql.id(alias)} where ${sql.join(joins, sql` and `)} and ${predicate})`;
}
