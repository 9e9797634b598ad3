import { describe, expect, it } from 'vitest';
import { BadRequestError, InternalServerError } from '#runtime/core/errors.js';
import type { SqlDialect, TableModel } from '#runtime/model/platform-model.js';
import { compileFilter, type FilterScope } from '#runtime/services/sql/filter/filter-compiler.js';
import { parseFilter, type FilterNode } from '#runtime/services/sql/filter/filter-parser.js';
import { contact, contactGroup, contactInfo, field, schema, toSql } from './filter-fixtures.js';

type Want = { sql: string; parameters: unknown[] };

function compile(filter: string, dialect: SqlDialect = 'sqlite', scope: Partial<FilterScope> = {}): Want {
  const { sql, parameters } = toSql(compileFilter(parseFilter(filter), { table: contact, schema, dialect, ...scope }), dialect);
  return { sql, parameters: [...parameters] };
}

const c = (column: string): string => `"contact"."${column}"`;

const sqlite: Array<[string, { given: string; want: Want }]> = [
  ['equals', { given: "first_name = 'Jon'", want: { sql: `${c('first_name')} = ?`, parameters: ['Jon'] } }],
  ['source name of the column', { given: "LAST_NAME = 'Doe'", want: { sql: `${c('Last_Name')} = ?`, parameters: ['Doe'] } }],
  ['not equals', { given: 'age != 3', want: { sql: `${c('age')} <> ?`, parameters: [3] } }],
  ['word operators', { given: 'age gte 3 and age LT 9', want: { sql: `(${c('age')} >= ? and ${c('age')} < ?)`, parameters: [3, 9] } }],
  ['integer from a quoted string', { given: "id = '7'", want: { sql: `${c('id')} = ?`, parameters: [7] } }],
  ['negative integer', { given: 'age > -1', want: { sql: `${c('age')} > ?`, parameters: [-1] } }],
  [
    'integer beyond 2^53 stays exact text',
    { given: 'id = 9007199254740993', want: { sql: `${c('id')} = ?`, parameters: ['9007199254740993'] } },
  ],
  ['float', { given: 'score >= 4.5', want: { sql: `${c('score')} >= ?`, parameters: [4.5] } }],
  ['float from an integer', { given: 'score < 5', want: { sql: `${c('score')} < ?`, parameters: [5] } }],
  ['boolean true', { given: 'is_active = true', want: { sql: `${c('is_active')} = ?`, parameters: [1] } }],
  ['boolean yes', { given: 'is_active = YES', want: { sql: `${c('is_active')} = ?`, parameters: [1] } }],
  ['boolean 0', { given: "is_active = '0'", want: { sql: `${c('is_active')} = ?`, parameters: [0] } }],
  ['boolean no', { given: 'is_active != no', want: { sql: `${c('is_active')} <> ?`, parameters: [0] } }],
  ['number on a string column binds the text', { given: 'first_name = 007', want: { sql: `${c('first_name')} = ?`, parameters: ['007'] } }],
  ['date binds as written', { given: "birthday >= '1990-01-01'", want: { sql: `${c('birthday')} >= ?`, parameters: ['1990-01-01'] } }],
  ['is null', { given: 'email is null', want: { sql: `${c('email')} is null`, parameters: [] } }],
  ['= null', { given: 'email = null', want: { sql: `${c('email')} is null`, parameters: [] } }],
  ['is not null', { given: 'email is not null', want: { sql: `${c('email')} is not null`, parameters: [] } }],
  [
    'like keeps the pattern',
    { given: "email like '%@example.com'", want: { sql: `${c('email')} like ? escape '\\'`, parameters: ['%@example.com'] } },
  ],
  ['not like', { given: 'email not like %.org', want: { sql: `${c('email')} not like ? escape '\\'`, parameters: ['%.org'] } }],
  [
    'contains escapes wildcards',
    { given: "last_name contains '100%'", want: { sql: `${c('Last_Name')} like ? escape '!'`, parameters: ['%100!%%'] } },
  ],
  [
    'starts with escapes _ and !',
    { given: "email starts with 'a_b!'", want: { sql: `${c('email')} like ? escape '!'`, parameters: ['a!_b!!%'] } },
  ],
  ['not ends with', { given: "email not ends with '.com'", want: { sql: `${c('email')} not like ? escape '!'`, parameters: ['%.com'] } }],
  ['in', { given: 'id in (1, 2, "3")', want: { sql: `${c('id')} in (?, ?, ?)`, parameters: [1, 2, 3] } }],
  ['not in', { given: "first_name not in ('a', 'b')", want: { sql: `${c('first_name')} not in (?, ?)`, parameters: ['a', 'b'] } }],
  ['between', { given: 'age between 18 and 65', want: { sql: `${c('age')} between ? and ?`, parameters: [18, 65] } }],
  ['not between', { given: 'score not between 1 and 2.5', want: { sql: `${c('score')} not between ? and ?`, parameters: [1, 2.5] } }],
  [
    'and / or / not',
    {
      given: 'not age = 1 and (email is null or id = 2)',
      want: { sql: `(not (${c('age')} = ?) and (${c('email')} is null or ${c('id')} = ?))`, parameters: [1, 2] },
    },
  ],
  ['table name prefix is the table itself', { given: 'contact.id = 1', want: { sql: `${c('id')} = ?`, parameters: [1] } }],
  // injection attempts: the text only ever reaches the parameters
  [
    'quote injection is one parameter',
    { given: "first_name = 'x'' OR 1=1 --'", want: { sql: `${c('first_name')} = ?`, parameters: ["x' OR 1=1 --"] } },
  ],
  [
    'double-quoted injection',
    { given: `first_name = "x"" or ""1""=""1"`, want: { sql: `${c('first_name')} = ?`, parameters: [`x" or "1"="1`] } },
  ],
  [
    'union in a value',
    { given: "email = '1 union select * from users'", want: { sql: `${c('email')} = ?`, parameters: ['1 union select * from users'] } },
  ],
];

describe('compileFilter (sqlite)', () => {
  it.each(sqlite)('%s', (_name, { given, want }) => {
    expect(compile(given)).toEqual(want);
  });
});

describe('uuids on SQLite, stored in either case by other programs', () => {
  const withUuid: TableModel = { ...contact, fields: [...contact.fields, field('token', 'uuid')] };
  const lower = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
  const upper = lower.toUpperCase();
  const cases: Array<[string, Want]> = [
    [`token = '${upper}'`, { sql: `${c('token')} in (?, ?)`, parameters: [lower, upper] }],
    [`token != '{${lower}}'`, { sql: `${c('token')} not in (?, ?)`, parameters: [lower, upper] }],
    [`token in ('${lower}', '${upper}')`, { sql: `${c('token')} in (?, ?, ?, ?)`, parameters: [lower, upper, lower, upper] }],
    [`token not in ('${upper}')`, { sql: `${c('token')} not in (?, ?)`, parameters: [lower, upper] }],
  ];
  // Both canonical forms against the bare column (an index on it serves them), never lower(column).
  it.each(cases)('%s', (given, want) => {
    expect(compile(given, 'sqlite', { table: withUuid })).toEqual(want);
  });
  it('PostgreSQL and MySQL compare any case themselves: one value', () => {
    for (const dialect of ['postgres', 'mysql'] as const)
      expect(compile(`token = '${upper}'`, dialect, { table: withUuid }).parameters).toEqual([lower]);
  });
});

const dialects: Array<[string, { given: string; want: Record<SqlDialect, Want> }]> = [
  [
    'quoting and placeholders',
    {
      given: "last_name = 'Doe' and id in (1, 2)",
      want: {
        sqlite: { sql: '("contact"."Last_Name" = ? and "contact"."id" in (?, ?))', parameters: ['Doe', 1, 2] },
        postgres: { sql: '("contact"."Last_Name" = $1 and "contact"."id" in ($2, $3))', parameters: ['Doe', 1, 2] },
        mysql: { sql: '(`contact`.`Last_Name` = ? and `contact`.`id` in (?, ?))', parameters: ['Doe', 1, 2] },
      },
    },
  ],
  [
    'booleans: 1/0 or true/false',
    {
      given: 'is_active = true or is_active = 0',
      want: {
        sqlite: { sql: '("contact"."is_active" = ? or "contact"."is_active" = ?)', parameters: [1, 0] },
        postgres: { sql: '("contact"."is_active" = $1 or "contact"."is_active" = $2)', parameters: [true, false] },
        mysql: { sql: '(`contact`.`is_active` = ? or `contact`.`is_active` = ?)', parameters: [1, 0] },
      },
    },
  ],
  [
    'contains on a number casts on postgres only',
    {
      given: 'age contains 4',
      want: {
        sqlite: { sql: `"contact"."age" like ? escape '!'`, parameters: ['%4%'] },
        postgres: { sql: `cast("contact"."age" as text) like $1 escape '!'`, parameters: ['%4%'] },
        mysql: { sql: "`contact`.`age` like ? escape '!'", parameters: ['%4%'] },
      },
    },
  ],
  [
    'like on a boolean matches 1/0 everywhere',
    {
      given: "is_active like '1'",
      want: {
        sqlite: { sql: `"contact"."is_active" like ? escape '\\'`, parameters: ['1'] },
        postgres: { sql: `cast(cast("contact"."is_active" as integer) as text) like $1`, parameters: ['1'] },
        mysql: { sql: '`contact`.`is_active` like ?', parameters: ['1'] },
      },
    },
  ],
  [
    'a trailing lone backslash is a literal backslash',
    {
      given: "email like 'a\\\\'",
      want: {
        sqlite: { sql: `"contact"."email" like ? escape '\\'`, parameters: ['a\\\\'] },
        postgres: { sql: '"contact"."email" like $1', parameters: ['a\\\\'] },
        mysql: { sql: '`contact`.`email` like ?', parameters: ['a\\'] },
      },
    },
  ],
  [
    'dates in ISO 8601 forms, compared as written',
    {
      given: "birthday >= '1990-01-01T00:00:00Z'",
      want: {
        sqlite: { sql: `"contact"."birthday" >= ?`, parameters: ['1990-01-01'] },
        postgres: { sql: '"contact"."birthday" >= $1', parameters: ['1990-01-01T00:00:00Z'] },
        mysql: { sql: '`contact`.`birthday` >= ?', parameters: ['1990-01-01'] },
      },
    },
  ],
  [
    'injection stays a parameter everywhere',
    {
      given: "email = 'a'';drop table contact;--'",
      want: {
        sqlite: { sql: '"contact"."email" = ?', parameters: ["a';drop table contact;--"] },
        postgres: { sql: '"contact"."email" = $1', parameters: ["a';drop table contact;--"] },
        mysql: { sql: '`contact`.`email` = ?', parameters: ["a';drop table contact;--"] },
      },
    },
  ],
  [
    'has_many related field',
    {
      given: "contact_info.city = 'Boston'",
      want: {
        sqlite: {
          sql: 'exists (select 1 from "contact_info" as "rel" where "rel"."contact_id" = "contact"."id" and "rel"."city" = ?)',
          parameters: ['Boston'],
        },
        postgres: {
          sql: 'exists (select 1 from "contact_info" as "rel" where "rel"."contact_id" = "contact"."id" and "rel"."city" = $1)',
          parameters: ['Boston'],
        },
        mysql: {
          sql: 'exists (select 1 from `contact_info` as `rel` where `rel`.`contact_id` = `contact`.`id` and `rel`.`city` = ?)',
          parameters: ['Boston'],
        },
      },
    },
  ],
  [
    'many_many related field through the junction',
    {
      given: "contact_group_by_contact_group_relationship.name = 'Work'",
      want: {
        sqlite: {
          sql: 'exists (select 1 from "contact_group_relationship" as "jct" inner join "contact_group" as "rel" on "rel"."id" = "jct"."contact_group_id" where "jct"."contact_id" = "contact"."id" and "rel"."name" = ?)',
          parameters: ['Work'],
        },
        postgres: {
          sql: 'exists (select 1 from "contact_group_relationship" as "jct" inner join "contact_group" as "rel" on "rel"."id" = "jct"."contact_group_id" where "jct"."contact_id" = "contact"."id" and "rel"."name" = $1)',
          parameters: ['Work'],
        },
        mysql: {
          sql: 'exists (select 1 from `contact_group_relationship` as `jct` inner join `contact_group` as `rel` on `rel`.`id` = `jct`.`contact_group_id` where `jct`.`contact_id` = `contact`.`id` and `rel`.`name` = ?)',
          parameters: ['Work'],
        },
      },
    },
  ],
];

describe('compileFilter per dialect', () => {
  it.each(dialects)('%s', (_name, { given, want }) => {
    for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) expect(compile(given, dialect)).toEqual(want[dialect]);
  });
});

describe('date values other than ISO 8601', () => {
  it.each(['now', 'today', 'infinity', 'epoch', 'Jan 1 1990', '1990/01/01', '19900101'])(
    "'%s' is a 400 on every database (PostgreSQL alone took it)",
    (value) => {
      for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
        expect(() => compile(`birthday > '${value}'`, dialect), dialect).toThrow(
          "Invalid value for field 'birthday': not a valid date or time.",
        );
      }
    },
  );
});

describe('compileFilter in having', () => {
  const having = { groupFields: ['last_name', 'is_active'] };

  it.each<[string, { given: string; want: Record<SqlDialect, Want> }]>([
    [
      'count(*) and a grouped field',
      {
        given: "count(*) > 2 and last_name != 'Doe'",
        want: {
          sqlite: { sql: `(count(*) > ? and ${c('Last_Name')} <> ?)`, parameters: [2, 'Doe'] },
          postgres: { sql: '(count(*) > $1 and "contact"."Last_Name" <> $2)', parameters: [2, 'Doe'] },
          mysql: { sql: '(count(*) > ? and `contact`.`Last_Name` <> ?)', parameters: [2, 'Doe'] },
        },
      },
    ],
    [
      'aggregates of fields cast their values',
      {
        given: 'sum(age) >= 10.5 or max(is_active) = true',
        want: {
          sqlite: { sql: `(sum(${c('age')}) >= ? or max(${c('is_active')}) = ?)`, parameters: [10.5, 1] },
          // PostgreSQL has no max of booleans: bool_or is theirs.
          postgres: { sql: '(sum("contact"."age") >= $1 or bool_or("contact"."is_active") = $2)', parameters: [10.5, true] },
          mysql: { sql: '(sum(`contact`.`age`) >= ? or max(`contact`.`is_active`) = ?)', parameters: [10.5, 1] },
        },
      },
    ],
  ])('%s', (_name, { given, want }) => {
    for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) expect(compile(given, dialect, having)).toEqual(want[dialect]);
  });

  it.each<[string, Partial<FilterScope>, string]>([
    ['count(*) = 1', {}, "Aggregate function 'count(*)' is only allowed in 'having'."],
    ['email is null', having, "Field 'email' in 'having' must be one of the 'group' fields or inside an aggregate function."],
    ['avg(bogus) > 1', having, "Invalid or unparsable field in filter request: 'bogus'"],
    ["count(id) = 'x'", having, "Field 'COUNT(id)' must be a valid integer."],
  ])('rejects %s', (given, scope, message) => {
    expect(() => compile(given, 'sqlite', scope)).toThrow(message);
  });
});

describe('a field whose name holds a dot', () => {
  const dotted: TableModel = {
    ...contact,
    fields: [...contact.fields, field('a.b', 'string'), field('contact_info_by_contact_id.x', 'string')],
  };
  it('is the field itself, before a relation of that name', () => {
    for (const given of ["a.b = 'x'", "contact_info_by_contact_id.x = 'x'"]) {
      const { sql, parameters } = toSql(compileFilter(parseFilter(given), { table: dotted, schema, dialect: 'sqlite' }), 'sqlite');
      expect(sql).toBe(`${c(given.split(' ')[0])} = ?`);
      expect(parameters).toEqual(['x']);
    }
  });
});

describe('compileFilter scope', () => {
  it('qualifies columns with the alias when given', () => {
    expect(compile('id = 1', 'postgres', { alias: 't' })).toEqual({ sql: '"t"."id" = $1', parameters: [1] });
  });

  it('accepts the alias as a table prefix', () => {
    expect(compile('t.id = 1', 'sqlite', { alias: 't' })).toEqual({ sql: '"t"."id" = ?', parameters: [1] });
  });

  it('keeps subquery aliases clear of the outer one', () => {
    expect(compile("contact_info.city = 'x'", 'sqlite', { alias: 'rel' }).sql).toBe(
      'exists (select 1 from "contact_info" as "rel_" where "rel_"."contact_id" = "rel"."id" and "rel_"."city" = ?)',
    );
  });

  it('quotes a schema-qualified related table', () => {
    const inSchema: TableModel = { ...contactInfo, sourceSchema: 'crm' };
    const withSchema = { ...schema, tables: [contact, contactGroup, inSchema] };
    expect(compile("contact_info.city = 'x'", 'postgres', { schema: withSchema }).sql).toBe(
      'exists (select 1 from "crm"."contact_info" as "rel" where "rel"."contact_id" = "contact"."id" and "rel"."city" = $1)',
    );
  });

  it('resolves a belongs_to relation by related table name', () => {
    const { sql, parameters } = toSql(
      compileFilter(parseFilter("contact.first_name = 'Jon'"), { table: contactInfo, schema, dialect: 'sqlite' }),
      'sqlite',
    );
    expect({ sql, parameters }).toEqual({
      sql: 'exists (select 1 from "contact" as "rel" where "rel"."id" = "contact_info"."contact_id" and "rel"."first_name" = ?)',
      parameters: ['Jon'],
    });
  });

  it('takes :name placeholders from params, with or without the colon', () => {
    expect(compile('id = :id and first_name = :name', 'sqlite', { params: { ':id': '4', name: 'Bob' } })).toEqual({
      sql: `(${c('id')} = ? and ${c('first_name')} = ?)`,
      parameters: [4, 'Bob'],
    });
  });

  it('expands a list parameter in in()', () => {
    expect(compile('id in (:ids, 9)', 'sqlite', { params: { ids: [1, 2] } })).toEqual({
      sql: `${c('id')} in (?, ?, ?)`,
      parameters: [1, 2, 9],
    });
  });

  it('turns a null parameter with = into is null', () => {
    expect(compile('email = :e', 'sqlite', { params: { e: null } })).toEqual({ sql: `${c('email')} is null`, parameters: [] });
    expect(compile('email != :e', 'sqlite', { params: { e: null } })).toEqual({ sql: `${c('email')} is not null`, parameters: [] });
  });

  it('escapes a parameter used with contains', () => {
    expect(compile('email contains :q', 'sqlite', { params: { q: '%' } })).toEqual({
      sql: `${c('email')} like ? escape '!'`,
      parameters: ['%!%%'],
    });
  });
});

function failure(run: () => unknown): { status: number; message: string; context: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof BadRequestError || error instanceof InternalServerError) {
      return { status: error.status, message: error.message, context: error.context };
    }
    throw error;
  }
  throw new Error('expected a failure');
}

const rejected: Array<[string, { given: string; params?: Record<string, unknown>; want: { message: string; context: unknown } }]> = [
  [
    'unknown field',
    {
      given: 'nope = 1',
      want: { message: "Invalid or unparsable field in filter request: 'nope'", context: { field: 'nope', position: 1 } },
    },
  ],
  [
    'unknown field after and',
    {
      given: 'id = 1 and nope = 1',
      want: { message: "Invalid or unparsable field in filter request: 'nope'", context: { field: 'nope', position: 12 } },
    },
  ],
  [
    'source name is not an API name',
    {
      given: "contact.Last_Namex = 'x'",
      want: {
        message: "Invalid or unparsable field in filter request: 'contact.Last_Namex'",
        context: { field: 'contact.Last_Namex', position: 1 },
      },
    },
  ],
  [
    'unknown related field',
    {
      given: 'contact_info.nope = 1',
      want: {
        message: "Invalid or unparsable field in filter request: 'contact_info.nope'",
        context: { field: 'contact_info.nope', position: 1 },
      },
    },
  ],
  [
    'unknown relation',
    {
      given: 'orders.total = 1',
      want: { message: "Invalid or unknown relationship in filter request: 'orders'", context: { relation: 'orders', position: 1 } },
    },
  ],
  [
    'integer column with text',
    { given: "age = 'abc'", want: { message: "Field 'age' must be a valid integer.", context: { field: 'age', position: 7 } } },
  ],
  [
    'integer column with a statement',
    { given: "id = '1; drop table x'", want: { message: "Field 'id' must be a valid integer.", context: { field: 'id', position: 6 } } },
  ],
  [
    'integer column with a decimal',
    { given: 'id = 1.5', want: { message: "Field 'id' must be a valid integer.", context: { field: 'id', position: 6 } } },
  ],
  [
    'integer in a list',
    { given: 'id in (1, x)', want: { message: "Field 'id' must be a valid integer.", context: { field: 'id', position: 11 } } },
  ],
  [
    'related integer',
    {
      given: 'contact_info.contact_id = x',
      want: {
        message: "Field 'contact_info_by_contact_id.contact_id' must be a valid integer.",
        context: { field: 'contact_info_by_contact_id.contact_id', position: 27 },
      },
    },
  ],
  [
    'float column',
    { given: 'score > high', want: { message: "Field 'score' must be a valid number.", context: { field: 'score', position: 9 } } },
  ],
  [
    'boolean column',
    {
      given: 'is_active = maybe',
      want: { message: "Field 'is_active' must be a valid boolean.", context: { field: 'is_active', position: 13 } },
    },
  ],
  [
    'inherited property name as boolean',
    {
      given: 'is_active = constructor',
      want: { message: "Field 'is_active' must be a valid boolean.", context: { field: 'is_active', position: 13 } },
    },
  ],
  [
    'missing parameter',
    {
      given: 'id = :id',
      want: { message: "Missing value for filter parameter ':id' in 'params'.", context: { parameter: 'id', position: 6 } },
    },
  ],
  [
    'inherited property name as parameter',
    {
      given: 'id = :toString',
      want: { message: "Missing value for filter parameter ':toString' in 'params'.", context: { parameter: 'toString', position: 6 } },
    },
  ],
  [
    'object parameter',
    {
      given: 'id = :id',
      params: { id: { a: 1 } },
      want: { message: "Filter parameter ':id' must be a string, number, boolean or null.", context: { parameter: 'id', position: 6 } },
    },
  ],
  [
    'array parameter outside a list',
    {
      given: 'id = :id',
      params: { id: [1] },
      want: { message: "Filter parameter ':id' must be a string, number, boolean or null.", context: { parameter: 'id', position: 6 } },
    },
  ],
  [
    'null parameter with >',
    {
      given: 'age > :a',
      params: { a: null },
      want: { message: "Filter parameter ':a' can not be null with '>'.", context: { parameter: 'a', position: 7 } },
    },
  ],
  [
    'empty list parameter',
    {
      given: 'id in (:ids)',
      params: { ids: [] },
      want: { message: "Filter parameter ':ids' must not be an empty list.", context: { parameter: 'ids', position: 8 } },
    },
  ],
];

describe('compileFilter rejects', () => {
  it.each(rejected)('%s', (_name, { given, params, want }) => {
    expect(failure(() => compile(given, 'sqlite', { params }))).toEqual({ status: 400, ...want });
  });

  it('reports ambiguous relations by table name', () => {
    const twice: TableModel = {
      ...contactInfo,
      relations: [...contactInfo.relations, { ...contactInfo.relations[0], name: 'contact_by_owner_id', field: ['id'] }],
    };
    expect(failure(() => compileFilter(parseFilter('contact.id = 1'), { table: twice, schema, dialect: 'sqlite' }))).toEqual({
      status: 400,
      message:
        "Ambiguous relationship in filter request: 'contact' matches contact_by_contact_id, contact_by_owner_id; use the relationship name.",
      context: { relation: 'contact', candidates: ['contact_by_contact_id', 'contact_by_owner_id'], position: 1 },
    });
  });

  it('is a 500 when the model names a table it lacks', () => {
    const partial = { ...schema, tables: [contact] };
    expect(failure(() => compile("contact_info.city = 'x'", 'sqlite', { schema: partial }))).toEqual({
      status: 500,
      message: "Filter cannot be applied: table 'contact_info' is not in the schema.",
      context: null,
    });
  });

  it('never interpolates identifiers from a hand-built AST', () => {
    const node: FilterNode = { kind: 'is_null', negated: false, position: 0, field: { path: ['id" = 1 or "1'], position: 0 } };
    expect(failure(() => compileFilter(node, { table: contact, schema, dialect: 'sqlite' })).message).toBe(
      `Invalid or unparsable field in filter request: 'id" = 1 or "1'`,
    );
  });
});
