/**
 * Everything about a table that requests would otherwise recompute: field lookups (exact and
 * case-insensitive), select lists aliased to API names, encoders and decoders, required fields.
 * Built once per table and schema version (see live-schema.ts).
 */
import { sql, type AliasedRawBuilder, type CompiledQuery, type RawBuilder } from 'kysely';
import { BadRequestError } from '../../../core/errors.js';
import type { FieldModel, SqlDialect, TableModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import type { AggregateFunction } from './aggregates.js';
import { tableSource } from './table-source.js';
import { decoderFor, encoderFor, uuidForms, type Decoder, type Encoder, type UuidForms } from './value-codec.js';
import { storedUuidCase, type StoredCase } from './stored-uuid-case.js';
import { sqlMessages } from '../sql-messages.js';

export interface FieldPlan {
  readonly field: FieldModel;
  /** API name (the key in records). */
  readonly name: string;
  /** The column, for conditions, ordering and SET lists. */
  readonly ref: RawBuilder<unknown>;
  /** The column selected under `key`. */
  readonly column: AliasedRawBuilder<unknown, string>;
  /**
   * The key of the column in the rows drivers return: the API name, or a stand-in for a name that
   * drivers cannot make an own property of (`__proto__`: better-sqlite3 sets the row's prototype,
   * mysql2 refuses the whole result). decodeRows puts the value under the API name.
   */
  readonly key: string;
  readonly encode: Encoder;
  readonly decode: Decoder | null;
  /** Set where a key value must match the stored text in either case (SQLite's uuids; value-codec.ts). */
  readonly forms: UuidForms | null;
  /** Set with `forms`: how a value is written so that a uuid stored in upper case keeps its text (stored-uuid-case.ts). */
  readonly storedCase: StoredCase | null;
  /** NOT NULL, no default, neither generated nor computed: must be given on create. */
  readonly required: boolean;
  /** Filled by the database clock: on create only, or on create and update. */
  readonly clock: 'create' | 'update' | null;
  /** Auto-increment keys are never written by updates. */
  readonly generated: boolean;
  /** A generated column (the database computes it): never written, a value sent is ignored. */
  readonly computed: boolean;
  /** Set when the plan is an aggregate of grouped reads (aggregates.ts), not a column. */
  readonly aggregate: AggregateFunction | null;
}

/** Columns to read and how to decode them. */
export interface Selection {
  readonly fields: readonly FieldPlan[];
  readonly columns: readonly AliasedRawBuilder<unknown, string>[];
  readonly decoders: readonly FieldPlan[];
  /** Fields selected under a stand-in key (FieldPlan.key); usually none. */
  readonly renamed: readonly FieldPlan[];
}

/** Names a row object can not hold as plain keys (Object.prototype's accessors; mysql2 refuses them as column names). */
const UNSAFE_KEYS = new Set(['__proto__', '__definegetter__', '__definesetter__', '__lookupgetter__', '__lookupsetter__']);

/** The key a field's column is selected under (FieldPlan.key). */
export function rowKey(name: string): string {
  return UNSAFE_KEYS.has(name.toLowerCase()) ? `portico$${name}` : name;
}

export interface TablePlan {
  readonly table: TableModel;
  readonly dialect: SqlDialect;
  /** Table reference for Kysely (`schema.table` when the database has schemas). */
  readonly source: string;
  readonly fields: readonly FieldPlan[];
  readonly primaryKey: readonly FieldPlan[];
  readonly required: readonly FieldPlan[];
  readonly all: Selection;
  /** What writes return by default: the primary key, or every field of a table without one. */
  readonly keys: Selection;
  /** A field by API name, exact first, then case-insensitively. */
  field(name: string): FieldPlan | undefined;
  /** A value made once per table plan (e.g. a compiled query), under `key`. */
  memo<T>(key: string, make: () => T): T;
  /** The compiled statements of single-record writes, by their shape (record-writer.ts walks it). */
  readonly writes: StatementTree;
}

/**
 * Statements found by a walk of keys the write already holds (column names, fields), one Map per
 * step: a text key would be built and hashed afresh on every write.
 */
export interface StatementNode {
  readonly next: Map<unknown, StatementNode>;
  compiled: CompiledQuery | undefined;
}

export interface StatementTree {
  readonly root: StatementNode;
  /** How many statements it holds (bounded as memos are). */
  size: number;
}

/** A select list over the given fields. */
export function selectionOf(fields: readonly FieldPlan[]): Selection {
  return {
    fields,
    columns: fields.map((f) => f.column),
    decoders: fields.filter((f) => f.decode !== null && f.key === f.name),
    renamed: fields.filter((f) => f.key !== f.name),
  };
}

/** Decodes rows in place (they are fresh objects from the driver) and returns them. */
export function decodeRows(rows: Record<string, unknown>[], selection: Selection): Record<string, unknown>[] {
  const decoders = selection.decoders;
  if (selection.renamed.length > 0) renameKeys(rows, selection.renamed);
  if (decoders.length === 0) return rows;
  for (const row of rows) {
    for (const f of decoders) row[f.name] = (f.decode as Decoder)(row[f.name]);
  }
  return rows;
}

/** Moves (and decodes) the values of fields selected under a stand-in key to own properties named as the fields. */
function renameKeys(rows: Record<string, unknown>[], renamed: readonly FieldPlan[]): void {
  for (const row of rows) {
    for (const f of renamed) {
      if (!Object.hasOwn(row, f.key)) continue;
      const value = row[f.key];
      delete row[f.key];
      Object.defineProperty(row, f.name, {
        value: f.decode === null ? value : f.decode(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
}

function fieldPlan(field: FieldModel, dialect: SqlDialectModule, tables: (name: string) => TableModel | undefined): FieldPlan {
  const generated = field.autoIncrement || field.type === 'id' || field.type === 'bigid';
  const clock = field.type === 'timestamp_on_create' ? 'create' : field.type === 'timestamp_on_update' ? 'update' : null;
  return {
    field,
    name: field.name,
    ref: sql.id(field.sourceName),
    column: sql.id(field.sourceName).as(rowKey(field.name)),
    key: rowKey(field.name),
    encode: encoderFor(field, dialect),
    decode: decoderFor(field, dialect),
    forms: uuidForms(field, dialect.dialect),
    storedCase: uuidForms(field, dialect.dialect) === null ? null : storedUuidCase(field, tables),
    required: !field.allowNull && field.default === null && !generated && clock === null && field.computed !== true,
    clock,
    generated,
    computed: field.computed === true,
    aggregate: null,
  };
}

/** Most values one table plan keeps (compiled statements of distinct shapes), in memos and in its write statements each. */
export const MAX_MEMOS = 256;

/** `tables` finds the tables foreign keys point at, by name (SQLite's uuid keys are written as their parents hold them). */
export function buildTablePlan(
  table: TableModel,
  dialect: SqlDialectModule,
  tables: (name: string) => TableModel | undefined = () => undefined,
): TablePlan {
  const fields = table.fields.map((field) => fieldPlan(field, dialect, tables));
  const exact = new Map(fields.map((f) => [f.name, f]));
  const folded = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const primaryKey = table.primaryKey.map((name) => exact.get(name) as FieldPlan);
  const all = selectionOf(fields);
  const memos = new Map<string, unknown>();
  return {
    table,
    dialect: dialect.dialect,
    source: tableSource(table.sourceSchema, table.sourceName),
    fields,
    primaryKey,
    required: fields.filter((f) => f.required),
    all,
    keys: primaryKey.length > 0 ? selectionOf(primaryKey) : all,
    field: (name) => exact.get(name) ?? folded.get(name.toLowerCase()),
    memo<T>(key: string, make: () => T): T {
      const found = memos.get(key);
      if (found !== undefined) return found as T;
      const made = make();
      // Keys come from what clients send (which columns a write sets): keep the cache bounded.
      if (memos.size < MAX_MEMOS) memos.set(key, made);
      return made;
    },
    writes: { root: { next: new Map(), compiled: undefined }, size: 0 },
  };
}

/** The fields of a `fields` parameter; null means all. Unknown names are a 400 naming them. */
export function selectFields(plan: TablePlan, names: readonly string[] | null): Selection {
  if (names === null) return plan.all;
  return selectionOf(
    names.map((name) => {
      const f = plan.field(name);
      if (f === undefined) throw sqlMessages.invalidField.error(name);
      return f;
    }),
  );
}

/**
 * The identifying fields: `id_field` when given, else the primary key. A table without either
 * cannot address single records.
 */
export function identifierFields(plan: TablePlan, idField: readonly string[] | null): FieldPlan[] {
  if (idField !== null) {
    return idField.map((name) => {
      const f = plan.field(name);
      if (f === undefined)
        throw new BadRequestError(`Identifying field(s) could not be determined: '${name}' is not a field of table '${plan.table.name}'.`, {
          field: name,
        });
      return f;
    });
  }
  if (plan.primaryKey.length === 0) throw new BadRequestError(`No valid identifier found for table '${plan.table.name}'.`);
  return [...plan.primaryKey];
}
