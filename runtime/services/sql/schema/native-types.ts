/**
 * Native column type -> abstract type, dialect-independent (the reference's `extractSimpleType`),
 * plus the length/precision/scale read from `type(a,b)`.
 */
import type { AbstractType } from '../../../model/platform-model.js';

export interface NativeTypeInfo {
  type: AbstractType;
  length: number | null;
  precision: number | null;
  scale: number | null;
}

/** Splits `decimal(10, 2) unsigned` into base `decimal` and the numbers [10, 2]. */
function splitNativeType(dbType: string): { base: string; args: number[] } {
  const text = dbType.trim().toLowerCase();
  const open = text.indexOf('(');
  if (open < 0) return { base: text.replace(/\b(un)?signed\b/g, '').trim(), args: [] };
  const close = text.indexOf(')', open);
  const args = text
    .slice(open + 1, close < 0 ? undefined : close)
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((n) => Number.isFinite(n));
  return {
    base: text
      .slice(0, open)
      .replace(/\b(un)?signed\b/g, '')
      .trim(),
    args,
  };
}

const INTEGER_BASES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'serial', 'int2', 'int4']);
const BIGINT_BASES = new Set(['bigint', 'bigserial', 'serial8', 'varint', 'int8', 'big int', 'unsigned big int']);

function simpleType(base: string, size: number | null): AbstractType {
  if (base.endsWith('[]') || ['array', 'map', 'set', 'list', 'tuple'].includes(base)) return 'array';
  if (base === 'bit' || base.includes('bool')) return 'boolean';
  if (INTEGER_BASES.has(base)) return size === 1 ? 'boolean' : 'integer';
  if (BIGINT_BASES.has(base)) return 'bigint';
  if (base === 'decimal' || base === 'numeric' || base === 'percent') return 'decimal';
  if (base.includes('double')) return 'double';
  if (base === 'real' || base.includes('float')) return size === 53 ? 'double' : 'float';
  if (base.includes('money')) return 'money';
  if (base.includes('timestamp') || base.includes('datetimeoffset')) return 'timestamp';
  if (base.includes('datetime')) return 'datetime';
  if (base === 'date') return 'date';
  if (base.includes('time')) return 'time';
  if (base.includes('binary') || base.includes('blob') || base === 'bytea') return 'binary';
  if (base.includes('clob') || base.includes('text')) return 'text';
  if (base === 'varchar') return size === -1 ? 'text' : 'string';
  if (base === 'uuid') return 'uuid';
  if (base === 'json' || base === 'jsonb') return 'json';
  return 'string';
}

/** Reads a native type as the database reports it (any case). */
export function nativeTypeInfo(dbType: string): NativeTypeInfo {
  const { base, args } = splitNativeType(dbType);
  const length = args.length > 0 ? args[0] : null;
  const twoNumbers = args.length >= 2;
  return {
    type: simpleType(base, length),
    length,
    precision: twoNumbers ? args[0] : null,
    scale: twoNumbers ? args[1] : null,
  };
}

/** Abstract types stored as whole numbers (ids, keys, integers). */
export const INTEGER_TYPES: ReadonlySet<AbstractType> = new Set<AbstractType>([
  'id',
  'bigid',
  'reference',
  'user_id',
  'user_id_on_create',
  'user_id_on_update',
  'integer',
  'bigint',
]);
