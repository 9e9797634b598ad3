/** Prisma scalar types, native type attributes and defaults of columns. */
import type { FieldModel, SqlDialect } from '../../runtime/model/platform-model.js';
import { nativeTypeInfo } from '../../runtime/services/sql/schema/native-types.js';
import { prismaNativeType } from './prisma-native-types.js';

export interface PrismaScalar {
  /** `Int`, `String`, `String[]` ... or `Unsupported("geometry")`. */
  type: string;
  /** A native type attribute such as `@db.VarChar(40)`, or null. */
  native: string | null;
  unsupported: boolean;
  /** A scalar list (PostgreSQL arrays): never optional in Prisma. */
  list: boolean;
}

/** Declared types the reference reads as `string` only because it knows nothing better (`geometry`, `inet`). */
const TEXTUAL = /char|text|clob|string|^enum\(|^set\(|^$/i;

function scalar(type: string, native: string | null = null): PrismaScalar {
  return { type, native, unsupported: false, list: false };
}

function unsupported(dbType: string): PrismaScalar {
  return { type: `Unsupported(${JSON.stringify(dbType)})`, native: null, unsupported: true, list: false };
}

/** 64-bit integer columns, whatever their abstract type (a bigint foreign key is a `reference`). */
const BIG_INTEGER = /^(bigint|int8|bigserial|serial8)\b/;

/** PostgreSQL text types Prisma knows by a native attribute, the size argument kept. */
const POSTGRES_TEXT: Array<[RegExp, string]> = [
  [/^inet$/, '@db.Inet'],
  [/^citext$/, '@db.Citext'],
  [/^xml$/, '@db.Xml'],
  [/^bit\((\d+)\)$/, '@db.Bit($1)'],
  [/^bit varying\((\d+)\)$/, '@db.VarBit($1)'],
  [/^bit varying$/, '@db.VarBit'],
];

function postgresText(dbType: string): string | null {
  for (const [pattern, native] of POSTGRES_TEXT) if (pattern.test(dbType)) return dbType.replace(pattern, native);
  return null;
}

/** A PostgreSQL array of a type Prisma supports, as a scalar list (`text[]` -> `String[]`). */
function postgresList(field: FieldModel): PrismaScalar {
  const element = field.dbType.replace(/\[\]$/, '');
  if (element === field.dbType || element.endsWith('[]')) return unsupported(field.dbType);
  const info = nativeTypeInfo(element);
  const inner = prismaScalar({ ...field, dbType: element, type: info.type, length: info.length }, 'postgres');
  return inner.unsupported ? unsupported(field.dbType) : { ...inner, type: `${inner.type}[]`, list: true };
}

/** `@db.VarChar(n)` / `@db.Char(n)` for PostgreSQL and MySQL character columns. */
function characterNative(field: FieldModel): string | null {
  const match = /^(varchar|character varying|char|character)\((\d+)\)$/.exec(field.dbType);
  if (match === null) return null;
  return match[1].includes('var') ? `@db.VarChar(${match[2]})` : `@db.Char(${match[2]})`;
}

/**
 * SQLite's declared types as Prisma reads them (its schema describer): a few exact names, any
 * `char` type as String, `decimal`/`numeric` as Decimal; every other declared type, even one
 * SQLite gives an integer affinity (`smallint`, `int(11)`), is Unsupported.
 */
const SQLITE_TYPES = new Map<string, string>([
  ['int', 'Int'],
  ['integer', 'Int'],
  ['serial', 'Int'],
  ['bigint', 'BigInt'],
  ['real', 'Float'],
  ['float', 'Float'],
  ['double', 'Float'],
  ['boolean', 'Boolean'],
  ['text', 'String'],
  ['date', 'DateTime'],
  ['datetime', 'DateTime'],
  ['timestamp', 'DateTime'],
  ['blob', 'Bytes'],
  ['binary', 'Bytes'],
  ['jsonb', 'Json'],
]);

function sqliteScalar(dbType: string): PrismaScalar {
  const type = dbType.trim().toLowerCase();
  const known = SQLITE_TYPES.get(type);
  if (known !== undefined) return scalar(known);
  if (type.includes('numeric') || type.includes('decimal')) return scalar('Decimal');
  if (type.includes('char')) return scalar('String');
  return unsupported(type);
}

/** The Prisma scalar of a column, with the native type attribute `prisma db pull` would give it. */
export function prismaScalar(field: FieldModel, dialect: SqlDialect): PrismaScalar {
  const scalar = baseScalar(field, dialect);
  if (scalar.unsupported || scalar.list || dialect === 'sqlite') return scalar;
  // The base scalar's attribute only picks the scalar; which attribute Prisma writes is prisma-native-types.ts's rule.
  return { ...scalar, native: prismaNativeType(field.dbType, dialect, scalar.type) };
}

/** Whole-number types the API serves as strings (their abstract type is `string`) that Prisma reads as Int. */
const PRISMA_INTEGERS: Record<SqlDialect, RegExp | null> = { postgres: /^oid$/, mysql: /^year(\(\d+\))?$/, sqlite: null };

function baseScalar(field: FieldModel, dialect: SqlDialect): PrismaScalar {
  if (dialect === 'sqlite') return sqliteScalar(field.dbType);
  if (PRISMA_INTEGERS[dialect]?.test(field.dbType)) return scalar('Int');
  // Prisma reads only MySQL's bit(1) as Boolean: a wider bit field (the API's bigint) is Bytes (`prisma db pull`).
  if (dialect === 'mysql' && /^bit\((\d+)\)$/.test(field.dbType) && field.dbType !== 'bit(1)') return scalar('Bytes');
  switch (field.type) {
    case 'id':
    case 'reference':
    case 'user_id':
    case 'user_id_on_create':
    case 'user_id_on_update':
    case 'integer':
      return scalar(BIG_INTEGER.test(field.dbType) ? 'BigInt' : 'Int');
    case 'bigid':
    case 'bigint':
      return scalar('BigInt');
    case 'boolean':
      return scalar('Boolean');
    case 'float':
    case 'double':
      return scalar('Float');
    case 'decimal':
      return scalar('Decimal');
    case 'money':
      return scalar('Decimal', dialect === 'postgres' ? '@db.Money' : null);
    case 'string': {
      const native = dialect === 'postgres' ? postgresText(field.dbType) : null;
      if (native !== null) return scalar('String', native);
      return TEXTUAL.test(field.dbType) ? scalar('String', characterNative(field)) : unsupported(field.dbType);
    }
    case 'text':
      return scalar('String');
    case 'uuid':
      return scalar('String', dialect === 'postgres' ? '@db.Uuid' : null);
    case 'date':
    case 'time':
      return scalar('DateTime', field.type === 'date' ? '@db.Date' : '@db.Time');
    case 'datetime':
    case 'timestamp':
    case 'timestamp_on_create':
    case 'timestamp_on_update':
      return scalar('DateTime');
    case 'binary':
      return scalar('Bytes');
    case 'json':
      return scalar('Json');
    case 'array':
      return dialect === 'postgres' ? postgresList(field) : unsupported(field.dbType);
  }
}

const CURRENT_TIME = /^(current_timestamp(\(\d*\))?|now\(\))$/i;

/**
 * The `@default(...)` argument of a column, or null when it has none Prisma can state
 * (scalars that do not fit the type are left out rather than guessed).
 */
export function prismaDefault(field: FieldModel, type: PrismaScalar, isIdField: boolean): string | null {
  if (field.autoIncrement) return isIdField && (type.type === 'Int' || type.type === 'BigInt') ? 'autoincrement()' : null;
  const value = field.default;
  if (value === null || type.unsupported || type.list) return null;
  if (typeof value === 'object') {
    if (type.type === 'DateTime' && CURRENT_TIME.test(value.expression.trim())) return 'now()';
    return `dbgenerated(${JSON.stringify(value.expression)})`;
  }
  const text = String(value).trim();
  switch (type.type) {
    case 'Int':
    case 'BigInt':
      return /^-?\d+$/.test(text) ? text : null;
    case 'Float':
    case 'Decimal':
      return text !== '' && Number.isFinite(Number(text)) ? String(Number(text)) : null;
    case 'Boolean':
      return /^(1|true)$/i.test(text) ? 'true' : /^(0|false)$/i.test(text) ? 'false' : null;
    case 'String':
      return JSON.stringify(String(value));
    default:
      return null;
  }
}
