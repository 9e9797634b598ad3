/**
 * What a column's model says about its values, for every reader of the model: the runtime's
 * writer, the OpenAPI record schemas and the generated TypeScript types agree through these.
 */
import type { FieldModel } from './platform-model.js';

/**
 * Columns whose value the server sets itself on create or update, or the database computes (a
 * generated column); values a client sends are ignored.
 */
export function isServerFilled(field: FieldModel): boolean {
  return (
    field.computed === true ||
    field.type === 'timestamp_on_create' ||
    field.type === 'timestamp_on_update' ||
    field.type === 'user_id_on_create' ||
    field.type === 'user_id_on_update'
  );
}

/** Key columns the database generates (auto-increment, serial, identity). */
export function isGenerated(field: FieldModel): boolean {
  return field.autoIncrement || field.type === 'id' || field.type === 'bigid';
}

/** Columns a create must give a value for: not null, no default, neither generated nor server-filled. */
export function isRequiredOnCreate(field: FieldModel): boolean {
  return !field.allowNull && field.default === null && !isGenerated(field) && !isServerFilled(field);
}

const BIG_INTEGER_TYPE = /^(bigint|int8|bigserial|serial8)\b/i;

/**
 * 64-bit integer columns. Their values leave as JSON numbers while they are safe integers
 * (|n| < 2^53) and as decimal strings beyond, so that no digit is lost.
 */
export function isBigInteger(field: FieldModel): boolean {
  if (field.type === 'bigint' || field.type === 'bigid') return true;
  const integer = ['id', 'reference', 'integer', 'user_id', 'user_id_on_create', 'user_id_on_update'].includes(field.type);
  return integer && BIG_INTEGER_TYPE.test(field.dbType.trim());
}

/** Integer columns declared unsigned (MySQL/MariaDB), and MySQL's bit(n): a `bigint unsigned` or `bit(64)` holds up to 2^64 - 1. */
export function isUnsigned(field: FieldModel): boolean {
  return /\bunsigned\b|^bit\(\d+\)$/i.test(field.dbType);
}

/**
 * Significant digits every decimal text of which a double holds exactly (DBL_DIG): an exact SQL
 * decimal or an xs:decimal (xs:integer) with more may need its text to keep every digit.
 */
export const DOUBLE_DIGITS = 15;

/**
 * Exact decimal columns wider than a double (no precision, as SQLite's `decimal` or PostgreSQL's
 * `numeric`, or more than 15 digits): a value written may be text, kept so that no digit is lost
 * (a table write's pre_process hooks get such a value as its exact text when no double equals it).
 */
export function isWideDecimal(field: FieldModel): boolean {
  return field.type === 'decimal' && !(field.precision !== null && field.precision > 0 && field.precision <= DOUBLE_DIGITS);
}
