import { describe, expect, it } from 'vitest';
import { BadRequestError } from '#runtime/core/errors.js';
import { parseFilter, type FieldRef, type FilterNode, type FilterValue } from '#runtime/services/sql/filter/filter-parser.js';

/** A compact S-expression of an AST, so the tables below stay readable. */
function show(node: FilterNode): string {
  const f = (ref: FieldRef): string => (ref.aggregate === undefined ? ref.path.join('.') : `${ref.aggregate}(${ref.path[0]})`);
  const value = (v: FilterValue): string => (v.kind === 'param' ? `:${v.name}` : v.quoted ? JSON.stringify(v.text) : v.text);
  const not = (negated: boolean, name: string): string => (negated ? `not-${name}` : name);
  switch (node.kind) {
    case 'and':
    case 'or':
      return `(${node.kind} ${node.operands.map(show).join(' ')})`;
    case 'not':
      return `(not ${show(node.operand)})`;
    case 'compare':
      return `(${node.operator} ${f(node.field)} ${value(node.value)})`;
    case 'like':
      return `(${not(node.negated, node.mode === 'pattern' ? 'like' : node.mode)} ${f(node.field)} ${value(node.value)})`;
    case 'in':
      return `(${not(node.negated, 'in')} ${f(node.field)} [${node.values.map(value).join(' ')}])`;
    case 'between':
      return `(${not(node.negated, 'between')} ${f(node.field)} ${value(node.low)} ${value(node.high)})`;
    case 'is_null':
      return `(${node.negated ? 'is-not-null' : 'is-null'} ${f(node.field)})`;
  }
}

const accepted: Array<[string, { given: string; want: string }]> = [
  // unquoted words run to the next and, or, comma or parenthesis: one value, as the reference reads it
  // (a search box's `name like Mid W%`); a column then types it (`id = 1 --` is no integer: 400 there)
  ['unquoted words', { given: 'name = John  Smith and a = 1', want: '(and (= name John  Smith) (= a 1))' }],
  ['unquoted words in parentheses', { given: '(name like Mid W%) or (x = y z)', want: '(or (like name Mid W%) (= x y z))' }],
  ['unquoted words in a list', { given: 'name in (Van Dyke, Doe)', want: '(in name [Van Dyke Doe])' }],
  ['unquoted words after a number', { given: 'id = 1 --', want: '(= id 1 --)' }],
  ['unquoted words between', { given: 'a between x y and z', want: '(between a x y z)' }],
  // comparison operators, symbolic and word forms
  ['equals', { given: 'a = 1', want: '(= a 1)' }],
  ['no spaces', { given: 'age>21', want: '(> age 21)' }],
  ['not equals !=', { given: 'a != 1', want: '(!= a 1)' }],
  ['not equals <>', { given: 'a<>1', want: '(!= a 1)' }],
  ['greater or equal', { given: 'a >= 1', want: '(>= a 1)' }],
  ['less', { given: 'a < -1.5', want: '(< a -1.5)' }],
  ['less or equal', { given: 'a<=1e3', want: '(<= a 1e3)' }],
  ['EQ', { given: 'a EQ 1', want: '(= a 1)' }],
  ['ne lower case', { given: 'a ne 1', want: '(!= a 1)' }],
  ['GT GTE LT LTE', { given: 'a GT 1 and b gte 2 and c Lt 3 and d LTE 4', want: '(and (> a 1) (>= b 2) (< c 3) (<= d 4))' }],
  // null
  ['is null', { given: 'email is null', want: '(is-null email)' }],
  ['IS NOT NULL', { given: 'email IS NOT NULL', want: '(is-not-null email)' }],
  ['= null means is null', { given: 'email = null', want: '(is-null email)' }],
  ['!= NULL means is not null', { given: 'email != NULL', want: '(is-not-null email)' }],
  ["quoted 'null' is a string", { given: "email = 'null'", want: '(= email "null")' }],
  // like family
  ['like quoted', { given: "name like 'A%'", want: '(like name "A%")' }],
  ['like bare', { given: 'name like %x%', want: '(like name %x%)' }],
  ['not like', { given: "name NOT LIKE 'A%'", want: '(not-like name "A%")' }],
  ["word operator inside the value: like 'made in%'", { given: "title like 'made in%'", want: '(like title "made in%")' }],
  ['contains quoted', { given: "name contains 'abc'", want: '(contains name "abc")' }],
  ['contains bare', { given: 'name CONTAINS abc', want: '(contains name abc)' }],
  ['not contains', { given: 'name not contains abc', want: '(not-contains name abc)' }],
  ['starts with', { given: "name starts with 'Jo'", want: '(starts_with name "Jo")' }],
  ['not starts with', { given: 'name NOT STARTS WITH Jo', want: '(not-starts_with name Jo)' }],
  ['ends with', { given: 'email ends  with ".com"', want: '(ends_with email ".com")' }],
  ['not ends with', { given: 'email not ends with .org', want: '(not-ends_with email .org)' }],
  // lists
  ['in strings', { given: 'name in ("a","b")', want: '(in name ["a" "b"])' }],
  ['in numbers with spaces', { given: 'id IN (1, 2,3)', want: '(in id [1 2 3])' }],
  ['in one item', { given: 'id in (7)', want: '(in id [7])' }],
  ['not in', { given: "id not in ('1', 2)", want: '(not-in id ["1" 2])' }],
  ['in with params', { given: 'id in (:a, :b)', want: '(in id [:a :b])' }],
  ['comma inside a quoted item', { given: "name in ('a,b', 'c')", want: '(in name ["a,b" "c"])' }],
  // between
  ['between', { given: 'age between 18 and 65', want: '(between age 18 65)' }],
  ['between binds tighter than and', { given: 'age between 18 and 65 and b = 2', want: '(and (between age 18 65) (= b 2))' }],
  ['not between with strings', { given: "d NOT BETWEEN '2024-01-01' AND '2024-12-31'", want: '(not-between d "2024-01-01" "2024-12-31")' }],
  // values
  ['bare word', { given: 'name=mysql', want: '(= name mysql)' }],
  ['double quotes', { given: 'name = "John Smith"', want: '(= name "John Smith")' }],
  ['doubled single quote', { given: "name = 'O''Neil'", want: `(= name "O'Neil")` }],
  ['backslash-escaped quote', { given: "name = 'O\\'Neil'", want: `(= name "O'Neil")` }],
  ['escaped backslash', { given: "name = 'a\\\\b'", want: '(= name "a\\\\b")' }],
  ['other backslashes stay (like escapes)', { given: "name like 'a\\%'", want: '(like name "a\\\\%")' }],
  ['other quote kind inside', { given: `name = "it's"`, want: `(= name "it's")` }],
  ['empty string', { given: "name = ''", want: '(= name "")' }],
  ['booleans are literals', { given: 'is_active = true', want: '(= is_active true)' }],
  ['date bare', { given: 'd >= 2024-01-31', want: '(>= d 2024-01-31)' }],
  ['placeholder', { given: 'status = :status', want: '(= status :status)' }],
  ['quoted placeholder is a string', { given: "status = ':status'", want: '(= status ":status")' }],
  ['injection attempt stays one string', { given: "name = 'x'' OR 1=1 --'", want: `(= name "x' OR 1=1 --")` }],
  ['unicode', { given: "nom = 'é' and prénom = ü", want: '(and (= nom "é") (= prénom ü))' }],
  // fields
  ['related field', { given: "contact_info.city = 'Boston'", want: '(= contact_info.city "Boston")' }],
  ['keyword-like field names', { given: 'order = 1 and notes = 2 and isbn is null', want: '(and (= order 1) (= notes 2) (is-null isbn))' }],
  // precedence and parentheses
  ['and over or', { given: 'a=1 and b=2 or c=3', want: '(or (and (= a 1) (= b 2)) (= c 3))' }],
  ['or then and', { given: 'a=1 or b=2 and c=3', want: '(or (= a 1) (and (= b 2) (= c 3)))' }],
  ['not over and', { given: 'not a=1 and b=2', want: '(and (not (= a 1)) (= b 2))' }],
  ['not not', { given: 'NOT not a=1', want: '(not (not (= a 1)))' }],
  ['not with parentheses', { given: 'not (a=1 or b=2)', want: '(not (or (= a 1) (= b 2)))' }],
  ['not( without space', { given: 'NOT(a=1)', want: '(not (= a 1))' }],
  ['parenthesised operands', { given: '(a=1) and (b=2)', want: '(and (= a 1) (= b 2))' }],
  [')AND( without spaces', { given: '(a=1)AND(b=2)', want: '(and (= a 1) (= b 2))' }],
  ['double parentheses', { given: '((a=1))', want: '(= a 1)' }],
  ['grouping overrides precedence', { given: 'a=1 and (b=2 or c=3)', want: '(and (= a 1) (or (= b 2) (= c 3)))' }],
  ['nested reference style', { given: '((a=1) AND (b=2)) OR (c=3)', want: '(or (and (= a 1) (= b 2)) (= c 3))' }],
  ['&& and ||', { given: 'a=1 && b=2 || c=3', want: '(or (and (= a 1) (= b 2)) (= c 3))' }],
  ['mixed case keywords', { given: 'a=1 AnD b=2 oR c Is NoT nUlL', want: '(or (and (= a 1) (= b 2)) (is-not-null c))' }],
  ['surrounding whitespace', { given: '  \t a = 1 \n', want: '(= a 1)' }],
  // aggregates (the compiler allows them in `having` only)
  ['count(*)', { given: 'count(*) > 1', want: '(> count(*) 1)' }],
  ['aggregate of a field, any case', { given: 'SUM(price) >= 10 and Max( id ) < 9', want: '(and (>= sum(price) 10) (< max(id) 9))' }],
  ['a field named like a function', { given: 'count = 1 and avg is null', want: '(and (= count 1) (is-null avg))' }],
  // field names of old schemas: any script, a digit first, dashes, a dot in the name
  [
    'awkward field names',
    { given: "größe = 5 and 1st > 0 and e-mail is null and a.b = 'x'", want: '(and (= größe 5) (> 1st 0) (is-null e-mail) (= a.b "x"))' },
  ],
];

describe('parseFilter accepts', () => {
  it.each(accepted)('%s', (_name, { given, want }) => {
    expect(show(parseFilter(given))).toBe(want);
  });
});

describe('parseFilter positions', () => {
  it('records 1-based positions of nodes, fields and values', () => {
    expect(parseFilter("a = 1 and (b like 'x%' or not c is null)")).toEqual({
      kind: 'and',
      position: 1,
      operands: [
        {
          kind: 'compare',
          operator: '=',
          position: 1,
          field: { path: ['a'], position: 1 },
          value: { kind: 'literal', text: '1', quoted: false, position: 5 },
        },
        {
          kind: 'or',
          position: 12,
          operands: [
            {
              kind: 'like',
              mode: 'pattern',
              negated: false,
              position: 12,
              field: { path: ['b'], position: 12 },
              value: { kind: 'literal', text: 'x%', quoted: true, position: 19 },
            },
            { kind: 'not', position: 27, operand: { kind: 'is_null', negated: false, position: 31, field: { path: ['c'], position: 31 } } },
          ],
        },
      ],
    });
  });
  it('records placeholders by name', () => {
    expect(parseFilter('a = :x')).toMatchObject({ value: { kind: 'param', name: 'x', position: 5 } });
  });
});

const rejected: Array<[string, { given: string; want: { position: number; expected: string; found: string } }]> = [
  ['empty filter', { given: '', want: { position: 1, expected: "a field name, 'not' or '('", found: 'end of input' } }],
  ['blank filter', { given: '   ', want: { position: 4, expected: "a field name, 'not' or '('", found: 'end of input' } }],
  ['missing value', { given: 'first_name = ', want: { position: 14, expected: "a value after '='", found: 'end of input' } }],
  ['lone operator', { given: '=', want: { position: 1, expected: "a field name, 'not' or '('", found: "'='" } }],
  [
    'field only',
    {
      given: 'name',
      want: {
        position: 5,
        expected: 'a comparison operator (=, !=, <>, >, >=, <, <=, like, in, between, is, contains, starts with, ends with)',
        found: 'end of input',
      },
    },
  ],
  [
    'unknown operator word',
    {
      given: 'name foo 1',
      want: {
        position: 6,
        expected: 'a comparison operator (=, !=, <>, >, >=, <, <=, like, in, between, is, contains, starts with, ends with)',
        found: "'foo'",
      },
    },
  ],
  ['== is not an operator', { given: 'a == 1', want: { position: 4, expected: "a value after '='", found: "'='" } }],
  ['value as field', { given: '1 = a', want: { position: 1, expected: "a field name, 'not' or '('", found: "'1'" } }],
  ['quoted field name', { given: `"name" = 1`, want: { position: 1, expected: "a field name, 'not' or '('", found: `'"name"'` } }],
  [
    'quote inside a field name',
    { given: `na"me = 1`, want: { position: 10, expected: 'a closing " for the string opened at position 3', found: 'end of input' } },
  ],
  ['three-part field', { given: 'a.b.c = 1', want: { position: 1, expected: "a field name, 'not' or '('", found: "'a.b.c'" } }],
  ['sum of everything', { given: 'sum(*) > 1', want: { position: 5, expected: 'a field name', found: "'*'" } }],
  ['unclosed aggregate', { given: 'count(id > 1', want: { position: 10, expected: "')' to close 'count('", found: "'>'" } }],
  ['related field in an aggregate', { given: 'min(a.b) = 1', want: { position: 5, expected: 'a field name', found: "'a.b'" } }],
  [
    'unbalanced open',
    { given: '(a = 1', want: { position: 7, expected: "'and', 'or' or ')' to close the '(' at position 1", found: 'end of input' } },
  ],
  ['unbalanced close', { given: 'a = 1)', want: { position: 6, expected: "'and', 'or' or end of input", found: "')'" } }],
  ['empty parentheses', { given: '()', want: { position: 2, expected: "a field name, 'not' or '('", found: "')'" } }],
  ['dangling and', { given: 'a = 1 and', want: { position: 10, expected: "a field name, 'not' or '('", found: 'end of input' } }],
  ['dangling or', { given: 'a = 1 ||', want: { position: 9, expected: "a field name, 'not' or '('", found: 'end of input' } }],
  ['and as a value', { given: 'a = and b = 1', want: { position: 5, expected: "a value after '='", found: "'and'" } }],
  ['statement separator', { given: 'id = 1; drop table x', want: { position: 7, expected: "'and', 'or' or end of input", found: "';'" } }],
  [
    'unterminated string',
    { given: "name = 'abc", want: { position: 12, expected: "a closing ' for the string opened at position 8", found: 'end of input' } },
  ],
  [
    'escaped closing quote leaves it open',
    { given: "name = 'abc\\'", want: { position: 14, expected: "a closing ' for the string opened at position 8", found: 'end of input' } },
  ],
  ['in without parentheses', { given: 'id in 1,2', want: { position: 7, expected: "'(' after 'in'", found: "'1'" } }],
  ['empty list', { given: 'id in ()', want: { position: 8, expected: 'a value in the list', found: "')'" } }],
  ['trailing comma in list', { given: 'id in (1,)', want: { position: 10, expected: 'a value in the list', found: "')'" } }],
  ['unclosed list', { given: 'id in (1, 2', want: { position: 12, expected: "',' or ')' in the list", found: 'end of input' } }],
  [
    'parenthesised value (raw SQL in the reference)',
    { given: 'd = (NOW())', want: { position: 5, expected: "a value after '='", found: "'('" } },
  ],
  ['is without null', { given: 'a is 1', want: { position: 6, expected: "'null' or 'not null' after 'is'", found: "'1'" } }],
  ['is not without null', { given: 'a is not', want: { position: 9, expected: "'null' after 'is not'", found: 'end of input' } }],
  [
    'null with >',
    { given: 'a > null', want: { position: 5, expected: "a value after '>' other than null (use 'is null')", found: "'null'" } },
  ],
  [
    'null in a list',
    { given: 'a in (1, NULL)', want: { position: 10, expected: "a value in the list other than null (use 'is null')", found: "'NULL'" } },
  ],
  [
    'not without operator',
    {
      given: 'a not = 1',
      want: { position: 7, expected: "'like', 'in', 'between', 'contains', 'starts with' or 'ends with' after 'not'", found: "'='" },
    },
  ],
  ['starts without with', { given: 'a starts x', want: { position: 10, expected: "'with' after 'starts'", found: "'x'" } }],
  [
    'between without and',
    { given: 'a between 1 or 2', want: { position: 13, expected: "'and' after the first value of 'between'", found: "'or'" } },
  ],
  [
    'between missing high',
    { given: 'a between 1 and', want: { position: 16, expected: "a value after 'between ... and'", found: 'end of input' } },
  ],
  ['single ampersand', { given: 'a = 1 & b = 2', want: { position: 7, expected: "'and', 'or' or end of input", found: "'&'" } }],
  [
    'inherited property name as operator',
    {
      given: 'a constructor 1',
      want: {
        position: 3,
        expected: 'a comparison operator (=, !=, <>, >, >=, <, <=, like, in, between, is, contains, starts with, ends with)',
        found: "'constructor'",
      },
    },
  ],
  [
    'bang alone',
    {
      given: 'a ! 1',
      want: {
        position: 3,
        expected: 'a comparison operator (=, !=, <>, >, >=, <, <=, like, in, between, is, contains, starts with, ends with)',
        found: "'!'",
      },
    },
  ],
  [
    'too deep',
    {
      given: `${'('.repeat(65)}a=1${')'.repeat(65)}`,
      want: { position: 65, expected: "at most 64 levels of parentheses and 'not'", found: "'('" },
    },
  ],
];

describe('parseFilter rejects', () => {
  it.each(rejected)('%s', (_name, { given, want }) => {
    let error: unknown;
    try {
      parseFilter(given);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.status).toBe(400);
    expect(bad.context).toEqual({ filter: given, ...want });
    expect(bad.message).toBe(`Malformed filter at position ${want.position}: expected ${want.expected} but found ${want.found}`);
  });

  it('names position and expectation in the message', () => {
    expect(() => parseFilter('first_name = ')).toThrow(
      "Malformed filter at position 14: expected a value after '=' but found end of input",
    );
  });

  it('accepts nesting up to the limit', () => {
    expect(show(parseFilter(`${'('.repeat(64)}a=1${')'.repeat(64)}`))).toBe('(= a 1)');
    expect(show(parseFilter(`${'not '.repeat(64)}a=1`))).toMatch(/^\(not /);
  });
});
