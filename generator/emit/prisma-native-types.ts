/**
 * Prisma's native type attributes (`@db.*`): the column type, stated whenever it differs from
 * the type Prisma would create for the scalar by default, exactly where `prisma db pull` writes
 * one. Prisma's defaults: on PostgreSQL text, integer, bigint, double precision, decimal(65,30),
 * timestamp(3), boolean, bytea, jsonb; on MySQL varchar(191), int, bigint, double,
 * decimal(65,30), datetime(3), tinyint(1), longblob, json. The cross-check against Prisma's own
 * introspection (test/e2e/prisma-cross-check.test.ts) keeps these rules true.
 */
import type { SqlDialect } from '../../runtime/model/platform-model.js';

type Rule = [pattern: RegExp, native: (match: RegExpExecArray) => string | null];

/** `(p)` of a time type, or the database's default precision when none is declared. */
const precision = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
/** A time type's attribute; none when its precision is Prisma's default (3) for the scalar. */
const timeAttribute = (name: string, p: number, isPrismaDefault: boolean) => (isPrismaDefault && p === 3 ? null : `@db.${name}(${p})`);
const decimal = (m: RegExpExecArray) => (m[1] === undefined ? '@db.Decimal' : `@db.Decimal(${m[1]}, ${m[2] ?? '0'})`);

const POSTGRES: Rule[] = [
  [/^(?:smallint|int2|smallserial)$/, () => '@db.SmallInt'],
  [/^(?:real|float4)$/, () => '@db.Real'],
  [/^oid$/, () => '@db.Oid'],
  [/^(?:numeric|decimal)(?:\((\d+)(?:,\s*(\d+))?\))?$/, decimal],
  [/^money$/, () => '@db.Money'],
  [/^(?:character varying|varchar)(?:\((\d+)\))?$/, (m) => (m[1] === undefined ? '@db.VarChar' : `@db.VarChar(${m[1]})`)],
  [/^(?:character|char|bpchar)(?:\((\d+)\))?$/, (m) => `@db.Char(${m[1] ?? '1'})`],
  [/^uuid$/, () => '@db.Uuid'],
  [/^json$/, () => '@db.Json'],
  [/^date$/, () => '@db.Date'],
  [/^timestamp(?:\((\d)\))?(?: without time zone)?$/, (m) => timeAttribute('Timestamp', precision(m[1], 6), true)],
  [/^(?:timestamp(?:\((\d)\))? with time zone|timestamptz(?:\((\d)\))?)$/, (m) => `@db.Timestamptz(${precision(m[1] ?? m[2], 6)})`],
  [/^time(?:\((\d)\))?(?: without time zone)?$/, (m) => `@db.Time(${precision(m[1], 6)})`],
  [/^(?:time(?:\((\d)\))? with time zone|timetz(?:\((\d)\))?)$/, (m) => `@db.Timetz(${precision(m[1] ?? m[2], 6)})`],
  [/^inet$/, () => '@db.Inet'],
  [/^citext$/, () => '@db.Citext'],
  [/^xml$/, () => '@db.Xml'],
  [/^bit(?:\((\d+)\))?$/, (m) => `@db.Bit(${m[1] ?? '1'})`],
  [/^(?:bit varying|varbit)(?:\((\d+)\))?$/, (m) => (m[1] === undefined ? '@db.VarBit' : `@db.VarBit(${m[1]})`)],
];

const MYSQL: Rule[] = [
  [/^tinyint\(1\)$/, () => null], // Boolean, Prisma's default for it
  [/^tinyint(?:\(\d+\))?( unsigned)?/, (m) => (m[1] ? '@db.UnsignedTinyInt' : '@db.TinyInt')],
  [/^smallint(?:\(\d+\))?( unsigned)?/, (m) => (m[1] ? '@db.UnsignedSmallInt' : '@db.SmallInt')],
  [/^mediumint(?:\(\d+\))?( unsigned)?/, (m) => (m[1] ? '@db.UnsignedMediumInt' : '@db.MediumInt')],
  [/^int(?:eger)?(?:\(\d+\))?( unsigned)?/, (m) => (m[1] ? '@db.UnsignedInt' : null)],
  [/^bigint(?:\(\d+\))?( unsigned)?/, (m) => (m[1] ? '@db.UnsignedBigInt' : null)],
  [/^year(?:\(\d+\))?$/, () => '@db.Year'],
  [/^float(?:\(\d+(?:,\d+)?\))?( unsigned)?$/, () => '@db.Float'],
  [/^(?:decimal|numeric)(?:\((\d+)(?:,\s*(\d+))?\))?/, decimal],
  [/^varchar\((\d+)\)$/, (m) => (m[1] === '191' ? null : `@db.VarChar(${m[1]})`)],
  [/^char\((\d+)\)$/, (m) => `@db.Char(${m[1]})`],
  [
    /^(tinytext|text|mediumtext|longtext)$/,
    (m) => `@db.${{ tinytext: 'TinyText', text: 'Text', mediumtext: 'MediumText', longtext: 'LongText' }[m[1]]}`,
  ],
  [/^(tinyblob|blob|mediumblob)$/, (m) => `@db.${{ tinyblob: 'TinyBlob', blob: 'Blob', mediumblob: 'MediumBlob' }[m[1]]}`],
  [/^binary\((\d+)\)$/, (m) => `@db.Binary(${m[1]})`],
  [/^varbinary\((\d+)\)$/, (m) => `@db.VarBinary(${m[1]})`],
  [/^bit\((\d+)\)$/, (m) => `@db.Bit(${m[1]})`],
  [/^date$/, () => '@db.Date'],
  [/^datetime(?:\((\d)\))?$/, (m) => timeAttribute('DateTime', precision(m[1], 0), true)],
  [/^timestamp(?:\((\d)\))?$/, (m) => `@db.Timestamp(${precision(m[1], 0)})`],
  [/^time(?:\((\d)\))?$/, (m) => `@db.Time(${precision(m[1], 0)})`],
];

/** The scalars each native type may annotate (a MariaDB JSON column is a longtext, yet Json in Prisma, unannotated). */
const SCALARS_OF: Record<string, string[]> = {
  SmallInt: ['Int'],
  TinyInt: ['Int'],
  MediumInt: ['Int'],
  UnsignedTinyInt: ['Int'],
  UnsignedSmallInt: ['Int'],
  UnsignedMediumInt: ['Int'],
  UnsignedInt: ['Int', 'BigInt'],
  UnsignedBigInt: ['BigInt'],
  Year: ['Int'],
  Oid: ['Int'],
  Real: ['Float'],
  Float: ['Float'],
  Decimal: ['Decimal'],
  Money: ['Decimal'],
  VarChar: ['String'],
  Char: ['String'],
  TinyText: ['String'],
  Text: ['String'],
  MediumText: ['String'],
  LongText: ['String'],
  Uuid: ['String'],
  Inet: ['String'],
  Citext: ['String'],
  Xml: ['String'],
  VarBit: ['String'],
  Bit: ['String', 'Bytes', 'Boolean'],
  TinyBlob: ['Bytes'],
  Blob: ['Bytes'],
  MediumBlob: ['Bytes'],
  Binary: ['Bytes'],
  VarBinary: ['Bytes'],
  Json: ['Json'],
  Date: ['DateTime'],
  DateTime: ['DateTime'],
  Timestamp: ['DateTime'],
  Timestamptz: ['DateTime'],
  Time: ['DateTime'],
  Timetz: ['DateTime'],
};

/**
 * The `@db.*` attribute of a column of declared type `dbType` read as Prisma scalar `scalar`, or
 * null (none needed, none that fits the scalar, or SQLite, which has none).
 */
export function prismaNativeType(dbType: string, dialect: SqlDialect, scalar: string): string | null {
  const rules = dialect === 'postgres' ? POSTGRES : dialect === 'mysql' ? MYSQL : [];
  const type = dbType.trim().toLowerCase();
  for (const [pattern, native] of rules) {
    const match = pattern.exec(type);
    if (match === null) continue;
    const attribute = native(match);
    const name = attribute === null ? '' : /^@db\.(\w+)/.exec(attribute)![1];
    return attribute !== null && SCALARS_OF[name]?.includes(scalar) ? attribute : null;
  }
  return null;
}

/** Native types MySQL cannot index without a prefix length, which Prisma's key attributes do not take. */
export function isUnindexableMySqlNative(native: string | null): boolean {
  return native !== null && /^@db\.(Tiny|Medium|Long)?(Text|Blob)$/.test(native);
}
