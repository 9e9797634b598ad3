/**
 * The records of a table write as its pre_process hooks' types promise them (generator
 * create-types-file.ts): a client's `"5"` for an integer column is 5, `"true"` for a boolean true,
 * `7` for a text column `"7"`, so that a typed hook's `record.quantity + 1` is arithmetic. A value
 * that is not of its column's type is converted as the write's encoder reads it; one that cannot be
 * is the encoder's 400 naming the field, before any hook runs. Values already of the promised type
 * are left as they are (not checked twice: the write checks and encodes what the hooks return).
 * Keys that are no column (related records, `ids`, `filter`) stay as sent.
 */
import { BatchError, PorticoError } from '../../../core/errors.js';
import type { FieldModel } from '../../../model/platform-model.js';
import type { HookRecords } from '../../service-kind.js';
import { sqlMessages, type RecordAction } from '../sql-messages.js';
import { decodeBoolean, isExactNumber, type Encoder } from './value-codec.js';
import type { FieldPlan, TablePlan } from './table-plan.js';
import { INTEGER_TYPES } from '../schema/native-types.js';

/** A non-null value as the generated types promise it; the encoder's error for one that is not of the column's type. */
export type Promised = (value: unknown) => unknown;

const promisedValues = new WeakMap<FieldPlan, Promised>();

/** The promise of a field's type, from its write encoder. */
function promisedFor(field: FieldModel, encode: Encoder): Promised {
  if (INTEGER_TYPES.has(field.type)) {
    // Beyond 2^53 as its digits (the types' `number | string`), as exact as the write keeps it.
    return (value) => {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      const encoded = encode(value);
      return typeof encoded === 'bigint' ? encoded.toString() : encoded;
    };
  }
  switch (field.type) {
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : decodeBoolean(encode(value)));
    case 'float':
    case 'double':
      return (value) => (typeof value === 'number' ? value : Number(encode(value)));
    case 'decimal':
      // The exact text rounded to the scale, as a number when a double holds it exactly (always, for
      // 15 digits or fewer), else as that text: the types' `number | string` of a wide decimal (field-rules isWideDecimal).
      return (value) => {
        if (typeof value === 'number') return value;
        const text = String(encode(value));
        return isExactNumber(text) ? Number(text) : text;
      };
    case 'json':
      return (value) => value;
    case 'array':
      return (value) => {
        encode(value);
        return value;
      };
    // Dates and times, uuids, base64 binary, money and arrays: text (or an array) the write checks
    // here already, so that a hook parsing a date never gets one that is none; kept as sent.
    case 'date':
    case 'time':
    case 'datetime':
    case 'timestamp':
    case 'timestamp_on_create':
    case 'timestamp_on_update':
    case 'binary':
    case 'money':
    case 'uuid':
      return (value) => {
        encode(value);
        return typeof value === 'string' || Array.isArray(value) ? value : String(value);
      };
    default:
      return (value) => (typeof value === 'string' ? value : encode(value));
  }
}

function promised(f: FieldPlan): Promised {
  let made = promisedValues.get(f);
  if (made === undefined) {
    made = promisedFor(f.field, f.encode);
    promisedValues.set(f, made);
  }
  return made;
}

/** One record's column values as promised (a new object when one changed); anything but an object as it is. */
function promisedRecord(plan: TablePlan, record: unknown): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  let copy: Record<string, unknown> | null = null;
  const source = record as Record<string, unknown>;
  for (const key in source) {
    const value = source[key];
    if (value === null || value === undefined) continue;
    const f = plan.field(key);
    if (f === undefined || f.aggregate !== null) continue;
    const converted = promised(f)(value);
    if (converted !== value) {
      copy ??= { ...source };
      copy[key] = converted;
    }
  }
  return copy ?? record;
}

/**
 * The records of a write to the plan's table, each with its column values as the hooks' types
 * promise them. A record with a value that cannot be is refused with the write's error; of a batch,
 * every such record is named as the batch names failed records, and none is written (the hooks
 * see all of a batch or nothing). With `continue` (reference 2.3: each record succeeds or fails on
 * its own) such records are left out of the hooks' records and returned as refused instead.
 */
export function promisedRecords(plan: TablePlan, records: readonly unknown[], action: RecordAction, keepGoing = false): HookRecords {
  const errors: Array<{ index: number; error: PorticoError }> = [];
  const converted = records.map((record, index) => {
    try {
      return promisedRecord(plan, record);
    } catch (error) {
      if (!(error instanceof PorticoError) || records.length === 1) throw error;
      errors.push({ index, error });
      return record;
    }
  });
  if (errors.length > 0 && keepGoing) {
    const refused = new Set(errors.map(({ index }) => index));
    return {
      records: converted.filter((_, index) => !refused.has(index)),
      refused: errors.map(({ index }) => ({ index, record: records[index] })),
    };
  }
  if (errors.length > 0) {
    throw new BatchError(
      sqlMessages.batch.text(action, false),
      errors.map(({ index, error }) => ({ index, message: error.message, code: error.status })),
    );
  }
  // The same array when nothing changed: the body then goes to the write as it came.
  return { records: converted.some((record, i) => record !== records[i]) ? converted : (records as unknown[]), refused: [] };
}
