/**
 * Relationships of system records (reference 5.1): `related=` embeds them under their names
 * (`role_service_access_by_role_id`, `role_by_role_id`, ...), and nested writes change has-many
 * children inside the parent's POST/PATCH/PUT: a child without id is created, one with id is
 * updated, one whose foreign key is sent as null is deleted, one whose foreign key names another
 * parent moves there (when the caller may change that parent). A child named by id must be this
 * parent's: another record's children are neither changed nor taken through it. A has-one child
 * (a service's document) is an object, replacing the one there is, or null, removing it.
 */
import { type Kysely, MysqlAdapter, PostgresAdapter, sql } from 'kysely';
import { BadRequestError, ConflictError, NotFoundError } from '../../core/errors.js';
import { isUniqueViolation, type SystemDb } from '../store/system-db.js';
import { presentRecord, storedColumns, type Row } from './record-presentation.js';
import { type FieldRule, MAX_INTEGER, type RecordDefinition, type RelationDefinition } from './resource-definition.js';
import { coreMessages } from '../../core/messages.js';

/** The system database with table names known only at run time (from record definitions). */
export function untyped(db: SystemDb): Kysely<any> {
  return db as Kysely<any>;
}

/** The system tables behind the `references` of fields. */
const REFERENCED_TABLES: Record<NonNullable<FieldRule['references']>, string> = {
  app: 'app',
  role: 'role',
  service: 'service',
  user: 'user',
};

/** The relations `related=` names (`*`: all); unknown names are a 400. */
export function requestedRelations(def: RecordDefinition, names: readonly string[] | null): Array<[string, RelationDefinition]> {
  if (names === null) return [];
  if (names.includes('*')) return Object.entries(def.relations);
  return names.map((name) => {
    const relation = Object.hasOwn(def.relations, name) ? def.relations[name] : undefined;
    if (!relation)
      throw new BadRequestError(`Invalid relationship '${name}' requested. Known: ${Object.keys(def.relations).join(', ') || 'none'}.`, {
        field: 'related',
      });
    return [name, relation];
  });
}

/** Embeds the requested relations in presented records (which carry their id). */
export async function attachRelated(
  db: SystemDb,
  def: RecordDefinition,
  records: Row[],
  relations: Array<[string, RelationDefinition]>,
): Promise<void> {
  const conn = untyped(db);
  for (const [name, relation] of relations) {
    const target = relation.target;
    if (relation.kind !== 'belongs_to') {
      const keys = records.map((r) => r[def.idField]).filter((k) => k !== undefined && k !== null);
      const rows: Row[] =
        keys.length === 0
          ? []
          : await conn.selectFrom(target.table).selectAll().where(relation.field, 'in', keys).orderBy(target.idField).execute();
      for (const record of records) {
        const children = rows.filter((row) => row[relation.field] === record[def.idField]).map((row) => presentRecord(target, row));
        record[name] = relation.kind === 'has_many' ? children : (children[0] ?? null);
      }
    } else {
      const keys = [...new Set(records.map((r) => r[relation.field]).filter((k) => k !== undefined && k !== null))];
      const rows: Row[] =
        keys.length === 0 ? [] : await conn.selectFrom(target.table).selectAll().where(target.idField, 'in', keys).execute();
      for (const record of records) {
        const row = rows.find((r) => r[target.idField] === record[relation.field]);
        record[name] = row ? presentRecord(target, row) : null;
      }
    }
  }
}

/** Checks that every id-holding field names an existing record: a 400 naming the field otherwise. */
export async function checkReferences(db: SystemDb, def: RecordDefinition, columns: Row, prefix = ''): Promise<void> {
  const conn = untyped(db);
  for (const [name, rule] of Object.entries(def.fields)) {
    const value = columns[name];
    if (rule.references === undefined || value === undefined || value === null) continue;
    const found = await conn.selectFrom(REFERENCED_TABLES[rule.references]).select('id').where('id', '=', value).executeTakeFirst();
    const field = prefix ? `${prefix}.${name}` : name;
    if (!found) throw new BadRequestError(`Field '${field}' refers to no ${rule.references} with id ${String(value)}.`, { field });
  }
}

/** The audit columns a record has, for a create or an update. */
function auditColumns(def: RecordDefinition, audit: { now: string; userId: number | null }, create: boolean): Row {
  const columns: Row = {};
  if (def.readOnly.includes('created_date'))
    Object.assign(columns, create ? { created_date: audit.now, last_modified_date: audit.now } : { last_modified_date: audit.now });
  if (def.readOnly.includes('created_by_id'))
    Object.assign(
      columns,
      create ? { created_by_id: audit.userId, last_modified_by_id: audit.userId } : { last_modified_by_id: audit.userId },
    );
  return columns;
}

/** A has-one child: the given record replaces the one there is (null or none removes it). */
async function writeOne(
  db: SystemDb,
  relation: RelationDefinition,
  parentKey: unknown,
  child: Row | undefined,
  at: string,
  audit: { now: string; userId: number | null },
): Promise<void> {
  const conn = untyped(db);
  const target = relation.target;
  const existing: Row | undefined = await conn
    .selectFrom(target.table)
    .selectAll()
    .where(relation.field, '=', parentKey)
    .executeTakeFirst();
  if (child === undefined) {
    if (existing) await conn.deleteFrom(target.table).where(target.idField, '=', existing[target.idField]).execute();
    return;
  }
  const columns = storedColumns(target, child);
  delete columns[target.idField];
  columns[relation.field] = parentKey;
  await checkReferences(db, target, columns, at);
  if (existing) {
    await conn
      .updateTable(target.table)
      .set({ ...columns, ...auditColumns(target, audit, false) })
      .where(target.idField, '=', existing[target.idField])
      .execute();
  } else {
    await conn
      .insertInto(target.table)
      .values({ ...columns, ...auditColumns(target, audit, true) })
      .execute();
  }
}

/** The advisory lock class of lookup names on PostgreSQL (the second key is the name's hash). */
const LOOKUP_NAME_LOCK = 0x6c6b7570;

/**
 * Lookup names are unique within their scope (global, or one app, role or user). No index can say
 * so (a global lookup's scope columns are null, and nulls are never equal), so the check runs in
 * the write's transaction while it holds the name: on PostgreSQL an advisory lock on the name until
 * the transaction ends; on MySQL/MariaDB a locking read, which also sees rows committed since the
 * transaction began (two creates that lock the same gap: one is the deadlock's victim, and its
 * create runs again); SQLite writes one transaction at a time. Without it, two creates of one name
 * at once both found it free and both stored it.
 */
export async function assertLookupNameFree(db: SystemDb, row: Row, id: unknown, field: string): Promise<void> {
  const { adapter } = db.getExecutor();
  if (adapter instanceof PostgresAdapter)
    await sql`select pg_advisory_xact_lock(${LOOKUP_NAME_LOCK}, hashtext(${String(row.name)}))`.execute(db);
  let query = db.selectFrom('lookup').select('id').where('name', '=', String(row.name));
  if (adapter instanceof MysqlAdapter) query = query.forUpdate();
  for (const scope of ['app_id', 'role_id', 'user_id'] as const) {
    const value = row[scope];
    query = value === null || value === undefined ? query.where(scope, 'is', null) : query.where(scope, '=', Number(value));
  }
  if (id !== undefined) query = query.where('id', '!=', Number(id));
  if (await query.executeTakeFirst()) throw new ConflictError(`Lookup name '${String(row.name)}' already exists in this scope.`, { field });
}

/**
 * Checks the parent a child moves to (its foreign key set to another record of the resource):
 * throws unless the caller may change that record's children through this resource.
 */
export type MoveCheck = (parentKey: unknown, field: string) => Promise<void>;

/** Runs the has-many children of one parent record (already validated) against the database. */
export async function writeNested(
  db: SystemDb,
  def: RecordDefinition,
  parentKey: unknown,
  nested: Record<string, Row[]>,
  audit: { now: string; userId: number | null },
  checkMove: MoveCheck,
): Promise<void> {
  const conn = untyped(db);
  for (const [name, children] of Object.entries(nested)) {
    const relation = def.relations[name];
    const target = relation.target;
    if (relation.kind === 'has_one') {
      await writeOne(db, relation, parentKey, children[0], name, audit);
      continue;
    }
    for (const [index, child] of children.entries()) {
      const at = `${name}[${index}]`;
      const id = child[target.idField];
      const columns = storedColumns(target, child);
      delete columns[target.idField];
      if (id !== undefined) {
        const existing: Row | undefined = isStoredId(id)
          ? await conn.selectFrom(target.table).selectAll().where(target.idField, '=', id).executeTakeFirst()
          : undefined;
        // Another record's child (or a global lookup) is not found here: never changed, moved or deleted through this parent.
        if (!existing || !sameKey(existing[relation.field], parentKey))
          throw new NotFoundError(coreMessages.recordNotFound.text(String(id)), { field: `${at}.${target.idField}` });
        if (Object.hasOwn(child, relation.field) && child[relation.field] === null) {
          await conn.deleteFrom(target.table).where(target.idField, '=', id).execute();
          continue;
        }
        if (!Object.hasOwn(child, relation.field)) columns[relation.field] = parentKey;
        else if (!sameKey(child[relation.field], parentKey)) await checkMove(child[relation.field], `${at}.${relation.field}`);
        await checkReferences(db, target, columns, at);
        if (target.table === 'lookup') await assertLookupNameFree(db, { ...existing, ...columns }, id, `${at}.name`);
        Object.assign(columns, auditColumns(target, audit, false));
        await guardUnique(() => conn.updateTable(target.table).set(columns).where(target.idField, '=', id).execute(), target, at);
      } else {
        columns[relation.field] = parentKey;
        await checkReferences(db, target, columns, at);
        if (target.table === 'lookup') await assertLookupNameFree(db, columns, undefined, `${at}.name`);
        Object.assign(columns, auditColumns(target, audit, true));
        await guardUnique(() => conn.insertInto(target.table).values(columns).execute(), target, at);
      }
    }
  }
}

/** Whether a value can be a child's id (an integer column; PostgreSQL refuses to compare anything else with it). */
function isStoredId(value: unknown): boolean {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  return /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_INTEGER;
}

/** Two ids are the same record's (a numeric string and its number alike). */
function sameKey(a: unknown, b: unknown): boolean {
  return a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b);
}

/** A unique violation of a nested record: 409 (one role per user and app). */
async function guardUnique(write: () => Promise<unknown>, target: RecordDefinition, at: string): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error)) {
      const message =
        target.table === 'user_to_app_to_role'
          ? 'Multiple user-to-app-to-role assignment. You can only have a single user-to-app-to-role assignment per app.'
          : `Duplicate ${target.label} record.`;
      throw new ConflictError(message, { field: at });
    }
    throw error;
  }
}
