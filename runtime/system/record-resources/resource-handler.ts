/**
 * The CRUD of every model-backed system resource, served by the SQL records engine over the
 * system database (fields, filter, limit, offset, order and aliases, ids, include_count,
 * count_only) with what the system adds around it: input validation, per-resource preparation
 * (password hashing, API keys, service checks), refusal of rows declared in platform.yaml,
 * related reads and nested writes, 201 on create, and the reload of what the platform keeps in
 * memory once a write commits. Every write runs in one transaction: nothing is half-written.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AuthContext } from '../../auth/auth-context.js';
import { BadRequestError, BatchError, NotFoundError, PorticoError } from '../../core/errors.js';
import { coreMessages } from '../../core/messages.js';
import { unwrapRecord, unwrapRecords, type ListEnvelope } from '../../core/envelope.js';
import { type CommonParams, parseCommonParams, pick, toBool, type RawQuery } from '../../core/query-params.js';
import type { InternalCall } from '../../http/internal-service.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { RowFilterModel, Verb } from '../../model/platform-model.js';
import type { ServiceCall, ServiceResult } from '../../services/service-kind.js';
import { type FieldRef, type FilterNode, parseFilter } from '../../services/sql/filter/filter-parser.js';
import { sqlMessages } from '../../services/sql/sql-messages.js';
import { selectFields } from '../../services/sql/query/table-plan.js';
import { handleTableRecords } from '../../services/sql/table/table-records.js';
import { formatTimestamp, type SystemDb } from '../store/system-db.js';
import { keepMaskedSecrets, presentRecord, storedColumns, type Row } from './record-presentation.js';
import { validateRecord, type WriteMode } from './record-validation.js';
import { attachRelated, checkReferences, requestedRelations, untyped, writeNested } from './related-records.js';
import { MAX_INTEGER, type ResourceDefinition } from './resource-definition.js';
import { systemRecordsContext } from './system-schema.js';

/** One write request as the hooks of a resource see it. */
export interface WriteContext {
  ctx: PlatformContext;
  call: InternalCall;
  /** The transaction of the write. */
  db: SystemDb;
  now: string;
  /** Whatever the hooks of this request keep between them. */
  state: Map<string, unknown>;
}

/** Column values for the records engine, and secret values written directly. */
export interface Prepared {
  columns: Row;
  secrets: Row;
  nested: Record<string, Row[]>;
  /** What a resource's hooks keep about the record between `prepare` and `written`. */
  notes?: Record<string, unknown>;
}

export type Key = string | number;

/** What a resource adds to the generic CRUD. */
export interface ResourceBehaviour {
  def: ResourceDefinition;
  /** Row filters every request on the resource gets (administrators vs users, global lookups). */
  scope?: RowFilterModel[];
  /**
   * Rows built in or declared in platform.yaml (column `origin`) are never deleted through the
   * API; this says which of their fields the API may change (none when absent: read-only).
   * Sending a field back unchanged is not a change (clients PUT whole records).
   */
  originEditable?(origin: string, row: Row): readonly string[];
  /** Adjusts one input record before it is validated (defaults the reference fills in). */
  normalise?(record: Row, mode: WriteMode): void;
  /** Turns one validated record into stored values (defaults, hashing, generated keys), before the transaction. */
  prepare?(prepared: Prepared, record: Row, mode: WriteMode, ctx: PlatformContext, call: InternalCall): Promise<void> | void;
  /** Guards needing the database, inside the transaction, before the write (keys known except for creates). */
  check?(w: WriteContext, verb: 'create' | 'update' | 'delete', keys: Key[], prepared: Prepared[]): Promise<void>;
  /** Inside the transaction, after each record is written (with what `prepare` made of it). */
  written?(w: WriteContext, verb: 'create' | 'update', key: Key, prepared: Prepared): Promise<void>;
  /** After the transaction committed. */
  committed?(w: WriteContext, verb: 'create' | 'update' | 'delete', keys: Key[]): Promise<void>;
  /**
   * Whether `check` chooses the keys of created records (a service's id, past the last one):
   * a create whose key a concurrent create took first runs again, choosing anew.
   */
  choosesKeys?: boolean;
  /**
   * The error of a duplicate of a unique field that `check` refuses with a message of its own (a
   * limit's key_text): a concurrent write that stored the same value first, past the check, makes
   * the database refuse it instead, and the write answers the same.
   */
  duplicates?: Readonly<Record<string, () => PorticoError>>;
  /** Adds what a read asks for beyond stored fields (a role's accessible_tabs). */
  afterRead?(ctx: PlatformContext, db: SystemDb, records: Row[], query: RawQuery, fields: readonly string[] | null): Promise<void>;
  /**
   * A unique field a GET may name the record by where the id goes (`/system/service/db`): the
   * reference answers 404 there, but df-system-mcp-server's get_service sends a service's name.
   */
  readByName?: string;
  /** Relations `related=` may name that are computed, not stored (a limit's counters): each fills its field in the records. */
  computed?: Readonly<Record<string, (ctx: PlatformContext, records: Row[]) => Promise<void>>>;
}

const ORIGIN_NOTE: Record<string, string> = {
  builtin: 'is built into every platform',
  platform: 'is declared in platform.yaml',
};

function auth(scope: RowFilterModel[] | undefined): AuthContext {
  return {
    app: null,
    user: null,
    isAdmin: true,
    role: null,
    rowFilters: scope && scope.length > 0 ? { filters: scope, op: 'and' } : null,
    grants: null,
  };
}

/** A call of the records engine on the resource's table (a promise: what the engine throws is a rejection). */
async function engine(
  db: SystemDb,
  ctx: PlatformContext,
  b: ResourceBehaviour,
  verb: Verb,
  query: RawQuery,
  body: unknown,
  id?: Key,
): Promise<ServiceResult> {
  const call: ServiceCall = { verb, resource: [], trailingSlash: false, query, body, headers: {}, auth: auth(b.scope) };
  return handleTableRecords(systemRecordsContext(db, ctx.systemSchema), call, b.def.table, id === undefined ? undefined : String(id));
}

/** The relations `related=` names: stored ones (an unknown name is a 400) and computed ones. */
function relationsOf(b: ResourceBehaviour, names: readonly string[] | null) {
  const computed = Object.keys(b.computed ?? {});
  const wanted = names === null ? [] : names.includes('*') ? computed : computed.filter((name) => names.includes(name));
  return { stored: requestedRelations(b.def, names === null ? null : names.filter((name) => !computed.includes(name))), computed: wanted };
}

/** Columns whose values are shown masked (a service's config, a private lookup's value), by table. */
const MASKED_COLUMNS: Readonly<Record<string, string>> = { service: 'config', lookup: 'value' };

/** The field references of a filter (none when it does not parse: the records engine reports that). */
export function filterFields(text: string | null): FieldRef[] {
  if (text === null) return [];
  let root: FilterNode;
  try {
    root = parseFilter(text);
  } catch {
    return [];
  }
  const refs: FieldRef[] = [];
  const visit = (node: FilterNode): void => {
    if ('operands' in node) for (const operand of node.operands) visit(operand);
    else if ('operand' in node) visit(node.operand);
    else refs.push(node.field);
  };
  visit(root);
  return refs;
}

/**
 * A masked column is never filtered, sorted or grouped on, nor used as the identifier, here or
 * through a relation (`lookup_by_role_id.value`): the answers would tell the secret the mask hides.
 */
function assertMaskedUnsearched(b: ResourceBehaviour, params: CommonParams): void {
  const names = [
    ...[...filterFields(params.filter), ...filterFields(params.having)].map((ref) => ref.path.join('.')),
    ...params.order.map((term) => term.field),
    ...(params.group ?? []),
    ...(params.idField ?? []),
  ];
  for (const name of names) {
    const parts = name.toLowerCase().split('.');
    // Own relations only: `constructor.x` names no relation (it was Object's constructor, and a 500).
    const table =
      parts.length === 2 ? (Object.hasOwn(b.def.relations, parts[0]) ? b.def.relations[parts[0]].target.table : undefined) : b.def.table;
    if (table !== undefined && MASKED_COLUMNS[table] === parts[parts.length - 1]) {
      throw new BadRequestError(`Field '${name}' may hold secrets: it cannot be filtered, sorted or grouped on.`, { field: name });
    }
  }
}

/** Whether a path id can be a record's id: digits, within the integer columns' range. */
const isRecordId = (id: string) => /^\d{1,10}$/.test(id) && Number(id) <= MAX_INTEGER;

/**
 * Serves `/system/{resource}` (id undefined) and `/system/{resource}/{id}`. `requestParams` are the
 * call's parameters (query, and a GET's body) when the caller parsed them already.
 */
export async function serveResource(
  ctx: PlatformContext,
  b: ResourceBehaviour,
  call: InternalCall,
  id: string | undefined,
  requestParams: CommonParams = parseCommonParams(call.query, call.verb === 'GET' ? call.body : undefined),
): Promise<ServiceResult> {
  assertMaskedUnsearched(b, requestParams);
  // A write returning fields or related records names them before anything is written: an unknown one is a 400, not a
  // write that is stored and then answered with an error.
  if (call.verb !== 'GET') {
    const params = parseCommonParams(call.query);
    relationsOf(b, params.related);
    if (params.fields !== null || params.fieldsBesideAll.length > 0)
      selectFields(ctx.systemSchema.plan(b.def.table), [...(params.fields ?? []), ...params.fieldsBesideAll]);
  }
  // A name where the id goes: the record of that name for a read that takes one (an id wins: a name of digits is an id).
  if (id !== undefined && call.verb === 'GET' && b.readByName !== undefined && !isRecordId(id)) {
    const row = await untyped(ctx.db).selectFrom(b.def.table).select(b.def.idField).where(b.readByName, '=', id).executeTakeFirst();
    if (row === undefined) throw coreMessages.recordNotFound.error(id);
    id = String(row[b.def.idField]);
  }
  // An id that no record can have (a name where the id goes) is a record not found, as the reference answers, not
  // the 400 of a database table's typed key.
  if (id !== undefined && call.verb !== 'POST' && b.def.idField === 'id' && !isRecordId(id)) throw coreMessages.recordNotFound.error(id);
  switch (call.verb) {
    case 'GET':
      return { body: await read(ctx, ctx.db, b, call.query, call.body, id, requestParams) };
    case 'POST':
      if (id !== undefined) throw sqlMessages.createById.error();
      return create(ctx, b, call);
    case 'PUT':
    case 'PATCH':
      return update(ctx, b, call, id);
    case 'DELETE':
      return remove(ctx, b, call, id);
  }
}

/** Reads records (a bare one by id, else the list envelope) with related records embedded. */
export async function read(
  ctx: PlatformContext,
  db: SystemDb,
  b: ResourceBehaviour,
  query: RawQuery,
  body: unknown,
  id?: Key,
  params: CommonParams = parseCommonParams(query, body),
): Promise<unknown> {
  const { stored: relations, computed } = relationsOf(b, params.related);
  const engineQuery: RawQuery = { ...query };
  delete engineQuery.related;
  // Related records are joined on the id (has-many, computed) or on this record's key field (belongs-to):
  // read those even when not asked for, drop them after.
  const joinFields = [
    ...relations.map(([, relation]) => (relation.kind === 'belongs_to' ? relation.field : b.def.idField)),
    ...computed.map(() => b.def.idField),
    // A lookup's value is shown masked by its `private` flag: read the flag whenever the value is asked for.
    ...(b.def.table === 'lookup' && params.fields?.includes('value') ? ['private'] : []),
  ];
  const added = params.fields === null ? [] : [...new Set(joinFields)].filter((field) => !params.fields?.includes(field));
  if (added.length > 0) {
    engineQuery.fields = [...(params.fields ?? []), ...added].join(',');
    delete engineQuery.select;
  }
  const result = await engine(db, ctx, b, 'GET', engineQuery, body, id);
  const finish = async (rows: Row[]): Promise<Row[]> => {
    const records = rows.map((row) => presentRecord(b.def, row));
    await attachRelated(db, b.def, records, relations);
    for (const name of computed) await b.computed?.[name](ctx, records);
    await b.afterRead?.(ctx, db, records, query, params.fields);
    for (const record of records) for (const field of added) delete record[field];
    return records;
  };
  if (id !== undefined) return (await finish([result.body as Row]))[0];
  const envelope = result.body as ListEnvelope<Row> | { meta: unknown };
  if (!('resource' in envelope)) return envelope;
  return { ...envelope, resource: await finish(envelope.resource) };
}

async function prepare(
  ctx: PlatformContext,
  b: ResourceBehaviour,
  call: InternalCall,
  record: Row,
  mode: WriteMode,
  at: string,
): Promise<Prepared> {
  if (b.normalise && record !== null && typeof record === 'object' && !Array.isArray(record)) b.normalise(record, mode);
  validateRecord(b.def, record, mode, at);
  const nested: Record<string, Row[]> = {};
  for (const [name, relation] of Object.entries(b.def.relations)) {
    if (!relation.writable || !(name in record)) continue;
    // A has-one child is the list of at most one: [] removes it.
    if (relation.kind === 'has_one') nested[name] = record[name] === null ? [] : [record[name] as Row];
    else if (Array.isArray(record[name])) nested[name] = record[name] as Row[];
  }
  const prepared: Prepared = { columns: storedColumns(b.def, record), secrets: {}, nested };
  await b.prepare?.(prepared, record, mode, ctx, call);
  return prepared;
}

/** The writes of `inOneTransaction`: its context outside the transaction, and the after-commit hooks that wait for it. */
const outerTransactions = new WeakMap<SystemDb, { ctx: PlatformContext; committed: Array<() => Promise<void>> }>();

/**
 * Runs `work` with a context whose system database is one transaction: every resource write it
 * makes (serveResource with that context) joins it, so they are stored together or not at all
 * (a package import). The resources' after-commit hooks (reloads, services opened) run, in order,
 * once it committed; none runs when it rolled back.
 */
export async function inOneTransaction<T>(ctx: PlatformContext, work: (ctx: PlatformContext) => Promise<T>): Promise<T> {
  const committed: Array<() => Promise<void>> = [];
  const result = await ctx.db.transaction().execute((db) => {
    outerTransactions.set(db, { ctx, committed });
    return work({ ...ctx, db });
  });
  for (const hook of committed) await hook();
  return result;
}

/** Runs a write in one transaction (or in the one of `inOneTransaction`), then the resource's after-commit hook. */
async function transact<T>(
  ctx: PlatformContext,
  b: ResourceBehaviour,
  call: InternalCall,
  verb: 'create' | 'update' | 'delete',
  run: (w: WriteContext) => Promise<{ keys: Key[]; result: T }>,
): Promise<T> {
  const state = new Map<string, unknown>();
  const now = formatTimestamp(new Date(ctx.clock.now()));
  const outer = outerTransactions.get(ctx.db);
  if (outer) {
    const done = await run({ ctx, call, db: ctx.db, now, state });
    outer.committed.push(async () => b.committed?.({ ctx: outer.ctx, call, db: outer.ctx.db, now, state }, verb, done.keys));
    return done.result;
  }
  const done = await ctx.db.transaction().execute((db) => run({ ctx, call, db, now, state }));
  await b.committed?.({ ctx, call, db: ctx.db, now, state }, verb, done.keys);
  return done.result;
}

function userId(call: InternalCall): number | null {
  return call.auth.user?.id ?? null;
}

/** Writes secrets and nested records of one written record, then the resource's hook. */
async function afterWrite(w: WriteContext, b: ResourceBehaviour, verb: 'create' | 'update', key: Key, prepared: Prepared): Promise<void> {
  if (Object.keys(prepared.secrets).length > 0) {
    await untyped(w.db).updateTable(b.def.table).set(prepared.secrets).where(b.def.idField, '=', key).execute();
  }
  await writeNested(w.db, b.def, key, prepared.nested, { now: w.now, userId: userId(w.call) }, (parent, field) =>
    assertAdopting(w, b, parent, field),
  );
  await b.written?.(w, verb, key, prepared);
}

/**
 * A nested child moving to another parent: that parent must be a record of this resource (within
 * its scope: not an administrator through /system/user) whose children the API may change.
 */
async function assertAdopting(w: WriteContext, b: ResourceBehaviour, parent: unknown, field: string): Promise<void> {
  let keys: Key[];
  try {
    keys = await existingKeys(w, b, [parent as Key], 'update');
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new BadRequestError(`Field '${field}' refers to no ${b.def.name} with id ${String(parent)}.`, { field });
  }
  await assertChangeable(w, b, keys, [{ columns: {}, secrets: {}, nested: { [field]: [{}] } }]);
}

/** What a write returns: the identifiers, or the records re-read when `fields` or `related` is asked for. */
async function writeResult(ctx: PlatformContext, b: ResourceBehaviour, query: RawQuery, keys: Key[], single: boolean): Promise<unknown> {
  const wantsRecords = pick(query, 'fields') !== undefined || pick(query, 'related') !== undefined;
  if (!wantsRecords) {
    const records = keys.map((key) => ({ [b.def.idField]: key }));
    return single ? records[0] : { resource: records };
  }
  const readQuery: RawQuery = { fields: pick(query, 'fields'), related: pick(query, 'related') };
  if (single) return read(ctx, ctx.db, b, readQuery, undefined, keys[0]);
  if (keys.length === 0) return { resource: [] };
  return read(ctx, ctx.db, b, { ...readQuery, ids: keys.join(',') }, undefined);
}

function audit(call: InternalCall, now: string, create: boolean): Row {
  const id = userId(call);
  return create
    ? { created_date: now, last_modified_date: now, created_by_id: id, last_modified_by_id: id }
    : { last_modified_date: now, last_modified_by_id: id };
}

/**
 * A create that failed at one record, in the shape the reference's clients read (its admin
 * console shows `error.context.resource[i].message`): one record keeps its own status and message,
 * its context gaining `errors: [{index, message, code}]` and `resource` (that record's error);
 * several records give the 400 batch error, `resource` holding null for the records before the
 * failing one (nothing was written: a system write is all-or-nothing) and then its error.
 */
function createFailure(error: unknown, index: number | undefined, count: number): unknown {
  if (!(error instanceof PorticoError) || shaped.has(error)) return error;
  const done = (failure: PorticoError) => {
    shaped.add(failure);
    return failure;
  };
  if (error instanceof BatchError) {
    // The records engine's batch: the records it reports written were rolled back with the rest.
    const context = error.context as { errors: Array<{ index: number; message: string; code?: number }>; resource: unknown[] };
    const failed = Math.min(...context.errors.map((e) => e.index));
    return done(
      new BatchError(
        sqlMessages.batch.text('create', true),
        context.errors,
        context.resource.map((entry, i) => (i < failed ? null : entry)),
      ),
    );
  }
  const at = index ?? (count === 1 ? 0 : undefined);
  if (at === undefined) return error;
  const entry = error.toBody().error;
  const errors = [{ index: at, message: error.message, code: error.status }];
  const resource = [...Array.from({ length: at }, () => null), entry];
  if (count > 1) return done(new BatchError(sqlMessages.batch.text('create', true), errors, resource));
  const own = error.context !== null && typeof error.context === 'object' && !Array.isArray(error.context) ? error.context : {};
  const single = new PorticoError(error.status, error.message, { ...own, errors, resource });
  single.headers = error.headers;
  return done(single);
}

/**
 * How many times a create runs when a concurrent write made it fail and it was undone whole: a
 * deadlock or serialization failure (the database chose it as the victim; a lock wait that timed
 * out says the same, so only a few times), or the key it chose taken by a create that committed
 * first (each time one of the waiting creates gets the next key: at most one per pooled
 * connection of each instance waits at once).
 */
const VICTIM_ATTEMPTS = 5;
const KEY_ATTEMPTS = 50;

/** Whether a failed write failed only with `text` (its own error, or every record's of a batch). */
function failedWith(error: unknown, text: string): boolean {
  if (!(error instanceof PorticoError)) return false;
  if (error instanceof BatchError) {
    const { errors } = error.context as { errors: Array<{ message: string }> };
    return errors.length > 0 && errors.every((entry) => entry.message === text);
  }
  return error.message === text;
}

/** A duplicate the database refused, as the resource's `check` words it (the error itself otherwise). */
function asChecked(b: ResourceBehaviour, error: unknown): unknown {
  for (const [field, checked] of Object.entries(b.duplicates ?? {})) {
    if (failedWith(error, sqlMessages.duplicate.text([field]))) return checked();
  }
  return error;
}

/** Errors createFailure made (not shaped again on the way out). */
const shaped = new WeakSet<PorticoError>();

async function create(ctx: PlatformContext, b: ResourceBehaviour, call: InternalCall): Promise<ServiceResult> {
  const records = unwrapRecords(call.body);
  const fail = (error: unknown, index?: number) => createFailure(error, index, records.length);
  const prepared: Prepared[] = [];
  for (const [index, record] of records.entries()) {
    try {
      prepared.push(await prepare(ctx, b, call, record, 'create', records.length > 1 ? `resource[${index}]` : ''));
    } catch (error) {
      throw fail(error, index);
    }
  }
  const write = () =>
    transact(ctx, b, call, 'create', async (w) => {
      await b.check?.(w, 'create', [], prepared);
      for (const [index, p] of prepared.entries())
        await checkReferences(w.db, b.def, p.columns).catch((error: unknown) => {
          throw fail(error, index);
        });
      const rows = prepared.map((p) => ({ ...p.columns, ...audit(call, w.now, true) }));
      const result = await engine(w.db, ctx, b, 'POST', {}, { resource: rows });
      const created = (result.body as ListEnvelope<Row>).resource.map((row) => row[b.def.idField] as Key);
      for (const [index, key] of created.entries())
        await afterWrite(w, b, 'create', key, prepared[index]).catch((error: unknown) => {
          throw fail(error, index);
        });
      return { keys: created, result: created };
    });
  let keys: Key[];
  for (let attempt = 1; ; attempt++) {
    try {
      keys = await write();
      break;
    } catch (error) {
      const again =
        (attempt < VICTIM_ATTEMPTS && failedWith(error, sqlMessages.concurrentChange.text())) ||
        (attempt < KEY_ATTEMPTS && b.choosesKeys === true && failedWith(error, sqlMessages.duplicate.text([b.def.idField])));
      if (!again) throw fail(asChecked(b, error));
    }
  }
  return { status: 201, body: await writeResult(ctx, b, call.query, keys, false) };
}

/** The keys a filter (or, with `all`, the whole scope) selects, read inside the transaction. */
async function keysOf(w: WriteContext, b: ResourceBehaviour, filter: string | null): Promise<Key[]> {
  const query: RawQuery = { fields: b.def.idField };
  if (filter !== null) query.filter = filter;
  const result = await engine(w.db, w.ctx, b, 'GET', query, undefined);
  return (result.body as ListEnvelope<Row>).resource.map((row) => row[b.def.idField] as Key);
}

/**
 * The keys as the database holds them (numbers for ids), in order: 404 (one key) or a batch
 * error (several) for keys outside the resource's scope, worded for the write that wanted them.
 */
async function existingKeys(w: WriteContext, b: ResourceBehaviour, keys: Key[], action: 'update' | 'delete'): Promise<Key[]> {
  const field = b.def.idField;
  if (keys.length === 0) return [];
  if (keys.length === 1) return [((await engine(w.db, w.ctx, b, 'GET', { fields: field }, undefined, keys[0])).body as Row)[field] as Key];
  try {
    const rows = (await engine(w.db, w.ctx, b, 'GET', { fields: field, ids: keys.join(',') }, undefined)).body as ListEnvelope<Row>;
    return rows.resource.map((row) => row[field] as Key);
  } catch (error) {
    if (!(error instanceof BatchError)) throw error;
    const context = error.context as { errors: Array<{ index: number; message: string }>; resource: unknown[] };
    throw new BatchError(sqlMessages.batch.text(action, false), context.errors, context.resource);
  }
}

/**
 * The column differs from the stored value (JSON columns compared as values; a service's config
 * as the write makes it: changed key by key, its masked secrets standing for the stored ones).
 */
function changes(def: ResourceDefinition, row: Row, name: string, value: unknown): boolean {
  const stored = row[name];
  if (def.fields[name]?.json && typeof stored === 'string' && typeof value === 'string') {
    const before: unknown = JSON.parse(stored);
    let after: unknown = JSON.parse(value);
    if (def.table === 'service' && name === 'config' && isRow(before) && isRow(after))
      after = keepMaskedSecrets({ ...before, ...after }, before);
    return !isDeepStrictEqual(before, after);
  }
  return (stored ?? null) !== (value ?? null);
}

const isRow = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Refuses deletes of rows that platform.yaml (or the platform itself) owns, and changes to their
 * fields the resource does not let the API change.
 */
async function assertChangeable(w: WriteContext, b: ResourceBehaviour, keys: Key[], prepared: Prepared[] | null): Promise<void> {
  if (!b.originEditable || keys.length === 0) return;
  const rows = (await untyped(w.db)
    .selectFrom(b.def.table)
    .selectAll()
    .where(b.def.idField, 'in', keys)
    .where('origin', '!=', 'api')
    .execute()) as Row[];
  for (const row of rows) {
    const origin = String(row.origin);
    const editable = b.originEditable(origin, row);
    const p = prepared?.[keys.findIndex((key) => String(key) === String(row[b.def.idField]))];
    const refused =
      p === undefined ||
      Object.entries(p.columns).some(([name, value]) => !editable.includes(name) && changes(b.def, row, name, value)) ||
      Object.keys(p.secrets).some((name) => !editable.includes(name)) ||
      Object.values(p.nested).some((children) => children.length > 0);
    if (!refused) continue;
    const what = `The ${b.def.name} '${String(row.name)}' ${ORIGIN_NOTE[origin] ?? 'is not managed through the API'}`;
    let message: string;
    if (p === undefined)
      message = `${what} and cannot be deleted through the API${origin === 'platform' ? ': remove it from platform.yaml and rebuild' : ''}.`;
    else if (editable.length === 0) message = `${what} and cannot be changed through the API: change platform.yaml and rebuild.`;
    else message = `${what}: only ${editable.join(', ')} can be changed through the API; change platform.yaml and rebuild for the rest.`;
    throw new BadRequestError(message, { field: b.def.idField, origin });
  }
}

function keyOf(b: ResourceBehaviour, record: Row, index: number): Key {
  const key = record[b.def.idField];
  if (typeof key !== 'string' && typeof key !== 'number') {
    throw new BadRequestError(`Identifying field "${b.def.idField}" can not be empty for update request.`, { index, field: b.def.idField });
  }
  return key;
}

async function update(ctx: PlatformContext, b: ResourceBehaviour, call: InternalCall, id: string | undefined): Promise<ServiceResult> {
  const params = parseCommonParams(call.query);
  // Each target: a key (or "from the filter") and the record to apply.
  let targets: Array<{ key: Key; record: Row }> | null;
  let shared: Row | null = null;
  if (id !== undefined) {
    // The legacy admin app's Send Invite is a PATCH with no body and `send_invite=true`: it changes no field.
    const invitesOnly = call.body === undefined && toBool(pick(call.query, 'send_invite'));
    targets = [{ key: id, record: unwrapRecord(invitesOnly ? {} : call.body) }];
  } else {
    const records = unwrapRecords(call.body);
    if (params.ids !== null) targets = params.ids.map((key) => ({ key, record: records[0] }));
    else if (params.filter !== null) {
      targets = null;
      shared = records[0];
    } else targets = records.map((record, index) => ({ key: keyOf(b, record, index), record }));
  }
  const distinct = [...new Set([...(targets ?? []).map((t) => t.record), ...(shared ? [shared] : [])])];
  const preparedOf = new Map<Row, Prepared>();
  for (const [index, record] of distinct.entries()) {
    preparedOf.set(record, await prepare(ctx, b, call, record, 'update', distinct.length > 1 ? `resource[${index}]` : ''));
  }
  const keys = await updateIn(ctx, b, call, async (w) => {
    const given = targets ?? (await keysOf(w, b, params.filter)).map((key) => ({ key, record: shared as Row }));
    const list = await existingKeys(
      w,
      b,
      given.map((t) => t.key),
      'update',
    );
    const resolved = given.map((t, index) => ({ key: list[index], record: t.record }));
    await assertChangeable(
      w,
      b,
      list,
      resolved.map((t) => preparedOf.get(t.record) as Prepared),
    );
    await b.check?.(
      w,
      'update',
      list,
      resolved.map((t) => preparedOf.get(t.record) as Prepared),
    );
    for (const t of resolved) await checkReferences(w.db, b.def, (preparedOf.get(t.record) as Prepared).columns);
    if (resolved.length > 0) {
      const rows = resolved.map((t) => ({
        ...(preparedOf.get(t.record) as Prepared).columns,
        ...audit(call, w.now, false),
        [b.def.idField]: t.key,
      }));
      await engine(w.db, ctx, b, 'PATCH', {}, { resource: rows });
    }
    for (const t of resolved) await afterWrite(w, b, 'update', t.key, preparedOf.get(t.record) as Prepared);
    return { keys: list, result: list };
  });
  return { body: await writeResult(ctx, b, call.query, keys, id !== undefined) };
}

/** An update's transaction; a duplicate the database refused answers as `check` would have. */
function updateIn(
  ctx: PlatformContext,
  b: ResourceBehaviour,
  call: InternalCall,
  run: (w: WriteContext) => Promise<{ keys: Key[]; result: Key[] }>,
): Promise<Key[]> {
  const written = transact(ctx, b, call, 'update', run);
  return b.duplicates === undefined ? written : written.catch((error: unknown) => Promise.reject(asChecked(b, error)));
}

/**
 * Deletes records this call's write stored and committed, as a delete by the same caller (checks
 * and hooks included): for a step after the commit that failed and takes the records back.
 */
export async function removeCommitted(ctx: PlatformContext, b: ResourceBehaviour, call: InternalCall, keys: Key[]): Promise<void> {
  if (keys.length === 0) return;
  await remove(ctx, b, { ...call, verb: 'DELETE', query: { ids: keys.join(',') }, body: undefined }, undefined);
}

async function remove(ctx: PlatformContext, b: ResourceBehaviour, call: InternalCall, id: string | undefined): Promise<ServiceResult> {
  const params = parseCommonParams(call.query);
  let given: Key[] | null = null;
  if (id !== undefined) given = [id];
  else if (params.ids !== null) given = params.ids;
  else if (Array.isArray(call.body) || (typeof call.body === 'object' && call.body !== null && 'resource' in call.body)) {
    given = unwrapRecords(call.body).map((record, index) => keyOf(b, record, index));
  } else if (params.filter === null && !toBool(pick(call.query, 'force'))) {
    throw sqlMessages.noDeleteCriteria.error();
  }
  const wantsRecords = pick(call.query, 'fields') !== undefined || pick(call.query, 'related') !== undefined;
  const { keys, records } = await transact(ctx, b, call, 'delete', async (w) => {
    const list = given === null ? await keysOf(w, b, params.filter) : await existingKeys(w, b, given, 'delete');
    await assertChangeable(w, b, list, null);
    await b.check?.(w, 'delete', list, []);
    const before =
      wantsRecords && list.length > 0
        ? ((await read(
            ctx,
            w.db,
            b,
            { fields: pick(call.query, 'fields'), related: pick(call.query, 'related'), ids: list.join(',') },
            undefined,
          )) as ListEnvelope<Row>)
        : null;
    if (list.length > 0) await engine(w.db, ctx, b, 'DELETE', { ids: list.join(',') }, undefined);
    return { keys: list, result: { keys: list, records: before?.resource ?? list.map((key) => ({ [b.def.idField]: key })) } };
  });
  if (id !== undefined) return { body: records[0] };
  return { body: { resource: keys.length === 0 ? [] : records } };
}
