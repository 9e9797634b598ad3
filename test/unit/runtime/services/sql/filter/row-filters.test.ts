import Database from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { InternalServerError } from '#runtime/core/errors.js';
import type { RowFilterModel } from '#runtime/model/platform-model.js';
import { compileFilter } from '#runtime/services/sql/filter/filter-compiler.js';
import { parseFilter, type FilterNode } from '#runtime/services/sql/filter/filter-parser.js';
import { combineAnd, rowFiltersToNode } from '#runtime/services/sql/filter/row-filters.js';
import { contact, ddl, schema, toSql } from './filter-fixtures.js';

const lookups: Record<string, string> = {
  'user.id': '2',
  'user.first_name': "O'Ne_il",
  'user.email': "x' or '1'='1",
  'user.groups': '1, 3',
  'user.quoted': "a', 'b",
};
const lookup = (name: string): string | undefined => lookups[name];

function compiled(node: FilterNode | null): { sql: string; parameters: unknown[] } | null {
  if (node === null) return null;
  const { sql: text, parameters } = toSql(compileFilter(node, { table: contact, schema, dialect: 'sqlite' }), 'sqlite');
  return { sql: text, parameters: [...parameters] };
}

const f = (name: string, operator: string, value = ''): RowFilterModel => ({ name, operator, value });

const cases: Array<[string, { given: RowFilterModel[]; op?: 'and' | 'or'; want: { sql: string; parameters: unknown[] } | null }]> = [
  ['no filters', { given: [], want: null }],
  ['lookup into an integer', { given: [f('id', '=', '{user.id}')], want: { sql: '"contact"."id" = ?', parameters: [2] } }],
  ['word operator, any case', { given: [f('age', 'Gte', '18')], want: { sql: '"contact"."age" >= ?', parameters: [18] } }],
  ['<>', { given: [f('first_name', '<>', "'Bob'")], want: { sql: '"contact"."first_name" <> ?', parameters: ['Bob'] } }],
  [
    'quoted value is unquoted',
    { given: [f('first_name', '=', '"Jon"')], want: { sql: '"contact"."first_name" = ?', parameters: ['Jon'] } },
  ],
  [
    'unquoted value with spaces',
    { given: [f('first_name', '=', 'Mary Ann')], want: { sql: '"contact"."first_name" = ?', parameters: ['Mary Ann'] } },
  ],
  [
    'lookup with quotes stays data',
    { given: [f('email', '=', "'{user.email}'")], want: { sql: '"contact"."email" = ?', parameters: ["x' or '1'='1"] } },
  ],
  [
    'unquoted lookup with quotes stays data',
    { given: [f('email', '=', '{user.email}')], want: { sql: '"contact"."email" = ?', parameters: ["x' or '1'='1"] } },
  ],
  [
    'unknown lookup stays as written',
    { given: [f('email', '=', '{nope}')], want: { sql: '"contact"."email" = ?', parameters: ['{nope}'] } },
  ],
  [
    'starts with escapes the lookup value',
    {
      given: [f('last_name', 'STARTS WITH', '{user.first_name}')],
      want: { sql: `"contact"."Last_Name" like ? escape '!'`, parameters: ["O'Ne!_il%"] },
    },
  ],
  [
    "the admin console's 'start with' and 'end with'",
    {
      given: [f('email', 'start with', 'jon'), f('email', 'end with', '.com')],
      want: { sql: `("contact"."email" like ? escape '!' and "contact"."email" like ? escape '!')`, parameters: ['jon%', '%.com'] },
    },
  ],
  [
    'not contains',
    { given: [f('email', 'not contains', 'spam')], want: { sql: `"contact"."email" not like ? escape '!'`, parameters: ['%spam%'] } },
  ],
  ['like', { given: [f('email', 'LIKE', "'%.com'")], want: { sql: `"contact"."email" like ? escape '\\'`, parameters: ['%.com'] } }],
  ['IN list', { given: [f('id', 'IN', '(1,2,3)')], want: { sql: '"contact"."id" in (?, ?, ?)', parameters: [1, 2, 3] } }],
  ['lower-case in without parentheses', { given: [f('id', 'in', '1, 2')], want: { sql: '"contact"."id" in (?, ?)', parameters: [1, 2] } }],
  [
    'NOT IN quoted',
    {
      given: [f('first_name', 'NOT  IN', '(\'a,b\', "c")')],
      want: { sql: '"contact"."first_name" not in (?, ?)', parameters: ['a,b', 'c'] },
    },
  ],
  [
    'IN from a list lookup',
    { given: [f('id', 'IN', '({user.groups}, 7)')], want: { sql: '"contact"."id" in (?, ?, ?)', parameters: [1, 3, 7] } },
  ],
  [
    'quoted lookup in a list stays one item',
    { given: [f('first_name', 'in', "('{user.quoted}')")], want: { sql: '"contact"."first_name" in (?)', parameters: ["a', 'b"] } },
  ],
  ['IS NULL', { given: [f('email', 'IS NULL')], want: { sql: '"contact"."email" is null', parameters: [] } }],
  ['is not null', { given: [f('email', 'is not null', 'ignored')], want: { sql: '"contact"."email" is not null', parameters: [] } }],
  ['= null', { given: [f('email', '=', 'NULL')], want: { sql: '"contact"."email" is null', parameters: [] } }],
  ["= 'null' is a string", { given: [f('email', '=', "'null'")], want: { sql: '"contact"."email" = ?', parameters: ['null'] } }],
  [
    'joined with and',
    {
      given: [f('id', '>', '0'), f('age', '<', '99')],
      want: { sql: '("contact"."id" > ? and "contact"."age" < ?)', parameters: [0, 99] },
    },
  ],
  [
    'joined with or',
    {
      op: 'or',
      given: [f('id', '=', '{user.id}'), f('email', 'is null')],
      want: { sql: '("contact"."id" = ? or "contact"."email" is null)', parameters: [2] },
    },
  ],
  [
    'related field',
    {
      given: [f('contact_info.city', '=', "'Boston'")],
      want: {
        sql: 'exists (select 1 from "contact_info" as "rel" where "rel"."contact_id" = "contact"."id" and "rel"."city" = ?)',
        parameters: ['Boston'],
      },
    },
  ],
];

describe('rowFiltersToNode', () => {
  it.each(cases)('%s', (_name, { given, op, want }) => {
    expect(compiled(rowFiltersToNode(given, op ?? 'and', lookup))).toEqual(want);
  });

  it.each([
    ['unknown operator', f('id', 'DOES EXIST')],
    ['inherited property name as operator', f('id', 'constructor', '1')],
    ['between is not a row filter operator', f('id', 'between', '1 and 2')],
    ['null with >', f('id', '>', 'null')],
    ['like null', f('id', 'like', 'null')],
    ['empty list', f('id', 'in', '()')],
    ['empty list item', f('id', 'in', '(1,,2)')],
    ['unclosed quote in a list', f('id', 'in', "('a)")],
  ])('rejects %s as a configuration error', (_name, filter) => {
    let error: unknown;
    try {
      rowFiltersToNode([filter], 'and', lookup);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({
      status: 500,
      message: 'Invalid server-side filter configuration detected.',
      context: { name: filter.name, operator: filter.operator, value: filter.value, reason: expect.any(String) },
    });
  });

  it('leaves an unknown field to the compiler', () => {
    const node = rowFiltersToNode([f('owner_id', '=', '1')], 'and', lookup);
    expect(() => compiled(node)).toThrow("Invalid or unparsable field in filter request: 'owner_id'");
  });
});

describe('combineAnd', () => {
  const a = parseFilter('id = 1');
  const b = parseFilter('age = 2 or age = 3');

  it.each([
    ['neither', null, null, null],
    ['client only', a, null, a],
    ['role only', null, b, b],
  ] as const)('%s', (_name, left, right, want) => {
    expect(combineAnd(left, right)).toBe(want);
  });

  it('keeps the role filter grouped', () => {
    expect(compiled(combineAnd(a, b))).toEqual({
      sql: '("contact"."id" = ? and ("contact"."age" = ? or "contact"."age" = ?))',
      parameters: [1, 2, 3],
    });
  });

  it('restricts a client filter on a real database', async () => {
    const db = new Kysely<Record<string, { id: number }>>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    for (const statement of ddl) await sql.raw(statement).execute(db);
    const role = rowFiltersToNode([f('last_name', '=', "'Doe'"), f('id', '!=', '{user.id}')], 'and', lookup);
    const where = compileFilter(combineAnd(parseFilter('age > 20 or email is null'), role)!, { table: contact, schema, dialect: 'sqlite' });
    const rows = await db.selectFrom('contact').select('id').where(where).orderBy('id').execute();
    await db.destroy();
    expect(rows.map((row) => row.id)).toEqual([1]);
  });
});
