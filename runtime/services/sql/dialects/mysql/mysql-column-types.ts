/** MySQL/MariaDB column types for `_schema` field definitions (reference 3.2, MySQL column). */
import type { FieldDefinition } from '../../schema/table-definition.js';
import { sizedType } from '../sized-type.js';

const FIXED: Record<string, string> = {
  id: 'int(11)',
  bigid: 'bigint(20)',
  mediumid: 'mediumint',
  smallid: 'smallint',
  reference: 'int(11)',
  user_id: 'int(11)',
  user_id_on_create: 'int(11)',
  user_id_on_update: 'int(11)',
  timestamp_on_create: 'timestamp',
  timestamp_on_update: 'timestamp',
  boolean: 'tinyint(1)',
  money: 'decimal(19,4)',
  integer: 'int(11)',
  bigint: 'bigint(20)',
  datetimetz: 'datetime',
  timestamptz: 'timestamp',
  timetz: 'time',
  json: 'json',
  jsonb: 'json',
  object: 'json',
  array: 'json',
  uuid: 'char(36)',
};

/** Native types whose single size argument is a length. */
const SIZED = new Set(['char', 'varchar', 'binary', 'varbinary', 'bit', 'national char', 'national varchar']);

/** The MySQL type of a field: fixed mappings, `string` and `binary` by length and flags, everything else passed through. */
export function mysqlColumnType(field: FieldDefinition): string {
  if (field.native) return sizedType(field.type.toLowerCase(), field, SIZED);
  if (field.type === 'string') {
    const base = field.fixedLength ? 'char' : 'varchar';
    return `${field.supportsMultibyte ? 'national ' : ''}${base}(${field.length ?? 255})`;
  }
  if (field.type === 'binary') return field.fixedLength ? `binary(${field.length ?? 255})` : `varbinary(${field.length ?? 255})`;
  return FIXED[field.type] ?? sizedType(field.type, field, SIZED);
}

/** MySQL's automatic update of `timestamp_on_update` columns. */
export function mysqlColumnSuffix(field: FieldDefinition): string | null {
  return !field.native && field.type === 'timestamp_on_update' ? 'on update CURRENT_TIMESTAMP' : null;
}
