/**
 * Record values between JSON and the database, per abstract type: write encoders validate and
 * convert (400 naming the field), read decoders give JSON types (booleans, base64 binary).
 * Encoders see non-null values only; nullability is checked by the writer.
 */
import { decodeBase64 } from '../../../core/base64.js';
import { isHeldByDouble, plainDecimal } from '../../../core/decimal-text.js';
import { fitsInt64Column } from '../../../core/request-limits.js';
import { isUnsigned, isWideDecimal } from '../../../model/field-rules.js';
import type { AbstractType, FieldModel, SqlDialect } from '../../../model/platform-model.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { INTEGER_TYPES, nativeTypeInfo } from '../schema/native-types.js';
import { dateTimeText } from './date-time-text.js';
import { BadRequestError } from '../../../core/errors.js';
import { coreMessages } from '../../../core/messages.js';
import { sqlMessages } from '../sql-messages.js';

export type Encoder = (value: unknown) => unknown;
export type Decoder = (value: unknown) => unknown;

const INTEGER_TEXT = /^[+-]?\d+$/;
/** Number text the numeric encoders take (the OpenAPI request schemas give it as a wide decimal's pattern). */
export const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** The texts a boolean field takes as true. */
export const TRUE_TEXT: ReadonlySet<string> = new Set(['true', '1', 'yes', 'on', 'y', 't']);
const FALSE_TEXT = new Set(['false', '0', 'no', 'off', 'n', 'f']);

/**
 * PostgreSQL's narrower integer columns, whose out-of-range error names no column: checked here,
 * so that the field is named as MySQL names it (SQLite's integers are all 64-bit).
 */
const POSTGRES_INTEGER_BITS: Record<string, number> = { integer: 32, int: 32, int4: 32, serial: 32, smallint: 16, int2: 16 };

/**
 * MySQL's narrower integer types (`int(11)`, `smallint unsigned`): checked here too, so that a
 * record with several bad values names the same field on MySQL as on PostgreSQL (the first in the
 * record), not the one MySQL refuses after every other value passed.
 */
const MYSQL_INTEGER_BITS: Record<string, number> = { tinyint: 8, smallint: 16, mediumint: 24, int: 32, integer: 32 };

/** The bits of a narrower integer column, or null for 64-bit ones (and SQLite's). */
function integerBits(field: FieldModel, dialect: SqlDialectModule): number | null {
  if (dialect.dialect === 'postgres') return POSTGRES_INTEGER_BITS[field.dbType] ?? null;
  if (dialect.dialect === 'mysql') return MYSQL_INTEGER_BITS[/^[a-z]+/i.exec(field.dbType)?.[0].toLowerCase() ?? ''] ?? null;
  return null;
}

/**
 * The errors of values a column cannot hold although they are of its type: an integer beyond a
 * narrower integer column (PostgreSQL's int4, int2), a text longer than the column.
 */
const beyondColumn = new WeakSet<object>();

/** The error, marked as one of a value its column cannot hold. */
function beyond<E extends object>(error: E): E {
  beyondColumn.add(error);
  return error;
}

/** Whether an encoder refused a value as one its column cannot hold (a key with it matches no record). */
export function isBeyondColumn(error: unknown): boolean {
  return typeof error === 'object' && error !== null && beyondColumn.has(error);
}

/**
 * Integers beyond 64 bits fit no column of any database (and drivers fail to bind them); an
 * unsigned column (MySQL) holds up to 2^64 - 1.
 */
function integerEncoder(name: string, bits: number | null = null, unsigned = false): Encoder {
  const outOfRange = () => sqlMessages.integerOutOfRange.error(name);
  const fitsInt64 = (text: string) => fitsInt64Column(text, unsigned);
  // [low, high) of a narrower column: signed, or 0 to 2^bits for an unsigned one.
  const low = bits === null ? null : unsigned ? 0 : -(2 ** (bits - 1));
  const high = bits === null ? null : unsigned ? 2 ** bits : 2 ** (bits - 1);
  const beyondBound = () => beyond(sqlMessages.valueRefused.error('out of range', name));
  return (value) => {
    if (typeof value === 'number' && Number.isInteger(value)) {
      if (!Number.isSafeInteger(value) && !fitsInt64(BigInt(value).toString())) throw outOfRange();
      if (low !== null && high !== null && (value >= high || value < low)) throw beyondBound();
      // Beyond 2^53 bound as its exact value: drivers write a number as its shortest text (2^63 as 9223372036854776000).
      return Number.isSafeInteger(value) ? value : BigInt(value);
    }
    if (typeof value === 'bigint') {
      if (!fitsInt64(value.toString())) throw outOfRange();
      return value;
    }
    if (typeof value === 'string' && INTEGER_TEXT.test(value.trim())) {
      const text = value.trim();
      if (!fitsInt64(text)) throw outOfRange();
      const n = Number(text);
      if (low !== null && high !== null && (n >= high || n < low)) throw beyondBound();
      return Number.isSafeInteger(n) ? n : BigInt(text);
    }
    throw sqlMessages.invalidValueOfType.error(name, 'integer');
  };
}

const DECIMAL_PARTS = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/;

/**
 * A number's text rounded to `scale` decimals, half away from zero, computed on its digits (1.005
 * is 1.01, as PostgreSQL and MySQL round it, where 1.005 as a double is 1.00499...); null when it
 * has no more decimals than that. SQLite would keep every digit in a decimal(10,2).
 */
function roundedToScale(text: string, scale: number): string | null {
  const parts = DECIMAL_PARTS.exec(text);
  if (parts === null) return null;
  const [, sign, whole, fraction, exponent = '0'] = parts;
  // Beyond any column's range either way (the range check refuses it).
  if (Math.abs(Number(exponent)) > 1000) return null;
  const digits = whole + fraction;
  const kept = whole.length + Number(exponent) + scale;
  if (kept >= digits.length || /^0*$/.test(digits.slice(Math.max(kept, 0)))) return null;
  const roundUp = kept >= 0 && digits[kept] >= '5';
  const units = (BigInt(kept > 0 ? digits.slice(0, kept) : '0') + (roundUp ? 1n : 0n)).toString().padStart(scale + 1, '0');
  const rounded = scale === 0 ? units : `${units.slice(0, -scale)}.${units.slice(-scale)}`;
  return /^[0.]*$/.test(rounded) || sign !== '-' ? rounded : `-${rounded}`;
}

/**
 * `digits`: how many digits an exact type holds before its decimal point (precision - scale), so
 * that every database refuses a larger value alike (SQLite would store it); `scale`: the digits
 * after it, to which PostgreSQL and MySQL round first (999.995 is 1000.00 in a decimal(5,2)).
 */
function numberEncoder(name: string, exact: boolean, digits: number | null = null, scale: number | null = null): Encoder {
  const bound = digits === null ? null : 10 ** digits - (scale === null ? 0 : 0.5 * 10 ** -scale);
  const inRange = <T>(value: T, number: number): T => {
    if (bound !== null && Math.abs(number) >= bound) throw sqlMessages.valueRefused.error('out of range', name);
    return value;
  };
  const round = (text: string) => (scale === null ? null : roundedToScale(text, scale));
  return (value) => {
    if (typeof value === 'number' && Number.isFinite(value)) {
      const rounded = exact ? round(String(value)) : null;
      return rounded === null ? inRange(value, value) : inRange(rounded, Number(rounded));
    }
    if (typeof value === 'string' && NUMBER_TEXT.test(value.trim())) {
      // Exact types keep their text, rounded to their scale, within a double's range: a larger
      // one is read back as a number (SQLite stored 1e400 as Infinity, PostgreSQL's numeric read as null).
      if (exact) {
        const text = round(value.trim()) ?? value.trim();
        if (!Number.isFinite(Number(text))) throw sqlMessages.valueRefused.error('out of range', name);
        return inRange(text, Number(text));
      }
      const number = Number(value.trim());
      if (Number.isFinite(number)) return number;
    }
    throw sqlMessages.invalidValueOfType.error(name, 'number');
  };
}

/**
 * PostgreSQL's money is read as its locale formats it (`$1,234.50`, `-$1.00`): text other than a
 * plain number goes to PostgreSQL as it came, for it to parse, so that a record read writes back.
 */
function formattedMoneyEncoder(number: Encoder): Encoder {
  return (value) => (typeof value === 'string' && /\d/.test(value) && !NUMBER_TEXT.test(value.trim()) ? value.trim() : number(value));
}

/** The largest single-precision float. */
export const FLOAT4_MAX = 3.4028234663852886e38;

/**
 * A float column of 4 bytes (PostgreSQL's real, MySQL's float) refuses a larger number, where
 * PostgreSQL's error names no field: refused here, naming it, and so is a number too small to be
 * anything but 0 in 4 bytes (1e-50: PostgreSQL refused it naming no field, MariaDB stored 0).
 * SQLite's floats all have 8 bytes.
 */
function singlePrecision(name: string, field: FieldModel, dialect: SqlDialectModule, number: Encoder): Encoder {
  const type = field.dbType.toLowerCase();
  const single =
    dialect.dialect === 'postgres' ? type === 'real' || type === 'float4' : dialect.dialect === 'mysql' && type.startsWith('float');
  if (!single) return number;
  return (value) => {
    const encoded = number(value);
    const n = Number(encoded);
    if (Math.abs(n) > FLOAT4_MAX || (n !== 0 && Math.fround(n) === 0)) throw sqlMessages.valueRefused.error('out of range', name);
    return encoded;
  };
}

/** Digits before the decimal point of a decimal field with a known precision, else null. */
function integerDigits(field: FieldModel): number | null {
  return field.precision !== null && field.precision > 0 ? field.precision - (field.scale ?? 0) : null;
}

function booleanEncoder(name: string, dialect: SqlDialectModule): Encoder {
  return (value) => {
    if (typeof value === 'boolean') return dialect.bindBoolean(value);
    if (value === 0 || value === 1) return dialect.bindBoolean(value === 1);
    const text = typeof value === 'string' ? value.trim().toLowerCase() : null;
    if (text !== null && TRUE_TEXT.has(text)) return dialect.bindBoolean(true);
    if (text !== null && FALSE_TEXT.has(text)) return dialect.bindBoolean(false);
    throw sqlMessages.invalidValueOfType.error(name, 'boolean');
  };
}

/** Characters (code points), as the databases count a column's length. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function stringEncoder(name: string, maxLength: number | null): Encoder {
  return (value) => {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') text = String(value);
    else throw coreMessages.fieldNotString.error(name);
    // Checked here, so that every database refuses alike (SQLite would store it, a lax MySQL cut it).
    if (maxLength !== null && text.length > maxLength && characters(text) > maxLength) {
      throw beyond(sqlMessages.valueTooLong.error(name, maxLength));
    }
    return text;
  };
}

/** A uuid's 32 hex digits, hyphenated as usual or not at all, optionally in braces (the forms PostgreSQL takes). */
const UUID_TEXT = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/**
 * A uuid in its canonical form (lower case, hyphenated), or null when the text is none: checked
 * here because SQLite and MySQL's char(36) keep any text (only PostgreSQL's and MariaDB's own uuid
 * types refuse it), and written alike so that they compare and return uuids as those do.
 */
export function canonicalUuid(text: string): string | null {
  const match = UUID_TEXT.exec(text.trim());
  return match === null ? null : match.slice(1).join('-').toLowerCase();
}

/** The texts a stored uuid may have that equal one value: its two canonical cases. */
export type UuidForms = (value: unknown) => [unknown, unknown];

/**
 * Where a uuid column compares exact text (SQLite: files written by other programs may hold upper
 * case, where this server writes lower case), a key or filter value matches both canonical forms
 * (`in (lower, upper)`, which an index on the column still serves, as lower(column) would not).
 * Null where the database matches any case itself: PostgreSQL's uuid type, MySQL's _ci char(36).
 */
export function uuidForms(field: FieldModel, dialect: SqlDialect): UuidForms | null {
  if (dialect !== 'sqlite' || field.type !== 'uuid') return null;
  return (value) => {
    const uuid = typeof value === 'string' ? canonicalUuid(value) : null;
    return uuid === null ? [value, value] : [uuid, uuid.toUpperCase()];
  };
}

const INEXACT_NUMBER_TYPES: ReadonlySet<AbstractType> = new Set<AbstractType>(['float', 'double', 'decimal']);

/**
 * A value as rows are matched in memory (ids, related records), the key as encoded against the
 * value as read: a uuid field's uuids in either case alike, a boolean's 1 (as SQLite and MySQL
 * bind it) as true, a number's `12.50` as 12.5, a date or time in the form it is read back
 * (`2024-01-31T08:30:00` as `2024-01-31 08:30:00`, which PostgreSQL binds as given). A key
 * differing only so from the row found was a 404.
 */
export function matchText(field: FieldModel, value: unknown): string {
  if (value === null || value === undefined) return String(value);
  switch (field.type) {
    case 'uuid':
      return typeof value === 'string' ? (canonicalUuid(value) ?? value) : String(value);
    case 'boolean':
      return String(decodeBoolean(value));
    case 'date':
    case 'time':
    case 'datetime':
    case 'timestamp': {
      // MySQL's rules: zoneless, and a time may be a duration.
      const text = typeof value === 'string' ? dateTimeText(value, field.type, 'mysql') : 'invalid';
      return text === 'invalid' ? String(value) : text;
    }
    default:
      if (
        INEXACT_NUMBER_TYPES.has(field.type) &&
        (typeof value === 'number' || (typeof value === 'string' && NUMBER_TEXT.test(value.trim())))
      ) {
        return String(Number(value));
      }
      return String(value);
  }
}

function uuidEncoder(name: string): Encoder {
  return (value) => {
    const uuid = typeof value === 'string' ? canonicalUuid(value) : null;
    if (uuid === null) throw sqlMessages.valueRefused.error('not valid for the field type', name);
    return uuid;
  };
}

/** Base64 text (as binary values are read) to bytes; a Uint8Array as it is. */
export function binaryEncoder(name: string): Encoder {
  return (value) => {
    if (value instanceof Uint8Array) return value;
    const bytes = typeof value === 'string' ? decodeBase64(value) : null;
    if (bytes !== null) return bytes;
    throw sqlMessages.notBase64.error(name);
  };
}

/** The depth of nested arrays when every array at each level has the same length, else null. */
function rectangularDepth(value: unknown[]): number | null {
  if (!value.some(Array.isArray)) return 1;
  if (!value.every(Array.isArray)) return null;
  const inner = value as unknown[][];
  const depths = inner.map(rectangularDepth);
  const same = inner.every((item, i) => item.length === inner[0].length && depths[i] === depths[0]);
  return same && depths[0] !== null ? depths[0] + 1 : null;
}

/**
 * PostgreSQL's arrays (`smallint[]`): each element is checked by its type's encoder, so that a bad
 * one is a 400 naming the field (PostgreSQL's error named none); nested arrays must be rectangular
 * as PostgreSQL needs them. Text is an array literal (`{1,2}`) for PostgreSQL to read.
 */
function arrayEncoder(field: FieldModel, dialect: SqlDialectModule): Encoder {
  const elementType = field.dbType.replace(/(\[\d*\])+$/, '').replace(/^_/, '');
  const element = { ...field, ...nativeTypeInfo(elementType), dbType: elementType, allowNull: true };
  // Elements of an unknown type (a domain, an enum) and of types with sizes are left to PostgreSQL.
  const check = element.type === 'string' || element.type === 'array' ? null : encoderFor(element, dialect);
  const checkAll = (items: unknown[]): void => {
    for (const item of items) {
      if (Array.isArray(item)) checkAll(item);
      else if (item !== null && check !== null) check(item);
    }
  };
  return (value) => {
    if (typeof value === 'string') return value;
    if (!Array.isArray(value) || rectangularDepth(value) === null) {
      throw sqlMessages.valueRefused.error('not valid for the field type', field.name);
    }
    checkAll(value);
    return value;
  };
}

/** Date and time values checked against the calendar and written as the dialect needs them (date-time-text.ts). */
function dateTimeEncoder(name: string, type: AbstractType, dialect: SqlDialectModule): Encoder {
  const asText = stringEncoder(name, null);
  return (value) => {
    const text = asText(value) as string;
    const written = dateTimeText(text, type, dialect.dialect);
    if (written === 'invalid') throw sqlMessages.valueRefused.error('not a valid date or time', name);
    return written;
  };
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The deepest nesting of arrays and objects MariaDB's JSON functions take (its json_valid check refused 32 levels). */
export const MAX_JSON_DEPTH = 31;

/** How deep the arrays and objects of JSON text nest (brackets inside strings do not count). */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return deepest;
}

/** Whether JSON text holds a NUL (`\u0000`, not `\\u0000`, an escaped backslash before `u0000`). */
function holdsNul(text: string): boolean {
  if (!/\\u0000/i.test(text)) return false;
  let found = false;
  JSON.parse(text, (key, value) => {
    if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) found = true;
    return value;
  });
  return found;
}

/**
 * A string is taken as JSON text when it is JSON, else as a JSON string (so that `"hello"`
 * round-trips on every database). Nested deeper than MAX_JSON_DEPTH it is refused on every
 * database, naming the field (MariaDB alone refused it, naming its check constraint). A NUL
 * escaped in it is refused as NUL is in every other text (PostgreSQL's jsonb refused it naming
 * no field, SQLite and MariaDB stored it).
 */
function jsonEncoder(name: string): Encoder {
  return (value) => {
    const text = typeof value === 'string' && isJsonText(value) ? value : JSON.stringify(value);
    if (holdsNul(text)) throw sqlMessages.valueRefused.error('unstorable text', name);
    if (text.length > MAX_JSON_DEPTH * 2 && jsonDepth(text) > MAX_JSON_DEPTH) {
      throw new BadRequestError(`Invalid value for field '${name}': JSON nested more than ${MAX_JSON_DEPTH} levels deep.`, {
        field: name,
      });
    }
    return text;
  };
}

/**
 * A field known only by its name, type and sizes, nullable, with no key or default: what the
 * encoders and decoders need for a value no column of the model holds (an aggregate, a default
 * given through _schema).
 */
export function bareField(
  name: string,
  type: AbstractType,
  sizes: Pick<FieldModel, 'length' | 'precision' | 'scale'> = { length: null, precision: null, scale: null },
): FieldModel {
  return {
    name,
    sourceName: name,
    label: name,
    type,
    dbType: '',
    length: sizes.length,
    precision: sizes.precision,
    scale: sizes.scale,
    default: null,
    allowNull: true,
    isPrimaryKey: false,
    autoIncrement: false,
    isUnique: false,
    isForeignKey: false,
    refTable: null,
    refField: null,
  };
}

/** Whether a number's text (an exact decimal's, as encoded) is a double's exactly: `12.50` is, `0.1000000000000000000001` is not. */
export function isExactNumber(text: string): boolean {
  return /^[+-]?\d+(\.\d*)?$/.test(text) && isHeldByDouble(text);
}

/** The write encoder of a field. */
export function encoderFor(field: FieldModel, dialect: SqlDialectModule): Encoder {
  if (INTEGER_TYPES.has(field.type)) {
    return integerEncoder(field.name, integerBits(field, dialect), isUnsigned(field));
  }
  switch (field.type) {
    case 'boolean':
      return booleanEncoder(field.name, dialect);
    case 'float':
    case 'double':
      return singlePrecision(field.name, field, dialect, numberEncoder(field.name, false));
    case 'money':
      if (dialect.dialect === 'postgres') return formattedMoneyEncoder(numberEncoder(field.name, true));
      return numberEncoder(field.name, true, integerDigits(field), field.scale);
    case 'decimal':
      return numberEncoder(field.name, true, integerDigits(field), field.scale);
    case 'binary':
      return binaryEncoder(field.name);
    case 'json':
      return jsonEncoder(field.name);
    case 'uuid':
      return uuidEncoder(field.name);
    case 'array':
      return dialect.dialect === 'postgres' ? arrayEncoder(field, dialect) : (value) => value;
    case 'date':
    case 'time':
    case 'datetime':
    case 'timestamp':
      return dateTimeEncoder(field.name, field.type, dialect);
    // Timestamps the database fills are timestamps when given (they were taken as any text).
    case 'timestamp_on_create':
    case 'timestamp_on_update':
      return dateTimeEncoder(field.name, 'timestamp', dialect);
    case 'string':
      return stringEncoder(field.name, field.length !== null && field.length > 0 ? field.length : null);
    default:
      return stringEncoder(field.name, null);
  }
}

export const decodeBoolean: Decoder = (value) => {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return TRUE_TEXT.has(value.toLowerCase());
  // MySQL's bit(1) comes as bytes: b'0' is one zero byte (Number() of it is NaN, which read as true).
  if (value instanceof Uint8Array) return value.some((byte) => byte !== 0);
  return Number(value) !== 0;
};

const decodeBinary: Decoder = (value) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value);

// PostgreSQL and MySQL drivers return exact decimals as text.
const decodeDecimal: Decoder = (value) => (typeof value === 'string' && NUMBER_TEXT.test(value) ? Number(value) : value);

/**
 * A wide decimal (field-rules isWideDecimal) as bigints beyond 2^53 are read: a number while a
 * double holds the driver's digits exactly (`12.50` is 12.5), else those digits as text without
 * trailing zeros, so that a client reads back every digit it wrote (the read types' `number | string`).
 */
export const decodeWideDecimal: Decoder = (value) => {
  if (typeof value !== 'string' || !NUMBER_TEXT.test(value)) return value;
  // PostgreSQL and MariaDB write no exponent; a text that has one is left to Number as before.
  if (/[eE]/.test(value)) return Number(value);
  return isHeldByDouble(value) ? Number(value) : (plainDecimal(value) ?? value);
};

/** Each element of a (nested) array read. */
function eachElement(decode: Decoder): Decoder {
  const walk: Decoder = (value) => (Array.isArray(value) ? value.map(walk) : decode(value));
  return walk;
}

/** The decoder of a decimal array's elements (PostgreSQL's numeric[] comes as their texts), else null. */
function arrayElementDecoder(field: FieldModel): Decoder | null {
  const element = field.dbType.trim().replace(/(\[\])+$/, '');
  if (element === field.dbType.trim()) return null;
  const info = nativeTypeInfo(element);
  if (info.type !== 'decimal') return null;
  return isWideDecimal({ ...field, type: info.type, dbType: element, precision: info.precision }) ? decodeWideDecimal : decodeDecimal;
}

/** JSON kept as text (SQLite, MariaDB) as its value; text that is not JSON stays as it is. */
export const decodeJsonText: Decoder = (value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

/** The read decoder of a field, or null when the driver's value is already the JSON value. */
export function decoderFor(field: FieldModel, dialect: SqlDialectModule): Decoder | null {
  if (field.type === 'boolean') return decodeBoolean;
  if (field.type === 'binary') return decodeBinary;
  if (field.type === 'decimal') return isWideDecimal(field) ? decodeWideDecimal : decodeDecimal;
  const read = dialect.readConverter(field);
  const element = field.type === 'array' ? arrayElementDecoder(field) : null;
  if (element === null) return read;
  const elements = eachElement(element);
  return read === null ? elements : (value) => elements(read(value));
}
