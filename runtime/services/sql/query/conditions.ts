/** WHERE conditions on identifying fields, as Kysely expressions with bound values. */
import { expressionBuilder, type Expression, type SqlBool } from 'kysely';
import { BadRequestError } from '../../../core/errors.js';
import type { FieldPlan } from './table-plan.js';
import { sqlMessages } from '../sql-messages.js';
import { isBeyondColumn, matchText } from './value-codec.js';

export type Condition = Expression<SqlBool>;

const eb = expressionBuilder<any, any>();

/** `a = ?`, or `a in (?, ?)` where the stored text may be in either case (SQLite's uuids). */
function equals(f: FieldPlan, value: unknown): Condition {
  return f.forms === null ? eb(f.ref, '=', value) : eb(f.ref, 'in', f.forms(value));
}

/** `a = ? and b = ?` for one key (values already encoded, in field order). */
export function keyCondition(fields: readonly FieldPlan[], values: readonly unknown[]): Condition {
  if (fields.length === 1) return equals(fields[0], values[0]);
  return eb.and(fields.map((f, i) => equals(f, values[i])));
}

/** The values keyCondition binds, in its order (for statements compiled once and run with other keys). */
export function keyParameters(fields: readonly FieldPlan[], values: readonly unknown[]): unknown[] {
  // Every get, patch and delete by id comes here: a plain loop, the values as they are when no field has forms.
  let parameters: unknown[] | null = null;
  for (let i = 0; i < fields.length; i++) {
    const forms = fields[i].forms;
    if (forms === null && parameters === null) continue;
    parameters ??= values.slice(0, i);
    if (forms === null) parameters.push(values[i]);
    else parameters.push(...forms(values[i]));
  }
  return parameters ?? (values as unknown[]);
}

/** `a = ? and b is null` for the values of a row just written (values already encoded, in field order). */
export function valuesCondition(fields: readonly FieldPlan[], values: readonly unknown[]): Condition {
  return eb.and(fields.map((f, i) => (values[i] === null ? eb(f.ref, 'is', null) : equals(f, values[i]))));
}

/** Any of several keys: `a in (...)` for single-field keys. */
export function keysCondition(fields: readonly FieldPlan[], keys: readonly (readonly unknown[])[]): Condition {
  if (fields.length === 1) {
    const f = fields[0];
    return eb(
      f.ref,
      'in',
      keys.flatMap((key) => (f.forms === null ? [key[0]] : f.forms(key[0]))),
    );
  }
  return eb.or(keys.map((key) => keyCondition(fields, key)));
}

/** A key as rows are matched to it in memory: uuids in either case alike. */
export function keyMatch(fields: readonly FieldPlan[], key: readonly unknown[]): string {
  return fields.map((f, i) => matchText(f.field, key[i])).join(',');
}

/** Every given condition (null entries skipped); null when there are none. */
export function allOf(conditions: readonly (Condition | null)[]): Condition | null {
  const present = conditions.filter((c): c is Condition => c !== null);
  if (present.length === 0) return null;
  return present.length === 1 ? present[0] : eb.and(present);
}

/**
 * The encoded key of a `/{id}` segment or one `ids` item: a composite key is its values
 * separated by commas, in key order.
 */
export function parseKey(fields: readonly FieldPlan[], text: string): unknown[] {
  // Every get, patch and delete by id comes here: one field's key without splitting or mapping.
  if (fields.length === 1) return [encodeKeyPart(fields[0], text)];
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length !== fields.length) {
    throw new BadRequestError(
      `Identifier '${text}' must give ${fields.length} values (${fields.map((f) => f.name).join(', ')}) separated by commas.`,
    );
  }
  return fields.map((f, i) => encodeKeyPart(f, parts[i]));
}

/**
 * One value of a key. A value its column cannot hold (a number beyond PostgreSQL's int4, a text
 * longer than a MySQL varchar) is the key of no record, as the databases whose column can find
 * none: NULL equals nothing, so the request answers 404 (or its batch error) on every database.
 */
function encodeKeyPart(f: FieldPlan, text: string): unknown {
  try {
    return f.encode(text);
  } catch (error) {
    if (isBeyondColumn(error)) return null;
    throw error;
  }
}

/** The encoded key of a record, or null when it lacks an identifying field. */
export function findRecordKey(fields: readonly FieldPlan[], record: Record<string, unknown>): unknown[] | null {
  const key: unknown[] = [];
  for (const f of fields) {
    const value = record[f.name] ?? findCaseInsensitive(record, f.name);
    if (value === undefined || value === null) return null;
    key.push(f.encode(value));
  }
  return key;
}

/** The encoded key of a record, which must hold every identifying field. */
export function recordKey(fields: readonly FieldPlan[], record: Record<string, unknown>, index: number): unknown[] {
  const key = findRecordKey(fields, record);
  if (key === null)
    throw sqlMessages.idFieldsMissing.error(
      index,
      fields.map((f) => f.name),
    );
  return key;
}

function findCaseInsensitive(record: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) if (key.toLowerCase() === lower) return record[key];
  return undefined;
}

/** A key as the text clients used (`5`, `a,b`), for messages. */
export function keyText(key: readonly unknown[]): string {
  return key.map((value) => String(value)).join(',');
}
