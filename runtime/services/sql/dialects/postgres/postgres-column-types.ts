/** PostgreSQL column types for `_schema` field definitions (reference 3.2, PostgreSQL column). */
import type { FieldDefinition } from '../../schema/table-definition.js';
import { sizedType } from '../sized-type.js';

const FIXED: Record<string, string> = {
  id: 'serial',
  bigid: 'bigserial',
  mediumid: 'serial',
  smallid: 'smallserial',
  reference: 'integer',
  user_id: 'integer',
  user_id_on_create: 'integer',
  user_id_on_update: 'integer',
  timestamp_on_create: 'timestamp',
  timestamp_on_update: 'timestamp',
  boolean: 'boolean',
  money: 'money',
  binary: 'bytea',
  object: 'jsonb',
  array: 'text[]',
  integer: 'integer',
  tinyint: 'smallint',
  smallint: 'smallint',
  mediumint: 'integer',
  bigint: 'bigint',
  float: 'real',
  double: 'double precision',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  datetime: 'timestamp',
  timestamp: 'timestamp',
  datetimetz: 'timestamp with time zone',
  timestamptz: 'timestamp with time zone',
  time: 'time',
  timetz: 'time with time zone',
  date: 'date',
  json: 'json',
  jsonb: 'jsonb',
  uuid: 'uuid',
};

/** Native types whose single size argument is a length. */
const SIZED = new Set(['char', 'character', 'varchar', 'character varying', 'bit', 'varbit', 'bit varying']);

/** The PostgreSQL type of a field: fixed mappings, `string` by length and flags, native types as written. */
export function postgresColumnType(field: FieldDefinition): string {
  if (field.native) return sizedType(field.type.toLowerCase(), field, SIZED);
  if (field.type === 'string') return `${field.fixedLength ? 'char' : 'varchar'}(${field.length ?? 255})`;
  if (field.type === 'decimal') return sizedType('numeric', field, SIZED);
  return FIXED[field.type] ?? sizedType(field.type, field, SIZED);
}
