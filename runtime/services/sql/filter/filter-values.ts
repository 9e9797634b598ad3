/**
 * Filter values: resolving `:name` placeholders and casting text to the column's type, so that
 * what gets bound matches what the database compares (and bad input is a 400, not a driver error).
 */
import type { AbstractType, FieldModel, SqlDialect } from '../../../model/platform-model.js';
import { fitsInt64Column } from '../../../core/request-limits.js';
import { isUnsigned } from '../../../model/field-rules.js';
import { INTEGER_TYPES } from '../schema/native-types.js';
import { DATE_TIME_TYPES, dateTimeText } from '../query/date-time-text.js';
import { binaryEncoder, canonicalUuid } from '../query/value-codec.js';
import type { FilterValue } from './filter-parser.js';
import { sqlMessages } from '../sql-messages.js';

/** What gets bound as a parameter. */
export type BoundValue = string | number | boolean | Uint8Array;

const NUMBER_TYPES = new Set<AbstractType>(['float', 'double', 'decimal', 'money']);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEANS = new Map([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
  ['yes', true],
  ['no', false],
]);

/**
 * The texts a value stands for: a literal's own text, or its parameter's value as text (null when
 * the parameter is null). A parameter holding an array stands for several values where `list` is set.
 */
export function valueTexts(value: FilterValue, params: Record<string, unknown> | undefined, list: boolean): Array<string | null> {
  if (value.kind === 'literal') return [value.text];
  const given = params ?? {};
  const key = [`:${value.name}`, value.name].find((name) => Object.hasOwn(given, name));
  if (key === undefined) throw sqlMessages.missingFilterParam.error(value.name, value.position);
  const raw = given[key];
  const items = list && Array.isArray(raw) ? raw : [raw];
  return items.map((item: unknown) => {
    if (item === null) return null;
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean' || typeof item === 'bigint') return String(item);
    throw sqlMessages.unusableFilterParam.error(
      value.name,
      list ? 'must be a scalar or a list of scalars' : 'must be a string, number, boolean or null',
      value.position,
    );
  });
}

/**
 * Casts a value's text to what the column compares with: integers and numbers must parse,
 * booleans bind as 1/0 (sqlite, mysql) or true/false (postgres), everything else binds as written.
 * `label` names the field in errors.
 */
export function castValue(text: string, field: FieldModel, label: string, dialect: SqlDialect, position: number): BoundValue {
  const trimmed = text.trim();
  if (INTEGER_TYPES.has(field.type)) {
    // Beyond 64 bits (an unsigned column's 2^64 - 1) no column holds the value; drivers would fail to bind it.
    if (!INTEGER.test(trimmed) || !fitsInt64Column(trimmed, isUnsigned(field)))
      throw sqlMessages.invalidValueOfType.error(label, 'integer', position);
    const number = Number(trimmed);
    // Beyond 2^53 a JS number would round; the database converts the exact text itself.
    return Number.isSafeInteger(number) ? number : trimmed.replace(/^\+/, '');
  }
  // PostgreSQL's money is read formatted (`$1,234.50`): compared as that text, PostgreSQL parses it.
  if (field.type === 'money' && dialect === 'postgres' && /\d/.test(trimmed) && !NUMBER.test(trimmed)) return trimmed;
  if (NUMBER_TYPES.has(field.type)) {
    const number = Number(trimmed);
    // Beyond a double's range the text would bind as Infinity, which no column holds.
    if (!NUMBER.test(trimmed) || !Number.isFinite(number)) throw sqlMessages.invalidValueOfType.error(label, 'number', position);
    return number;
  }
  if (field.type === 'boolean') {
    const flag = BOOLEANS.get(trimmed.toLowerCase());
    if (flag === undefined) throw sqlMessages.invalidValueOfType.error(label, 'boolean', position);
    return dialect === 'postgres' ? flag : flag ? 1 : 0;
  }
  // Binary values are read as base64: compared as the bytes that text stands for.
  if (field.type === 'binary') return binaryEncoder(label)(text) as Uint8Array;
  if (field.type === 'uuid') {
    // As uuids are written (value-codec.ts): PostgreSQL would refuse other text, SQLite and MySQL find nothing.
    const uuid = canonicalUuid(text);
    if (uuid === null) throw sqlMessages.valueRefused.error('not valid for the field type', label);
    return uuid;
  }
  if (DATE_TIME_TYPES.has(field.type)) {
    // Compared as the values were written (SQLite compares the text itself), in the forms writes take.
    const written = dateTimeText(text, field.type, dialect);
    if (written === 'invalid') throw sqlMessages.valueRefused.error('not a valid date or time', label);
    return written;
  }
  return text;
}

/** The escape character of contains/starts with/ends with patterns: not special in any dialect's string literals. */
export const LIKE_ESCAPE = '!';

/** The value as a LIKE pattern matching it literally, with the wildcards the mode adds. */
export function literalPattern(text: string, mode: 'contains' | 'starts_with' | 'ends_with'): string {
  const escaped = text.replace(/[!%_]/g, (ch) => LIKE_ESCAPE + ch);
  if (mode === 'contains') return `%${escaped}%`;
  return mode === 'starts_with' ? `${escaped}%` : `%${escaped}`;
}
