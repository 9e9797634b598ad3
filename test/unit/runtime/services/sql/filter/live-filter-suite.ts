/**
 * Compiled filters run against a real database, one per dialect: the rows are what the filter
 * says, for every operator, related fields, parameters and injection attempts. The dialect test
 * files give the Kysely instance over a database holding ddlFor(dialect).
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SqlDialect, TableModel } from '#runtime/model/platform-model.js';
import { compileFilter } from '#runtime/services/sql/filter/filter-compiler.js';
import { parseFilter } from '#runtime/services/sql/filter/filter-parser.js';
import { contact, contactGroup, contactInfo, schema } from './filter-fixtures.js';

export const contactFilters: Array<[string, { given: string; params?: Record<string, unknown>; want: number[] }]> = [
  ['equals on a renamed column', { given: "last_name = 'Doe'", want: [1, 2] }],
  ['injection text matches only itself', { given: "last_name = 'x'' OR 1=1 --'", want: [5] }],
  ['injection-looking bare value matches nothing', { given: 'first_name = x', want: [] }],
  ['quote inside a value', { given: "last_name = 'O''Neil'", want: [3] }],
  ['contains a literal %', { given: "last_name contains '%'", want: [4] }],
  ['contains a literal _', { given: 'last_name contains _', want: [4] }],
  ['starts with', { given: "last_name starts with 'O''N'", want: [3] }],
  ['ends with', { given: 'email ends with .org', want: [4] }],
  ['not ends with skips nulls', { given: 'email not ends with .com', want: [4] }],
  ['like pattern', { given: "first_name like 'J%'", want: [1, 2] }],
  ['not like', { given: 'first_name not like J%', want: [3, 4, 5] }],
  ['integer and boolean', { given: 'age > 29 and is_active = true', want: [1, 5] }],
  ['boolean false', { given: 'is_active = no', want: [2, 4] }],
  ['is null', { given: 'email is null', want: [3] }],
  ['= null', { given: 'age = null', want: [4] }],
  ['or with between', { given: 'age is null or age between 40 and 60', want: [2, 4, 5] }],
  ['precedence without parentheses', { given: 'age < 30 or age > 50 and is_active = 1', want: [3, 5] }],
  ['parentheses change it', { given: '(age < 30 or age > 50) and is_active = 0', want: [] }],
  ['not in', { given: 'id not in (1, 2)', want: [3, 4, 5] }],
  ['float and date', { given: "score >= 4.5 or birthday < '1980-01-01'", want: [1, 5] }],
  ['params', { given: 'id in (:ids) and first_name != :name', params: { ids: [3, 4, 5], name: 'Bob' }, want: [3, 5] }],
  ['has_many related field', { given: "contact_info.city = 'Boston'", want: [1, 2] }],
  ['related field by relationship name', { given: "contact_info_by_contact_id.info_type = 'work'", want: [1] }],
  ['not exists', { given: "not contact_info.city = 'Boston'", want: [3, 4, 5] }],
  ['some related row differs', { given: "contact_info.city != 'Boston'", want: [1, 4] }],
  ['related is null means a related row with null', { given: 'contact_info.city is null', want: [] }],
  ['many_many through the junction, by table name', { given: "contact_group.name = 'Work'", want: [2, 5] }],
  [
    'two related conditions',
    { given: "contact_group_by_contact_group_relationship.name = 'Friends' and contact_group.name = 'Work'", want: [2] },
  ],
  ['has_many to the junction table', { given: 'contact_group_relationship.contact_group_id = 1', want: [1, 2] }],
  ['related or own field', { given: "contact_group.name contains 'end' or first_name = Bob", want: [1, 2, 4] }],
];

/** The live filter tests on `db()` (a database with ddlFor(dialect) run). */
export function liveFilterTests(dialect: SqlDialect, db: () => Kysely<any>): void {
  async function ids(table: TableModel, filter: string, params?: Record<string, unknown>): Promise<number[]> {
    const where = compileFilter(parseFilter(filter), { table, schema, dialect, params });
    const rows = await db().selectFrom(table.sourceName).select('id').where(where).orderBy('id').execute();
    return rows.map((row) => Number(row.id));
  }

  describe(`filters on contact (${dialect})`, () => {
    it.each(contactFilters)('%s', async (_name, { given, params, want }) => {
      expect(await ids(contact, given, params)).toEqual(want);
    });

    it('leaves the table intact after injection attempts', async () => {
      await ids(contact, "first_name = 'x''; drop table contact; --'");
      await ids(contact, 'first_name = :p', { p: "'; delete from contact; --" });
      expect(await ids(contact, 'id > 0')).toEqual([1, 2, 3, 4, 5]);
    });
  });

  describe(`filters from other tables (${dialect})`, () => {
    it('belongs_to: contact_info by its contact', async () => {
      expect(await ids(contactInfo, "contact.first_name = 'Jon'")).toEqual([1, 2]);
    });

    it('many_many from the other side: groups holding a Doe', async () => {
      expect(await ids(contactGroup, "contact.last_name = 'Doe'")).toEqual([1, 2]);
    });

    it('many_many: groups without members', async () => {
      expect(await ids(contactGroup, 'not contact.id is not null')).toEqual([3]);
    });
  });
}
