/**
 * `_proc` and `_func`: on PostgreSQL and MySQL/MariaDB, routines listed, described and called
 * with IN parameters from the query string or `{params:[{name, value}]}`, OUT/INOUT values and
 * result sets returned as JSON, 404 for an unknown routine; on SQLite a clear 501.
 */
import { beforeAll, expect, it } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { DatabaseTarget, TargetKind } from './database-targets.js';

const ROUTINES: Record<Exclude<TargetKind, 'sqlite'>, string> = {
  postgres: `
create function add_numbers(a integer, b integer default 10) returns integer language sql as 'select a + b'
;;
create function contacts_named(pattern text) returns table(id integer, last_name text) language sql
  as $$ select id, last_name::text from contact where last_name like pattern order by id $$
;;
create procedure bump(inout counter integer, in step integer, out label text) language plpgsql
  as $$ begin counter := counter + step; label := 'bumped'; end $$
;;
create function shout(words text) returns text language sql as 'select upper(words)'
;;
create function ratio(a integer, b integer) returns integer language sql as 'select a / b'
;;
create function negate(flag boolean) returns boolean language sql as 'select not flag'
`,
  mysql: `
create function add_numbers(a int, b int) returns int deterministic return a + b
;;
create procedure contacts_named(in pattern varchar(40)) begin select id, last_name from contact where last_name like pattern order by id; end
;;
create procedure bump(inout counter int, in step int, out label varchar(20)) begin set counter = counter + step; set label = 'bumped'; end
;;
create procedure two_sets() begin select 1 as one; select 2 as two; end
;;
create function shout(words varchar(40)) returns varchar(40) deterministic return upper(words)
;;
create function ratio(a int, b int) returns int deterministic return a div b
;;
create function negate(flag boolean) returns boolean deterministic return not flag
`,
};

const ZED = [{ id: 4, last_name: 'Zhu' }];

export function routineTests(api: () => ApiClient, target: () => DatabaseTarget): void {
  const kind = () => target().kind;

  beforeAll(async () => {
    if (kind() === 'sqlite') return;
    await target().exec(ROUTINES[kind() as 'postgres' | 'mysql']);
    // Created after the service opened: refresh re-reads the catalog.
    expect((await api().call('GET', '_func?refresh=true')).status).toBe(200);
  });

  it('answers 501 on SQLite, which has no routines, and lists _proc/_func elsewhere', async () => {
    const root = (await api().get('')).body.resource.map((r: { name: string }) => r.name);
    if (kind() === 'sqlite') {
      expect(root).toEqual(['_schema', '_table']);
      for (const path of ['_proc', '_func/add_numbers']) {
        const result = await api().get(path);
        expect(result.status).toBe(501);
        expect(result.body.error.message).toMatch(/^Stored (procedures|functions) are not supported by this database type \(sqlite\)\.$/);
      }
      return;
    }
    expect(root).toEqual(['_schema', '_table', '_proc', '_func']);
    expect((await api().get('_func')).body).toEqual({
      resource: [
        { name: 'add_numbers' },
        ...(kind() === 'postgres' ? [{ name: 'contacts_named' }] : []),
        { name: 'negate' },
        { name: 'ratio' },
        { name: 'shout' },
      ],
    });
    expect((await api().get('_proc')).body.resource).toContainEqual({ name: 'bump' });
  });

  it('describes routines with their parameters', async () => {
    if (kind() === 'sqlite') return;
    const described = (await api().get('_proc', { ids: 'bump' })).body.resource[0];
    expect(described).toMatchObject({ name: 'bump', return_type: null });
    expect(described.params.map((p: { name: string; param_type: string; type: string }) => [p.name, p.param_type, p.type])).toEqual([
      ['counter', 'INOUT', 'integer'],
      ['step', 'IN', 'integer'],
      ['label', 'OUT', kind() === 'postgres' ? 'text' : 'string'],
    ]);
  });

  it('calls a function with query-string or body parameters, returning its value', async () => {
    if (kind() === 'sqlite') return;
    expect(await api().get('_func/add_numbers', { a: '2', b: '3' })).toEqual({ status: 200, body: 5 });
    expect(
      await api().call('POST', '_func/add_numbers', {
        params: [
          { name: 'A', value: 20 },
          { name: 'b', value: 22 },
        ],
      }),
    ).toEqual({ status: 200, body: 42 });
    expect((await api().call('POST', '_func/add_numbers', { params: [1, 2] })).body).toBe(3);
    // PostgreSQL fills a parameter left out with its default; MySQL has no defaults: a 400 naming it (it ran with NULL).
    if (kind() === 'postgres') expect((await api().get('_func/add_numbers', { a: '2' })).body).toBe(12);
    else expect((await api().get('_func/add_numbers', { a: '2' })).body.error.context).toEqual({ parameter: 'b' });
  });

  it('returns a text value as a JSON string, takes booleans as true/false, and answers bad calls with 400', async () => {
    if (kind() === 'sqlite') return;
    // The body was the bare text, not JSON.
    const shouted = await api().server.app.inject({
      method: 'GET',
      url: '/api/v2/db/_func/shout?words=h%C3%A9llo',
      headers: { 'x-service-api-key': api().server.apiKey, 'x-service-session-token': await api().server.adminToken() },
    });
    expect(shouted.headers['content-type']).toMatch(/^application\/json/);
    expect(shouted.json()).toBe('HÉLLO');
    // MySQL's BOOLEAN is tinyint(1): it refused 'true' and answered 0/1.
    expect(await api().get('_func/negate', { flag: 'true' })).toEqual({ status: 200, body: false });
    expect((await api().call('POST', '_func/negate', { params: [{ name: 'flag', value: false }] })).body).toBe(true);
    // Both were 500s.
    expect((await api().get('_func/ratio', { a: '1', b: '0' })).body.error).toEqual({
      code: 400,
      message: 'Invalid value: it leads to a division by zero.',
    });
    if (kind() === 'postgres') {
      expect((await api().get('_func/ratio', { a: '1' })).body.error).toEqual({
        code: 400,
        message: "Missing parameter 'b' for function 'ratio': it has no default (its input parameters: a, b).",
        context: { parameter: 'b' },
      });
    }
  });

  it('calls a procedure, returning OUT and INOUT values', async () => {
    if (kind() === 'sqlite') return;
    expect(
      (
        await api().call('POST', '_proc/bump', {
          params: [
            { name: 'counter', value: 5 },
            { name: 'step', value: 2 },
          ],
        })
      ).body,
    ).toEqual({ counter: 7, label: 'bumped' });
    expect((await api().get('_proc/bump', { counter: '1', step: '1' })).body).toEqual({ counter: 2, label: 'bumped' });
  });

  it('returns result sets as JSON', async () => {
    if (kind() === 'sqlite') return;
    if (kind() === 'postgres') {
      expect((await api().get('_func/contacts_named', { pattern: 'Zhu%' })).body).toEqual({ resource: ZED });
      return;
    }
    expect((await api().get('_proc/contacts_named', { pattern: 'Zhu%' })).body).toEqual({ resource: ZED });
    expect((await api().get('_proc/two_sets', { wrapper: 'sets' })).body).toEqual({ sets: [[{ one: 1 }], [{ two: 2 }]] });
  });

  it('returns the rows of a PostgreSQL function returning setof record, each named by its columns (it was a 500)', async () => {
    if (kind() !== 'postgres') return;
    await target().exec(
      `create function pairs(n integer) returns setof record language sql as $$ select g as k, 'v' || g as v from generate_series(1, n) g $$`,
    );
    expect((await api().call('GET', '_func?refresh=true')).status).toBe(200);
    const rows = [
      { k: 1, v: 'v1' },
      { k: 2, v: 'v2' },
    ];
    expect(await api().get('_func/pairs', { n: '2' })).toMatchObject({ status: 200, body: { resource: rows } });
    expect(await api().call('POST', '_func/pairs', { params: [{ name: 'n', value: 2 }] })).toMatchObject({
      status: 200,
      body: { resource: rows },
    });
  });

  it('checks arguments against the parameter types alike on PostgreSQL and MariaDB (MariaDB took 1.5, true and 2)', async () => {
    if (kind() === 'sqlite') return;
    const refused = (field: string, type: string) => ({
      status: 400,
      body: { error: { code: 400, message: `Field '${field}' must be a valid ${type}.`, context: { field } } },
    });
    // MariaDB rounded 1.5 to 2 and read true as 1; PostgreSQL refused both.
    expect(await api().get('_func/add_numbers', { a: '1.5', b: '2' })).toEqual(refused('a', 'integer'));
    expect(
      await api().call('POST', '_func/add_numbers', {
        params: [
          { name: 'a', value: true },
          { name: 'b', value: 2 },
        ],
      }),
    ).toEqual(refused('a', 'integer'));
    // A boolean takes the texts a boolean field takes (PostgreSQL took yes, MariaDB refused it) and not 2 (MariaDB took it).
    expect(await api().get('_func/negate', { flag: 'yes' })).toEqual({ status: 200, body: false });
    expect(await api().get('_func/negate', { flag: '2' })).toEqual(refused('flag', 'boolean'));
    // Beyond a 4-byte integer parameter: named on both (PostgreSQL's error named no parameter).
    expect(
      await api().call('POST', '_proc/bump', {
        params: [
          { name: 'counter', value: 2147483648 },
          { name: 'step', value: 1 },
        ],
      }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: "Invalid value for field 'counter': the number is out of range for the field.",
          context: { field: 'counter' },
        },
      },
    });
    expect(await api().get('_func/add_numbers', { a: ' 7 ', b: '-2' })).toEqual({ status: 200, body: 5 });
  });

  it('answers unknown routines with 404 and bad parameters with 400', async () => {
    if (kind() === 'sqlite') return;
    expect((await api().get('_proc/nope')).body.error).toEqual({ code: 404, message: "Procedure 'nope' does not exist in the database." });
    expect((await api().get('_func/nope')).body.error).toEqual({ code: 404, message: "Function 'nope' does not exist in the database." });
    const unknown = await api().call('POST', '_func/add_numbers', { params: [{ name: 'zzz', value: 1 }] });
    expect(unknown).toMatchObject({
      status: 400,
      body: {
        error: {
          message: "Unknown parameter 'zzz' for function 'add_numbers' (its input parameters: a, b).",
          context: { parameter: 'zzz' },
        },
      },
    });
    expect((await api().get('_func/add_numbers', { a: 'abc', b: '1' })).status).toBe(400);
    expect((await api().call('DELETE', '_proc/bump')).status).toBe(400);
  });
}
