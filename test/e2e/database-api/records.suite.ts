/**
 * `_table` records on every database: the query parameters with their aliases and the lenient
 * forms real clients send, the record limit, writes with the batch modes and the spec's
 * BatchException, upsert, `fields`/`related` on writes, and bad input answered with 400/409
 * naming the field and leaving nothing half-written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiClient } from './api-client.js';
import type { DatabaseTarget } from './database-targets.js';

export const NOTE_TABLE = {
  name: 'note',
  field: [
    { name: 'id', type: 'id' },
    { name: 'title', type: 'string', length: 20, is_unique: true },
    { name: 'body', type: 'text', allow_null: true },
    { name: 'score', type: 'integer', allow_null: true },
    { name: 'done', type: 'boolean', default: false },
    { name: 'price', type: 'decimal', precision: 8, scale: 2, allow_null: true },
    { name: 'due', type: 'date', allow_null: true },
    { name: 'created', type: 'timestamp_on_create' },
    { name: 'data', type: 'json', allow_null: true },
    { name: 'contact_id', type: 'reference', ref_table: 'contact', allow_null: true },
  ],
};

const BATCH_NOT_CREATED = 'Batch Error: Not all requested records could be created.';

export function recordTests(api: () => ApiClient, target: () => DatabaseTarget): void {
  const count = async (table: string, where = '1 = 1') =>
    Number((await target().query(`select count(*) as n from ${table} where ${where}`))[0].n);
  const notes = async (where: string) =>
    (await api().get('_table/note', { filter: where, fields: 'title', order: 'title' })).body.resource.map(
      (r: { title: string }) => r.title,
    );

  beforeAll(async () => {
    expect((await api().call('POST', '_schema', { resource: [NOTE_TABLE] })).status).toBe(200);
  });

  describe('query parameters, aliases and lenient forms', () => {
    it.each([
      ['fields with spaces', { fields: 'id, last_name', ids: '2' }, [{ id: 2, last_name: 'Huang' }]],
      ['select alias', { select: 'last_name', ids: '2' }, [{ last_name: 'Huang' }]],
      ['where alias', { where: 'id = 3', fields: 'id' }, [{ id: 3 }]],
      ['top and skip', { top: '2', skip: '1', order: 'id', fields: 'id' }, [{ id: 2 }, { id: 3 }]],
      ['sort alias, DESC upper case', { sort: 'id DESC', limit: '2', fields: 'id' }, [{ id: 100 }, { id: 99 }]],
      [
        'order_by alias, several fields, lower-case directions',
        { order_by: 'twitter desc, id asc', filter: 'id < 4', fields: 'id' },
        [{ id: 3 }, { id: 1 }, { id: 2 }],
      ],
      ['a literal + between field and direction', { order: 'id+Desc', limit: '1', fields: 'id' }, [{ id: 100 }]],
      ['ids in the order given', { ids: '5, 3', fields: 'id' }, [{ id: 5 }, { id: 3 }]],
      // The reference reads each id of the list in turn (2.3): an id named twice is answered twice.
      ['an id named twice, twice', { ids: '1,1,2,1', fields: 'id' }, [{ id: 1 }, { id: 1 }, { id: 2 }, { id: 1 }]],
      ['an id named twice with continue', { ids: '1,1', fields: 'id', continue: 'true' }, [{ id: 1 }, { id: 1 }]],
      ['id_field', { ids: '@jon24', id_field: 'twitter', fields: 'id' }, [{ id: 1 }]],
      [
        'empty values are absent',
        { fields: '', filter: '', related: '', limit: '', offset: '', ids: '3' },
        [expect.objectContaining({ id: 3, last_name: 'Torres' })],
      ],
    ])('%s', async (_name, query, want) => {
      const result = await api().get('_table/contact', query as Record<string, string>);
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(result.body.resource).toEqual(want);
    });

    it('takes + as a space in the raw query string, a leading &, and trailing slashes', async () => {
      expect((await api().call('GET', '_table/contact/?&fields=id&order=id+desc&limit=1')).body).toEqual({ resource: [{ id: 100 }] });
      expect((await api().call('GET', '_table/contact/4/?fields=first_name')).body).toEqual({ first_name: 'Christy' });
      expect((await api().call('GET', '_table/?fields=name')).body.resource).toContainEqual({ name: 'contact' });
    });

    it('counts with include_count and count_only, and limit=0 means no explicit limit', async () => {
      expect((await api().get('_table/contact_info', { limit: '0', include_count: 'true', fields: 'id' })).body.resource).toHaveLength(300);
      expect((await api().get('_table/contact_info', { limit: '0', include_count: '1' })).body.meta).toEqual({ count: 300 });
      expect((await api().get('_table/contact', { count_only: 'true', filter: "last_name like 'Z%'" })).body).toEqual({
        meta: { count: 5 },
      });
    });

    it("describes the table in meta.schema with include_schema, as GET _schema/{table} does (the reference's legacy admin app builds its data grid from it)", async () => {
      const described = (await api().get('_schema/contact')).body;
      const page = await api().get('_table/contact', {
        include_schema: 'true',
        include_count: 'true',
        limit: '2',
        offset: '0',
        fields: '*',
      });
      expect(page.body.resource).toHaveLength(2);
      expect(page.body.meta).toEqual({ count: 100, next: 2, schema: described });
      expect(page.body.meta.schema.field.map((f: { name: string }) => f.name)).toContain('first_name');
      // Without include_count, meta holds the schema alone.
      expect((await api().get('_table/contact', { include_schema: '1', limit: '1' })).body.meta).toEqual({ schema: described });
    });

    it('limits to 1000 records by default and clamps larger limits, saying how to go on', async () => {
      await api().call('POST', '_schema', { resource: [{ name: 'bulk', field: [{ name: 'n', type: 'integer' }] }] });
      // Two short recursions crossed: MariaDB stops recursive queries at 1000 iterations.
      await target().exec(
        'insert into bulk (n) with recursive s(n) as (select 0 union all select n + 1 from s where n < 99) ' +
          'select a.n * 100 + b.n + 1 from s a cross join s b where a.n * 100 + b.n < 1100',
      );
      const first = await api().get('_table/bulk');
      expect(first.body.resource).toHaveLength(1000);
      expect(first.body.meta).toEqual({ count: 1100, next: 1000 });
      const clamped = await api().get('_table/bulk', { limit: '5000', offset: '1050', order: 'n' });
      expect(clamped.body.resource).toHaveLength(50);
      expect(clamped.body.resource[0]).toEqual({ n: 1051 });
    });

    it('takes the service maximum from max_records', async () => {
      const small = await startApi(target(), { max_records: 5 });
      try {
        const page = await small.get('_table/contact', { fields: 'id', order: 'id' });
        expect(page.body).toEqual({ resource: [1, 2, 3, 4, 5].map((id) => ({ id })), meta: { count: 100, next: 5 } });
        expect((await small.get('_table/contact', { limit: '50', fields: 'id' })).body.resource).toHaveLength(5);
        // A limit below 1 is no valid limit (reference 2.4): the service maximum, with the meta of a list without a limit.
        for (const limit of ['0', '-1'])
          expect((await small.get('_table/contact', { limit, fields: 'id', order: 'id' })).body, `limit=${limit}`).toEqual(page.body);
        expect((await small.get('_table/contact', { limit: '-1', offset: '98', fields: 'id', order: 'id' })).body).toEqual({
          resource: [{ id: 99 }, { id: 100 }],
          meta: { count: 100 },
        });
        // Grouped lists and related records are bounded by it alike.
        expect((await small.get('_table/contact', { limit: '-1', group: 'id', fields: 'id' })).body.resource).toHaveLength(5);
      } finally {
        await small.close();
      }
    });

    it.each([
      ['fields', { fields: 'id,bogus' }, 'Invalid field requested: bogus', 'bogus'],
      ['order', { order: 'bogus desc' }, "Invalid field 'bogus' in order by clause.", 'bogus'],
      ['filter', { filter: 'bogus = 1' }, "Invalid or unparsable field in filter request: 'bogus'", 'bogus'],
      ['group', { group: 'bogus' }, "Invalid or unknown field 'bogus' in group by clause.", 'bogus'],
      ['a filter value of the wrong type', { filter: "id = 'seven'" }, "Field 'id' must be a valid integer.", 'id'],
    ])('unknown or mistyped fields in %s are a 400 naming them', async (_name, query, message, field) => {
      const result = await api().get('_table/contact', query);
      expect(result).toMatchObject({ status: 400, body: { error: { code: 400, message, context: { field } } } });
    });

    it('compares a json field in filters, and orders or groups by it without a 500 (PostgreSQL json has no operators)', async () => {
      await api().call('POST', '_table/note', { resource: [{ title: 'json1', data: { k: 'v' } }] });
      const compared = await api().get('_table/note', { filter: "data is not null and data != 'x' and title = 'json1'", fields: 'title' });
      expect(compared).toEqual({ status: 200, body: { resource: [{ title: 'json1' }] } });
      expect((await api().get('_table/note', { filter: "data in ('x', 'y')", fields: 'title' })).body).toEqual({ resource: [] });
      for (const query of [{ order: 'data' }, { group: 'data' }, { ids: 'x', id_field: 'data' }] as Record<string, string>[]) {
        const result = await api().get('_table/note', { fields: 'data', ...query });
        if (target().kind !== 'postgres') expect(result.status, JSON.stringify(query)).toBeLessThan(500);
        else {
          expect(result.body, JSON.stringify(query)).toEqual({
            error: { code: 400, message: 'The database can not compare, order or group the values of a field of this type.' },
          });
        }
      }
      await api().call('DELETE', `_table/note?filter=${encodeURIComponent("title = 'json1'")}`);
    });

    it('orders nulls alike on every database (smallest), or where NULLS FIRST/LAST puts them', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'ranked',
            field: [
              { name: 'id', type: 'id' },
              { name: 'rank', type: 'integer', allow_null: true },
            ],
          },
        ],
      });
      await api().call('POST', '_table/ranked', { resource: [{ rank: 2 }, { rank: null }, { rank: 1 }] });
      const ranks = async (order: string) => {
        const result = await api().get('_table/ranked', { order, fields: 'rank' });
        expect(result.status, JSON.stringify(result.body)).toBe(200);
        return result.body.resource.map((r: { rank: number | null }) => r.rank);
      };
      // PostgreSQL put nulls last ascending and first descending.
      expect(await ranks('rank')).toEqual([null, 1, 2]);
      expect(await ranks('rank desc')).toEqual([2, 1, null]);
      expect(await ranks('rank asc nulls last')).toEqual([1, 2, null]);
      expect(await ranks('rank DESC NULLS FIRST')).toEqual([null, 2, 1]);
      expect(await ranks('rank nulls first, id')).toEqual([null, 1, 2]);
      expect((await api().get('_table/ranked', { order: 'rank nulls sideways' })).status).toBe(400);
      const related = await api().get('_table/contact/1', {
        related: 'contact_info_by_contact_id',
        'contact_info_by_contact_id.order': 'ordinal desc nulls last',
      });
      expect(related.status, JSON.stringify(related.body)).toBe(200);
    });

    describe("the spec's filter operators, alike on every database", () => {
      beforeAll(async () => {
        await api().call('POST', '_schema', {
          resource: [
            {
              name: 'op',
              field: [
                { name: 'id', type: 'id' },
                { name: 'n', type: 'integer', allow_null: true },
                { name: 's', type: 'string', length: 10, allow_null: true },
              ],
            },
          ],
        });
        await api().call('POST', '_table/op', {
          resource: [
            { n: 1, s: 'apple' },
            { n: 2, s: 'banana' },
            { n: 3, s: null },
            { n: null, s: 'cherry' },
            { n: 5, s: 'avocado' },
          ],
        });
      });

      it.each([
        ['n = 2', [2]],
        ['n != 2', [1, 3, 5]],
        ['n > 2', [3, 5]],
        ['n >= 2', [2, 3, 5]],
        ['n < 2', [1]],
        ['n <= 2', [1, 2]],
        ["s like 'a%'", [1, 5]],
        ["s like '%an%'", [2]],
        ["s LIKE '_pple'", [1]],
        ['n in (1, 3, 7)', [1, 3]],
        ["s IN ('cherry','apple')", [1, 4]],
        ['n is null', [4]],
        ['s IS NOT NULL', [1, 2, 4, 5]],
        ["n > 1 and s like 'a%'", [5]],
        ['n = 1 OR n = 3', [1, 3]],
        ["(n = 1 or n = 2) AND s = 'banana'", [2]],
        ["n = 1 or n = 2 and s = 'banana'", [1, 2]],
        ['(n < 2 or n is null) and (s is not null)', [1, 4]],
      ])('%s', async (filter, ids) => {
        const result = await api().get('_table/op', { filter, fields: 'id', order: 'id' });
        expect(result.status, JSON.stringify(result.body)).toBe(200);
        expect(result.body.resource.map((r: { id: number }) => r.id)).toEqual(ids);
      });
    });

    it('returns fields of columns named in upper case in lower case, and takes them in any case', async () => {
      const ddl: Record<DatabaseTarget['kind'], string> = {
        sqlite: 'create table SHOUT (ID integer primary key autoincrement, FULL_NAME varchar(20) not null, Score integer)',
        postgres: 'create table "SHOUT" ("ID" serial primary key, "FULL_NAME" varchar(20) not null, "Score" integer)',
        mysql: 'create table SHOUT (ID int primary key auto_increment, FULL_NAME varchar(20) not null, Score int)',
      };
      await target().exec(ddl[target().kind]);
      expect((await api().get('_table', { refresh: 'true' })).body.resource).toContainEqual({ name: 'shout' });
      const created = await api().call('POST', '_table/SHOUT', {
        resource: [
          { full_name: 'Ann', score: 1 },
          { FULL_NAME: 'Bob', Score: 2 },
        ],
      });
      expect(created.body).toEqual({ resource: [{ id: 1 }, { id: 2 }] });
      expect((await api().get('_table/shout', { order: 'SCORE desc' })).body).toEqual({
        resource: [
          { id: 2, full_name: 'Bob', score: 2 },
          { id: 1, full_name: 'Ann', score: 1 },
        ],
      });
      expect((await api().get('_table/shout/1')).body).toEqual({ id: 1, full_name: 'Ann', score: 1 });
      expect((await api().get('_table/shout', { filter: "full_name = 'Bob'", fields: 'FULL_NAME' })).body).toEqual({
        resource: [{ full_name: 'Bob' }],
      });
      expect((await api().call('PATCH', '_table/shout/2?fields=*', { Full_Name: 'Rob' })).body).toEqual({
        id: 2,
        full_name: 'Rob',
        score: 2,
      });
      expect((await api().get('_schema/shout')).body.field.map((f: { name: string }) => f.name)).toEqual(['id', 'full_name', 'score']);
    });

    it('answers a malformed filter with 400 naming the position and what was expected', async () => {
      const result = await api().get('_table/contact', { filter: "last_name = 'Yang' and (id > 2" });
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(
        "Malformed filter at position 31: expected 'and', 'or' or ')' to close the '(' at position 24 but found end of input",
      );
      expect(result.body.error.context).toMatchObject({ position: 31 });
    });

    it('binds injection attempts as values', async () => {
      const attempts = ["x' or '1'='1", '1; drop table contact; --', "' union select * from contact --"];
      for (const text of attempts) {
        const result = await api().get('_table/contact', { filter: `last_name = '${text.replace(/'/g, "''")}'` });
        expect(result.body).toEqual({ resource: [] });
      }
      expect(await count('contact')).toBe(100);
      expect((await api().get('_table/contact', { order: 'id; drop table contact' })).status).toBe(400);
    });
  });

  describe('writes', () => {
    it('creates records, returning their keys, or the fields asked for, or related records', async () => {
      const created = await api().call('POST', '_table/note', {
        resource: [
          { title: 'a1', score: 1, price: '9.99', due: '2024-01-31', data: { k: [1, 2] } },
          { title: 'a2', done: true },
        ],
      });
      expect(created.status).toBe(200);
      expect(created.body.resource).toHaveLength(2);
      expect(Object.keys(created.body.resource[0])).toEqual(['id']);
      const [a1] = (await api().get('_table/note', { filter: "title = 'a1'" })).body.resource;
      expect(a1).toMatchObject({
        title: 'a1',
        body: null,
        score: 1,
        done: false,
        price: 9.99,
        due: '2024-01-31',
        data: { k: [1, 2] },
        contact_id: null,
      });
      expect(a1.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      const fields = await api().call('POST', '_table/note?fields=title,done', { resource: [{ title: 'a3', done: 'yes' }] });
      expect(fields.body).toEqual({ resource: [{ title: 'a3', done: true }] });
      const related = await api().call(
        'POST',
        '_table/note?fields=title&related=contact_by_contact_id&contact_by_contact_id.fields=last_name',
        { resource: [{ title: 'a4', contact_id: 2 }] },
      );
      expect(related.body).toEqual({ resource: [{ title: 'a4', contact_by_contact_id: { last_name: 'Huang' } }] });
    });

    it('stops a default batch at the first failure, keeping what was written, with the BatchException shape', async () => {
      const result = await api().call('POST', '_table/note?fields=title', {
        resource: [{ title: 'b1' }, { title: null }, { title: 'b3' }],
      });
      expect(result).toEqual({
        status: 400,
        body: {
          error: {
            code: 400,
            message: BATCH_NOT_CREATED,
            context: {
              errors: [{ index: 1, message: "Field 'title' can not be NULL.", code: 400 }],
              resource: [{ title: 'b1' }, { code: 400, message: "Field 'title' can not be NULL.", context: { field: 'title' } }],
            },
          },
        },
      });
      expect(await notes("title like 'b%'")).toEqual(['b1']);
    });

    it('tries every record with continue=true', async () => {
      const result = await api().call('POST', '_table/note?continue=true&fields=title', {
        resource: [{ title: 'c1' }, { title: 'b1' }, { title: 'c3' }],
      });
      expect(result.status).toBe(400);
      expect(result.body.error.context.errors).toEqual([
        { index: 1, message: "Duplicate entry: a record with the same 'title' already exists.", code: 409 },
      ]);
      expect(result.body.error.context.resource[2]).toEqual({ title: 'c3' });
      expect(await notes("title like 'c%'")).toEqual(['c1', 'c3']);
    });

    it('undoes the whole batch with rollback=true', async () => {
      const result = await api().call('POST', '_table/note?rollback=true', {
        resource: [{ title: 'd1' }, { title: 'd2' }, { title: 'd1' }],
      });
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(`${BATCH_NOT_CREATED} All changes rolled back.`);
      expect(result.body.error.context.errors).toEqual([
        { index: 2, message: "Duplicate entry: a record with the same 'title' already exists.", code: 409 },
      ]);
      expect(await notes("title like 'd%'")).toEqual([]);
      expect((await api().call('POST', '_table/note?rollback=1&continue=1', { resource: [{ title: 'd1' }] })).body.error.message).toBe(
        'Rollback and continue operations can not be requested at the same time.',
      );
    });

    it('answers a duplicate key with 409, and upserts when the service allows it', async () => {
      const [a1] = (await api().get('_table/note', { filter: "title = 'a1'", fields: 'id' })).body.resource;
      const duplicate = await api().call('POST', '_table/note', { resource: [{ id: a1.id, title: 'other' }] });
      expect(duplicate).toMatchObject({
        status: 409,
        body: { error: { code: 409, message: "Duplicate entry: a record with the same 'id' already exists." } },
      });
      const upserting = await startApi(target(), { allow_upsert: true });
      try {
        const upserted = await upserting.call('POST', '_table/note?fields=id,title', { resource: [{ id: a1.id, title: 'a1-upserted' }] });
        expect(upserted.body).toEqual({ resource: [{ id: a1.id, title: 'a1-upserted' }] });
        const put = await upserting.call('PUT', '_table/note/9000?fields=id,title', { title: 'put-created' });
        expect(put.body).toEqual({ id: 9000, title: 'put-created' });
        // The generator moves past keys given explicitly.
        expect((await upserting.call('POST', '_table/note', { resource: [{ title: 'after-9000' }] })).status).toBe(200);
      } finally {
        await upserting.close();
      }
    });

    it('patches one record with a bare object, and PUT changes only the given fields too', async () => {
      const [a2] = (await api().get('_table/note', { filter: "title = 'a2'", fields: 'id' })).body.resource;
      expect((await api().call('PATCH', `_table/note/${a2.id}`, { body: 'patched', id: 12345, unknown: 1 })).body).toEqual({ id: a2.id });
      // Writing the values a record already has still finds it (MySQL counts matched, not changed, rows).
      expect(await api().call('PATCH', `_table/note/${a2.id}`, { body: 'patched' })).toMatchObject({ status: 200, body: { id: a2.id } });
      expect((await api().call('PUT', `_table/note/${a2.id}?fields=body,score`, { score: 7 })).body).toEqual({ body: 'patched', score: 7 });
      expect((await api().call('PATCH', '_table/note/999999', { body: 'x' })).status).toBe(404);
      expect((await api().call('PATCH', `_table/note/${a2.id}`, { unknown: 1 })).body.error.message).toBe(
        'No valid fields were found in record.',
      );
    });

    it('takes a single-record body as the record: fields named like options (order, fields, limit, ...) are values', async () => {
      const keywords = ['order', 'fields', 'select', 'limit', 'filter', 'group', 'ids', 'related', 'continue'];
      const created = await api().call('POST', '_schema', {
        resource: [
          {
            name: 'keyword',
            field: [{ name: 'id', type: 'id' }, ...keywords.map((name) => ({ name, type: 'string', length: 20, allow_null: true }))],
          },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const values = Object.fromEntries(keywords.map((name) => [name, `${name} value`]));
      const [{ id }] = (await api().call('POST', '_table/keyword', { resource: [values] })).body.resource;
      const patched = await api().call('PATCH', `_table/keyword/${id}?fields=order,limit`, { order: '3', limit: 'x', fields: 'f' });
      expect(patched).toEqual({ status: 200, body: { order: '3', limit: 'x' } });
      expect((await api().call('PUT', `_table/keyword/${id}`, { select: 'nothing', filter: 'id = 0', ids: '1,2' })).body).toEqual({ id });
      expect((await api().call('GET', `_table/keyword/${id}`)).body).toEqual({
        ...values,
        id,
        order: '3',
        limit: 'x',
        fields: 'f',
        select: 'nothing',
        filter: 'id = 0',
        ids: '1,2',
      });
    });

    it('refuses a single-record write by an id_field that matches several records, changing none (all were changed or deleted)', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'twin',
            field: [
              { name: 'id', type: 'id' },
              { name: 'tag', type: 'string', length: 10 },
              { name: 'n', type: 'integer' },
            ],
          },
        ],
      });
      await api().call('POST', '_table/twin', {
        resource: [
          { tag: 'same', n: 1 },
          { tag: 'same', n: 1 },
          { tag: 'other', n: 2 },
        ],
      });
      const before = (await api().get('_table/twin', { order: 'id' })).body;
      const message = (id: string) =>
        `Identifier '${id}' matches 2 records of table 'twin': 'id_field' must name a field whose values are unique.`;
      for (const [method, path, body] of [
        ['PATCH', '_table/twin/same?id_field=tag', { n: 9 }],
        ['PUT', '_table/twin/1?id_field=n', { tag: 'changed' }],
        ['DELETE', '_table/twin/same?id_field=tag', undefined],
        ['DELETE', '_table/twin?ids=1&id_field=n', undefined],
      ] as const) {
        const result = await api().call(method, path, body);
        expect(result.body.error?.message ?? result.body.error?.context?.errors[0].message, `${method} ${path}`).toBe(
          message(path.includes('same') ? 'same' : '1'),
        );
      }
      expect((await api().get('_table/twin', { order: 'id' })).body).toEqual(before);
      // One match is fine.
      expect((await api().call('PATCH', '_table/twin/other?id_field=tag&fields=n', { n: 3 })).body).toEqual({ n: 3 });
    });

    it('updates batches of records carrying their keys, by ids, and by filter', async () => {
      const ids = (await api().get('_table/note', { filter: "title in ('c1', 'c3')", fields: 'id', order: 'id' })).body.resource.map(
        (r: { id: number }) => r.id,
      );
      const batch = await api().call('PATCH', '_table/note?fields=title,score', {
        resource: ids.map((id: number, i: number) => ({ id, score: 10 + i })),
      });
      expect(batch.body).toEqual({
        resource: [
          { title: 'c1', score: 10 },
          { title: 'c3', score: 11 },
        ],
      });
      const missing = await api().call('PUT', '_table/note', {
        resource: [
          { id: ids[0], score: 1 },
          { id: 999999, score: 2 },
        ],
      });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({
        message: 'Batch Error: Not all requested records could be updated.',
        context: { errors: [{ index: 1, message: "Record with identifier '999999' not found.", code: 404 }] },
      });
      expect((await api().call('PATCH', `_table/note?ids=${ids.join(',')}`, { resource: [{ body: 'same' }] })).body).toEqual({
        resource: ids.map((id: number) => ({ id })),
      });
      const filtered = await api().call('PATCH', `_table/note?filter=${encodeURIComponent("body = 'same'")}&fields=title`, {
        resource: [{ score: 99 }],
      });
      expect(filtered.body.resource.map((r: { title: string }) => r.title).sort()).toEqual(['c1', 'c3']);
      expect(await count('note', 'score = 99')).toBe(2);
    });

    it('deletes by id, by ids and by filter, returning keys or the deleted fields', async () => {
      await api().call('POST', '_table/note', { resource: [{ title: 'e1' }, { title: 'e2' }, { title: 'e3' }, { title: 'e4' }] });
      const ids = (await api().get('_table/note', { filter: "title like 'e%'", fields: 'id', order: 'title' })).body.resource.map(
        (r: { id: number }) => r.id,
      );
      expect((await api().call('DELETE', `_table/note/${ids[0]}?fields=title`)).body).toEqual({ title: 'e1' });
      expect((await api().call('DELETE', `_table/note?ids=${ids[1]}`)).body).toEqual({ resource: [{ id: ids[1] }] });
      expect(
        (await api().call('DELETE', `_table/note?filter=${encodeURIComponent("title like 'e%'")}&fields=title`)).body.resource
          .map((r: { title: string }) => r.title)
          .sort(),
      ).toEqual(['e3', 'e4']);
      expect((await api().call('DELETE', '_table/note')).body.error.message).toBe('No filter or records given for delete request.');
      expect(await count('note', "title like 'e%'")).toBe(0);
    });

    it('deletes by filter at most limit records, after offset, in the order asked for (limit was ignored: every match was deleted)', async () => {
      await api().call('POST', '_table/note', {
        resource: ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'].map((title, i) => ({ title, score: i % 2 })),
      });
      const byFilter = (filter: string, query: string) => `_table/note?filter=${encodeURIComponent(filter)}&${query}`;
      // The spec's query parameters serve list and delete operations alike: limit is the most records the delete removes.
      expect((await api().call('DELETE', byFilter("title like 'g%'", 'limit=1&fields=title'))).body).toEqual({
        resource: [{ title: 'g1' }],
      });
      expect(await notes("title like 'g%'")).toEqual(['g2', 'g3', 'g4', 'g5', 'g6']);
      const ordered = await api().call('DELETE', byFilter('score = 1', 'order=title desc&top=2&fields=title'));
      expect(ordered.body.resource.map((r: { title: string }) => r.title).sort()).toEqual(['g4', 'g6']);
      expect(await notes("title like 'g%'")).toEqual(['g2', 'g3', 'g5']);
      const skipped = await api().call('DELETE', byFilter("title like 'g%'", 'sort=title&skip=1&fields=title'));
      expect(skipped.body.resource.map((r: { title: string }) => r.title).sort()).toEqual(['g3', 'g5']);
      expect(await notes("title like 'g%'")).toEqual(['g2']);
      // limit=0 is no limit, as for lists.
      expect((await api().call('DELETE', byFilter("title like 'g%'", 'limit=0'))).body.resource).toHaveLength(1);
      await api().call('POST', '_schema', { resource: [{ name: 'keyless', field: [{ name: 'n', type: 'integer' }] }] });
      await api().call('POST', '_table/keyless', { resource: [{ n: 1 }, { n: 1 }] });
      expect((await api().call('DELETE', '_table/keyless?filter=n%20%3D%201&limit=1')).body.error).toEqual({
        code: 400,
        message: "Table 'keyless' has no primary key: a delete by filter with 'limit' or 'offset' can not tell which records to delete.",
      });
      expect(await count('keyless')).toBe(2);
      await api().call('DELETE', '_schema/keyless');
    });

    it('changes rows of a table without a key by filter, as it deletes them (PATCH and PUT answered 400 "No valid identifier")', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'logline',
            field: [
              { name: 'msg', type: 'string', length: 20, allow_null: true },
              { name: 'lvl', type: 'integer', default: 3 },
            ],
          },
        ],
      });
      // Created records come back with every field, defaults filled in, on every database (MySQL answered {}).
      expect((await api().call('POST', '_table/logline', { resource: [{ msg: 'a' }, { msg: 'b', lvl: 1 }, { msg: 'c' }] })).body).toEqual({
        resource: [
          { msg: 'a', lvl: 3 },
          { msg: 'b', lvl: 1 },
          { msg: 'c', lvl: 3 },
        ],
      });
      const byFilter = `_table/logline?filter=${encodeURIComponent('lvl = 3')}`;
      expect((await api().call('PATCH', `${byFilter}&fields=msg`, { resource: [{ msg: 'changed' }] })).body).toEqual({
        resource: [{ msg: 'changed' }, { msg: 'changed' }],
      });
      const changed = `_table/logline?filter=${encodeURIComponent("msg = 'changed'")}`;
      expect((await api().call('PUT', changed, { resource: [{ lvl: 2 }] })).body).toEqual({
        resource: [
          { msg: 'changed', lvl: 2 },
          { msg: 'changed', lvl: 2 },
        ],
      });
      expect((await api().get('_table/logline', { order: 'msg' })).body.resource).toEqual([
        { msg: 'b', lvl: 1 },
        { msg: 'changed', lvl: 2 },
        { msg: 'changed', lvl: 2 },
      ]);
      // Records are addressed by a key: still a 400 without one.
      expect((await api().call('PATCH', '_table/logline', { resource: [{ msg: 'x' }] })).body.error.message).toBe(
        "No valid identifier found for table 'logline'.",
      );
      await api().call('DELETE', '_schema/logline');
    });
  });

  describe('bad input', () => {
    it.each([
      ['a type mismatch', { title: 'x1', score: 'many' }, 400, "Field 'score' must be a valid integer.", 'score'],
      ['a value too long', { title: 'x'.repeat(21) }, 400, "Field 'title' value is too long: at most 20 characters.", 'title'],
      ['a missing required field', { body: 'no title' }, 400, "Required field 'title' can not be NULL.", 'title'],
      ['a null in a NOT NULL field', { title: 'x2', done: null }, 400, "Field 'done' can not be NULL.", 'done'],
      ['a bad boolean', { title: 'x3', done: 'perhaps' }, 400, "Field 'done' must be a valid boolean.", 'done'],
      ['a bad number', { title: 'x4', price: 'cheap' }, 400, "Field 'price' must be a valid number.", 'price'],
      // Refused alike by every database (SQLite stored these as given; PostgreSQL did not name the field).
      [
        'a date that does not exist',
        { title: 'x5', due: '2024-02-30' },
        400,
        "Invalid value for field 'due': not a valid date or time.",
        'due',
      ],
      [
        'a month that does not exist',
        { title: 'x6', due: '2024-13-01' },
        400,
        "Invalid value for field 'due': not a valid date or time.",
        'due',
      ],
      [
        'a date that is no date',
        { title: 'x7', due: '2024-01-01 25:00' },
        400,
        "Invalid value for field 'due': not a valid date or time.",
        'due',
      ],
      [
        'a decimal beyond its precision',
        { title: 'x8', price: 1000000 },
        400,
        "Invalid value for field 'price': the number is out of range for the field.",
        'price',
      ],
      ['a duplicate unique value', { title: 'a2' }, 409, "Duplicate entry: a record with the same 'title' already exists.", 'title'],
    ])('%s: %i naming the field', async (_name, record, status, message, field) => {
      const result = await api().call('POST', '_table/note', { resource: [record] });
      expect(result.status).toBe(status);
      expect(result.body.error.message).toBe(message);
      expect(JSON.stringify(result.body.error.context)).toContain(field);
      expect(await count('note', "title like 'x%'")).toBe(0);
    });

    it('names the field of an integer beyond its column (PostgreSQL did not; SQLite integers are 64-bit)', async () => {
      const result = await api().call('POST', '_table/note', { resource: [{ title: 'x-int', score: '2147483648' }] });
      if (target().kind === 'sqlite') {
        expect(result.status).toBe(200);
        await api().call('DELETE', `_table/note?filter=${encodeURIComponent("title = 'x-int'")}`);
        return;
      }
      expect(result.body.error).toEqual({
        code: 400,
        message: "Invalid value for field 'score': the number is out of range for the field.",
        context: { field: 'score' },
      });
      expect(await count('note', "title = 'x-int'")).toBe(0);
    });

    it('finds no record by an id beyond its integer column, on every database (PostgreSQL answered 400)', async () => {
      for (const [method, path, body] of [
        ['GET', '_table/note/2147483648', undefined],
        ['GET', '_table/note/-2147483649?fields=title', undefined],
        ['PATCH', '_table/note/2147483648', { title: 'far' }],
        ['DELETE', '_table/note/2147483648', undefined],
        ['DELETE', '_table/note?ids=2147483648', undefined],
        ['GET', '_table/note?ids=2147483648&continue=true', undefined],
      ] as const) {
        const result = await api().call(method, path, body);
        expect(result.body.error?.code, `${method} ${path}`).toBe(404);
      }
    });

    it('answers 409 to a write the database stops in a deadlock with another session, leaving the records to the other (SQLite has one writer)', async () => {
      const kind = target().kind;
      if (kind === 'sqlite') return;
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'locked',
            field: [
              { name: 'id', type: 'id' },
              { name: 'n', type: 'integer' },
            ],
          },
        ],
      });
      await api().call('POST', '_table/locked', { resource: [{ n: 0 }, { n: 0 }] });
      await target().exec('begin');
      await target().exec('update locked set n = 100 where id = 2');
      // MariaDB and MySQL stop the lighter transaction (fewer rows written): make this session's the heavier one.
      if (kind === 'mysql') await target().exec('insert into locked (n) values (7), (7), (7), (7), (7), (7)');
      const patch = api().call('PATCH', `_table/locked?filter=${encodeURIComponent('id in (1, 2)')}`, { resource: [{ n: 1 }] });
      const waiting =
        kind === 'postgres'
          ? "select count(*) as n from pg_locks where not granted and locktype = 'transactionid'"
          : "select count(*) as n from information_schema.innodb_trx where trx_state = 'LOCK WAIT'";
      // The API's update holds record 1 and waits for record 2.
      for (let i = 0; i < 100 && Number((await target().query(waiting))[0].n) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await target().exec('update locked set n = 100 where id = 1');
      const result = await patch;
      await target().exec('commit');
      expect(result).toEqual({ status: 409, body: { error: { code: 409, message: 'The records were changed concurrently; try again.' } } });
      expect((await api().get('_table/locked', { ids: '1,2', fields: 'n' })).body.resource).toEqual([{ n: 100 }, { n: 100 }]);
    });

    it('answers a broken foreign key with 409 and writes nothing', async () => {
      const result = await api().call('POST', '_table/note', { resource: [{ title: 'fk', contact_id: 99999 }] });
      expect(result).toMatchObject({ status: 409, body: { error: { code: 409 } } });
      expect(await count('note', "title = 'fk'")).toBe(0);
    });

    it('answers 409 to deleting a record another still references, deleting nothing (the cascade to its own children included)', async () => {
      const created = await api().call('POST', '_table/note', { resource: [{ title: 'refers', contact_id: 3 }] });
      expect(created.status).toBe(200);
      const infos = await count('contact_info', 'contact_id = 3');
      for (const path of ['_table/contact/3', '_table/contact?ids=3', `_table/contact?filter=${encodeURIComponent('id = 3')}`]) {
        expect((await api().call('DELETE', path)).body, path).toEqual({
          error: {
            code: 409,
            message: 'Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.',
          },
        });
      }
      expect(await count('contact', 'id = 3')).toBe(1);
      expect(await count('contact_info', 'contact_id = 3')).toBe(infos);
      await api().call('DELETE', `_table/note/${created.body.resource[0].id}`);
    });

    it('refuses a body that is not a record list', async () => {
      expect((await api().call('POST', '_table/note', { title: 'bare' })).body.error.message).toMatch(
        /^No record\(s\) detected in request/,
      );
      expect((await api().call('POST', '_table/note', { resource: [1] })).body.error).toEqual({
        code: 400,
        message: 'Record 0 is not a JSON object.',
        context: { index: 0 },
      });
    });
  });
}
