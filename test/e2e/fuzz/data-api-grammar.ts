/**
 * Grammars for the data-API fuzz test (data-api-fuzz.test.ts): fast-check arbitraries for
 * `filter=` text, the other query parameters and write bodies, valid and broken alike.
 *
 * Each generated piece carries `exempt`: the databases whose answer may rightly differ from the
 * others' for it (the database facts database-differential.test.ts lists: MariaDB's `_ci`
 * collation, SQLite's case-blind ASCII `like`, 4-byte floats, MariaDB's time and timestamp ranges,
 * SQLite's 8-byte integers). The runner compares only the databases not exempt.
 */
import fc from 'fast-check';
import type { TargetKind } from '../database-api/database-targets.js';

export type Kinds = readonly TargetKind[];

/** A piece of generated text (a literal, a predicate, a whole filter, a JSON value) with its exemptions. */
export interface Piece {
  text: string;
  exempt: Kinds;
}

export type ColumnKind =
  | 'id'
  | 'ref'
  | 'string'
  | 'text'
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'uuid'
  | 'json';

export interface Column {
  name: string;
  kind: ColumnKind;
}

/** The value columns of fz_item and fz_scratch (both also have `id` and `parent_id`). */
export const VALUE_COLUMNS: Column[] = [
  { name: 'label', kind: 'string' },
  { name: 'note', kind: 'text' },
  { name: 'qty', kind: 'integer' },
  { name: 'big', kind: 'bigint' },
  { name: 'price', kind: 'decimal' },
  { name: 'ratio', kind: 'float' },
  { name: 'flag', kind: 'boolean' },
  { name: 'day', kind: 'date' },
  { name: 'clock', kind: 'time' },
  { name: 'stamp', kind: 'timestamp' },
  { name: 'uid', kind: 'uuid' },
  { name: 'doc', kind: 'json' },
  { name: 'MixedCase', kind: 'string' },
];

export const COLUMNS: Column[] = [{ name: 'id', kind: 'id' }, { name: 'parent_id', kind: 'ref' }, ...VALUE_COLUMNS];

/** The `_schema` definition of the value columns. */
export const VALUE_FIELDS = [
  { name: 'label', type: 'string', length: 40, allow_null: true },
  { name: 'note', type: 'text', allow_null: true },
  { name: 'qty', type: 'integer', allow_null: true },
  { name: 'big', type: 'bigint', allow_null: true },
  { name: 'price', type: 'decimal', precision: 10, scale: 2, allow_null: true },
  { name: 'ratio', type: 'float', allow_null: true },
  { name: 'flag', type: 'boolean', allow_null: true },
  { name: 'day', type: 'date', allow_null: true },
  { name: 'clock', type: 'time', allow_null: true },
  { name: 'stamp', type: 'timestamp', allow_null: true },
  { name: 'uid', type: 'uuid', allow_null: true },
  { name: 'doc', type: 'json', allow_null: true },
  { name: 'MixedCase', type: 'string', length: 20, allow_null: true },
];

const NONE: Kinds = [];
const union = (...lists: Kinds[]): Kinds => [...new Set(lists.flat())];
const piece = (text: string, exempt: Kinds = NONE): Piece => ({ text, exempt });

/** Text that looks like SQL, or like the escapes of one database or another. */
const SQLISH = [
  "'; drop table fz_item; --",
  "' or '1'='1",
  '1; select 1',
  '1 union select * from fz_parent',
  '/* comment */',
  '-- comment',
  '`id`',
  '"id"',
  '[id]',
  '$1',
  '?',
  ':name',
  '@@version',
  '\\',
  "\\'",
  '%',
  '_',
  '%_%',
  'null',
  'NULL',
  'true',
  '\u0000',
  '\ud83d',
  'ünïcødé 💥 日本',
  'e\u0301',
  '\u202e',
  '\t\n\r',
];

/** Strings: ASCII, any unicode, SQL-looking text, around the 40-character column length, long. */
const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SQLISH) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('alpha', 'Alpha', 'ALPHA', 'beta_1', 'beta%1', '50% off_sale', '', ' alpha', 'alpha ') },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'é', '💥', ' '), fc.constantFrom(19, 20, 21, 39, 40, 41, 1000, 70000))
      .map(([ch, n]) => ch.repeat(n)),
  },
);

/** Whether a number fits MariaDB's and PostgreSQL's 4-byte float exactly (so all three compare it alike). */
const float32Exact = (n: number) => Number.isFinite(n) && Math.fround(n) === n;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const dateText = fc
  .tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);
const timeParts = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }));

/** A value for a column, as it would be written in JSON (`json`) and the exemptions of writing it. */
export interface ColumnValue {
  /** The JS value (strings of digits for numbers JS can not hold). */
  value: unknown;
  /** Raw JSON text: may hold numbers beyond a double, which `value` can not. */
  json: string;
  /** Databases whose stored value or acceptance may rightly differ. */
  exempt: Kinds;
}

const plain = (value: unknown, exempt: Kinds = NONE): ColumnValue => ({ value, json: JSON.stringify(value) ?? 'null', exempt });
const rawNumber = (json: string, exempt: Kinds = NONE): ColumnValue => ({ value: json, json, exempt });

/** Odd values any column may get: wrong JSON types and shapes. */
const oddValue: fc.Arbitrary<ColumnValue> = fc.oneof(
  fc.constantFrom(
    plain(null),
    plain(true),
    plain(false),
    plain(''),
    plain({}),
    plain([]),
    plain({ a: 1 }),
    plain([1, 2]),
    plain('abc'),
    plain(0),
    plain(-1),
    rawNumber('1e400'),
    rawNumber('-1e400'),
    rawNumber('123456789012345678901234567890'),
    rawNumber('-0'),
    rawNumber('1.0'),
    rawNumber('1E2'),
    rawNumber('0.1e-400'),
  ),
  anyString.map((s) => plain(s)),
);

function intValue(bits: 32 | 64): fc.Arbitrary<ColumnValue> {
  const max = bits === 32 ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  return fc.oneof(
    fc.integer({ min: -20, max: 20 }).map((n) => plain(n)),
    fc.integer({ min: -max - 1, max }).map((n) => plain(n)),
    fc.constantFrom(
      plain('7'),
      plain('+7'),
      plain(' 8 '),
      plain('1.0'),
      plain(1.5),
      plain('0x10'),
      plain('1e3'),
      plain(1e3),
      rawNumber('2.0'),
    ),
    bits === 32
      ? fc.constantFrom(plain(2 ** 31, ['sqlite']), plain(-(2 ** 31) - 1, ['sqlite']), plain(2 ** 53, ['sqlite']))
      : fc.constantFrom(
          plain('9223372036854775807'),
          plain('-9223372036854775808'),
          plain('9223372036854775808'),
          plain('9007199254740993'),
          rawNumber('9007199254740993'),
          rawNumber('9223372036854775807'),
          rawNumber('9223372036854775808'),
          plain(2 ** 63),
        ),
    fc
      .bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
      .map((n) => plain(String(n), bits === 32 && (n < -(2n ** 31n) || n >= 2n ** 31n) ? ['sqlite'] : NONE)),
  );
}

const NICE_FLOATS = [0, 0.25, -1.5, 3.5, 8, 10, 0.5, -0.125, 1024, 7.07];

function floatValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    fc.constantFrom(...NICE_FLOATS).map((n) => plain(n, float32Exact(n) ? NONE : ['mysql'])),
    fc.constantFrom(plain('abc'), plain('NaN'), plain('Infinity'), plain('-Infinity'), plain('1e400'), plain('0.5')),
    // Beyond a 4-byte float: SQLite's 8-byte floats hold it, the others refuse.
    fc.constantFrom(plain(1e300, ['sqlite']), plain(-1e39, ['sqlite']), plain(1e-300, ['sqlite', 'postgres', 'mysql'])),
    // Doubles a 4-byte float rounds: stored alike only on SQLite; PostgreSQL and MariaDB read back other digits.
    fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
      .map((n) => plain(n, float32Exact(n) ? NONE : ['sqlite', 'postgres', 'mysql'])),
  );
}

function decimalValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    fc.integer({ min: -9999999999, max: 9999999999 }).map((n) => plain(n / 100)),
    fc.integer({ min: -9999999999, max: 9999999999 }).map((n) => plain((n / 100).toFixed(2))),
    fc.constantFrom(
      plain('1.005'),
      plain(1.005),
      plain('-0.005'),
      plain(99999999.995),
      plain(123456789012),
      plain('1e1'),
      plain(1e-7),
      plain('12.50'),
      plain('-0'),
      plain('.5'),
      plain('5.'),
      plain('1,5'),
      rawNumber('99999999.99'),
      rawNumber('100000000'),
    ),
  );
}

function timeValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    timeParts.map(([h, m, s]) => plain(`${pad(h)}:${pad(m)}:${pad(s)}`, h >= 24 ? ['mysql'] : NONE)),
    fc.constantFrom(
      plain('08:30'),
      plain('8:30:00'),
      plain('08:30:00.5', ['mysql']),
      plain('08:30:00+02:00'),
      plain('08:30:00Z'),
      plain('allballs'),
      plain('now'),
      plain('-01:00:00', ['mysql']),
      plain('838:59:59', ['mysql']),
      plain('T08:30:00'),
      plain(830),
    ),
  );
}

/** Whether a timestamp's wall time fits MariaDB's timestamp range (1970 to 2038). */
const mysqlStampRange = (year: number) => year > 1970 && year < 2038;

function stampValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    fc
      .tuple(
        dateText,
        timeParts,
        fc.constantFrom(' ', 'T'),
        fc.constantFrom('', 'Z', '+02:00', '-05:30', '.123', '.5Z', '+14:00', '+25:00'),
      )
      .map(([date, [h, m, s], sep, tail]) => {
        const year = Number(date.slice(0, 4));
        const exempt: TargetKind[] = [];
        if (!mysqlStampRange(year) || tail.includes('.') || tail !== '') exempt.push('mysql');
        // A zone moves the wall time across a day (and a year) boundary: only whole-seconds wall times in range compare.
        return plain(`${date}${sep}${pad(h)}:${pad(m)}:${pad(s)}${tail}`, exempt);
      }),
    fc.constantFrom(
      plain('2024-01-31'),
      plain('2024-01-31 08:30'),
      plain('now'),
      plain('infinity'),
      plain('-infinity'),
      plain('epoch'),
      plain('tomorrow'),
      plain('2024-13-01 00:00:00'),
      plain(1706689800),
      // Seven digits of a second: SQLite keeps the text, PostgreSQL rounds to microseconds, MariaDB keeps none.
      plain('2024-01-31T08:30:00.1234567', ['sqlite', 'mysql']),
      plain('0000-00-00 00:00:00'),
      plain('2024-02-29T24:00:00'),
    ),
  );
}

function dateValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    dateText.map((d) => plain(d)),
    fc.constantFrom(
      plain('2024-02-30'),
      plain('2024-01-31T10:00:00Z'),
      plain('2024-01-31 10:00:00'),
      plain('now'),
      plain('infinity'),
      plain('Jan 31 2024'),
      plain('2024/01/31'),
      plain('20240131'),
      plain(20240131),
      plain('0000-00-00'),
      plain('-2024-01-01'),
      plain('+012024-01-01'),
      plain('99999-01-01'),
      plain('2024-1-5'),
    ),
  );
}

function uuidValue(): fc.Arbitrary<ColumnValue> {
  return fc.oneof(
    fc.uuid().map((u) => plain(u)),
    fc.uuid().map((u) => plain(u.toUpperCase())),
    fc.uuid().map((u) => plain(`{${u}}`)),
    fc.uuid().map((u) => plain(u.replace(/-/g, ''))),
    fc.constantFrom(
      plain('not-a-uuid'),
      plain(''),
      plain(42),
      plain('00000000-0000-0000-0000-000000000000'),
      plain('0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f6'),
    ),
  );
}

/** Strings of any length: the runtime checks a column's length alike on every database. */
function stringValue(): fc.Arbitrary<ColumnValue> {
  return anyString.map((s) => plain(s));
}

const jsonDoc = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => plain(v)),
  fc.constantFrom(plain('{"raw":true}'), plain({ ü: '💥' }), { value: null, json: '{"a":1,"a":2}', exempt: NONE }),
);

/** Values for a column: mostly of its type (valid or near it), sometimes any odd JSON. */
export function columnValue(column: Column): fc.Arbitrary<ColumnValue> {
  const typed = ((): fc.Arbitrary<ColumnValue> => {
    switch (column.kind) {
      case 'id':
      case 'ref':
        return fc.oneof(
          fc.integer({ min: 1, max: 14 }).map((n) => plain(n)),
          fc.constantFrom(plain('3'), plain(0), plain(-1), plain(99)),
        );
      case 'integer':
        return intValue(32);
      case 'bigint':
        return intValue(64);
      case 'decimal':
        return decimalValue();
      case 'float':
        return floatValue();
      case 'boolean':
        return fc.constantFrom(
          plain(true),
          plain(false),
          plain(0),
          plain(1),
          plain('true'),
          plain('false'),
          plain('yes'),
          plain('T'),
          plain(2),
          plain('maybe'),
        );
      case 'date':
        return dateValue();
      case 'time':
        return timeValue();
      case 'timestamp':
        return stampValue();
      case 'uuid':
        return uuidValue();
      case 'json':
        return jsonDoc;
      case 'string':
        return stringValue();
      case 'text':
        return stringValue();
    }
  })();
  return fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: oddValue });
}

// ---------------------------------------------------------------------------------------------
// Filters

/** A filter literal for a value: a number or word bare, strings quoted one way or another. */
function literal(value: unknown): fc.Arbitrary<string> {
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const single = `'${text.replace(/'/g, "''")}'`;
  const backslashed = `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const double = `"${text.replace(/"/g, '""')}"`;
  const forms = [fc.constant(single), fc.constant(double), fc.constant(backslashed)];
  if (/^[^\s()'",=<>!;&|]+$/u.test(text)) forms.push(fc.constant(text));
  return fc.oneof(...forms);
}

/** Field names as clients write them: exact, other case, a related field, or no such field. */
function fieldName(column: Column): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(column.name) },
    { weight: 1, arbitrary: fc.constantFrom(column.name.toUpperCase(), column.name[0].toUpperCase() + column.name.slice(1)) },
  );
}

const COMPARE = ['=', '!=', '<>', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'EQ'];
const TEXT_KINDS = new Set<ColumnKind>(['string', 'text']);
/** Seed-row values the compare predicates pick from besides random ones, so that filters match rows. */
const SEED_LITERALS: Partial<Record<ColumnKind, unknown[]>> = {
  string: ['alpha', 'ALPHA', 'beta_1', '', '50% off_sale', 'zzz'],
  text: ['plain', '', 'ünïcødé 💥 日本', "it's 'quoted' \\ back"],
  integer: [1, 2, 10, -3, 7, 8],
  bigint: [9007199254740991, -5, 0, 123456789012],
  decimal: [12.5, -0.5, 0, 99999999.99, 7.07],
  float: [0.25, -1.5, 3.5, 8, 10],
  boolean: [true, false, 'TRUE', 1, 0],
  date: ['2024-01-31', '2000-02-29', '1999-12-31', '2024-06-15'],
  time: ['08:30:00', '23:59:59', '00:00:00', '13:45:30'],
  timestamp: ['2024-01-31 08:30:00', '2024-01-31T08:30:00', '1999-12-31 23:59:59', '2024-06-15 13:45:30'],
  uuid: ['0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60', 'F47AC10B-58CC-4372-A567-0E02B2C3D479'],
  id: [1, 2, 3, 5, 8],
  ref: [1, 2, 3],
};

/** A value to compare a column with: seed values, typed values, odd ones; with the exemptions of comparing it. */
function compareValue(column: Column): fc.Arbitrary<{ literal: string; exempt: Kinds }> {
  const seeds = SEED_LITERALS[column.kind] ?? [];
  const values = fc.oneof(...(seeds.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...seeds).map((v) => plain(v)) }] : []), {
    weight: 2,
    arbitrary: columnValue(column),
  });
  return values.chain((v) => {
    const exempt: TargetKind[] = [...v.exempt];
    const raw = v.value;
    if (column.kind === 'float') {
      const n = Number(raw);
      // MariaDB compares a 4-byte float with the double written; PostgreSQL and SQLite do not.
      if (typeof raw === 'number' && !float32Exact(n)) exempt.push('mysql');
    }
    // A filter on a json column compares each database's own JSON text.
    if (column.kind === 'json') exempt.push('sqlite', 'postgres', 'mysql');
    return literal(v.value === null && v.json !== 'null' ? v.json : raw).map((text) => ({ literal: text, exempt }));
  });
}

/** Whether `like` on text may differ by database: SQLite ignores the case of ASCII letters. */
const hasAsciiLetter = (text: string) => /[A-Za-z]/.test(text);

function predicate(column: Column): fc.Arbitrary<Piece> {
  const text = TEXT_KINDS.has(column.kind);
  // MariaDB's _ci collation: case, accents and trailing spaces do not count in any comparison of text.
  const collation: Kinds = text ? ['mysql'] : NONE;
  const name = fieldName(column);
  const compare = fc
    .tuple(name, fc.constantFrom(...COMPARE), compareValue(column))
    .map(([n, op, v]) => piece(`${n} ${op} ${v.literal}`, union(collation, v.exempt)));
  const isNull = fc
    .tuple(name, fc.constantFrom('is null', 'is not null', 'IS NULL', 'is  not  null', '= null', '!= null'))
    .map(([n, op]) => piece(`${n} ${op}`, column.kind === 'json' ? ['sqlite', 'postgres', 'mysql'] : NONE));
  const inList = fc
    .tuple(name, fc.constantFrom('in', 'not in', 'IN'), fc.array(compareValue(column), { minLength: 1, maxLength: 4 }))
    .map(([n, op, vs]) => piece(`${n} ${op} (${vs.map((v) => v.literal).join(', ')})`, union(collation, ...vs.map((v) => v.exempt))));
  const between = fc
    .tuple(name, fc.constantFrom('between', 'not between'), compareValue(column), compareValue(column))
    .map(([n, op, a, b]) => piece(`${n} ${op} ${a.literal} and ${b.literal}`, union(collation, a.exempt, b.exempt)));
  const likeValue = fc.oneof(
    fc.constantFrom('%', '_', 'al%', '%1%', '%\\%%', '%\\_%', '%ü%', "%''%", 'beta\\_1', '2024%', '%:00', '0b6f%', '%\\\\%', '%k\\'),
    anyString,
  );
  const like = fc
    .tuple(name, fc.constantFrom('like', 'not like', 'LIKE', 'contains', 'starts with', 'ends with', 'not contains'), likeValue)
    .chain(([n, op, pattern]) =>
      literal(pattern).map((lit) =>
        piece(
          `${n} ${op} ${lit}`,
          union(
            collation,
            text && hasAsciiLetter(pattern) ? ['sqlite'] : NONE,
            column.kind === 'json' ? ['sqlite', 'postgres', 'mysql'] : NONE,
          ),
        ),
      ),
    );
  return fc.oneof({ weight: 4, arbitrary: compare }, isNull, inList, between, { weight: 2, arbitrary: like });
}

const anyPredicate: fc.Arbitrary<Piece> = fc.constantFrom(...COLUMNS).chain(predicate);

/** Predicates combined with and/or/not and parentheses, to a small depth. */
export const validFilter: fc.Arbitrary<Piece> = fc.letrec<{ node: Piece }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: anyPredicate },
    {
      weight: 1,
      arbitrary: fc
        .tuple(tie('node'), fc.constantFrom('and', 'or', 'AND', 'Or', '&&', '||'), tie('node'))
        .map(([a, op, b]) => piece(`${a.text} ${op} ${b.text}`, union(a.exempt, b.exempt))),
    },
    { weight: 1, arbitrary: tie('node').map((a) => piece(`(${a.text})`, a.exempt)) },
    { weight: 1, arbitrary: tie('node').map((a) => piece(`not ${a.text}`, a.exempt)) },
  ),
})).node;

const JUNK_TOKENS = [
  '(',
  ')',
  "'",
  '"',
  'and',
  'or',
  'not',
  ',',
  '=',
  ';',
  '--',
  '/*',
  '\u0000',
  '%',
  '\\',
  '==',
  '!',
  '.',
  'in',
  'is',
  '::',
  '`',
];

/** Filters that are wrong somewhere: cut, with a token inserted or dropped, unknown fields, SQL, too long or deep. */
export const brokenFilter: fc.Arbitrary<Piece> = fc.oneof(
  fc.tuple(validFilter, fc.nat()).map(([f, at]) => piece(f.text.slice(0, at % (f.text.length + 1)))),
  fc.tuple(validFilter, fc.nat(), fc.constantFrom(...JUNK_TOKENS)).map(([f, at, junk]) => {
    const i = at % (f.text.length + 1);
    return piece(`${f.text.slice(0, i)}${junk}${f.text.slice(i)}`);
  }),
  fc.tuple(validFilter, fc.nat()).map(([f, at]) => {
    const i = at % Math.max(1, f.text.length);
    return piece(`${f.text.slice(0, i)}${f.text.slice(i + 1)}`);
  }),
  fc
    .tuple(
      fc.constantFrom(
        'nosuch',
        'Label2',
        'fz_parent_by_parent_id.name',
        'fz_parent_by_parent_id.nosuch',
        'nosuch.name',
        'id;drop',
        '1',
        '`id`',
        '"id"',
        'count(*)',
        'sum(qty)',
        'fz_item.qty',
        'constructor',
        '__proto__',
      ),
      fc.constantFrom('= 1', "= 'x'", 'is null', "like 'a%'", 'in (1,2)'),
    )
    .map(([f, rest]) => piece(`${f} ${rest}`)),
  fc.constantFrom(...SQLISH).map((s) => piece(s)),
  fc.constantFrom(...SQLISH).map((s) => piece(`label = ${s}`)),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => piece(s)),
  fc.integer({ min: 1, max: 700 }).map((n) => piece(Array.from({ length: n }, (_, i) => `qty = ${i}`).join(' or '))),
  fc.integer({ min: 1, max: 1200 }).map((n) => piece(`${'('.repeat(n)}qty = 1${')'.repeat(n)}`)),
  fc.integer({ min: 1, max: 1200 }).map((n) => piece(`${'not '.repeat(n)}qty = 1`)),
  fc.integer({ min: 1, max: 12000 }).map((n) => piece(`qty in (${Array.from({ length: n }, (_, i) => i).join(',')})`)),
  fc.integer({ min: 100, max: 60000 }).map((n) => piece(`label like '${'%a'.repeat(n / 2)}'`)),
  fc.integer({ min: 100, max: 60000 }).map((n) => piece(`label = '${'x'.repeat(n)}'`)),
  fc.constantFrom('qty = :p', 'label = :name', 'qty in (:a, :b)', 'qty = :', ':p = 1').map((s) => piece(s)),
);

export const anyFilter: fc.Arbitrary<Piece> = fc.oneof({ weight: 3, arbitrary: validFilter }, { weight: 2, arbitrary: brokenFilter });

// ---------------------------------------------------------------------------------------------
// Query parameters

export type QueryPairs = Array<[string, string]>;

/** A parameter's value: a typical one most of the time, odd ones otherwise. */
const oddNumber = fc.constantFrom(
  '-1',
  '0',
  '1.5',
  '1e3',
  'abc',
  '',
  ' 2 ',
  '+3',
  '9007199254740992',
  '99999999999999999999',
  '0x10',
  'NaN',
  'Infinity',
  '-0',
  '١٢',
  '2147483648',
  '4294967296',
  '18446744073709551616',
  '-9223372036854775809',
  '1e308',
  '9'.repeat(400),
  `${'0'.repeat(50)}1`,
);
const boolText = fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'TRUE', '', 'maybe', 't', 'on');

const fieldList = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...COLUMNS).chain(fieldName) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '*',
            'nosuch',
            'COUNT(*)',
            'SUM(qty)',
            'fz_parent_by_parent_id.name',
            '',
            ' ',
            'id as x',
            'id;',
            '__proto__',
            '*,id',
            'id,*',
            '**',
            '*.*',
            'fz_parent_by_parent_id.*',
          ),
        },
      ),
      { minLength: 0, maxLength: 5 },
    ),
    fc.constantFrom(',', ', '),
  )
  .map(([names, separator]) => names.join(separator));

export interface ReadCase {
  query: QueryPairs;
  /** Whether the rows come in one order on every database (else compared as sets, and not with paging). */
  ordered: boolean;
  exempt: Kinds;
}

const orderTerm = fc
  .tuple(fc.constantFrom(...COLUMNS), fc.constantFrom('', ' asc', ' DESC', ' desc nulls first', ' asc nulls last', '+desc'))
  .map(([c, dir]) =>
    piece(
      `${c.name}${dir}`,
      TEXT_KINDS.has(c.kind) ? ['mysql'] : c.kind === 'json' || c.kind === 'uuid' ? ['mysql', 'sqlite', 'postgres'] : NONE,
    ),
  );

/** `order`: valid terms ending with `id` (one order everywhere), or something odd. */
const orderParam: fc.Arbitrary<{ value: string; ordered: boolean; exempt: Kinds }> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(orderTerm, { maxLength: 3 })
      .map((ts) => ({ value: [...ts.map((t) => t.text), 'id'].join(','), ordered: true, exempt: union(...ts.map((t) => t.exempt)) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'nosuch',
        'qty sideways',
        'qty asc nulls',
        'id;drop',
        'id desc desc',
        ',',
        '',
        'COUNT(*)',
        'random()',
        '1',
        'id,id',
        'ID DESC',
        'nosuch desc',
        'qty,nosuch',
        'fz_parent_by_parent_id.name',
        'qty asc, ',
        '__proto__',
        'qty desc asc',
        "qty'",
        'qty\u0000',
      )
      .map((value) => ({ value, ordered: false, exempt: NONE })),
  },
);

/** A parameter's value: mostly a valid one, sometimes odd. */
const mostly = (valid: fc.Arbitrary<string>, odd: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: odd });

/** The parameters of a list read of fz_item besides `filter` and `order`: a few of them, mostly valid. */
const PARAMETERS: Array<fc.Arbitrary<[string, string]>> = [
  fieldList.map((v) => ['fields', v]),
  mostly(fc.integer({ min: 0, max: 12 }).map(String), oddNumber).map((v) => ['limit', v]),
  mostly(fc.integer({ min: 0, max: 12 }).map(String), oddNumber).map((v) => ['offset', v]),
  boolText.map((v) => ['include_count', v]),
  boolText.map((v) => ['count_only', v]),
  boolText.map((v) => ['include_schema', v]),
  mostly(
    fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }).map((ids) => ids.join(',')),
    fc.constantFrom(
      'x',
      '1,,2',
      ' 1 , 2 ',
      '99999999999999999999',
      '1.5',
      '',
      "1' or '1'='1",
      '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60',
      '-1',
      '0',
      // Typed forms of the typed id_fields below (a key read back in another form was a 404).
      '12.50',
      '0.25,-1.50',
      '2024-01-31T08:30:00',
      '2024-01-31 08:30:00.000,1999-12-31T23:59:59Z',
      '2024-01-31',
      '08:30:00,23:59:59.0',
      '0000-01-01',
      '9007199254740991,+123456789012',
      // Separators other than commas, and lists beyond any database's parameter limit.
      '1;2',
      '1|2',
      '1 2',
      '1\t2',
      '[1,2]',
      '1,2,',
      ',1',
      "1,'2'",
      '(1,2)',
      Array.from({ length: 70000 }, (_, i) => i % 20).join(','),
    ),
  ).map((v) => ['ids', v]),
  fc
    .constantFrom('label', 'uid', 'qty', 'nosuch', 'id', 'LABEL', 'label,qty', '', 'price', 'ratio', 'stamp', 'day', 'clock', 'big')
    .map((v) => ['id_field', v]),
  fc.constantFrom('string', 'int', 'integer', 'uuid', 'nosuch', '').map((v) => ['id_type', v]),
  mostly(
    fc.constantFrom('fz_parent_by_parent_id', '*'),
    fc.constantFrom(
      'nosuch',
      'fz_parent_by_parent_id,nosuch',
      '',
      'FZ_PARENT_BY_PARENT_ID',
      // Nesting, separators and names of other things.
      'fz_parent_by_parent_id.fz_item_by_parent_id',
      'fz_parent_by_parent_id,',
      ',',
      '*,nosuch',
      '*,*',
      'fz_parent_by_parent_id,fz_parent_by_parent_id',
      'fz_parent_by_parent_id;drop',
      ' fz_parent_by_parent_id ',
      '__proto__',
      'toString',
      'fz_item_by_parent_id',
      'fz_parent',
      'parent_id',
    ),
  ).map((v) => ['related', v]),
  boolText.map((v) => ['continue', v]),
  boolText.map((v) => ['rollback', v]),
  fc.constantFrom('name', 'id', 'nosuch', '*').map((v) => ['fz_parent_by_parent_id.fields', v]),
  fc
    .tuple(
      fc.constantFrom(
        'fz_parent_by_parent_id.related',
        'fz_parent_by_parent_id.fz_item_by_parent_id.fields',
        'fz_parent_by_parent_id.limit',
        'fz_parent_by_parent_id.order',
        'fz_parent_by_parent_id.filter',
        'nosuch.fields',
        '.fields',
      ),
      fc.constantFrom('fz_item_by_parent_id', '*', 'name', 'nosuch', '(', '-1', '99999999999999999999'),
    )
    .map(([k, v]) => [k, v]),
];

const otherParams: fc.Arbitrary<{ pairs: QueryPairs; exempt: Kinds }> = fc
  .subarray(PARAMETERS, { maxLength: 3 })
  .chain((chosen) => (chosen.length === 0 ? fc.constant([] as QueryPairs) : fc.tuple(...chosen)))
  .map((pairs) => {
    const has = (name: string) => pairs.find(([k]) => k === name)?.[1];
    // id_field means a list of ids of that field; on text (label) MariaDB compares with its collation.
    const exempt: Kinds = /label/i.test(has('id_field') ?? '') && has('ids') !== undefined ? ['mysql'] : NONE;
    return { pairs, exempt };
  });

/** A group read: one grouping field, its aggregates, ordered by the group. */
const groupParams: fc.Arbitrary<{ pairs: QueryPairs; exempt: Kinds }> = fc
  .tuple(
    fc.constantFrom('flag', 'parent_id', 'qty', 'day', 'label', 'nosuch', 'COUNT(*)'),
    fc.subarray([
      'COUNT(*)',
      'SUM(qty)',
      'MIN(day)',
      'MAX(stamp)',
      'AVG(price)',
      'COUNT(qty)',
      'MAX(label)',
      'SUM(label)',
      'AVG(nosuch)',
      'FOO(qty)',
    ]),
    fc.option(fc.constantFrom('COUNT(*) > 1', 'SUM(qty) >= 10', 'count(*) = 1 or max(day) > 2000', 'nosuch > 1', 'COUNT(*) >', 'qty > 1'), {
      nil: undefined,
    }),
  )
  .map(([group, aggregates, having]) => {
    const pairs: QueryPairs = [
      ['group', group],
      ['fields', [group, ...aggregates].join(',')],
      ['order', group],
    ];
    if (having !== undefined) pairs.push(['having', having]);
    const exempt: Kinds = group === 'label' || aggregates.includes('MAX(label)') ? ['mysql'] : NONE;
    return { pairs, exempt };
  });

/** Repeats, empties, arrays and aliases of parameters, as odd clients send them. */
const oddPairs: fc.Arbitrary<QueryPairs> = fc.oneof(
  { weight: 4, arbitrary: fc.constant([] as QueryPairs) },
  fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom('limit', 'offset', 'top', 'skip'), oddNumber),
      fc.tuple(
        fc.constantFrom('filter', 'where', 'fields', 'select', 'order', 'sort', 'order_by', 'group_by', 'ids', 'related'),
        fc.constantFrom('', ' ', 'id', '*'),
      ),
      fc.tuple(
        fc.constantFrom('limit[]', 'filter[]', 'fields[x]', 'order[0]', '__proto__', 'constructor', 'filter[a][b]'),
        fc.constantFrom('1', 'id', 'qty = 1'),
      ),
    ),
    { minLength: 1, maxLength: 3 },
  ),
);

/** A list read of fz_item. */
export const readCase: fc.Arbitrary<ReadCase> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.option(anyFilter, { nil: undefined, freq: 5 }), orderParam, otherParams, oddPairs)
      .map(([filter, order, other, odd]) => {
        const query: QueryPairs = [];
        if (filter !== undefined) query.push(['filter', filter.text]);
        query.push(['order', order.value], ...other.pairs, ...odd);
        return { query, ordered: order.ordered && odd.length === 0, exempt: union(filter?.exempt ?? NONE, order.exempt, other.exempt) };
      }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(groupParams, fc.option(validFilter, { nil: undefined })).map(([group, filter]) => {
      const query: QueryPairs = [...group.pairs];
      if (filter !== undefined) query.push(['filter', filter.text]);
      return { query, ordered: true, exempt: union(group.exempt, filter?.exempt ?? NONE) };
    }),
  },
);

// ---------------------------------------------------------------------------------------------
// Writes

export interface WriteCase {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to /api/v2/db. */
  path: string;
  query: QueryPairs;
  /** Raw body text (may be invalid JSON, hold duplicate keys or numbers beyond a double). */
  body?: string;
  exempt: Kinds;
  /** Whether a refusal must leave every row as it was (one record, rollback, or by filter / id). */
  atomic: boolean;
  /** The Content-Type sent with the body, when not application/json. */
  contentType?: string;
  /** Other headers (a verb tunnelled through POST). */
  headers?: Record<string, string>;
}

const SCRATCH_VALUE_COLUMNS = VALUE_COLUMNS;

/** Values every database stores alike: the seed literals of each type (whole seconds, MariaDB's timestamp range, 4-byte floats). */
function validValue(column: Column): fc.Arbitrary<ColumnValue> {
  if (column.kind === 'json') return fc.constantFrom(plain({ a: [1, 'x'] }), plain([1, 2]), plain('text'), plain(null));
  return fc.constantFrom(...(SEED_LITERALS[column.kind] ?? []), null).map((v) => plain(v));
}

/** One record as JSON text: some columns, maybe an id, unknown or other-case keys, a duplicate key, a nested parent. */
const record = (withId: 'always' | 'maybe' | 'never'): fc.Arbitrary<{ json: string; exempt: Kinds }> =>
  fc
    .tuple(
      withId === 'never'
        ? fc.constant(undefined)
        : withId === 'always'
          ? columnValue(COLUMNS[0]).map((v) => v)
          : fc.option(columnValue(COLUMNS[0]), { nil: undefined }),
      // Half the records hold only values every database stores, so that writes succeed as often as they fail.
      fc
        .tuple(fc.subarray(SCRATCH_VALUE_COLUMNS, { maxLength: 5 }), fc.boolean())
        .chain(([cols, clean]) => fc.tuple(...cols.map((c) => (clean ? validValue(c) : columnValue(c)).map((v) => [c, v] as const)))),
      fc.option(columnValue(COLUMNS[1]), { nil: undefined, freq: 3 }),
      fc.subarray(
        [
          '"nosuch":1',
          '"QTY":3',
          '"label":"dup","label":"dup2"',
          '"fz_parent_by_parent_id":{"id":12,"name":"made by child"}',
          '"fz_parent_by_parent_id":{"name":null}',
          '"fz_parent_by_parent_id":"x"',
          '"__proto__":{"qty":1}',
          '"id":null',
          '"":1',
        ],
        { maxLength: 1 },
      ),
    )
    .map(([id, values, parent, extras]) => {
      const entries: string[] = [];
      const exempt: Kinds[] = [];
      if (id !== undefined) {
        entries.push(`"id":${id.json}`);
        exempt.push(id.exempt);
      }
      for (const [c, v] of values) {
        entries.push(`${JSON.stringify(c.name)}:${v.json}`);
        exempt.push(v.exempt);
      }
      if (parent !== undefined) entries.push(`"parent_id":${parent.json}`);
      entries.push(...extras);
      return { json: `{${entries.join(',')}}`, exempt: union(...exempt) };
    });

const batchQuery = fc
  .record(
    {
      continue: boolText,
      rollback: boolText,
      fields: fc.constantFrom('*', 'id', 'id,qty', 'nosuch', 'QTY'),
      related: fc.constantFrom('fz_parent_by_parent_id', '*', 'nosuch'),
    },
    { requiredKeys: [] },
  )
  .map((r) => Object.entries(r) as QueryPairs);

const isTrue = (pairs: QueryPairs, name: string) =>
  pairs.some(([k, v]) => k === name && ['true', '1', 'yes', 'TRUE', 't', 'on'].includes(v));

/** A body around records: the envelope, bare forms, wrong shapes, broken JSON. */
function envelope(records: string[]): fc.Arbitrary<string> {
  const list = `[${records.join(',')}]`;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(`{"resource":${list}}`) },
    { weight: 1, arbitrary: fc.constant(list) },
    { weight: 1, arbitrary: fc.constant(records[0] ?? '{}') },
    { weight: 1, arbitrary: fc.constant(`{"resource":${records[0] ?? '{}'}}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"resource":null}',
        '{"resource":"x"}',
        '{"resource":[null]}',
        '{"resource":[[1]]}',
        '{"resource":[1,"x"]}',
        'null',
        '"text"',
        '42',
        '',
        '{',
        `{"resource":${list}`,
        `{"resource":${list},"resource":[]}`,
        `{"resource":${list},"fields":"*"}`,
        `{"resource":${list},"ids":"1"}`,
      ),
    },
  );
}

const idInPath = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 14 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('abc', '99999999999999999999', '-1', '1.5', '%00', '1,2', '0', '%20', 'null', '1e0') },
);

const T = '_table/fz_scratch';

/** Writes by filter leave the runner's sentinel row (id 999) alone. */
const keepSentinel = (filter: string) => `(${filter}) and id < 100`;

/** Writes to fz_scratch (and nested ones through fz_parent). */
const jsonWriteCase: fc.Arbitrary<WriteCase> = fc.oneof(
  // POST / PUT / PATCH with a list of records.
  fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH') as fc.Arbitrary<'POST' | 'PUT' | 'PATCH'>,
      fc.array(record('maybe'), { minLength: 0, maxLength: 4 }),
      batchQuery,
    )
    .chain(([method, records, query]) =>
      envelope(records.map((r) => r.json)).map(
        (body): WriteCase => ({
          method,
          path: T,
          query,
          body,
          exempt: union(...records.map((r) => r.exempt)),
          atomic: records.length <= 1 || isTrue(query, 'rollback'),
        }),
      ),
    ),
  // PATCH or PUT one record by id, with a bare object.
  fc
    .tuple(
      fc.constantFrom('PATCH', 'PUT') as fc.Arbitrary<'PATCH' | 'PUT'>,
      idInPath,
      record('never'),
      fc.constantFrom<QueryPairs>([], [['fields', '*']], [['related', '*']]),
    )
    .map(([method, id, r, query]): WriteCase => ({ method, path: `${T}/${id}`, query, body: r.json, exempt: r.exempt, atomic: true })),
  // PATCH many by filter or ids.
  fc
    .tuple(
      record('never'),
      fc.oneof(
        validFilter.map((f): [string, string, Kinds] => ['filter', keepSentinel(f.text), f.exempt]),
        fc
          .array(fc.integer({ min: 0, max: 14 }), { minLength: 1, maxLength: 4 })
          .map((ids): [string, string, Kinds] => ['ids', ids.join(','), NONE]),
      ),
    )
    // By ids each id is a record of a batch: without rollback, those before a missing one stay changed.
    .map(
      ([r, [k, v, ex]]): WriteCase => ({
        method: 'PATCH',
        path: T,
        query: [[k, v]],
        body: `{"resource":[${r.json}]}`,
        exempt: union(r.exempt, ex),
        atomic: k === 'filter',
      }),
    ),
  // DELETE by ids, filter, records in the body, one id, or nothing.
  fc.oneof(
    fc
      .array(idInPath, { minLength: 1, maxLength: 4 })
      .map((ids): WriteCase => ({ method: 'DELETE', path: T, query: [['ids', ids.join(',')]], exempt: NONE, atomic: false })),
    anyFilter.map(
      (f): WriteCase => ({ method: 'DELETE', path: T, query: [['filter', keepSentinel(f.text)]], exempt: f.exempt, atomic: true }),
    ),
    fc.tuple(fc.array(record('always'), { maxLength: 3 }), batchQuery).map(
      ([rs, query]): WriteCase => ({
        method: 'DELETE',
        path: T,
        query,
        body: `{"resource":[${rs.map((r) => r.json).join(',')}]}`,
        exempt: NONE,
        atomic: rs.length <= 1 || isTrue(query, 'rollback'),
      }),
    ),
    idInPath.map((id): WriteCase => ({ method: 'DELETE', path: `${T}/${id}`, query: [], exempt: NONE, atomic: true })),
    fc.constant<WriteCase>({ method: 'DELETE', path: T, query: [], exempt: NONE, atomic: true }),
  ),
  // A parent with nested scratch rows.
  fc.tuple(fc.integer({ min: 10, max: 13 }), fc.array(record('always'), { maxLength: 3 }), batchQuery).map(
    ([id, children, query]): WriteCase => ({
      method: 'POST',
      path: '_table/fz_parent',
      query,
      body: `{"resource":[{"id":${id},"name":"nested","fz_scratch_by_parent_id":[${children.map((c) => c.json).join(',')}]}]}`,
      exempt: union(...children.map((c) => c.exempt)),
      atomic: true,
    }),
  ),
);

/** Writes, some with a body in another Content-Type. */
export const writeCase: fc.Arbitrary<WriteCase> = fc.oneof(
  { weight: 12, arbitrary: jsonWriteCase },
  fc
    .tuple(
      jsonWriteCase.filter((w) => w.body !== undefined),
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/vnd.api+json',
        'APPLICATION/JSON',
        'application/json, text/plain',
      ),
    )
    .map(([w, contentType]) => ({ ...w, contentType })),
  // The verb tunnelled through POST, as the verb it was or an odd one; a `_method` in the body.
  fc
    .tuple(
      jsonWriteCase,
      fc.constantFrom('x-http-method', 'x-http-method-override', 'x-method-override', 'method', '_method', 'body _method'),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant('same') },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'get',
            'GET ',
            ' patch',
            'MERGE',
            'HEAD',
            'OPTIONS',
            'TRACE',
            'CONNECT',
            'POST',
            '',
            'PATCH,GET',
            'DELETE\t',
            'PÄTCH',
            'x'.repeat(2000),
            '__proto__',
          ),
        },
      ),
    )
    .map(([w, carrier, verb]): WriteCase => {
      const value = verb === 'same' ? w.method : verb;
      const tunnelled: WriteCase = { ...w, method: 'POST', atomic: verb === 'same' && w.atomic };
      if (carrier === 'method' || carrier === '_method') return { ...tunnelled, query: [...w.query, [carrier, value]] };
      if (carrier !== 'body _method') return { ...tunnelled, headers: { [carrier]: value } };
      // Only an object body carries one.
      const body = w.body?.startsWith('{"resource"') ? `{"_method":${JSON.stringify(value)},${w.body.slice(1)}` : w.body;
      return { ...tunnelled, body };
    }),
);

// ---------------------------------------------------------------------------------------------
// Reads of one record, and of parents with their related records

export interface RecordRead {
  /** Relative to /api/v2/db. */
  path: string;
  query: QueryPairs;
  exempt: Kinds;
}

const recordId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 10 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'abc',
      '99999999999999999999',
      '-1',
      '1.5',
      '%00',
      '1,2',
      '%20',
      'null',
      '1e0',
      '0x1',
      '+1',
      '01',
      '2147483648',
      '9223372036854775808',
      '%27',
      '..',
      '%2F',
      'ALPHA',
      'alpha',
      '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60',
      '12.50',
      '2024-01-31T08:30:00',
      '2024-01-31',
      '08:30:00',
    ),
  },
);

/** `_table/fz_item/{id}` with the parameters a record read takes. */
const oneRecord: fc.Arbitrary<RecordRead> = fc
  .tuple(
    recordId,
    fc
      .subarray(
        [
          fieldList.map((v): [string, string] => ['fields', v]),
          fc.constantFrom('fz_parent_by_parent_id', '*', 'nosuch').map((v): [string, string] => ['related', v]),
          fc
            .constantFrom('label', 'uid', 'qty', 'nosuch', 'id', 'LABEL', 'label,qty', '', 'price', 'stamp', 'day', 'clock')
            .map((v): [string, string] => ['id_field', v]),
          fc.constantFrom('string', 'int', 'uuid', 'nosuch').map((v): [string, string] => ['id_type', v]),
          boolText.map((v): [string, string] => ['include_schema', v]),
          fc.constantFrom('qty = 1', 'nosuch = 1', '(').map((v): [string, string] => ['filter', v]),
        ],
        { maxLength: 3 },
      )
      .chain((chosen) => (chosen.length === 0 ? fc.constant([] as QueryPairs) : fc.tuple(...chosen))),
  )
  .map(([id, query]) => ({
    path: `_table/fz_item/${id}`,
    query,
    // By a text field, MariaDB's collation finds `Alpha` for `alpha`.
    exempt: query.some(([k, v]) => k === 'id_field' && /label/i.test(v)) ? ['mysql'] : NONE,
  }));

/** fz_parent with its items (has_many), per-relation fields, order, limit and filter. */
const parentsWithItems: fc.Arbitrary<RecordRead> = fc
  .tuple(
    fc.constantFrom(
      'fz_item_by_parent_id',
      '*',
      'fz_item_by_parent_id,fz_scratch_by_parent_id',
      'fz_item_by_parent_id,nosuch',
      'FZ_ITEM_BY_PARENT_ID',
      'fz_item_by_parent_id.fz_parent_by_parent_id',
      'fz_item_by_parent_id,fz_item_by_parent_id',
    ),
    fc.option(fc.constantFrom('id', 'label', 'id,label', 'nosuch', '*', ''), { nil: undefined }),
    fc.constantFrom('id', 'qty desc,id', 'label,id', 'nosuch', 'id desc'),
    fc.option(mostly(fc.integer({ min: 0, max: 3 }).map(String), oddNumber), { nil: undefined }),
    fc.option(
      fc.oneof(
        validFilter.map((f) => f.text),
        fc.constantFrom('(', 'nosuch = 1'),
      ),
      { nil: undefined },
    ),
    fc.option(fc.integer({ min: 0, max: 3 }).map(String), { nil: undefined }),
  )
  .map(([related, fields, order, limit, filter, id]) => {
    const query: QueryPairs = [
      ['related', related],
      ['order', 'id'],
      ['fz_item_by_parent_id.order', order],
    ];
    if (fields !== undefined) query.push(['fz_item_by_parent_id.fields', fields]);
    if (limit !== undefined) query.push(['fz_item_by_parent_id.limit', limit]);
    if (filter !== undefined) query.push(['fz_item_by_parent_id.filter', filter]);
    // A related filter on text or a json column differs as in a list read: not compared.
    const exempt: Kinds = order.startsWith('label') || filter !== undefined ? ['mysql', 'sqlite', 'postgres'] : NONE;
    return { path: id === undefined ? '_table/fz_parent' : `_table/fz_parent/${id}`, query, exempt };
  });

export const recordRead: fc.Arbitrary<RecordRead> = fc.oneof(oneRecord, parentsWithItems);

// ---------------------------------------------------------------------------------------------
// Schema writes: fields of fz_shape (a table the runner makes again before each sequence) changed, added, dropped

/** fz_shape as each sequence begins: its fields and its rows (none of them may be lost by a refused change). */
export const SHAPE_FIELDS = [
  { name: 'id', type: 'id' },
  { name: 'name', type: 'string', length: 20, allow_null: true },
  { name: 'qty', type: 'integer', allow_null: true },
  { name: 'price', type: 'decimal', precision: 8, scale: 2, allow_null: true },
  { name: 'day', type: 'date', allow_null: true },
  { name: 'flag', type: 'boolean', allow_null: true },
  { name: 'note', type: 'text', allow_null: true },
];
export const SHAPE_ROWS = [
  { id: 1, name: 'first', qty: 1, price: 1.5, day: '2024-01-31', flag: true, note: 'a' },
  { id: 2, name: 'a twenty-long name!!', qty: -70000, price: 999999.99, day: '1999-12-31', flag: false, note: 'ü💥' },
  { id: 3, name: null, qty: null, price: null, day: null, flag: null, note: null },
];

const SHAPE_NAMES = SHAPE_FIELDS.map((f) => f.name);

/** Field names: the table's own (in other cases too), new ones, and names no database takes. */
const shapeFieldName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SHAPE_NAMES.slice(1)) },
  { weight: 3, arbitrary: fc.constantFrom('extra', 'extra2', 'Extra', 'made_at', 'code') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'id',
      'ID',
      'NAME',
      '',
      ' ',
      'a b',
      'a.b',
      ' lead',
      'x'.repeat(64),
      'x'.repeat(65),
      'select',
      'order',
      '"q"',
      '`q`',
      "q'",
      'ünï',
      '💥',
      'a\u0000b',
      'a;drop table fz_shape',
      '__proto__',
      'constructor',
      '1abc',
      'name$',
      'fz_shape_by_x',
    ),
  },
);

const SCHEMA_TYPES = [
  'string',
  'text',
  'integer',
  'bigint',
  'smallint',
  'tinyint',
  'decimal',
  'float',
  'double',
  'money',
  'boolean',
  'date',
  'time',
  'datetime',
  'timestamp',
  'timestamp_on_create',
  'timestamp_on_update',
  'uuid',
  'json',
  'binary',
  'reference',
  'id',
  'user_id',
];

const schemaType = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom<unknown>(...SCHEMA_TYPES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      'strnig',
      '',
      'STRING',
      'Integer',
      'varchar',
      'varchar(10)',
      'int',
      'nosuchtype',
      'int; drop table fz_shape',
      'varchar(abc)',
      'numeric(5,2)',
      'int[]',
      5,
      null,
      true,
      ['string'],
      { type: 'string' },
      'pk',
      'fk',
      'many_many',
    ),
  },
);

const sizeValue = fc.constantFrom<unknown>(
  1,
  5,
  10,
  20,
  255,
  0,
  -1,
  1.5,
  '10',
  'abc',
  '',
  null,
  true,
  70000,
  16777216,
  2147483647,
  2147483648,
  1e300,
  [10],
  {},
);

const defaultValue = fc.constantFrom<unknown>(
  null,
  0,
  1,
  -1,
  1.5,
  'abc',
  '',
  'x'.repeat(21),
  'x'.repeat(300),
  true,
  false,
  '2024-01-31',
  '2024-02-30',
  '08:30:00',
  'now()',
  'CURRENT_TIMESTAMP',
  99999999999,
  '99999999999999999999999',
  1e300,
  {},
  [],
  [1],
  { expression: '1+1' },
  { expression: 'CURRENT_TIMESTAMP' },
  { expression: 'nosuch_function()' },
  { expression: '1; drop table fz_shape' },
  { expression: "'a' -- x" },
  { expression: '' },
  { expression: 5 },
  { EXPRESSION: '2' },
  '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60',
  '{"a":1}',
);

/** A field definition: a name, a type, and some of the other keys, each right or wrong. */
const fieldDefinition: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    shapeFieldName,
    fc.option(schemaType, { nil: undefined, freq: 6 }),
    fc.record(
      {
        length: sizeValue,
        precision: sizeValue,
        scale: sizeValue,
        default: defaultValue,
        allow_null: fc.constantFrom<unknown>(true, false, 'yes', 0, null, 'maybe'),
        is_unique: fc.constantFrom<unknown>(true, false, 'true'),
        is_primary_key: fc.constantFrom<unknown>(true, false),
        auto_increment: fc.constantFrom<unknown>(true, false),
        is_index: fc.constantFrom<unknown>(true, false),
        ref_table: fc.constantFrom<unknown>('fz_parent', 'fz_shape', 'nosuch', '', 5, 'FZ_PARENT'),
        ref_field: fc.constantFrom<unknown>('id', 'name', 'nosuch', ''),
        ref_on_delete: fc.constantFrom<unknown>('cascade', 'set null', 'explode', ''),
        db_type: fc.constantFrom<unknown>('varchar(5)', 'int', 'nosuchtype', 'int; drop table fz_shape', 'numeric(100,2)', 'text[]', ''),
        label: fc.constantFrom<unknown>('Label', '', 5, null),
        picklist: fc.constantFrom<unknown>(['a', 'b'], 'a,b', 5),
        validation: fc.constantFrom<unknown>({ not_empty: true }, 'x', null),
        new_name: fc.constantFrom<unknown>('renamed', 'NAME', ''),
        fixed_length: fc.constantFrom<unknown>(true, false),
        nosuchkey: fc.constantFrom<unknown>(1, 'x'),
      },
      { requiredKeys: [] },
    ),
  )
  // At most four other keys: a definition with most of them fails for the first and reaches nothing else.
  .chain(([name, type, rest]) =>
    fc.shuffledSubarray(Object.entries(rest), { maxLength: 4 }).map((entries) => ({
      name,
      ...(type === undefined ? {} : { type }),
      ...Object.fromEntries(entries),
    })),
  );

export interface SchemaCase {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to /api/v2/db. */
  path: string;
  query: QueryPairs;
  body?: string;
  /** Whether a success may rightly change fz_shape's rows (a field dropped or retyped, a table dropped). */
  mayChangeRows: boolean;
}

const S = '_schema/fz_shape';
const fieldBody = (defs: Array<Record<string, unknown>>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(JSON.stringify({ resource: defs })) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(defs)) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(defs[0] ?? {})) },
    { weight: 1, arbitrary: fc.constantFrom('{"resource":null}', '{"resource":[1]}', '[]', '{}', 'null', '"x"', '{', '[[{}]]') },
  );

/** One write below `_schema`: fields added, changed, dropped; tables merged, made, dropped; relationships. */
export const schemaCase: fc.Arbitrary<SchemaCase> = fc.oneof(
  // Fields added (POST) or merged (PUT/PATCH) through `_field`.
  fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH') as fc.Arbitrary<'POST' | 'PUT'>,
      fc.array(fieldDefinition, { minLength: 1, maxLength: 3 }),
    )
    .chain(([method, defs]) =>
      fieldBody(defs).map((body): SchemaCase => ({ method, path: `${S}/_field`, query: [], body, mayChangeRows: method !== 'POST' })),
    ),
  // One field changed by name.
  fc
    .tuple(
      fc.constantFrom('PUT', 'PATCH', 'POST') as fc.Arbitrary<'PUT' | 'PATCH'>,
      fc.constantFrom(...SHAPE_NAMES, 'nosuch', 'NAME', '%20', '..'),
      fieldDefinition,
    )
    .map(
      ([method, name, def]): SchemaCase => ({
        method,
        path: `${S}/_field/${name}`,
        query: [],
        body: JSON.stringify(Object.fromEntries(Object.entries(def).filter(([k]) => k !== 'name'))),
        mayChangeRows: true,
      }),
    ),
  // The table merged with a definition.
  fc
    .tuple(
      fc.constantFrom('PUT', 'PATCH', 'POST') as fc.Arbitrary<'PUT' | 'PATCH'>,
      fc.array(fieldDefinition, { maxLength: 3 }),
      fc.constantFrom<QueryPairs>([], [['fields', '*']]),
    )
    .map(
      ([method, defs, query]): SchemaCase => ({
        method,
        path: S,
        query,
        body: JSON.stringify({ field: defs }),
        mayChangeRows: true,
      }),
    ),
  // `_schema` with tables: fz_shape merged, new tables made (some referencing others), a name given twice.
  fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH') as fc.Arbitrary<'POST' | 'PUT'>,
      fc.array(
        fc.tuple(
          fc.constantFrom(
            'fz_shape',
            'fz_shape_new',
            'FZ_SHAPE',
            'fz_shape_new2',
            '',
            'a.b',
            'x'.repeat(65),
            'sqlite_master',
            'pg_class',
            'fz_parent',
          ),
          fc.array(fieldDefinition, { maxLength: 3 }),
        ),
        { minLength: 1, maxLength: 2 },
      ),
      fc.constantFrom<QueryPairs>([], [['check_exist', 'true']], [['fields', '*']]),
    )
    .map(
      ([method, tables, query]): SchemaCase => ({
        method,
        path: '_schema',
        query,
        body: JSON.stringify({ resource: tables.map(([name, field]) => ({ name, field })) }),
        mayChangeRows: true,
      }),
    ),
  // Fields dropped.
  fc.oneof(
    fc
      .constantFrom(...SHAPE_NAMES, 'nosuch', '')
      .map((name): SchemaCase => ({ method: 'DELETE', path: `${S}/_field/${name}`, query: [], mayChangeRows: true })),
    fc
      .constantFrom('name,qty', 'nosuch,name', 'id', ',', 'name,name')
      .map((ids): SchemaCase => ({ method: 'DELETE', path: `${S}/_field`, query: [['ids', ids]], mayChangeRows: true })),
  ),
  // Relationships made and dropped.
  fc
    .tuple(
      fc.constantFrom('POST', 'PATCH', 'DELETE') as fc.Arbitrary<'POST' | 'PATCH' | 'DELETE'>,
      fc.record(
        {
          type: fc.constantFrom<unknown>('belongs_to', 'has_many', 'many_many', 'nosuch', 5),
          field: fc.constantFrom<unknown>('qty', 'name', 'nosuch', 'id', ''),
          ref_table: fc.constantFrom<unknown>('fz_parent', 'fz_shape', 'nosuch', 7),
          ref_field: fc.constantFrom<unknown>('id', 'name', 'nosuch'),
          is_virtual: fc.constantFrom<unknown>(true, false),
        },
        { requiredKeys: [] },
      ),
    )
    .map(
      ([method, relation]): SchemaCase => ({
        method,
        path: `${S}/_related`,
        query: method === 'DELETE' ? [['ids', 'fz_parent_by_qty']] : [],
        body: method === 'DELETE' ? undefined : JSON.stringify({ resource: [relation] }),
        mayChangeRows: false,
      }),
    ),
  // Paths below `_schema` that name nothing, and tables dropped.
  fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE') as fc.Arbitrary<SchemaCase['method']>,
      fc.constantFrom(
        `${S}/nosuch`,
        `${S}/_field/name/x`,
        '_schema/nosuch/_field',
        `${S}/_related/nosuch`,
        '_schema/fz_shape_new',
        `${S}/_field/%00`,
      ),
    )
    .map(
      ([method, path]): SchemaCase => ({
        method,
        path,
        query: [],
        body: method === 'DELETE' ? undefined : '{"field":[]}',
        mayChangeRows: false,
      }),
    ),
);
