/** Prisma scalar types, native type attributes and defaults of columns. */
import type { FieldModel, SqlDialect } from '../../runtime/model/platform-model.js';

export interface PrismaScalar {
  /** `Int`, `String`, ... or `Unsupported("geometry")`. */
  type: string;
  /** A native type attribute such as `@db.VarChar(40)`, or null. */
  native: string | null;
  unsupported: boolean;
}

/** Declared types the reference reads as `string` only because it knows nothing better (`geometry`, `inet`). */
const TEXTUAL = /char|text|clob|string|^enum\(|^set\(|^$/i;

function scalar(type: string, native: string | null = null): PrismaScalar {
  return { type, native, unsupported: false };
}

function unsupported(dbType: string): PrismaScalar {
  return { type: `Unsupported(${JSON.stringify(dbType)})`, native: null, unsupported: true };
}

/** `@db.VarChar(n)` / `@db.Char(n)` for PostgreSQL and MySQL character columns. */
function characterNative(field: FieldModel, dialect: SqlDialect): string | null {
  if (dialect === 'sqlite') return null;
  const match = /^(varchar|character varying|char|character)\((\d+)\)$/.exec(field.dbType);
  if (match === null) return null;
  return match[1].includes('var') ? `@db.VarChar(${match[2]})` : `@db.Char(${match[2]})`;
}

export function prismaScalar(field: FieldModel, dialect: SqlDialect): PrismaScalar {
  switch (field.type) {
    case 'id': case 'reference': case 'user_id': case 'user_id_on_create': case 'user_id_on_update': case 'integer':
      return scalar('Int');
    case 'bigid': case 'bigint':
      return scalar('BigInt');
    case 'boolean':
      return scalar('Boolean');
    case 'float': case 'double':
      return scalar('Float');
    case 'decimal':
      return scalar('Decimal');
    case 'money':
      return scalar('Decimal', dialect === 'postgres' ? '@db.Money' : null);
    case 'string':
      return TEXTUAL.test(field.dbType) ? scalar('String', characterNative(field, dialect)) : unsupported(field.dbType);
    case 'text':
      return scalar('String');
    case 'uuid':
      return scalar('String', dialect === 'postgres' ? '@db.Uuid' : null);
    case 'date': case 'time':
      return scalar('DateTime', dialect === 'sqlite' ? null : field.type === 'date' ? '@db.Date' : '@db.Time');
    case 'datetime': case 'timestamp': case 'timestamp_on_create': case 'timestamp_on_update':
      return scalar('DateTime');
    case 'binary':
      return scalar('Bytes');
    case 'json':
      return scalar('Json');
    case 'array':
      return unsupported(field.dbType);
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
  if (value === null || type.unsupported) return null;
  if (typeof value === 'object') {
    if (type.type === 'DateTime' && CURRENT_TIME.test(value.expression.trim())) return 'now()';
    return `dbgenerated(${JSON.stringify(value.expression)})`;
  }
  const text = String(value).trim();
  switch (type.type) {
    case 'Int': case 'BigInt':
      return /^-?\d+$/.test(text) ? text : null;
    case 'Float': case 'Decimal':
      return text !== '' && Number.isFinite(Number(text)) ? String(Number(text)) : null;
    case 'Boolean':
      return /^(1|true)$/i.test(text) ? 'true' : /^(0|false)$/i.test(text) ? 'false' : null;
    case 'String':
      return JSON.stringify(String(value));
    default:
      return null;
  }
}
