import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminContext, type AuthContext } from '#runtime/auth/auth-context.js';
import { PorticoError } from '#runtime/core/errors.js';
import type { ServiceHandler } from '#runtime/services/service-kind.js';
import { addressBookFile, caller, runtimeContext, sqliteKind, sqliteService, tempDir } from '../sql-test-helpers.js';

// Extra tables beside the address book: JSON typing, composite keys, no key, a view.
const EXTRA_DDL = `
create table flag (id integer primary key, done tinyint(1) not null default 0, data blob, ratio real, uid uuid, price decimal(8,2));
create table pair (a integer not null, b text not null, v text, primary key (a, b));
create table loose (n integer, s text);
insert into loose values (1, 'one'), (2, 'two');
create view contact_name as select id, first_name from contact;
`;

let env: ReturnType<typeof tempDir>;
let handler: ServiceHandler;
let call: ReturnType<typeof caller>;
let file: string;

async function open(config: Record<string, unknown> = {}): Promise<void> {
  await handler?.close();
  handler = await sqliteKind().open(sqliteService({ database: 'addressbook.sqlite', ...config }), runtimeContext(env.dir));
  call = caller(handler);
}

beforeEach(async () => {
  env = tempDir();
  file = await addressBookFile(env.dir);
  const raw = new Database(file);
  raw.exec(EXTRA_DDL);
  raw.close();
  await open();
});
afterEach(async () => {
  await handler.close();
  env.cleanup();
});

function count(table: string, where = '1 = 1'): number {
  const raw = new Database(file, { readonly: true });
  const n = (raw.prepare(`select count(*) as n from ${table} where ${where}`).get() as { n: number }).n;
  raw.close();
  return n;
}

function errorOf(result: { status: number; body: unknown }): { status: number; message: string; context?: unknown } {
  const error = (result.body as { error: { message: string; context?: unknown } }).error;
  return { status: result.status, message: error.message, ...(error.context === undefined ? {} : { context: error.context }) };
}

const resource = (result: { body: unknown }) => (result.body as { resource: Array<Record<string, unknown>> }).resource;

describe('GET _table/{table}: lists', () => {
  it('lists every record with JSON types and no meta when all fit', async () => {
    const result = await call('GET', '_table/contact');
    expect(result.status).toBe(200);
    expect(resource(result)).toHaveLength(100);
    expect(resource(result)[0]).toEqual({
      id: 1,
      first_name: 'Jon',
      last_name: 'Yang',
      image_url: '',
      twitter: '@jon24',
      skype: 'jon24',
      notes: '',
    });
    expect(result.body).not.toHaveProperty('meta');
  });

  it('matches table names case-insensitively and 404s unknown ones', async () => {
    expect(resource(await call('GET', '_table/CONTACT_Group'))).toHaveLength(9);
    expect(errorOf(await call('GET', '_table/nope'))).toEqual({ status: 404, message: 'Table "nope" does not exist in the database.' });
  });

  it.each([
    [{ limit: '10' }, 10, undefined],
    [{ limit: '10', include_count: 'true' }, 10, { count: 100, next: 10 }],
    [{ limit: '10', offset: '95', include_count: '1' }, 5, { count: 100 }],
    [{ top: '3', skip: '98' }, 2, undefined],
    [{ limit: '0', include_count: 'true' }, 100, { count: 100 }],
    [{ limit: '5000' }, 100, undefined],
    [{ offset: '100', include_count: 'true' }, 0, { count: 100 }],
  ])('paginates with %j', async (query, rows, meta) => {
    const result = await call('GET', '_table/contact', query);
    expect(resource(result)).toHaveLength(rows);
    expect((result.body as { meta?: unknown }).meta).toEqual(meta);
  });

  it('limits to max_records, clamps larger limits and says how to go on (reference 2.4)', async () => {
    await open({ max_records: 100 });
    const first = await call('GET', '_table/contact_info');
    expect(resource(first)).toHaveLength(100);
    expect((first.body as { meta: unknown }).meta).toEqual({ count: 300, next: 100 });
    const clamped = await call('GET', '_table/contact_info', { limit: '500', offset: '150' });
    expect(resource(clamped)[0].id).toBe(151);
    expect((clamped.body as { meta: unknown }).meta).toEqual({ count: 300, next: 250 });
    const last = await call('GET', '_table/contact_info', { offset: '250' });
    expect(resource(last)).toHaveLength(50);
    expect((last.body as { meta: unknown }).meta).toEqual({ count: 300 });
    const beyond = await call('GET', '_table/contact_info', { offset: '400' });
    expect((beyond.body as { meta: unknown }).meta).toEqual({ count: 300 });
    const given = await call('GET', '_table/contact_info', { limit: '20' });
    expect(given.body).not.toHaveProperty('meta');
  });

  it('selects fields (aliases, spaces, any case) and rejects unknown ones', async () => {
    expect(resource(await call('GET', '_table/contact', { fields: 'id, Last_Name', limit: '1', order: 'id' }))).toEqual([
      { id: 1, last_name: 'Yang' },
    ]);
    expect(resource(await call('GET', '_table/contact', { select: 'first_name', limit: '1', order: 'id' }))).toEqual([
      { first_name: 'Jon' },
    ]);
    expect(resource(await call('GET', '_table/contact', { fields: '*', limit: '1' }))[0]).toHaveProperty('notes');
    expect(errorOf(await call('GET', '_table/contact', { fields: 'id,bogus' }))).toEqual({
      status: 400,
      message: 'Invalid field requested: bogus',
      context: { field: 'bogus' },
    });
  });

  it('orders by checked fields', async () => {
    const rows = resource(await call('GET', '_table/contact', { order: 'last_name desc, first_name', fields: 'last_name', limit: '2' }));
    expect(rows).toEqual([{ last_name: 'Zhu' }, { last_name: 'Zhou' }]);
    expect(resource(await call('GET', '_table/contact', { sort: 'ID+DESC', fields: 'id', limit: '1' }))).toEqual([{ id: 100 }]);
    expect(errorOf(await call('GET', '_table/contact', { order: 'bogus desc' }))).toEqual({
      status: 400,
      message: "Invalid field 'bogus' in order by clause.",
      context: { field: 'bogus' },
    });
    expect((await call('GET', '_table/contact', { order: 'id; drop table contact' })).status).toBe(400);
  });

  it('filters with bound values and body params, and counts', async () => {
    const rows = resource(await call('GET', '_table/contact', { filter: "last_name like 'Z%' and id < 25", fields: 'id' }));
    expect(rows).toEqual([{ id: 4 }, { id: 23 }]);
    const byParam = await call('GET', '_table/contact', { filter: 'last_name = :name', fields: 'id' }, { params: { ':name': 'Zhu' } });
    expect(resource(byParam)).toEqual([{ id: 4 }]);
    const listParams = await call(
      'GET',
      '_table/contact',
      { filter: 'first_name = :n', fields: 'id' },
      { params: [{ name: 'n', value: 'Eugene' }] },
    );
    expect(resource(listParams)).toEqual([{ id: 2 }]);
    expect((await call('GET', '_table/contact', { filter: "last_name like 'Z%'", count_only: 'true' })).body).toEqual({
      meta: { count: 5 },
    });
    const counted = await call('GET', '_table/contact', { where: "last_name like 'Z%'", include_count: 'true', limit: '1' });
    expect((counted.body as { meta: unknown }).meta).toEqual({ count: 5, next: 1 });
  });

  it("matches like patterns ignoring the case of ASCII letters (SQLite's rule, as the reference), with a backslash escaping % and _", async () => {
    const ids = async (filter: string) => resource(await call('GET', '_table/loose', { filter, fields: 'n', order: 'n' })).map((r) => r.n);
    const raw = new Database(file);
    raw.exec(`insert into loose values (3, 'One'), (4, 'o_e'), (5, 'o%e'), (6, 'back\\')`);
    raw.close();
    expect(await ids("s like 'o%'")).toEqual([1, 3, 4, 5]);
    expect(await ids("s like 'O%'")).toEqual([1, 3, 4, 5]);
    expect(await ids("s like 'o\\_e'")).toEqual([4]);
    expect(await ids("s like 'o\\%e'")).toEqual([5]);
    expect(await ids("s like 'o_e'")).toEqual([1, 3, 4, 5]);
    // A lone backslash at the end is itself (PostgreSQL refused the pattern, SQLite matched nothing);
    // in the filter's quoted text a backslash is written twice.
    expect(await ids("s like 'back\\\\'")).toEqual([6]);
  });

  it('rejects bad filters with 400 naming the problem', async () => {
    expect(errorOf(await call('GET', '_table/contact', { filter: 'bogus = 1' })).message).toBe(
      "Invalid or unparsable field in filter request: 'bogus'",
    );
    expect(errorOf(await call('GET', '_table/contact', { filter: "id = 'x'" })).message).toBe("Field 'id' must be a valid integer.");
    expect((await call('GET', '_table/contact', { filter: 'id = ' })).status).toBe(400);
  });

  it('reads ids in the order given, with id_field, and from body records', async () => {
    expect(resource(await call('GET', '_table/contact', { ids: '5,2,9', fields: 'first_name' }))).toEqual([
      { first_name: 'Elizabeth' },
      { first_name: 'Eugene' },
      { first_name: 'Rob' },
    ]);
    expect(resource(await call('GET', '_table/contact', { ids: 'Rob,Eugene', id_field: 'first_name', fields: 'id' }))).toEqual([
      { id: 9 },
      { id: 2 },
    ]);
    expect(resource(await call('GET', '_table/contact', { fields: 'id,last_name' }, { resource: [{ id: 3 }, { id: 1 }] }))).toEqual([
      { id: 3, last_name: 'Torres' },
      { id: 1, last_name: 'Yang' },
    ]);
  });

  it('reports missing ids: one id its own 404, several a batch error (continue lists all)', async () => {
    expect(errorOf(await call('GET', '_table/contact', { ids: '999' }))).toEqual({
      status: 404,
      message: "Record with identifier '999' not found.",
    });
    const batch = errorOf(await call('GET', '_table/contact', { ids: '1,998,999', fields: 'id' }));
    expect(batch).toEqual({
      status: 400,
      message: 'Batch Error: Not all requested records could be retrieved.',
      context: {
        errors: [{ index: 1, message: "Record with identifier '998' not found.", code: 404 }],
        resource: [{ id: 1 }, { code: 404, message: "Record with identifier '998' not found." }],
      },
    });
    const all = errorOf(await call('GET', '_table/contact', { ids: '1,998,999', continue: 'true', fields: 'id' }));
    expect((all.context as { errors: Array<{ index: number }> }).errors.map((e) => e.index)).toEqual([1, 2]);
    expect(errorOf(await call('GET', '_table/contact', { ids: '1,x' })).message).toBe("Field 'id' must be a valid integer.");
    expect(errorOf(await call('GET', '_table/pair', { ids: '1' })).status).toBe(400);
  });

  it('returns JSON types: booleans, base64 binary, numbers, text', async () => {
    const raw = new Database(file);
    raw.prepare('insert into flag values (1, 1, ?, 0.25, ?, 12.5), (2, 0, null, null, null, null)').run(Buffer.from('hi'), '12345');
    raw.close();
    expect(resource(await call('GET', '_table/flag'))).toEqual([
      { id: 1, done: true, data: 'aGk=', ratio: 0.25, uid: '12345', price: 12.5 },
      { id: 2, done: false, data: null, ratio: null, uid: null, price: null },
    ]);
  });

  it('embeds related records, and answers an unknown relationship with 400', async () => {
    const record = (
      await call('GET', '_table/contact_info/1', {
        related: 'contact_by_contact_id',
        fields: 'id',
        'contact_by_contact_id.fields': 'last_name',
      })
    ).body;
    expect(record).toEqual({ id: 1, contact_by_contact_id: { last_name: 'Yang' } });
    expect(errorOf(await call('GET', '_table/contact', { related: 'nope' }))).toEqual({
      status: 400,
      message: "Invalid relationship 'nope' requested for table 'contact'.",
      context: { related: 'nope' },
    });
    expect((await call('GET', '_table/contact', { related: '' })).status).toBe(200);
  });

  it('groups records', async () => {
    expect(
      resource(await call('GET', '_table/contact', { group: 'last_name', fields: 'last_name,count(*)', filter: "last_name = 'Yang'" })),
    ).toEqual([{ last_name: 'Yang', COUNT_ALL: 1 }]);
  });
});

describe('GET _table/{table}/{id}', () => {
  it('returns the bare record, honours fields and id_field', async () => {
    expect((await call('GET', '_table/contact/3')).body).toEqual({
      id: 3,
      first_name: 'Ruben',
      last_name: 'Torres',
      image_url: '',
      twitter: '@ruben35',
      skype: 'ruben35',
      notes: '',
    });
    expect((await call('GET', '_table/contact/3', { fields: 'first_name' })).body).toEqual({ first_name: 'Ruben' });
    expect((await call('GET', '_table/contact/@jon24', { id_field: 'twitter', fields: 'id' })).body).toEqual({ id: 1 });
  });

  it('addresses composite keys by comma-separated values', async () => {
    await call('POST', '_table/pair', {}, { resource: [{ a: 1, b: 'x', v: 'first' }] });
    expect((await call('GET', '_table/pair/1,x')).body).toEqual({ a: 1, b: 'x', v: 'first' });
    expect(errorOf(await call('GET', '_table/pair/1')).message).toBe("Identifier '1' must give 2 values (a, b) separated by commas.");
  });

  it.each([
    ['_table/contact/999', 404, "Record with identifier '999' not found."],
    ['_table/contact/abc', 400, "Field 'id' must be a valid integer."],
    ['_table/loose/1', 400, "No valid identifier found for table 'loose'."],
    ['_table/contact/1/extra', 404, "Resource '_table/contact/1/extra' not found for service 'db'."],
  ])('%s -> %i', async (path, status, message) => {
    expect(errorOf(await call('GET', path))).toMatchObject({ status, message });
  });

  it('answers a SQLite read or write at once, and every error as a rejection (never thrown) in the spec shape, as through a promise', async () => {
    const handle = (verb: 'GET' | 'PATCH', path: string, body?: unknown) =>
      handler.handle({
        verb,
        resource: path.split('/'),
        trailingSlash: false,
        query: {},
        body,
        headers: {},
        auth: adminContext(),
      });
    const found = handle('GET', '_table/contact/3');
    expect(found).not.toBeInstanceOf(Promise);
    expect((found as Awaited<typeof found>).headers?.etag).toMatch(/^W\/"[\w-]{27}"$/);
    expect((found as Awaited<typeof found>).json?.text).toBe(JSON.stringify((found as Awaited<typeof found>).body));
    const patched = handle('PATCH', '_table/contact/3', { notes: 'at once' });
    expect(patched).not.toBeInstanceOf(Promise);
    expect((patched as Awaited<typeof patched>).body).toEqual({ id: 3 });
    // Thrown at once by the route, the table's plan, the key's parsing, the read's answer and the driver (a NOT NULL column).
    const failures: Array<[string, 'GET' | 'PATCH', string, unknown, number, string]> = [
      ['route', 'GET', '_nope', undefined, 404, "Resource '_nope' not found for service 'db'."],
      ['plan', 'GET', '_table/nope/1', undefined, 404, 'Table "nope" does not exist in the database.'],
      ['key', 'GET', '_table/contact/abc', undefined, 400, "Field 'id' must be a valid integer."],
      ['read', 'GET', '_table/contact/999', undefined, 404, "Record with identifier '999' not found."],
      ['driver', 'PATCH', '_table/contact/1', { first_name: null }, 400, ''],
    ];
    for (const [where, verb, path, body, status, message] of failures) {
      let answer: unknown;
      expect(() => {
        answer = handle(verb, path, body);
      }, where).not.toThrow();
      expect(answer, where).toBeInstanceOf(Promise);
      const error = await (answer as Promise<unknown>).then(
        () => null,
        (rejection: unknown) => rejection,
      );
      expect(error, where).toBeInstanceOf(PorticoError);
      expect((error as PorticoError).toBody(), where).toMatchObject({
        error: message === '' ? { code: status } : { code: status, message },
      });
    }
  });

  it('reads tables without a key and views in lists', async () => {
    expect(resource(await call('GET', '_table/loose'))).toEqual([
      { n: 1, s: 'one' },
      { n: 2, s: 'two' },
    ]);
    expect(resource(await call('GET', '_table/contact_name', { limit: '1', order: 'id' }))).toEqual([{ id: 1, first_name: 'Jon' }]);
  });
});

describe('POST _table/{table}', () => {
  const person = { first_name: 'Ada', last_name: 'Lovelace' };

  it('creates records and returns their keys with status 200, dropping unknown keys', async () => {
    const result = await call(
      'POST',
      '_table/contact',
      {},
      {
        resource: [
          { ...person, unknown: 1 },
          { ...person, first_name: 'Bob' },
        ],
      },
    );
    expect(result).toEqual({ status: 200, body: { resource: [{ id: 101 }, { id: 102 }] } });
    expect(count('contact')).toBe(102);
    expect((await call('POST', '_table/contact', {}, [person])).body).toEqual({ resource: [{ id: 103 }] });
    expect((await call('POST', '_table/contact', {}, { resource: person })).body).toEqual({ resource: [{ id: 104 }] });
  });

  it('returns the fields asked for (not adding the key), or every field for *', async () => {
    expect((await call('POST', '_table/contact', { fields: 'first_name' }, { resource: [person] })).body).toEqual({
      resource: [{ first_name: 'Ada' }],
    });
    expect(resource(await call('POST', '_table/contact', { fields: '*' }, { resource: [person] }))[0]).toEqual({
      id: 102,
      first_name: 'Ada',
      last_name: 'Lovelace',
      image_url: null,
      twitter: null,
      skype: null,
      notes: null,
    });
    expect((await call('POST', '_table/contact', { fields: 'id' }, { resource: [person] })).body).toEqual({ resource: [{ id: 103 }] });
  });

  it('writes JSON types and reads them back', async () => {
    const created = await call(
      'POST',
      '_table/flag',
      { fields: '*' },
      { resource: [{ done: true, data: 'aGk=', ratio: '0.5', uid: '0B6F3C1E-6A4F-4C8E-9A0E-1D2C3B4A5F60', price: '9.99' }] },
    );
    expect(resource(created)).toEqual([
      { id: 1, done: true, data: 'aGk=', ratio: 0.5, uid: '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60', price: 9.99 },
    ]);
    expect(resource(await call('POST', '_table/flag', { fields: 'done' }, { resource: [{ done: 'false' }, {}] }))).toEqual([
      { done: false },
      { done: false },
    ]);
  });

  it.each([
    [{ first_name: null, last_name: 'x' }, 400, "Field 'first_name' can not be NULL."],
    [{ last_name: 'x' }, 400, "Required field 'first_name' can not be NULL."],
    [{ id: 1, ...{ first_name: 'a', last_name: 'b' } }, 409, "Duplicate entry: a record with the same 'id' already exists."],
    [{ id: 'one', first_name: 'a', last_name: 'b' }, 400, "Field 'id' must be a valid integer."],
    [{ first_name: { nested: true }, last_name: 'b' }, 400, "Field 'first_name' must be a string."],
  ])('one bad record gets its own error: %j', async (record, status, message) => {
    expect(errorOf(await call('POST', '_table/contact', {}, { resource: [record] }))).toMatchObject({ status, message });
  });

  it.each([
    ['contact_info', { contact_id: 'abc' }, 400, "Field 'contact_id' must be a valid integer."],
    [
      'contact_info',
      { contact_id: 9999, info_type: 'home', phone: '1', email: 'e', address: 'a', city: 'c', state: 's', zip: 'z', country: 'c' },
      409,
      'Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.',
    ],
    ['flag', { done: 'maybe' }, 400, "Field 'done' must be a valid boolean."],
    ['flag', { ratio: 'lots' }, 400, "Field 'ratio' must be a valid number."],
    ['flag', { data: 'not base64!' }, 400, "Field 'data' must be base64-encoded binary data."],
  ])('%s rejects %j', async (table, record, status, message) => {
    expect(errorOf(await call('POST', `_table/${table}`, {}, { resource: [record] }))).toMatchObject({ status, message });
  });

  it.each([
    [
      { first_name: 'a' },
      'No record(s) detected in request. Please make sure record(s) are wrapped in a \'resource\' tag. Example: {"resource":[{"record":1},{"record":2}]}',
    ],
    [
      { resource: [] },
      'No record(s) detected in request. Please make sure record(s) are wrapped in a \'resource\' tag. Example: {"resource":[{"record":1},{"record":2}]}',
    ],
    [
      undefined,
      'No record(s) detected in request. Please make sure record(s) are wrapped in a \'resource\' tag. Example: {"resource":[{"record":1},{"record":2}]}',
    ],
    [{ resource: [1] }, 'Record 0 is not a JSON object.'],
  ])('rejects the body %j', async (body, message) => {
    expect(errorOf(await call('POST', '_table/contact', {}, body))).toMatchObject({ status: 400, message });
  });

  it('stops a default batch at the first failure, keeping earlier records', async () => {
    const result = errorOf(await call('POST', '_table/contact', {}, { resource: [person, { last_name: 'x' }, person] }));
    expect(result).toEqual({
      status: 400,
      message: 'Batch Error: Not all requested records could be created.',
      context: {
        errors: [{ index: 1, message: "Required field 'first_name' can not be NULL.", code: 400 }],
        resource: [{ id: 101 }, { code: 400, message: "Required field 'first_name' can not be NULL.", context: { field: 'first_name' } }],
      },
    });
    expect(count('contact')).toBe(101);
  });

  it('tries every record with continue=true', async () => {
    const result = errorOf(
      await call('POST', '_table/contact', { continue: 'true' }, { resource: [person, { id: 1, ...person }, person] }),
    );
    expect((result.context as { errors: unknown[] }).errors).toEqual([
      { index: 1, message: "Duplicate entry: a record with the same 'id' already exists.", code: 409 },
    ]);
    expect((result.context as { resource: unknown[] }).resource[2]).toEqual({ id: 102 });
    expect(count('contact')).toBe(102);
  });

  it('rolls everything back with rollback=true', async () => {
    const result = errorOf(
      await call('POST', '_table/contact', { rollback: 'true' }, { resource: [person, person, { first_name: null }] }),
    );
    expect(result.message).toBe('Batch Error: Not all requested records could be created. All changes rolled back.');
    expect((result.context as { errors: unknown[] }).errors).toEqual([
      { index: 2, message: "Field 'first_name' can not be NULL.", code: 400 },
    ]);
    expect(count('contact')).toBe(100);
    expect((await call('POST', '_table/contact', { rollback: 'true' }, { resource: [person, person] })).body).toEqual({
      resource: [{ id: 101 }, { id: 102 }],
    });
    expect(errorOf(await call('POST', '_table/contact', { rollback: 'true', continue: 'true' }, { resource: [person] }))).toEqual({
      status: 400,
      message: 'Rollback and continue operations can not be requested at the same time.',
    });
  });

  it('upserts an existing key when allow_upsert is on', async () => {
    await open({ allow_upsert: true });
    expect(
      (
        await call(
          'POST',
          '_table/contact',
          { fields: 'id,first_name' },
          {
            resource: [
              { id: 1, first_name: 'Jonny', last_name: 'Yang' },
              { id: 500, ...person },
            ],
          },
        )
      ).body,
    ).toEqual({
      resource: [
        { id: 1, first_name: 'Jonny' },
        { id: 500, first_name: 'Ada' },
      ],
    });
    expect(count('contact')).toBe(101);
  });

  it('refuses creating by identifier and writing to views', async () => {
    expect(errorOf(await call('POST', '_table/contact/5', {}, { resource: [person] }))).toEqual({
      status: 400,
      message: 'Create record by identifier not currently supported.',
    });
    expect(errorOf(await call('POST', '_table/contact_name', {}, { resource: [person] }))).toEqual({
      status: 400,
      message: "Table 'contact_name' is a view; its records can not be written.",
    });
  });
});

describe('PUT and PATCH', () => {
  it.each(['PATCH', 'PUT'] as const)('%s by id changes only the given fields and returns the key', async (verb) => {
    expect((await call(verb, '_table/contact/1', {}, { notes: 'hello', id: 77, bogus: 1 })).body).toEqual({ id: 1 });
    expect((await call('GET', '_table/contact/1', { fields: 'first_name,notes' })).body).toEqual({ first_name: 'Jon', notes: 'hello' });
    expect((await call(verb, '_table/contact/1', { fields: '*' }, { resource: [{ twitter: null }] })).body).toMatchObject({
      id: 1,
      twitter: null,
      notes: 'hello',
    });
  });

  it.each([
    ['_table/contact/999', { notes: 'x' }, 404, "Record with identifier '999' not found."],
    ['_table/contact/1', { first_name: null }, 400, "Field 'first_name' can not be NULL."],
    ['_table/contact/1', { bogus: 1 }, 400, 'No valid fields were found in record.'],
    ['_table/contact/1', [{ notes: 'x' }], 400, 'The request body must be a JSON object of field values.'],
    ['_table/contact_name/1', { first_name: 'x' }, 400, "Table 'contact_name' is a view; its records can not be written."],
  ])('PATCH %s %j -> %i', async (path, body, status, message) => {
    expect(errorOf(await call('PATCH', path, {}, body))).toMatchObject({ status, message });
  });

  it('updates records carrying their keys, each its own result', async () => {
    const result = await call(
      'PATCH',
      '_table/contact',
      { fields: 'id,notes' },
      {
        resource: [
          { id: 2, notes: 'two' },
          { id: 3, notes: 'three' },
        ],
      },
    );
    expect(result.body).toEqual({
      resource: [
        { id: 2, notes: 'two' },
        { id: 3, notes: 'three' },
      ],
    });
    expect(errorOf(await call('PATCH', '_table/contact', {}, { resource: [{ notes: 'x' }] }))).toEqual({
      status: 400,
      message: 'Required id field(s) not found in record 0: id.',
    });
    const batch = errorOf(
      await call(
        'PUT',
        '_table/contact',
        {},
        {
          resource: [
            { id: 4, notes: 'x' },
            { id: 999, notes: 'y' },
          ],
        },
      ),
    );
    expect(batch).toMatchObject({ status: 400, message: 'Batch Error: Not all requested records could be updated.' });
    expect((batch.context as { errors: unknown[] }).errors).toEqual([
      { index: 1, message: "Record with identifier '999' not found.", code: 404 },
    ]);
  });

  it('applies the first record to every id of ids, and to every match of a filter', async () => {
    expect((await call('PATCH', '_table/contact', { ids: '5,6' }, { resource: [{ notes: 'bulk' }] })).body).toEqual({
      resource: [{ id: 5 }, { id: 6 }],
    });
    expect(count('contact', "notes = 'bulk'")).toBe(2);
    const filtered = await call(
      'PATCH',
      '_table/contact',
      { filter: "last_name like 'Z%'", fields: 'id,notes' },
      { resource: [{ notes: 'zed' }] },
    );
    expect(resource(filtered).map((r) => r.notes)).toEqual(['zed', 'zed', 'zed', 'zed', 'zed']);
    expect(count('contact', "notes = 'zed'")).toBe(5);
  });

  it('creates a missing record by id when allow_upsert is on', async () => {
    await open({ allow_upsert: true });
    expect((await call('PUT', '_table/contact/300', { fields: 'id,first_name' }, { first_name: 'New', last_name: 'One' })).body).toEqual({
      id: 300,
      first_name: 'New',
    });
    expect((await call('PATCH', '_table/contact', {}, { resource: [{ id: 301, first_name: 'N', last_name: 'O' }] })).body).toEqual({
      resource: [{ id: 301 }],
    });
    expect(count('contact')).toBe(102);
  });
});

describe('DELETE', () => {
  it('deletes by id, returning the key (or the deleted data with fields)', async () => {
    expect((await call('DELETE', '_table/contact_group/1')).body).toEqual({ id: 1 });
    expect((await call('DELETE', '_table/contact_group/2', { fields: 'name' })).body).toEqual({ name: 'Pacific' });
    expect(errorOf(await call('DELETE', '_table/contact_group/1'))).toEqual({
      status: 404,
      message: "Record with identifier '1' not found.",
    });
    expect(count('contact_group')).toBe(7);
  });

  it('cascades along foreign keys', async () => {
    expect(count('contact_info', 'contact_id = 1')).toBe(3);
    await call('DELETE', '_table/contact/1');
    expect(count('contact_info', 'contact_id = 1')).toBe(0);
  });

  it('deletes by ids, body records and filter', async () => {
    expect((await call('DELETE', '_table/contact_info', { ids: '1,2' })).body).toEqual({ resource: [{ id: 1 }, { id: 2 }] });
    expect((await call('DELETE', '_table/contact_info', {}, { resource: [{ id: 3 }] })).body).toEqual({ resource: [{ id: 3 }] });
    expect((await call('DELETE', '_table/contact_info', { filter: 'contact_id = 2' })).body).toEqual({
      resource: [{ id: 4 }, { id: 5 }, { id: 6 }],
    });
    expect((await call('DELETE', '_table/contact_info', { filter: 'contact_id = 2' })).body).toEqual({ resource: [] });
    expect(count('contact_info')).toBe(294);
  });

  it('reports missing ids as a batch, and needs criteria unless forced', async () => {
    const batch = errorOf(await call('DELETE', '_table/contact_info', { ids: '10,9999,11', continue: 'true' }));
    expect(batch).toMatchObject({ status: 400, message: 'Batch Error: Not all requested records could be deleted.' });
    expect(count('contact_info')).toBe(298);
    expect(errorOf(await call('DELETE', '_table/contact_info'))).toEqual({
      status: 400,
      message: 'No filter or records given for delete request.',
    });
    expect((await call('DELETE', '_table/contact_info', { force: 'true' })).body).toEqual({ success: true });
    expect(count('contact_info')).toBe(0);
  });
});

describe('role row filters', () => {
  const restricted: AuthContext = {
    ...adminContext(),
    isAdmin: false,
    user: { id: 3, email: 'u@example.com', name: 'U', isSysAdmin: false },
    rowFilters: { filters: [{ name: 'contact_id', operator: '=', value: '{user.id}' }], op: 'and' },
    grants: null,
  };

  it('restrict reads, updates and deletes to the granted rows', async () => {
    expect(resource(await call('GET', '_table/contact_info', { fields: 'id' }, undefined, restricted))).toEqual([
      { id: 7 },
      { id: 8 },
      { id: 9 },
    ]);
    expect((await call('GET', '_table/contact_info/1', {}, undefined, restricted)).status).toBe(404);
    expect((await call('PATCH', '_table/contact_info/1', {}, { city: 'x' }, restricted)).status).toBe(404);
    expect((await call('DELETE', '_table/contact_info', { filter: 'id < 100' }, undefined, restricted)).body).toEqual({
      resource: [{ id: 7 }, { id: 8 }, { id: 9 }],
    });
    expect(count('contact_info')).toBe(297);
  });
});
