/**
 * `_schema` on every database: tables created from the abstract type vocabulary (mapped per
 * dialect, read back, records round-tripping), served at once; fields added, changed and dropped
 * through `_schema/{table}` and `_field`; foreign keys through `_related`; tables dropped.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { DatabaseTarget, TargetKind } from './database-targets.js';

/** [abstract type given, extra definition keys, type read back per dialect (when it differs from the one given)]. */
const VOCABULARY: Array<[string, Record<string, unknown>, Partial<Record<TargetKind, string>>]> = [
  ['string', { length: 40 }, {}],
  ['text', {}, {}],
  ['integer', {}, {}],
  ['bigint', {}, {}],
  ['boolean', {}, {}],
  ['float', {}, {}],
  ['double', {}, {}],
  ['decimal', { precision: 10, scale: 2 }, {}],
  ['money', {}, { sqlite: 'decimal', mysql: 'decimal' }],
  ['date', {}, {}],
  ['time', {}, {}],
  // Declared types round-trip: PostgreSQL stores a datetime as timestamp, and the platform remembers it was declared datetime.
  ['datetime', {}, {}],
  ['timestamp', {}, {}],
  ['timestamp_on_create', {}, {}],
  ['timestamp_on_update', {}, {}],
  ['binary', {}, {}],
  ['json', {}, {}],
  // MySQL keeps a uuid in a char(36); the declared type is kept, so that it is checked as a uuid there too.
  ['uuid', {}, {}],
  ['user_id', {}, { sqlite: 'integer', postgres: 'integer', mysql: 'integer' }],
];

const TYPED_TABLE = {
  name: 'typed',
  label: 'Typed Things',
  field: [
    { name: 'id', type: 'id' },
    ...VOCABULARY.map(([type, extra]) => ({ name: `f_${type}`, type, allow_null: !type.startsWith('timestamp_on'), ...extra })),
    { name: 'parent_id', type: 'reference', ref_table: 'typed', ref_field: 'id', allow_null: true, ref_on_delete: 'SET NULL' },
  ],
};

const SAMPLE = {
  f_string: 'hello',
  f_text: 'long text',
  f_integer: 42,
  f_bigint: 9007199254740991,
  f_boolean: true,
  f_float: 1.5,
  f_double: 2.25,
  f_decimal: 1234.56,
  f_date: '2024-02-29',
  f_time: '13:45:00',
  f_datetime: '2024-02-29 13:45:00',
  f_timestamp: '2024-02-29 13:45:00',
  f_binary: 'aGVsbG8=',
  f_json: { a: [1, 'two'] },
  f_uuid: '123e4567-e89b-12d3-a456-426614174000',
  f_user_id: 3,
};

export function schemaTests(api: () => ApiClient, target: () => DatabaseTarget): void {
  const describeField = async (table: string, field: string) => (await api().get(`_schema/${table}/_field/${field}`)).body;

  describe('creating tables from the abstract types', () => {
    it('creates the table and describes every field with the type read back', async () => {
      const created = await api().call('POST', '_schema?fields=*', { resource: [TYPED_TABLE] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body.resource[0]).toMatchObject({ name: 'typed', primary_key: ['id'] });
      const fields = Object.fromEntries(created.body.resource[0].field.map((f: { name: string }) => [f.name, f]));
      expect(fields.id).toMatchObject({ type: 'id', auto_increment: true, is_primary_key: true, allow_null: false, required: false });
      for (const [type, , readBack] of VOCABULARY) {
        expect(fields[`f_${type}`].type, `f_${type} (${fields[`f_${type}`].db_type})`).toBe(readBack[target().kind] ?? type);
      }
      expect(fields.f_string).toMatchObject({ length: 40 });
      expect(fields.f_decimal).toMatchObject({ precision: 10, scale: 2 });
      expect(fields.f_timestamp_on_create).toMatchObject({ default: { expression: 'CURRENT_TIMESTAMP' }, required: false });
      expect(fields.parent_id).toMatchObject({ type: 'reference', ref_table: 'typed', ref_field: 'id', ref_on_delete: 'SET NULL' });
    });

    it('serves the new table at once, and its values round-trip as JSON types', async () => {
      const created = await api().call('POST', '_table/typed?fields=*', { resource: [SAMPLE] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const row = created.body.resource[0];
      const { f_time: time, f_datetime: datetime, f_timestamp: timestamp, ...rest } = SAMPLE;
      expect(row).toMatchObject(rest);
      expect(row.f_time).toMatch(/^13:45:00/);
      expect(row.f_datetime).toMatch(/^2024-02-29[ T]13:45:00/);
      expect(row.f_timestamp).toMatch(/^2024-02-29[ T]13:45:00/);
      expect(row.f_timestamp_on_create).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      void [time, datetime, timestamp];
      const child = await api().call('POST', '_table/typed?fields=parent_id&related=typed_by_parent_id', {
        resource: [{ parent_id: row.id }],
      });
      expect(child.body.resource[0]).toMatchObject({ parent_id: row.id, typed_by_parent_id: { id: row.id, f_string: 'hello' } });
    });

    it('writes a record back as it was read, and finds it by the values read (PostgreSQL formats money: $1,234.50)', async () => {
      const created = await api().call('POST', '_table/typed?fields=*', { resource: [{ ...SAMPLE, f_money: 1234.5 }] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const [row] = created.body.resource;
      if (target().kind === 'postgres') expect(row.f_money).toBe('$1,234.50');
      const { f_timestamp_on_update: _stamped, ...written } = row;
      expect(await api().call('PUT', '_table/typed?fields=*', { resource: [written] })).toMatchObject({
        status: 200,
        body: { resource: [written] },
      });
      expect(await api().call('PATCH', `_table/typed/${row.id}?fields=f_money`, { f_money: row.f_money })).toEqual({
        status: 200,
        body: { f_money: row.f_money },
      });
      const found = await api().get('_table/typed', { filter: `f_money = '${row.f_money}' and id = ${row.id}`, fields: 'id' });
      expect(found.body).toEqual({ resource: [{ id: row.id }] });
      expect(await api().call('DELETE', `_table/typed/${row.id}`)).toEqual({ status: 200, body: { id: row.id } });
    });

    it('stamps a timestamp_on_update field on every update, not only MySQL', async () => {
      const [row] = (await api().get('_table/typed', { fields: 'id,f_timestamp_on_update', limit: '1' })).body.resource;
      // Whole seconds on SQLite and MySQL: wait for the clock to move.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await api().call('PATCH', `_table/typed/${row.id}`, { f_text: 'stamped' })).status).toBe(200);
      const after = (await api().get(`_table/typed/${row.id}`, { fields: 'f_timestamp_on_update' })).body.f_timestamp_on_update;
      expect(after > row.f_timestamp_on_update, `${row.f_timestamp_on_update} -> ${after}`).toBe(true);
    });

    it('filters a binary field by the base64 text it is read as (no database matched it)', async () => {
      const found = await api().get('_table/typed', {
        filter: "f_binary = 'aGVsbG8=' and f_binary in ('aGVsbG8=', 'AAE=')",
        fields: 'f_string',
      });
      expect(found.body).toEqual({ resource: [{ f_string: 'hello' }] });
      expect((await api().get('_table/typed', { filter: "f_binary = '!!'" })).body.error).toEqual({
        code: 400,
        message: "Field 'f_binary' must be base64-encoded binary data.",
        context: { field: 'f_binary' },
      });
    });

    it('returns 64-bit integers beyond 2^53 exactly, as text, on every database', async () => {
      const created = await api().call('POST', '_table/typed?fields=f_bigint', {
        resource: [{ f_bigint: '9223372036854775807' }, { f_bigint: '-9223372036854775808' }, { f_bigint: '9007199254740993' }],
      });
      expect(created.body).toEqual({
        resource: [{ f_bigint: '9223372036854775807' }, { f_bigint: '-9223372036854775808' }, { f_bigint: '9007199254740993' }],
      });
      const found = await api().get('_table/typed', { filter: 'f_bigint = 9223372036854775807', fields: 'f_bigint' });
      expect(found.body).toEqual({ resource: [{ f_bigint: '9223372036854775807' }] });
      // Exact integers stay numbers.
      const small = await api().get('_table/typed', { filter: 'f_bigint = 9007199254740991', fields: 'f_bigint,f_integer' });
      expect(small.body).toEqual({ resource: [{ f_bigint: 9007199254740991, f_integer: 42 }] });
    });

    it('takes a MySQL bigint unsigned beyond 2^63 as it reads it, in writes, ids and filters (it was a 400 beyond 64 signed bits)', async () => {
      if (target().kind !== 'mysql') return;
      await target().exec('create table counter (id bigint unsigned primary key, hits bigint unsigned)');
      expect((await api().call('GET', '_schema?refresh=true')).status).toBe(200);
      const max = '18446744073709551615';
      const created = await api().call('POST', '_table/counter?fields=*', { resource: [{ id: max, hits: 2 ** 63 }] });
      expect(created).toEqual({ status: 200, body: { resource: [{ id: max, hits: '9223372036854775808' }] } });
      const [row] = (await api().get('_table/counter')).body.resource;
      expect(await api().call('PATCH', '_table/counter?fields=*', { resource: [{ ...row, hits: '18446744073709551614' }] })).toEqual({
        status: 200,
        body: { resource: [{ id: max, hits: '18446744073709551614' }] },
      });
      expect((await api().get(`_table/counter/${max}`, { fields: 'hits' })).body).toEqual({ hits: '18446744073709551614' });
      expect((await api().get('_table/counter', { filter: `id = ${max}`, fields: 'id' })).body).toEqual({ resource: [{ id: max }] });
      const beyond = await api().call('POST', '_table/counter', { resource: [{ id: '18446744073709551616' }] });
      expect(beyond.body.error).toMatchObject({ code: 400, context: { field: 'id' } });
      expect(await api().call('DELETE', `_table/counter/${max}`)).toEqual({ status: 200, body: { id: max } });
    });

    it('reads a MySQL bit(n) wider than bit(1) as its number and writes it back (it read as true, and wrote back 1)', async () => {
      if (target().kind !== 'mysql') return;
      await target().exec('create table bits (id integer primary key, b1 bit(1), b8 bit(8), b64 bit(64))');
      await target().exec(`insert into bits values (1, b'1', b'00000101', b'${'1'.repeat(64)}')`);
      expect((await api().call('GET', '_schema?refresh=true')).status).toBe(200);
      const types = (await api().get('_schema/bits')).body.field.map((f: { name: string; type: string }) => [f.name, f.type]);
      expect(types).toEqual([
        ['id', 'integer'],
        ['b1', 'boolean'],
        ['b8', 'bigint'],
        ['b64', 'bigint'],
      ]);
      const read = { id: 1, b1: true, b8: 5, b64: '18446744073709551615' };
      expect((await api().get('_table/bits/1')).body).toEqual(read);
      expect(await api().call('PATCH', '_table/bits?fields=*', { resource: [read] })).toEqual({ status: 200, body: { resource: [read] } });
      const created = await api().call('POST', '_table/bits?fields=*', {
        resource: [{ id: 2, b1: false, b8: 255, b64: '9007199254740993' }],
      });
      expect(created).toEqual({ status: 200, body: { resource: [{ id: 2, b1: false, b8: 255, b64: '9007199254740993' }] } });
      expect((await api().get('_table/bits', { filter: 'b8 = 255', fields: 'id' })).body).toEqual({ resource: [{ id: 2 }] });
      const tooWide = await api().call('POST', '_table/bits', { resource: [{ id: 3, b8: 256 }] });
      expect(tooWide.body.error).toMatchObject({ code: 400, context: { field: 'b8' } });
    });

    it('reads a PostgreSQL array of an enum, a domain or a range as an array, as text[] is (it was the array text {sad,happy})', async () => {
      if (target().kind !== 'postgres') return;
      await target().exec(`create type mood as enum ('sad', 'ok', 'happy')
;;
create domain code as text check (value ~ '^[A-Z]+$')
;;
create table moody (id integer primary key, moods mood[], codes code[], spans int4range[], tags text[])
;;
insert into moody values (1, '{sad,happy}', '{AB,"C"}', '{"[1,3)"}', '{"a b",NULL}')`);
      expect((await api().call('GET', '_schema?refresh=true')).status).toBe(200);
      const read = { id: 1, moods: ['sad', 'happy'], codes: ['AB', 'C'], spans: ['[1,3)'], tags: ['a b', null] };
      expect((await api().get('_table/moody/1')).body).toEqual(read);
      expect(await api().call('PATCH', '_table/moody?fields=*', { resource: [{ ...read, moods: ['ok'] }] })).toEqual({
        status: 200,
        body: { resource: [{ ...read, moods: ['ok'] }] },
      });
      const created = await api().call('POST', '_table/moody?fields=*', { resource: [{ ...read, id: 2 }] });
      expect(created).toEqual({ status: 200, body: { resource: [{ ...read, id: 2 }] } });
      // A value the type refuses is a 400 (a range whose bounds are reversed was a 500).
      const reversed = await api().call('PATCH', '_table/moody/1', { spans: ['[3,1)'] });
      expect(reversed).toEqual({
        status: 400,
        body: { error: { code: 400, message: "Invalid value: not a valid value for the field's type." } },
      });
    });

    it('reads PostgreSQL arrays of dates and times as their text, as single values are (they were Dates, without microseconds)', async () => {
      if (target().kind !== 'postgres') return;
      await target().exec('create table timeline (id integer primary key, stamps timestamptz[], days date[], spans interval[])');
      await target().exec(`insert into timeline values (1, '{"2024-01-01 10:00:00.123456+00"}', '{2024-02-29}', '{"1 day"}')`);
      expect((await api().call('GET', '_schema?refresh=true')).status).toBe(200);
      const read = { id: 1, stamps: ['2024-01-01 10:00:00.123456+00'], days: ['2024-02-29'], spans: ['1 day'] };
      expect((await api().get('_table/timeline/1')).body).toEqual(read);
      expect(await api().call('PATCH', '_table/timeline?fields=*', { resource: [read] })).toEqual({
        status: 200,
        body: { resource: [read] },
      });
    });

    it('writes ISO 8601 dates and times (T, fractions, zones) and JSON strings alike on every database', async () => {
      const created = await api().call('POST', '_table/typed?fields=f_date,f_time,f_datetime,f_timestamp,f_json', {
        resource: [
          {
            f_date: '2024-03-10T10:00:00.000Z',
            f_time: '12:00:00+02:00',
            f_datetime: '2024-03-10T12:34:56Z',
            f_timestamp: '2024-03-10T12:34:56+05:00',
            f_json: 'hello',
          },
        ],
      });
      // The wall time as written, as PostgreSQL keeps it in a column without time zone (MariaDB refused the zone).
      const written = { f_date: '2024-03-10', f_time: '12:00:00', f_datetime: '2024-03-10 12:34:56', f_timestamp: '2024-03-10 12:34:56' };
      expect(created).toEqual({ status: 200, body: { resource: [{ ...written, f_json: 'hello' }] } });
      const found = await api().get('_table/typed', {
        filter: "f_datetime = '2024-03-10T12:34:56Z' and f_date >= '2024-03-10' and f_timestamp < '2024-03-10T13:00:00'",
        fields: 'f_date',
      });
      expect(found.body).toEqual({ resource: [{ f_date: '2024-03-10' }] });
      for (const [field, value] of [
        ['f_date', '2023-02-29'],
        ['f_datetime', '2024-04-31T10:00:00Z'],
        ['f_timestamp', '2024-01-01 24:30:00'],
        ['f_time', '12:61:00'],
      ]) {
        expect((await api().call('POST', '_table/typed', { resource: [{ [field]: value }] })).body.error).toEqual({
          code: 400,
          message: `Invalid value for field '${field}': not a valid date or time.`,
          context: { field },
        });
      }
      expect((await api().get('_table/typed', { filter: "f_date = '2024-02-30'" })).status).toBe(400);
    });

    it('lists tables (names, chosen keys, ids) and refuses bad definitions', async () => {
      const listed = await api().get('_schema', { fields: 'name,label' });
      expect(listed.body.resource).toContainEqual({ name: 'typed', label: 'Typed Things' });
      // Unknown names in fields are ignored, as the reference's list cleaning does; a list naming no
      // known property gives the entries' names (the default), not empty entries a client can do nothing with.
      expect((await api().get('_schema', { fields: 'label,bogus' })).body.resource).toContainEqual({ label: 'Typed Things' });
      for (const path of ['_schema', '_table', '']) {
        const plain = (await api().get(path)).body;
        expect((await api().get(path, { fields: 'bogus' })).body, path).toEqual(plain);
        expect((await api().get(path, { fields: 'bogus,other' })).body, path).toEqual(plain);
      }
      expect((await api().get('_schema', { ids: 'typed' })).body.resource[0].field).toHaveLength(TYPED_TABLE.field.length);
      expect(
        (await api().call('POST', '_schema?check_exist=true', { resource: [{ name: 'typed', field: [{ name: 'x', type: 'integer' }] }] }))
          .status,
      ).toBe(409);
      const bad = await api().call('POST', '_schema', {
        resource: [{ name: 'bad', field: [{ name: 'x', type: 'integer; drop table typed' }] }],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(
        /^Invalid schema detected - invalid type 'integer; drop table typed' for field 'x' of table 'bad': use one of id, /,
      );
      const native = await api().call('POST', '_schema', {
        resource: [{ name: 'bad', field: [{ name: 'x', db_type: 'integer; drop table typed' }] }],
      });
      expect(native).toMatchObject({
        status: 400,
        body: { error: { message: "Invalid schema detected - invalid type 'integer; drop table typed' for field 'x' of table 'bad'." } },
      });
      expect((await api().call('POST', '_schema', { resource: [{ name: 'bad' }] })).body.error.message).toBe(
        "There are no fields in the requested schema of table 'bad'.",
      );
      expect((await api().call('POST', '_schema', {})).status).toBe(400);
      // An empty list is no data either (it answered 200 {"resource":[]}, as if tables had been written).
      expect((await api().call('POST', '_schema', { resource: [] })).body.error).toEqual({
        code: 400,
        message: 'No data in schema create request.',
      });
      expect((await api().call('PATCH', '_schema', [])).body.error).toEqual({ code: 400, message: 'No data in schema update request.' });
    });
  });

  describe('defaults, precision and scale of new fields', () => {
    it.each([
      [{ type: 'integer', default: 'abc' }, "Invalid 'default' for field 'f' of table 'defaulted': Field 'f' must be a valid integer."],
      [{ type: 'integer', default: 1.5 }, "Invalid 'default' for field 'f' of table 'defaulted': Field 'f' must be a valid integer."],
      [{ type: 'boolean', default: 'maybe' }, "Invalid 'default' for field 'f' of table 'defaulted': Field 'f' must be a valid boolean."],
      [
        { type: 'string', length: 3, default: 'too long' },
        "Invalid 'default' for field 'f' of table 'defaulted': Field 'f' value is too long: at most 3 characters.",
      ],
      [
        { type: 'decimal', precision: 5, scale: 2, default: 123456 },
        "Invalid 'default' for field 'f' of table 'defaulted': Invalid value for field 'f': the number is out of range for the field.",
      ],
      [{ type: 'decimal', precision: 2, scale: 5 }, "Invalid 'scale' for field 'f' of table 'defaulted': at most the precision (2)."],
      // A string without a length is a varchar(255) (PostgreSQL created it, then refused every record left to the default).
      [
        { type: 'string', default: 'x'.repeat(256) },
        "Invalid 'default' for field 'f' of table 'defaulted': Field 'f' value is too long: at most 255 characters.",
      ],
      // MariaDB created it, then refused every record left to the default.
      [{ type: 'json', default: 'not json' }, "Invalid 'default' for field 'f' of table 'defaulted': it must be JSON text."],
    ])('refuses %j alike on every database, creating nothing (SQLite took them)', async (field, message) => {
      const created = await api().call('POST', '_schema', {
        resource: [
          {
            name: 'defaulted',
            field: [
              { name: 'id', type: 'id' },
              { name: 'f', allow_null: true, ...field },
            ],
          },
        ],
      });
      expect(created.body.error).toMatchObject({ code: 400, message });
      expect((await api().get('_schema/defaulted')).status).toBe(404);
      const added = await api().call('PATCH', '_schema/typed', { field: [{ name: 'f', allow_null: true, ...field }] });
      expect(added.body.error).toMatchObject({ code: 400, message: message.replace("table 'defaulted'", "table 'typed'") });
    });

    it("takes a string's length 0 as none given (255, as the reference), and answers a length its database can not hold with 400 naming the field", async () => {
      const field = (length: number) => ({
        name: 'lengthy',
        field: [
          { name: 'id', type: 'id' },
          { name: 's', type: 'string', length, allow_null: true },
        ],
      });
      // PostgreSQL refused varchar(0); SQLite and MariaDB made a column that holds nothing but ''.
      expect((await api().call('POST', '_schema', { resource: [field(0)] })).status).toBe(200);
      expect(await describeField('lengthy', 's')).toMatchObject({ type: 'string', length: 255 });
      // Beyond PostgreSQL's varchar (10485760) and MySQL's row (65535 bytes), and beyond MySQL's utf8mb4 varchar (16383):
      // they answered "Invalid value: not a valid value for the field's type." and "Failed to create table 'big'.".
      for (const length of [100_000_000, 20_000]) {
        const created = await api().call('POST', '_schema', { resource: [{ ...field(length), name: 'big' }] });
        const changed = await api().call('PATCH', '_schema/lengthy/_field/s', { length });
        if (target().kind === 'sqlite' || (target().kind === 'postgres' && length === 20_000)) {
          expect(created.status, JSON.stringify(created.body)).toBe(200);
          expect(changed.status, JSON.stringify(changed.body)).toBe(200);
          await api().call('DELETE', '_schema/big');
          continue;
        }
        for (const result of [created, changed]) {
          expect(result.body.error).toEqual({
            code: 400,
            message: expect.stringMatching(
              /^Invalid 'length' for field 's': at most \d+ characters on this database; use type text for longer values\.$/,
            ),
            context: { field: 's' },
          });
        }
        expect((await api().get('_schema/big')).status).toBe(404);
      }
      await api().call('DELETE', '_schema/lengthy');
    });

    it('refuses a table with two auto-numbered keys alike (SQLite and MySQL made a composite key, and no record could be created)', async () => {
      const created = await api().call('POST', '_schema', {
        resource: [
          {
            name: 'numbered',
            field: [
              { name: 'id', type: 'id' },
              { name: 'other', type: 'bigid' },
            ],
          },
        ],
      });
      expect(created.body.error).toEqual({
        code: 400,
        message: "Invalid schema detected - table 'numbered' has more than one auto-numbered primary key field (id, other).",
        context: { table: 'numbered' },
      });
      expect((await api().get('_schema/numbered')).status).toBe(404);
    });

    it('takes defaults the field can hold', async () => {
      const created = await api().call('POST', '_schema', {
        resource: [
          {
            name: 'defaulted',
            field: [
              { name: 'id', type: 'id' },
              { name: 'n', type: 'integer', default: '7' },
              { name: 'flag', type: 'boolean', default: 'yes' },
              { name: 'price', type: 'decimal', precision: 5, scale: 2, default: 999.5 },
              { name: 'day', type: 'date', default: '2024-02-29' },
            ],
          },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await api().call('POST', '_table/defaulted?fields=n,flag,price,day', { resource: [{}] })).body).toEqual({
        resource: [{ n: 7, flag: true, price: 999.5, day: '2024-02-29' }],
      });
      await api().call('DELETE', '_schema/defaulted');
    });
  });

  describe('foreign keys of new fields', () => {
    it('refuses a reference to a table or field that does not exist, creating nothing; takes ref_table in any case', async () => {
      const refTable = (ref: Record<string, unknown>) => ({
        resource: [
          { name: 'ref_first', field: [{ name: 'id', type: 'id' }] },
          {
            name: 'ref_second',
            field: [
              { name: 'id', type: 'id' },
              { name: 'r', type: 'reference', allow_null: true, ...ref },
            ],
          },
        ],
      });
      expect((await api().call('POST', '_schema', refTable({ ref_table: 'nowhere' }))).body.error).toEqual({
        code: 400,
        message: "Invalid schema detected - field 'r' of table 'ref_second' references table 'nowhere', which does not exist.",
        context: { table: 'ref_second', field: 'r' },
      });
      expect((await api().call('POST', '_schema', refTable({ ref_table: 'typed', ref_field: 'nothing' }))).body.error.message).toBe(
        "Invalid schema detected - field 'r' of table 'ref_second' references field 'nothing' of table 'typed', which does not exist.",
      );
      expect((await api().call('PATCH', '_schema/typed', { field: [{ name: 'r', type: 'reference', ref_table: 'nowhere' }] })).status).toBe(
        400,
      );
      // Neither a key nor unique: SQLite created the table and then answered 500 to every write into it.
      expect((await api().call('POST', '_schema', refTable({ ref_table: 'typed', ref_field: 'f_string' }))).body.error).toEqual({
        code: 400,
        message:
          "Invalid schema detected - field 'r' of table 'ref_second' references field 'f_string' of table 'typed', which is neither its primary key nor unique.",
        context: { table: 'ref_second', field: 'r' },
      });
      const tables = (await api().get('_table')).body.resource.map((t: { name: string }) => t.name);
      expect(tables).not.toContain('ref_first');
      // PostgreSQL and MySQL failed with 'Failed to create table' for a name in another case.
      const created = await api().call('POST', '_schema', refTable({ ref_table: 'TYPED', ref_field: 'ID' }));
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await api().get('_schema/ref_second/_field/r')).body).toMatchObject({ ref_table: 'typed', ref_field: 'id' });
      await api().call('DELETE', '_schema?ids=ref_first,ref_second');
    });
  });

  describe('changing tables', () => {
    it('adds and changes fields through PATCH and PUT _schema/{table}, keeping the records', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'shelf',
            field: [
              { name: 'id', type: 'id' },
              { name: 'label', type: 'string', length: 10 },
            ],
          },
        ],
      });
      await api().call('POST', '_table/shelf', { resource: [{ label: 'top' }, { label: 'bottom' }] });
      const patched = await api().call('PATCH', '_schema/shelf', {
        field: [
          { name: 'depth', type: 'integer', allow_null: true },
          { name: 'label', length: 30 },
        ],
      });
      expect(patched).toEqual({ status: 200, body: { name: 'shelf' } });
      expect(await describeField('shelf', 'label')).toMatchObject({ type: 'string', length: 30, allow_null: false });
      expect(await describeField('shelf', 'depth')).toMatchObject({ type: 'integer', allow_null: true });
      expect(
        (await api().call('POST', '_table/shelf?fields=label', { resource: [{ label: 'a label longer than ten', depth: 3 }] })).body,
      ).toEqual({ resource: [{ label: 'a label longer than ten' }] });
      const put = await api().call('PUT', '_schema/shelf?fields=*', { field: [{ name: 'label', allow_null: true }] });
      expect(put.body.field.find((f: { name: string }) => f.name === 'label')).toMatchObject({ allow_null: true, length: 30 });
      expect(put.body.field.map((f: { name: string }) => f.name)).toEqual(['id', 'label', 'depth']);
      expect(
        (await api().get('_table/shelf', { fields: 'label', order: 'id' })).body.resource.map((r: { label: string }) => r.label),
      ).toEqual(['top', 'bottom', 'a label longer than ten']);
    });

    it('refuses to shorten a field below the values it holds, keeping them, alike (PostgreSQL cut them short; SQLite took it, and described the field shorter than its values)', async () => {
      const labels = async () =>
        (await api().get('_table/shelf', { fields: 'label', order: 'id' })).body.resource.map((r: { label: string }) => r.label);
      const shortened = await api().call('PATCH', '_schema/shelf', { field: [{ name: 'label', length: 5 }] });
      expect(await labels()).toEqual(['top', 'bottom', 'a label longer than ten']);
      expect(shortened.status).toBe(400);
      expect(await describeField('shelf', 'label')).toMatchObject({ length: 30 });
    });

    it("refuses a type its stored values do not fit, keeping them (SQLite changed it, and 'top' read as false)", async () => {
      const changed = await api().call('PATCH', '_schema/shelf', { field: [{ name: 'label', type: 'boolean' }] });
      expect(changed.status, JSON.stringify(changed.body)).toBe(400);
      expect(await describeField('shelf', 'label')).toMatchObject({ type: 'string', length: 30 });
      expect(
        (await api().get('_table/shelf', { fields: 'label', order: 'id' })).body.resource.map((r: { label: string }) => r.label),
      ).toEqual(['top', 'bottom', 'a label longer than ten']);
    });

    it("keeps a table's primary key: a second one is refused alike (SQLite made the key composite, and no record could be created)", async () => {
      for (const field of [
        { name: 'label', is_primary_key: true },
        { name: 'serial_too', type: 'id' },
      ]) {
        expect((await api().call('PATCH', '_schema/shelf', { field: [field] })).body.error).toEqual({
          code: 400,
          message: `Table 'shelf' already has a primary key (id): field '${field.name}' can not be one too.`,
          context: { field: field.name },
        });
      }
      expect((await api().get('_schema/shelf')).body.primary_key).toEqual(['id']);
      const created = await api().call('POST', '_table/shelf', { resource: [{ label: 'keyed' }] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await api().call('DELETE', `_table/shelf/${created.body.resource[0].id}`)).status).toBe(200);
    });

    it("keeps an auto-numbered primary key numbered and keyed, alike (SQLite moved the key to another field, PostgreSQL answered 200 and kept the field as it was, MariaDB and SQLite said only 'Failed to update table')", async () => {
      for (const [change, message] of [
        [{ is_primary_key: false }, "Field 'id' is the primary key of table 'shelf': a table keeps its primary key."],
        [
          { auto_increment: false },
          "Field 'id' is the auto-numbered primary key of table 'shelf': it keeps its numbering and an integer type.",
        ],
        [{ type: 'string' }, "Field 'id' is the auto-numbered primary key of table 'shelf': it keeps its numbering and an integer type."],
      ] as const) {
        expect((await api().call('PATCH', '_schema/shelf', { field: [{ name: 'id', ...change }] })).body.error).toEqual({
          code: 400,
          message,
          context: { field: 'id' },
        });
      }
      expect((await api().call('PATCH', '_schema/shelf', { field: [{ name: 'label', is_primary_key: true }] })).status).toBe(400);
      expect((await api().get('_schema/shelf')).body.primary_key).toEqual(['id']);
      expect(await describeField('shelf', 'id')).toMatchObject({ type: 'id', auto_increment: true, is_primary_key: true });
      // The key given back as read is no change.
      expect((await api().call('PATCH', '_schema/shelf', { field: [await describeField('shelf', 'id')] })).status).toBe(200);
      const created = await api().call('POST', '_table/shelf', { resource: [{ label: 'numbered' }] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await api().call('DELETE', `_table/shelf/${created.body.resource[0].id}`)).status).toBe(200);
    });

    it('takes a definition wrapped as _schema takes it on a table path too, checked (it answered 200 and changed nothing, an invalid type included)', async () => {
      const fields = [{ name: 'id', type: 'id' }];
      expect((await api().call('POST', '_schema', { resource: [{ name: 'wrapped', field: fields }] })).status).toBe(200);
      expect(
        (await api().call('PUT', '_schema/wrapped', { resource: [{ name: 'wrapped', field: [{ name: 'extra', type: 'nosuch' }] }] })).body
          .error,
      ).toMatchObject({ code: 400, message: expect.stringMatching(/^Invalid schema detected - invalid type 'nosuch' for field 'extra'/) });
      expect((await api().call('PATCH', '_schema/wrapped', { resource: [{ name: 'other', field: fields }] })).body.error).toEqual({
        code: 400,
        message: "The body of a request on '_schema/wrapped' is one definition of table 'wrapped'; 'other' given.",
        context: { table: 'other' },
      });
      const patched = await api().call('PATCH', '_schema/wrapped', [
        { field: [{ name: 'note', type: 'string', length: 8, allow_null: true }] },
      ]);
      expect(patched).toEqual({ status: 200, body: { name: 'wrapped' } });
      expect(await describeField('wrapped', 'note')).toMatchObject({ type: 'string', length: 8 });
      expect((await api().call('DELETE', '_schema/wrapped')).status).toBe(200);
    });

    it('refuses a new NOT NULL field without a default on a table with records, alike (MySQL filled them with blanks)', async () => {
      const added = await api().call('PATCH', '_schema/shelf', { field: [{ name: 'required_now', type: 'string', length: 5 }] });
      expect(added.body.error).toEqual({ code: 400, message: "Field 'required_now' can not be NULL.", context: { field: 'required_now' } });
      expect((await api().get('_schema/shelf/_field/required_now')).status).toBe(404);
      const defaulted = await api().call('POST', '_schema/shelf/_field', {
        resource: [{ name: 'required_now', type: 'string', length: 5, default: 'x' }],
      });
      expect(defaulted.status, JSON.stringify(defaulted.body)).toBe(200);
      expect((await api().call('DELETE', '_schema/shelf/_field/required_now')).status).toBe(200);
    });

    it('serves _field: add, get, change, drop', async () => {
      const added = await api().call('POST', '_schema/shelf/_field', {
        resource: [{ name: 'color', type: 'string', length: 12, default: 'oak' }],
      });
      expect(added.body).toEqual({ resource: [{ name: 'color' }] });
      expect(await describeField('shelf', 'color')).toMatchObject({ type: 'string', length: 12, default: 'oak' });
      expect((await api().call('POST', '_schema/shelf/_field', { resource: [{ name: 'color', type: 'text' }] })).body.error.message).toBe(
        "Field 'color' already exists in table 'shelf'.",
      );
      const changed = await api().call('PATCH', '_schema/shelf/_field/color?fields=*', { length: 20, allow_null: true });
      expect(changed.body).toMatchObject({ name: 'color', length: 20, allow_null: true, default: 'oak' });
      expect((await api().get('_table/shelf', { fields: 'color', order: 'id', limit: '1' })).body.resource).toEqual([{ color: 'oak' }]);
      expect((await api().call('DELETE', '_schema/shelf/_field/depth')).body).toEqual({ success: true });
      expect((await api().get('_schema/shelf/_field')).body.resource.map((f: { name: string }) => f.name)).toEqual([
        'id',
        'label',
        'color',
      ]);
      expect((await api().call('DELETE', '_schema/shelf/_field/nope')).status).toBe(404);
      expect((await api().get('_table/shelf', { fields: 'depth' })).status).toBe(400);
    });

    it('adds and drops foreign keys through _related', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'book',
            field: [
              { name: 'id', type: 'id' },
              { name: 'shelf_id', type: 'integer', allow_null: true },
            ],
          },
        ],
      });
      const added = await api().call('POST', '_schema/book/_related', {
        resource: [{ type: 'belongs_to', field: 'shelf_id', ref_table: 'shelf', ref_field: 'id' }],
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect(added.body.resource.map((r: { name: string }) => r.name)).toEqual(['shelf_by_shelf_id']);
      expect(
        (await api().get('_schema/shelf/_related')).body.resource.map((r: { name: string; type: string }) => [r.name, r.type]),
      ).toEqual([['book_by_shelf_id', 'has_many']]);
      await api().call('POST', '_table/book', { resource: [{ shelf_id: 1 }] });
      expect((await api().call('POST', '_table/book', { resource: [{ shelf_id: 999 }] })).status).toBe(409);
      expect((await api().call('DELETE', '_schema/book/_related/shelf_by_shelf_id')).body).toEqual({ success: true });
      expect((await api().get('_schema/book/_related')).body.resource).toEqual([]);
      expect((await api().call('POST', '_table/book', { resource: [{ shelf_id: 999 }] })).status).toBe(200);
      expect(
        (
          await api().call('POST', '_schema/book/_related', {
            resource: [{ type: 'belongs_to', field: 'shelf_id', ref_table: 'shelf', is_virtual: true }],
          })
        ).status,
      ).toBe(400);
    });

    it('drops several fields or relationships named by ids or a body list, as _spec documents (a DELETE on _related without a name was a 404 for relationship "")', async () => {
      await api().call('POST', '_schema', {
        resource: [
          {
            name: 'crate',
            field: [
              { name: 'id', type: 'id' },
              { name: 'a', type: 'integer', allow_null: true },
              { name: 'b', type: 'integer', allow_null: true },
              { name: 'shelf_id', type: 'reference', ref_table: 'shelf', ref_field: 'id', allow_null: true },
              { name: 'spare_shelf', type: 'reference', ref_table: 'shelf', ref_field: 'id', allow_null: true },
            ],
          },
        ],
      });
      const noData = { code: 400, message: 'No data in schema delete request.' };
      expect((await api().call('DELETE', '_schema/crate/_field')).body.error).toEqual(noData);
      expect((await api().call('DELETE', '_schema/crate/_related')).body.error).toEqual(noData);
      expect((await api().call('PATCH', '_schema/crate/_related', { resource: [] })).body.error).toEqual({
        code: 400,
        message: 'No data in schema update request.',
      });
      expect((await api().call('DELETE', '_schema/crate/_related?ids=shelf_by_shelf_id,nope')).status).toBe(404);
      expect((await api().call('POST', '_table/crate', { resource: [{ shelf_id: 999 }] })).status).toBe(409);

      const related = await api().call('DELETE', '_schema/crate/_related?ids=shelf_by_shelf_id,shelf_by_spare_shelf');
      expect(related.body).toEqual({ resource: [{ name: 'shelf_by_shelf_id' }, { name: 'shelf_by_spare_shelf' }] });
      expect((await api().get('_schema/crate/_related')).body.resource).toEqual([]);
      expect((await api().call('POST', '_table/crate', { resource: [{ shelf_id: 999, spare_shelf: 999 }] })).status).toBe(200);
      const fields = await api().call('DELETE', '_schema/crate/_field', { resource: [{ name: 'a' }, 'b'] });
      expect(fields.body).toEqual({ resource: [{ name: 'a' }, { name: 'b' }] });
      expect((await api().get('_schema/crate/_field')).body.resource.map((f: { name: string }) => f.name)).toEqual([
        'id',
        'shelf_id',
        'spare_shelf',
      ]);

      const paths = (await api().call('GET', '_spec')).body.paths;
      expect(paths['/_schema/{table_name}/_field'].delete.parameters).toContainEqual(expect.objectContaining({ name: 'ids', in: 'query' }));
      expect(paths['/_schema/{table_name}/_related'].delete.parameters).toContainEqual(
        expect.objectContaining({ name: 'ids', in: 'query' }),
      );
      await api().call('DELETE', '_schema/crate');
    });

    it('refuses what would leave a foreign key dangling or a field twice, changing nothing (SQLite dropped the key)', async () => {
      const created = await api().call('POST', '_schema', {
        resource: [
          {
            name: 'owner',
            field: [
              { name: 'id', type: 'id' },
              { name: 'label', type: 'string', length: 10, allow_null: true },
            ],
          },
          {
            name: 'owned',
            field: [
              { name: 'id', type: 'id' },
              { name: 'owner_id', type: 'reference', ref_table: 'owner', ref_field: 'id', allow_null: true },
              { name: 'parent_id', type: 'reference', ref_table: 'owned', ref_field: 'id', allow_null: true },
            ],
          },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      await api().call('POST', '_table/owner', { resource: [{ label: 'o' }] });
      const fieldsOf = async (table: string) => (await api().get(`_schema/${table}`)).body.field.map((f: { name: string }) => f.name);

      expect((await api().call('DELETE', '_schema/owner/_field/id')).body.error).toEqual({
        code: 409,
        message: "Field 'id' of table 'owner' is referenced by a foreign key of table 'owned': drop that relationship first.",
        context: { field: 'id', table: 'owner', referenced_by: 'owned' },
      });
      expect((await api().call('DELETE', '_schema/owner')).body.error).toMatchObject({
        code: 409,
        message: "Table 'owner' is referenced by a foreign key of table 'owned': drop that relationship or table first.",
      });
      expect(await fieldsOf('owner')).toEqual(['id', 'label']);
      expect((await api().get('_table/owner', { fields: 'id,label' })).body).toEqual({ resource: [{ id: 1, label: 'o' }] });

      // One change per field: names differing in case only are the same field (MySQL added the first before failing).
      const twice = await api().call('PATCH', '_schema/owner', {
        field: [
          { name: 'extra', type: 'integer', allow_null: true },
          { name: 'EXTRA', type: 'string', allow_null: true },
        ],
      });
      expect(twice.body.error).toEqual({ code: 400, message: "Field 'EXTRA' already exists in table 'owner'." });
      expect(await fieldsOf('owner')).toEqual(['id', 'label']);

      // Together, the referencing table first whatever the order given; a self-reference does not hold a table.
      expect((await api().call('DELETE', '_schema?ids=owner,owned')).body).toEqual({ resource: [{ name: 'owner' }, { name: 'owned' }] });
      expect((await api().get('_table/owner')).status).toBe(404);
    });

    it('drops tables, one by name or several by ids', async () => {
      await api().call('POST', '_schema', {
        resource: [
          { name: 'tmp_a', field: [{ name: 'id', type: 'id' }] },
          { name: 'tmp_b', field: [{ name: 'id', type: 'id' }] },
        ],
      });
      expect((await api().call('DELETE', '_schema/book')).body).toEqual({ success: true });
      expect((await api().get('_table/book')).status).toBe(404);
      expect((await api().call('DELETE', '_schema?ids=tmp_a,tmp_b')).body).toEqual({ resource: [{ name: 'tmp_a' }, { name: 'tmp_b' }] });
      expect((await api().call('DELETE', '_schema/nope')).body.error).toEqual({ code: 404, message: "Table 'nope' not found." });
      expect((await api().call('PATCH', '_schema/nope', { field: [] })).status).toBe(404);
    });
  });
}
