/**
 * `_schema` writes (reference 3.1): create, change and drop tables, their fields (`_field`) and
 * their foreign-key relationships (`_related`). POST, PUT and PATCH merge what they are given
 * into the table (new fields added, listed fields changed, others kept: spec "update table
 * structure (add/modify columns)"); fields go with DELETE. After each write the service's
 * schema is read again, so that new tables and fields are served at once.
 *
 * Responses: `{resource:[{name}]}` (a bare `{name}` for one addressed table or field), the full
 * descriptions when `fields` is given, `{success:true}` for deletes of one table or field.
 */
import { sql } from 'kysely';
import { PorticoError } from '../../../core/errors.js';
import { wrapList } from '../../../core/envelope.js';
import { parseCommonParams, pick, toBool } from '../../../core/query-params.js';
import type { AbstractType, FieldModel, ForeignKeyModel, RelationModel, TableModel } from '../../../model/platform-model.js';
import type { ServiceCall, ServiceResult } from '../../service-kind.js';
import { readDatabaseSchema } from './database-schema-reader.js';
import { mergedDefinition } from './model-definitions.js';
import type { FieldChange, TableChanges } from './table-alter.js';
import { INTEGER_TYPES, nativeTypeInfo } from './native-types.js';
import { bareField, encoderFor } from '../query/value-codec.js';
import { assertDefaultFits, assertLengthFits, checkedTableDefinitions, createTables, resolveReference } from './table-ddl.js';
import { assertNewIdentifier } from './identifiers.js';
import { type FieldDefinition, lowerKeys, parseField, schemaBodyTables } from './table-definition.js';
import { describeField, describeRelation, describeTable } from './table-description.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { databaseError } from '../dialects/driver-errors.js';
import { extrasOf } from './table-extras.js';
import type { TableExtras } from '../../service-kind.js';
import { coreMessages } from '../../../core/messages.js';
import { sqlMessages } from '../sql-messages.js';
import { schemaMessages, shownName } from './schema-messages.js';

type Input = Record<string, unknown>;

function findField(table: TableModel, name: string): FieldModel | undefined {
  const lower = name.toLowerCase();
  return table.fields.find((f) => f.name.toLowerCase() === lower || f.sourceName.toLowerCase() === lower);
}

/**
 * The body of a write by name (`_field/{f}`, `_related/{r}`): one object of keys, lower-cased. None,
 * null or a list is the 400 records give (it answered 200 having changed nothing).
 */
function namedBody(call: ServiceCall): Input {
  if (call.body === null || typeof call.body !== 'object' || Array.isArray(call.body)) throw coreMessages.bodyNotObject.error();
  return lowerKeys(call.body);
}

/** The items of a body: a list, `{resource: [...]}` (or one object there), or one object. */
function bodyItems(body: unknown, what: 'create' | 'update' | 'delete'): unknown[] {
  const resource =
    body !== null && typeof body === 'object' && !Array.isArray(body) && 'resource' in body ? (body as Input).resource : body;
  const items = Array.isArray(resource) ? resource : resource !== null && typeof resource === 'object' ? [resource] : [];
  if (items.length === 0) throw schemaMessages.noSchemaData.error(what);
  return items;
}

/**
 * The names a DELETE drops: the one its path names, else `?ids=a,b`, else a body list of names or
 * of `{name}` (an item that names nothing stays as it is, for the not-found error to show).
 */
function namesToDrop(call: ServiceCall, named?: string): unknown[] {
  if (named !== undefined) return [named];
  return (
    parseCommonParams(call.query).ids ??
    bodyItems(call.body, 'delete').map((item) => (typeof item === 'string' ? item : lowerKeys(item).name))
  );
}

/** The `field` list of a table definition. */
function fieldList(input: Input): unknown[] {
  const fields = input.field ?? input.fields;
  if (fields === undefined) return [];
  if (!Array.isArray(fields)) throw schemaMessages.fieldListNotList.error();
  return fields;
}

/** Splits field definitions into changes of an existing table; `addOnly` refuses fields that exist. */
function changesFor(ctx: SqlServiceContext, table: TableModel, fields: readonly unknown[], addOnly: boolean): TableChanges {
  const changes: TableChanges = { add: [], modify: [], drop: [] };
  const named = new Set<string>();
  fields.forEach((raw, index) => {
    const name = lowerKeys(raw).name;
    if (typeof name !== 'string' || name === '') throw schemaMessages.fieldNameMissing.error(index, table.name);
    // Names are case-insensitive (records come back keyed by lower-case names): one change per field.
    if (named.has(name.toLowerCase())) throw schemaMessages.fieldExists.error(name, table.name);
    named.add(name.toLowerCase());
    const current = findField(table, name);
    // The reference renames a field given `new_name`; here it was left out, and the 200 said the field was changed.
    const newName = lowerKeys(raw).new_name;
    if (typeof newName === 'string' && newName !== '' && newName.toLowerCase() !== name.toLowerCase())
      throw schemaMessages.renameUnsupported.error(name, table.name);
    if (current === undefined) {
      assertNewIdentifier(ctx.dialect.dialect, name, `field '${shownName(name)}' of table '${table.name}'`, {
        table: table.name,
        field: name,
      });
      changes.add.push(parseField(raw, table.sourceName, index));
    } else if (addOnly) throw schemaMessages.fieldExists.error(current.name, table.name);
    else changes.modify.push({ definition: mergedDefinition(ctx.schema.current, table, current, raw, index), current });
  });
  return changes;
}

function isEmpty(changes: TableChanges): boolean {
  return (
    changes.add.length === 0 && changes.modify.length === 0 && changes.drop.length === 0 && (changes.dropForeignKeys ?? []).length === 0
  );
}

/**
 * Runs DDL, turning driver errors into PorticoErrors naming the table, then re-reads the schema,
 * also after a failure: MySQL's DDL is not transactional, so a failed change may be made in part.
 * When the schema cannot be read (the connection lost), the next request reads it first, and the
 * DDL's own error is the answer.
 */
async function applying(
  ctx: SqlServiceContext,
  table: TableModel | null,
  action: 'create' | 'update' | 'drop',
  run: () => Promise<void>,
): Promise<void> {
  const failed = () => schemaMessages.schemaChangeFailed.error(action, table?.name ?? null);
  let failure: PorticoError | null = null;
  try {
    await run();
  } catch (error) {
    failure = databaseError(error, ctx.dialect, table, failed());
  }
  try {
    ctx.schema.replace(await readDatabaseSchema(ctx.db, ctx.dialect, ctx.options.keepCase));
  } catch (error) {
    ctx.schema.markStale();
    throw failure ?? databaseError(error, ctx.dialect, table, failed());
  }
  if (failure !== null) throw failure;
}

/** Whether a foreign key points at the table. */
function pointsAt(fk: ForeignKeyModel, table: TableModel): boolean {
  const target = fk.refTable.toLowerCase();
  return target === table.name.toLowerCase() || target === table.sourceName.toLowerCase();
}

/**
 * A foreign key that points at the table (`fields` null: of another table), or at one of `fields`
 * of it (from another table, or from fields of this one that stay): dropping what it references
 * would leave it dangling (SQLite allows that; PostgreSQL and MySQL refuse in their own words).
 */
function referencedBy(
  ctx: SqlServiceContext,
  table: TableModel,
  fields: readonly FieldModel[] | null,
): { table: string; field: string } | null {
  const dropped = fields?.flatMap((f) => [f.name.toLowerCase(), f.sourceName.toLowerCase()]);
  for (const other of ctx.schema.current.tables) {
    const self = other.name === table.name;
    for (const fk of other.foreignKeys) {
      if (!pointsAt(fk, table)) continue;
      if (dropped === undefined) {
        if (!self) return { table: other.name, field: fk.refFields[0] };
        continue;
      }
      const target = fk.refFields.find((f) => dropped.includes(f.toLowerCase()));
      const staying = !self || fk.fields.some((f) => !dropped.includes(f.toLowerCase()));
      if (target !== undefined && staying) return { table: other.name, field: target };
    }
  }
  return null;
}

/** Tables to drop together, each after the ones among them that reference it. */
function dropOrder(tables: readonly TableModel[]): TableModel[] {
  const remaining = [...tables];
  const ordered: TableModel[] = [];
  while (remaining.length > 0) {
    const free = remaining.find((t) => !remaining.some((o) => o !== t && o.foreignKeys.some((fk) => pointsAt(fk, t)))) ?? remaining[0];
    ordered.push(free);
    remaining.splice(remaining.indexOf(free), 1);
  }
  return ordered;
}

/**
 * The values stored must be ones the new type takes, on every database: SQLite converts nothing
 * when a field's type changes (its rebuild copies the values as they are: a date under a boolean
 * type read as false), MariaDB converts what it can (a date became the number 20240131, 1.5
 * became 2) and PostgreSQL refuses in its own words, or with no cast at all. A size made smaller
 * alike: SQLite kept the longer values under the shorter length.
 */
async function assertStoredValuesFit(ctx: SqlServiceContext, table: TableModel, { definition, current }: FieldChange): Promise<void> {
  const type = definition.native ? nativeTypeInfo(definition.type).type : (definition.type as AbstractType);
  const smaller = (next: number | null, now: number | null) => next !== null && (now === null || next < now);
  const shrunk =
    smaller(definition.length, current.length) ||
    smaller(definition.precision, current.precision) ||
    smaller(definition.scale, current.scale);
  if (type === current.type && !shrunk) return;
  const encode = encoderFor(bareField(definition.name, type, definition), ctx.dialect);
  const column = sql.ref(current.sourceName);
  const rows = await ctx.db
    .selectFrom(ctx.schema.plan(table.name).source)
    .select(column.as('value'))
    .distinct()
    .where(column, 'is not', null)
    .limit(100_000)
    .execute();
  for (const { value } of rows) {
    try {
      encode(value);
    } catch (error) {
      if (!(error instanceof PorticoError)) throw error;
      throw schemaMessages.storedValuesUnfit.error(definition.name, table.name, type, error.message);
    }
  }
}

/**
 * A primary key stays one, and an auto-numbered one stays numbered with an integer type: SQLite's
 * rebuild moved the key to another field (or left the id unnumbered), PostgreSQL answered 200 and
 * kept its serial as it was, MariaDB and SQLite refused a string id with no reason given.
 */
function assertKeyKept(table: TableModel, definition: FieldDefinition, current: FieldModel): void {
  if (!current.isPrimaryKey) return;
  if (!definition.isPrimaryKey) throw schemaMessages.primaryKeyKept.error(current.name, table.name);
  const type = definition.native ? nativeTypeInfo(definition.type).type : (definition.type as AbstractType);
  if (current.autoIncrement && (!definition.autoIncrement || !INTEGER_TYPES.has(type))) {
    throw schemaMessages.numberedKeyKept.error(current.name, table.name);
  }
}

/** Checks a change of the table as far as can be before it is made; the checked changes (references resolved). */
async function checkedChanges(ctx: SqlServiceContext, table: TableModel, changes: TableChanges): Promise<TableChanges> {
  if (isEmpty(changes)) return changes;
  const known = { created: [], existing: ctx.schema.current };
  for (const field of changes.add) {
    assertLengthFits(field, ctx.dialect);
    assertDefaultFits(field, table.name, ctx.dialect);
  }
  for (const { definition, current } of changes.modify) {
    assertLengthFits(definition, ctx.dialect);
    if (definition.default !== current.default) assertDefaultFits(definition, table.name, ctx.dialect);
  }
  changes.add = changes.add.map((field) => resolveReference(field, table.name, known));
  for (const change of changes.modify) {
    const kept = change.definition.native && change.definition.type === change.current.dbType;
    change.definition = resolveReference(change.definition, table.name, known, kept ? change.current.type : undefined);
  }
  // A table keeps its primary key: SQLite's rebuild made it composite (its id lost its numbering,
  // so no record could be created without one) and MySQL added a column no record could fill.
  const newKey = [...changes.add, ...changes.modify.filter((c) => !c.current.isPrimaryKey).map((c) => c.definition)].find(
    (field) => field.isPrimaryKey,
  );
  if (newKey !== undefined && table.primaryKey.length > 0) {
    throw schemaMessages.secondPrimaryKey.error(table.name, table.primaryKey, newKey.name);
  }
  for (const { definition, current } of changes.modify) assertKeyKept(table, definition, current);
  for (const change of changes.modify) await assertStoredValuesFit(ctx, table, change);
  const referenced = changes.drop.length > 0 ? referencedBy(ctx, table, changes.drop) : null;
  if (referenced !== null) throw schemaMessages.fieldReferenced.error(referenced.field, table.name, referenced.table);
  // A table keeps its primary key: without it no record could be read or changed by id.
  const key = changes.drop.find((field) => field.isPrimaryKey);
  if (key !== undefined) throw schemaMessages.primaryKeyKept.error(key.name, table.name);
  // A new NOT NULL field without a default has no value for the records there are: SQLite and
  // PostgreSQL refuse it, MySQL filled them with '' or 0.
  const unfilled = changes.add.find(
    (f) => !f.allowNull && (f.default === undefined || f.default === null) && !f.autoIncrement && !f.type.startsWith('timestamp_on_'),
  );
  if (unfilled !== undefined) {
    const records = await ctx.db.selectFrom(ctx.schema.plan(table.name).source).select(sql`1`.as('one')).limit(1).execute();
    if (records.length > 0) throw sqlMessages.notNull.error(unfilled.name);
  }
  return changes;
}

async function applyChanges(ctx: SqlServiceContext, table: TableModel, changes: TableChanges): Promise<void> {
  if (isEmpty(changes)) return;
  await applying(ctx, table, 'update', () => ctx.dialect.alterTable(ctx.db, ctx.schema.current, table, changes));
}

async function alter(ctx: SqlServiceContext, table: TableModel, changes: TableChanges): Promise<void> {
  await applyChanges(ctx, table, await checkedChanges(ctx, table, changes));
}

/** Keeps what the written definitions say beyond the catalog (labels, plurals, descriptions, declared types), then lays it over the schema. */
async function remember(ctx: SqlServiceContext, extras: TableExtras[]): Promise<void> {
  if (!ctx.extras || extras.length === 0) return;
  await ctx.extras.store.write(ctx.extras.serviceId, extras);
  ctx.schema.setExtras(await ctx.extras.store.read(ctx.extras.serviceId));
}

async function forget(ctx: SqlServiceContext, table: string, field?: string): Promise<void> {
  if (!ctx.extras) return;
  await ctx.extras.store.drop(ctx.extras.serviceId, table, field);
  ctx.schema.setExtras(await ctx.extras.store.read(ctx.extras.serviceId));
}

function tableNamed(ctx: SqlServiceContext, name: string): TableModel | undefined {
  const lower = name.toLowerCase();
  return ctx.schema.current.tables.find((t) => t.name.toLowerCase() === lower || t.sourceName.toLowerCase() === lower);
}

/** What a write returns for tables: names, or descriptions with `fields`. */
function tablesResult(ctx: SqlServiceContext, call: ServiceCall, names: string[], bare: boolean): ServiceResult {
  const describe = pick(call.query, 'fields') !== undefined;
  const entries = names.map((name) => {
    const table = ctx.schema.table(name);
    return describe ? describeTable(ctx.schema.current, table) : { name: table.name };
  });
  return { body: bare ? entries[0] : wrapList(entries) };
}

/** POST/PUT/PATCH `_schema`: creates the tables that do not exist, merges the others (POST with check_exist=true refuses them). */
async function writeTables(ctx: SqlServiceContext, call: ServiceCall): Promise<ServiceResult> {
  const inputs = schemaBodyTables(call.body).map((raw) => lowerKeys(raw));
  // An empty list is no data, as an empty body is (it answered 200 as if tables had been written).
  if (inputs.length === 0) throw schemaMessages.noSchemaData.error(call.verb === 'POST' ? 'create' : 'update');
  const checkExist = call.verb === 'POST' && toBool(pick(call.query, 'check_exist'));
  const creates: Input[] = [];
  const alters: Array<{ table: TableModel; changes: TableChanges }> = [];
  const names: string[] = [];
  for (const input of inputs) {
    if (typeof input.name !== 'string' || input.name === '') throw schemaMessages.tableNameMissing.error();
    if (names.some((name) => name.toLowerCase() === String(input.name).toLowerCase()))
      throw schemaMessages.tableGivenTwice.error(input.name);
    const existing = tableNamed(ctx, input.name);
    if (existing === undefined) {
      creates.push(input);
    } else {
      if (checkExist) throw schemaMessages.alreadyExists.error('table', existing.name);
      alters.push({ table: existing, changes: changesFor(ctx, existing, fieldList(input), false) });
    }
    names.push(input.name);
  }
  // Every table of the body is checked before any is changed or made: a bad one changed none
  // (the tables before it in the body were changed, and the 400 said nothing of them).
  if (creates.length > 0) checkedTableDefinitions(ctx.dialect, creates, ctx.schema.current);
  for (const entry of alters) entry.changes = await checkedChanges(ctx, entry.table, entry.changes);
  for (const { table, changes } of alters) await applyChanges(ctx, ctx.schema.table(table.sourceName), changes);
  if (creates.length > 0) {
    await applying(ctx, null, 'create', async () => {
      await createTables(ctx.db, ctx.dialect, creates, ctx.schema.current);
    });
  }
  await remember(
    ctx,
    inputs.map((input) => extrasOf(String(input.name), input, fieldList(input))),
  );
  return tablesResult(ctx, call, names, false);
}

/**
 * The definition a request on `_schema/{table}` gives: the bare object, or one definition of that
 * table in the list form `_schema` takes (it answered 200 and changed nothing, an invalid type included).
 */
function tableInput(body: unknown, table: TableModel): Input {
  const input = lowerKeys(body);
  if (!Array.isArray(body) && !Array.isArray(input.resource) && !Array.isArray(input.table)) return input;
  const items = schemaBodyTables(Array.isArray(body) ? body : input);
  if (items.length === 0) throw schemaMessages.noSchemaData.error('update');
  const item = lowerKeys(items[0]);
  const named = (name: unknown) => name === undefined || (typeof name === 'string' && name.toLowerCase() === table.name.toLowerCase());
  if (items.length === 1 && named(item.name)) return item;
  const other = items.length === 1 ? String(item.name) : `${items.length} tables`;
  throw schemaMessages.otherTableDefinition.error(table.name, other, items.length === 1);
}

/** POST/PUT/PATCH `_schema/{table}`: merges a definition (`{field:[...]}`) into an existing table. */
async function writeTable(ctx: SqlServiceContext, call: ServiceCall, table: TableModel): Promise<ServiceResult> {
  const input = tableInput(call.body, table);
  if (Object.keys(input).length === 0) throw schemaMessages.noSchemaData.error('update');
  await alter(ctx, table, changesFor(ctx, table, fieldList(input), false));
  await remember(ctx, [extrasOf(table.name, input, fieldList(input))]);
  return tablesResult(ctx, call, [table.sourceName], true);
}

async function dropTable(ctx: SqlServiceContext, table: TableModel): Promise<void> {
  const referenced = referencedBy(ctx, table, null);
  if (referenced !== null) throw schemaMessages.tableReferenced.error(table.name, referenced.table);
  await applying(ctx, table, 'drop', async () => {
    const target = table.isView ? ctx.db.schema.dropView(table.sourceName) : ctx.db.schema.dropTable(table.sourceName);
    await target.execute();
  });
  await forget(ctx, table.name);
}

/** DELETE `_schema?ids=a,b` or with a body list of `{name}`. */
async function dropTables(ctx: SqlServiceContext, call: ServiceCall): Promise<ServiceResult> {
  const tables = namesToDrop(call).map((name) => {
    const table = typeof name === 'string' ? tableNamed(ctx, name) : undefined;
    if (table === undefined) throw schemaMessages.tableToDropNotFound.error(String(name));
    return table;
  });
  // Tables dropped together may reference each other: the referencing ones go first.
  for (const table of dropOrder(tables)) await dropTable(ctx, table);
  return { body: wrapList(tables.map((table) => ({ name: table.name }))) };
}

/** `_schema/{table}/_field[/{name}]` writes. */
async function writeFields(ctx: SqlServiceContext, call: ServiceCall, table: TableModel, name: string | undefined): Promise<ServiceResult> {
  const describe = pick(call.query, 'fields') !== undefined;
  const result = (names: string[], bare: boolean): ServiceResult => {
    const current = ctx.schema.table(table.sourceName);
    const entries = names.map((n) => {
      const field = findField(current, n);
      if (field === undefined) throw schemaMessages.partNotFound.error('Field', n, current.name);
      return describe ? describeField(current, field) : { name: field.name };
    });
    return { body: bare ? entries[0] : wrapList(entries) };
  };
  if (call.verb === 'DELETE') {
    const drop = namesToDrop(call, name).map((n) => {
      const field = typeof n === 'string' ? findField(table, n) : undefined;
      if (field === undefined) throw schemaMessages.partNotFound.error('Field', String(n), table.name);
      return field;
    });
    await alter(ctx, table, { add: [], modify: [], drop });
    for (const field of drop) await forget(ctx, table.name, field.name);
    return { body: name !== undefined ? { success: true } : wrapList(drop.map((f) => ({ name: f.name }))) };
  }
  if (name !== undefined) {
    if (call.verb === 'POST') throw schemaMessages.fieldAddressedByName.error(name);
    const current = findField(table, name);
    if (current === undefined) throw schemaMessages.partNotFound.error('Field', name, table.name);
    const input = { ...namedBody(call), name: current.sourceName };
    await alter(ctx, table, changesFor(ctx, table, [input], false));
    await remember(ctx, [extrasOf(table.name, {}, [{ ...input, name: current.name }])]);
    return result([current.name], true);
  }
  const items = bodyItems(call.body, call.verb === 'POST' ? 'create' : 'update');
  await alter(ctx, table, changesFor(ctx, table, items, call.verb === 'POST'));
  await remember(ctx, [extrasOf(table.name, {}, items)]);
  return result(
    items.map((item) => String(lowerKeys(item).name)),
    false,
  );
}

/** The foreign key a (non-virtual) relationship definition asks for, as a field change of the table holding it. */
function relationChange(ctx: SqlServiceContext, table: TableModel, raw: unknown): { holder: TableModel; changes: TableChanges } {
  const input = lowerKeys(raw);
  if (toBool(input.is_virtual)) throw schemaMessages.virtualRelation.error();
  const type = String(input.type ?? '').toLowerCase();
  const refTable = typeof input.ref_table === 'string' ? tableNamed(ctx, input.ref_table) : undefined;
  if (refTable === undefined) throw schemaMessages.refTableMissing.error();
  const field = String(input.field ?? '');
  const refField = String(input.ref_field ?? '');
  const actions = { ref_on_update: input.ref_on_update, ref_on_delete: input.ref_on_delete };
  if (type === 'belongs_to') {
    return {
      holder: table,
      changes: changesFor(ctx, table, [{ name: field, ref_table: refTable.sourceName, ref_field: refField || null, ...actions }], false),
    };
  }
  if (type === 'has_many' || type === 'has_one') {
    return {
      holder: refTable,
      changes: changesFor(ctx, refTable, [{ name: refField, ref_table: table.sourceName, ref_field: field || null, ...actions }], false),
    };
  }
  throw schemaMessages.relationTypeInvalid.error();
}

function relationNamed(table: TableModel, name: string): RelationModel {
  const relation = table.relations.find((r) => r.name.toLowerCase() === name.toLowerCase());
  if (relation === undefined) throw schemaMessages.partNotFound.error('Relationship', name, table.name);
  return relation;
}

/**
 * The definition a write by name asks for. PUT and PATCH change the relationship named (a 404 if the
 * table has none): the keys not sent are its own, as a field written by name keeps what is not sent.
 */
function namedRelationInput(ctx: SqlServiceContext, call: ServiceCall, table: TableModel, name: string): Record<string, unknown> {
  if (call.verb === 'POST') return { ...lowerKeys(call.body), name };
  const current = describeRelation(ctx.schema.current, table, relationNamed(table, name));
  return { ...current, ...namedBody(call), name };
}

/** `_schema/{table}/_related[/{name}]` writes: foreign keys added or dropped. */
async function writeRelations(
  ctx: SqlServiceContext,
  call: ServiceCall,
  table: TableModel,
  name: string | undefined,
): Promise<ServiceResult> {
  if (call.verb === 'DELETE') {
    // One by name, or several as `_field` takes them: `?ids=a,b` or a body list of names or `{name}`.
    const drops = namesToDrop(call, name).map((n) => {
      const relation = relationNamed(table, typeof n === 'string' ? n : String(n));
      if (relation.type === 'many_many') throw schemaMessages.junctionRelation.error(relation.name, String(relation.junctionTable));
      const holder = relation.type === 'belongs_to' ? table : ctx.schema.table(relation.refTable);
      const fields = relation.type === 'belongs_to' ? relation.field : relation.refField;
      const fk = holder.foreignKeys.find((key) => key.fields.join() === fields.join());
      if (fk === undefined) throw schemaMessages.noForeignKeyToDrop.error(relation.name);
      return { relation, holder, fk };
    });
    // One change per table holding the keys (SQLite rebuilds the table for it).
    const byHolder = new Map<string, { holder: TableModel; keys: string[] }>();
    for (const { holder, fk } of drops) {
      const entry = byHolder.get(holder.sourceName) ?? { holder, keys: [] };
      if (!entry.keys.includes(fk.name)) entry.keys.push(fk.name);
      byHolder.set(holder.sourceName, entry);
    }
    for (const { holder, keys } of byHolder.values()) await alter(ctx, holder, { add: [], modify: [], drop: [], dropForeignKeys: keys });
    return { body: name !== undefined ? { success: true } : wrapList(drops.map(({ relation }) => ({ name: relation.name }))) };
  }
  const items =
    name !== undefined ? [namedRelationInput(ctx, call, table, name)] : bodyItems(call.body, call.verb === 'POST' ? 'create' : 'update');
  for (const item of items) {
    const { holder, changes } = relationChange(ctx, ctx.schema.table(table.sourceName), item);
    await alter(ctx, holder, changes);
  }
  const current = ctx.schema.table(table.sourceName);
  return { body: wrapList(current.relations.map((relation) => describeRelation(ctx.schema.current, current, relation))) };
}

/** Serves POST, PUT, PATCH and DELETE on `_schema` and below; `rest` are the segments after `_schema`. */
export async function writeSchema(ctx: SqlServiceContext, call: ServiceCall, rest: string[]): Promise<ServiceResult> {
  if (rest.length === 0) return call.verb === 'DELETE' ? dropTables(ctx, call) : writeTables(ctx, call);
  const [tableName, part, name, ...more] = rest;
  if (more.length > 0 || (part !== undefined && part !== '_field' && part !== '_related')) {
    throw schemaMessages.invalidSchemaPath.error(call.verb === 'DELETE' ? 'delete' : 'update');
  }
  const table = tableNamed(ctx, tableName);
  if (table === undefined) {
    if (call.verb === 'DELETE' && part === undefined) throw schemaMessages.tableToDropNotFound.error(tableName);
    throw coreMessages.tableNotFound.error(tableName);
  }
  if (part === '_field') return writeFields(ctx, call, table, name);
  if (part === '_related') return writeRelations(ctx, call, table, name);
  if (call.verb === 'DELETE') {
    await dropTable(ctx, table);
    return { body: { success: true } };
  }
  return writeTable(ctx, call, table);
}
