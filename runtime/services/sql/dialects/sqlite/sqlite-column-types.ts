/** SQLite column types for `_schema` field definitions (reference 3.2, SQLite column). */
import type { FieldDefinition } from '../../schema/table-definition.js';
import { sizedType } from '../sized-type.js';

const FIXED: Record<string, string> = {
  id: 'integer',
  bigid: 'integer',
  mediumid: 'integer',
  smallid: 'integer',
  reference: 'integer',
  user_id: 'integer',
  user_id_on_create: 'integer',
  user_id_on_update: 'integer',
  timestamp_on_create: 'timestamp',
  timestamp_on_update: 'timestamp',
  boolean: 'boolean',
  money: 'decimal(19,4)',
  binary: 'blob',
  object: 'text',
};

// Native types whose single size argument is a length.
const SIZED = new Set(['char', 'nchar', 'varchar', 'nvarchar', 'varbinary', 'binary']);

/** The SQLite type of a field: fixed mappings, `string` by length and flags, everything else passed through. */
export function sqliteColumnType(field: FieldDefinition): string {
  if (field.native) return sizedType(field.type.toLowerCase(), field, SIZED);
  const fixed = FIXED[field.type];
  if (fixed !== undefined) return fixed;
  if (field.type === 'string') {
    const base = field.fixedLength ? 'char' : 'varchar';
    return `${field.supportsMultibyte ? 'n' : ''}${base}(${field.length ?? 255})`;
  }
  return sizedType(field.type, field, SIZED);
}
