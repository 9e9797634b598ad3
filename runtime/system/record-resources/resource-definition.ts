/**
 * How a model-backed system resource (admin, user, app, role, service, cors, lookup,
 * email_template, custom) and its nested records look: one JSON Schema per writable field (the
 * single source of input validation and of the OpenAPI schemas), the read-only and ignored fields
 * clients send back, and the relationships that `related=` embeds and nested writes change.
 */

/** A JSON Schema (draft 7, the subset ajv and OpenAPI 3.0 share). */
export type JsonSchema = Record<string, unknown>;

export interface FieldRule {
  schema: JsonSchema;
  /** Must be given on create. */
  required?: boolean;
  /** Accepted on input, never shown (passwords). */
  writeOnly?: boolean;
  /** The resource whose id this field holds: checked on write (400 naming the field). */
  references?: 'app' | 'role' | 'service' | 'user';
  /** Stored as JSON text. */
  json?: boolean;
  /** An empty string means null (unique fields clients send as "" when left blank). */
  emptyIsNull?: boolean;
  /** Null means the empty string (optional texts kept in NOT NULL columns; the reference takes null for them). */
  nullIsEmpty?: boolean;
}

export interface RelationDefinition {
  /**
   * has_many: child records pointing at this one (an array); has_one: at most one such child (an
   * object or null); belongs_to: the record this one points at.
   */
  kind: 'has_many' | 'has_one' | 'belongs_to';
  /** The related record definition. */
  target: RecordDefinition;
  /** has_many, has_one: the child's field holding this record's id; belongs_to: this record's field. */
  field: string;
  /** Whether nested writes may create, change and delete related records. */
  writable: boolean;
}

export interface RecordDefinition {
  /** System table. */
  table: string;
  /** Display names, for messages and OpenAPI component names. */
  label: string;
  plural: string;
  /** Primary key field. */
  idField: string;
  fields: Readonly<Record<string, FieldRule>>;
  /** Shown, accepted on input and ignored there (clients send whole records back). */
  readOnly: readonly string[];
  /** Fields of the reference platform's record that Portico does not keep: accepted and ignored. */
  ignored: readonly string[];
  /** Columns never shown. */
  hidden: readonly string[];
  relations: Readonly<Record<string, RelationDefinition>>;
}

/** A system resource served at /system/{name}. */
export interface ResourceDefinition extends RecordDefinition {
  name: string;
  /** One line for the documentation. */
  summary: string;
  /** What clients may do besides reading: everything (absent), or only delete (records the platform writes, as logs). */
  writes?: 'delete';
}

export const AUDIT_FIELDS = ['created_date', 'last_modified_date', 'created_by_id', 'last_modified_by_id'] as const;

/** Read-only fields every audited record has. */
export const READ_ONLY_AUDITED = ['id', ...AUDIT_FIELDS] as const;

/** A field's rule: its JSON Schema and what else holds for it. */
export const field = (schema: JsonSchema, extra: Omit<FieldRule, 'schema'> = {}): FieldRule => ({ schema, ...extra });

/** A flag: JSON booleans, and the 0/1 some clients send. */
export const flag: JsonSchema = { type: ['boolean', 'integer'], enum: [true, false, 0, 1] };

/** The largest id or count a system table holds: its integer columns are 32-bit on PostgreSQL and MySQL. */
export const MAX_INTEGER = 2_147_483_647;

/** The id of another record. */
export const recordId: JsonSchema = { type: 'integer', minimum: 1, maximum: MAX_INTEGER };

/** The id of another record, or null. */
export const nullableId: JsonSchema = { ...recordId, type: ['integer', 'null'] };

/** Children pointing at the record through `field` (an array under `related=`). */
export const hasMany = (target: RecordDefinition, field: string, writable: boolean): RelationDefinition => ({
  kind: 'has_many',
  target,
  field,
  writable,
});

/** At most one child pointing at the record through `field`. */
export const hasOne = (target: RecordDefinition, field: string, writable: boolean): RelationDefinition => ({
  kind: 'has_one',
  target,
  field,
  writable,
});

/** The record this one's `field` points at (never written through). */
export const belongsTo = (target: RecordDefinition, field: string): RelationDefinition => ({
  kind: 'belongs_to',
  target,
  field,
  writable: false,
});

type RecordParts = Pick<RecordDefinition, 'table' | 'label' | 'plural' | 'fields'> & Partial<RecordDefinition>;

/** A record definition: key `id`, the audited read-only fields, nothing ignored, hidden or related, unless given. */
export const record = (parts: RecordParts): RecordDefinition => ({
  idField: 'id',
  readOnly: [...READ_ONLY_AUDITED],
  ignored: [],
  hidden: [],
  relations: {},
  ...parts,
});

/** A system resource served at /system/{name}: a record definition with a name and a summary. */
export const resource = (parts: RecordParts & Pick<ResourceDefinition, 'name' | 'summary' | 'writes'>): ResourceDefinition => ({
  ...record(parts),
  name: parts.name,
  summary: parts.summary,
  ...(parts.writes === undefined ? {} : { writes: parts.writes }),
});
