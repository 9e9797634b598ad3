/**
 * Schema changes through `_schema` on SQLite, PostgreSQL and MariaDB at once (one server per
 * database, as the fuzz tests run them), judged as a black-box client would: no 5xx and errors in
 * the spec's shape without driver text; a refused change leaves the table, its records and its
 * constraints as they were; an accepted one keeps every record and value, and what the table's
 * own definition held beyond the model (CHECK constraints, collations, comments, generated
 * columns, WITHOUT ROWID, triggers, indexes); `_schema` describes the changed table truthfully and
 * `_table` serves it at once; the three databases answer alike. A seeded fast-check part applies
 * random sequences of changes to the same table on the three and compares (PORTICO_FUZZ_SEED
 * and PORTICO_FUZZ_RUNS override its seed and number of runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiClient, type ApiResponse } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';
import { requireService } from '#test/helpers/require-service.js';

interface Env {
  kind: TargetKind;
  target: DatabaseTarget;
  api: ApiClient;
}

const available: Record<TargetKind, boolean> = {
  sqlite: true,
  postgres: await requireService('postgres'),
  mysql: await requireService('mysql'),
};
const KINDS = (['sqlite', 'postgres', 'mysql'] as const).filter((kind) => available[kind]);
const envs: Env[] = [];

beforeAll(async () => {
  for (const kind of KINDS) {
    const target = await openDatabaseTarget(kind);
    envs.push({ kind, target, api: await startApi(target) });
  }
});
afterAll(async () => {
  for (const env of envs) {
    await env.api.close();
    await env.target.close();
  }
});

/** Driver texts and stack traces no answer may carry. */
const LEAK = /\bat \S+:\d+|SQLITE_|ER_[A-Z_]+|syntax error|near "|You have an error in your SQL|relation "|column "|violates/;

/** A request; every answer is below 500, and every error in the spec's shape without driver text. */
async function call(env: Env, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const answer = await env.api.call(method, path, body);
  const where = `${env.kind}: ${method} ${path}: ${JSON.stringify(answer.body)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.body?.error, where).toMatchObject({ code: answer.status, message: expect.any(String) });
    expect(answer.body.error.message, where).not.toMatch(LEAK);
  }
  return answer;
}

async function ok(env: Env, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await call(env, method, path, body);
  expect(answer.status, `${env.kind}: ${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** The table's fields as `_schema` describes them, by name. */
async function fieldsOf(env: Env, table: string): Promise<Record<string, any>> {
  const described = await ok(env, 'GET', `_schema/${table}`);
  return Object.fromEntries(described.field.map((f: { name: string }) => [f.name, f]));
}

const records = async (env: Env, table: string, query = '') =>
  (await ok(env, 'GET', `_table/${table}?order=id${query === '' ? '' : `&${query}`}`)).resource as Record<string, unknown>[];

/** A name quoted for the database's raw SQL. */
const quoted = (kind: TargetKind, name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);

describe('what a change keeps', () => {
  it('keeps CHECK constraints, on a column and on the table, through a change that restates or rebuilds the table (SQLite dropped them, MariaDB the column one)', async () => {
    for (const env of envs) {
      const q = (name: string) => quoted(env.kind, name);
      await env.target.exec(
        `create table ${q('chk')} (${q('id')} integer primary key, ${q('qty')} integer not null check (${q('qty')} >= 0), ${q('name')} varchar(20), ${q('note')} varchar(20), constraint ${q('chk_name')} check (${q('name')} <> 'bad'))`,
      );
      await env.target.exec(`insert into ${q('chk')} values (1, 5, 'ok', 'n')`);
      await ok(env, 'GET', '_schema?refresh=true');
      await ok(env, 'PATCH', '_schema/chk', {
        field: [
          { name: 'qty', type: 'bigint', allow_null: true },
          { name: 'note', length: 40 },
        ],
      });
      expect(await fieldsOf(env, 'chk')).toMatchObject({ qty: { type: 'bigint', allow_null: true }, note: { length: 40 } });
      expect(await records(env, 'chk')).toEqual([{ id: 1, qty: 5, name: 'ok', note: 'n' }]);
      expect((await call(env, 'POST', '_table/chk', { resource: [{ id: 2, qty: -1, name: 'x' }] })).status, env.kind).toBe(400);
      expect((await call(env, 'POST', '_table/chk', { resource: [{ id: 3, qty: 1, name: 'bad' }] })).status, env.kind).toBe(400);
      await ok(env, 'POST', '_table/chk', { resource: [{ id: 4, qty: null, name: 'fine' }] });
      // Dropping a field drops the table's CHECK constraints that name it (PostgreSQL and MariaDB do), and keeps the others.
      await ok(env, 'DELETE', '_schema/chk/_field/name');
      expect((await call(env, 'POST', '_table/chk', { resource: [{ id: 5, qty: -1 }] })).status, env.kind).toBe(400);
      await ok(env, 'POST', '_table/chk', { resource: [{ id: 6, qty: 7 }] });
      expect((await records(env, 'chk', 'fields=id,qty')).map((r) => r.id)).toEqual([1, 4, 6]);
    }
  });

  it('keeps a collation and a comment through a change of the column (SQLite and MariaDB restated the column without them)', async () => {
    for (const env of envs.filter((e) => e.kind !== 'postgres')) {
      const q = (name: string) => quoted(env.kind, name);
      const collation = env.kind === 'sqlite' ? 'nocase' : 'utf8mb4_bin';
      const comment = env.kind === 'mysql' ? ` comment 'it''s the code'` : '';
      await env.target.exec(
        `create table ${q('coll')} (${q('id')} integer primary key, ${q('code')} varchar(10) collate ${collation}${comment}, ${q('other')} integer)`,
      );
      await env.target.exec(`insert into ${q('coll')} values (1, 'Abc', 1)`);
      await ok(env, 'GET', '_schema?refresh=true');
      await ok(env, 'PATCH', '_schema/coll/_field/code', { length: 30 });
      await ok(env, 'PATCH', '_schema/coll/_field/other', { type: 'bigint' });
      // nocase finds 'Abc' by 'abc'; utf8mb4_bin (case-sensitive, unlike the table's default) does not.
      const found = await ok(env, 'GET', `_table/coll?filter=${encodeURIComponent("code = 'abc'")}`);
      expect(found.resource.length, env.kind).toBe(env.kind === 'sqlite' ? 1 : 0);
      if (env.kind === 'mysql') {
        expect(
          await env.target.query(
            "select collation_name, column_comment, character_maximum_length from information_schema.columns where table_schema = database() and table_name = 'coll' and column_name = 'code'",
          ),
        ).toEqual([{ collation_name: 'utf8mb4_bin', column_comment: "it's the code", character_maximum_length: 30 }]);
      }
    }
  });

  it('rebuilds a SQLite table keeping WITHOUT ROWID, its triggers, indexes, generated columns and foreign keys with their actions', async () => {
    const env = envs.find((e) => e.kind === 'sqlite');
    if (env === undefined) return;
    await env.target.exec(`create table parent (id integer primary key, name text);;
      create table kid (id integer primary key, parent_id integer references parent (id) on delete cascade, qty integer, double_qty integer generated always as (qty * 2) virtual, note text);;
      create index kid_note on kid (note);;
      create trigger kid_stamp after insert on kid begin update kid set note = 'by trigger' where id = new.id and note is null; end;;
      create table pair (k text primary key, v integer check (v > 0)) without rowid;;
      insert into parent values (1, 'p');;
      insert into kid (id, parent_id, qty) values (1, 1, 2);;
      insert into pair values ('a', 1)`);
    await ok(env, 'GET', '_schema?refresh=true');
    await ok(env, 'PATCH', '_schema/kid/_field/qty', { type: 'bigint', allow_null: true });
    await ok(env, 'PATCH', '_schema/pair/_field/v', { type: 'bigint', allow_null: true });
    const objects = await env.target.query("select type, name, sql from sqlite_master where tbl_name in ('kid', 'pair') order by name");
    expect(objects.map((o) => o.name)).toEqual(expect.arrayContaining(['kid', 'kid_note', 'kid_stamp', 'pair']));
    const pair = objects.find((o) => o.name === 'pair')?.sql as string;
    expect(pair).toMatch(/without rowid$/i);
    expect(pair).toMatch(/check \(v > 0\)/i);
    expect((await call(env, 'POST', '_table/pair', { resource: [{ k: 'b', v: 0 }] })).status).toBe(400);
    expect(await records(env, 'kid', 'fields=id,qty,double_qty')).toEqual([{ id: 1, qty: 2, double_qty: 4 }]);
    expect((await fieldsOf(env, 'kid')).parent_id).toMatchObject({ ref_table: 'parent', ref_on_delete: 'CASCADE' });
    await ok(env, 'POST', '_table/kid', { resource: [{ id: 2, parent_id: 1, qty: 3 }] });
    expect(await ok(env, 'GET', '_table/kid/2?fields=note,double_qty')).toEqual({ note: 'by trigger', double_qty: 6 });
    await ok(env, 'DELETE', '_table/parent/1');
    expect(await records(env, 'kid')).toEqual([]);
    // A generated field can not outlive what it is computed from, as on PostgreSQL and MariaDB.
    const refused = await call(env, 'DELETE', '_schema/kid/_field/qty');
    expect(refused.status).toBe(400);
    expect(refused.body.error.context).toEqual({ table: 'kid', field: 'qty' });
  });

  it('changes a table whose field names hold a dot and whose default is an expression (the SQLite rebuild refused the name, then wrote the default without its parentheses)', async () => {
    for (const env of envs) {
      const q = (name: string) => quoted(env.kind, name);
      await env.target.exec(`create table ${q('dotted')} (${q('id')} integer primary key, ${q('a.b')} varchar(10), ${q('gone')} integer)`);
      await env.target.exec(`insert into ${q('dotted')} values (1, 'kept', 1)`);
      await ok(env, 'GET', '_schema?refresh=true');
      await ok(env, 'POST', '_schema/dotted/_field', {
        resource: [{ name: 'code', type: 'string', length: 10, default: { expression: "lower('ABC')" } }],
      });
      await ok(env, 'DELETE', '_schema/dotted/_field/gone');
      expect((await fieldsOf(env, 'dotted')).code.default, env.kind).toEqual({
        expression: expect.stringMatching(/^(lower|lcase)\('ABC'/i),
      });
      await ok(env, 'POST', '_table/dotted', { resource: [{ id: 2 }] });
      expect(await records(env, 'dotted')).toEqual([
        { id: 1, 'a.b': 'kept', code: 'abc' },
        { id: 2, 'a.b': null, code: 'abc' },
      ]);
    }
  });
});

describe('what a refused change leaves', () => {
  it('refuses a change whose last part fails and leaves all of it unmade (MySQL made the parts before it)', async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', {
        resource: [
          {
            name: 'parts',
            field: [
              { name: 'id', type: 'id' },
              { name: 'n', type: 'integer', allow_null: true },
              { name: 'u', type: 'string', length: 10, allow_null: true },
            ],
          },
        ],
      });
      await ok(env, 'POST', '_table/parts', {
        resource: [
          { n: 1, u: 'same' },
          { n: 2, u: 'same' },
        ],
      });
      const refused = await call(env, 'PATCH', '_schema/parts', {
        field: [
          { name: 'n', type: 'string', length: 50, allow_null: true },
          { name: 'added', type: 'integer', allow_null: true, is_index: true },
          { name: 'u', is_unique: true },
        ],
      });
      expect(refused.status, env.kind).toBe(409);
      const fields = await fieldsOf(env, 'parts');
      expect(Object.keys(fields), env.kind).toEqual(['id', 'n', 'u']);
      expect(fields.n.type, env.kind).toBe('integer');
      expect(fields.u.is_unique, env.kind).toBe(false);
      expect(await records(env, 'parts')).toEqual([
        { id: 1, n: 1, u: 'same' },
        { id: 2, n: 2, u: 'same' },
      ]);
    }
  });

  it('refuses a batch with one bad table and makes or changes none of it (the tables before it were changed)', async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', { resource: [{ name: 'batch_old', field: [{ name: 'id', type: 'id' }] }] });
      const refused = await call(env, 'POST', '_schema', {
        resource: [
          { name: 'batch_new', field: [{ name: 'id', type: 'id' }] },
          { name: 'batch_old', field: [{ name: 'added', type: 'integer', allow_null: true }] },
          { name: 'batch_bad', field: [{ name: 'id', type: 'no such type' }] },
        ],
      });
      expect(refused.status, env.kind).toBe(400);
      expect(refused.body.error.message).toMatch(/batch_bad/);
      expect(Object.keys(await fieldsOf(env, 'batch_old')), env.kind).toEqual(['id']);
      expect((await call(env, 'GET', '_schema/batch_new')).status, env.kind).toBe(404);
      // A change of an existing table refused in the same way, and a table named twice.
      const bad = await call(env, 'PATCH', '_schema', {
        resource: [
          { name: 'batch_old', field: [{ name: 'added', type: 'integer', allow_null: true }] },
          { name: 'parts', field: [{ name: 'n', type: 'integer', length: -1 }] },
        ],
      });
      expect(bad.status, env.kind).toBe(400);
      expect(Object.keys(await fieldsOf(env, 'batch_old')), env.kind).toEqual(['id']);
      const twice = await call(env, 'POST', '_schema', {
        resource: [
          { name: 'batch_twice', field: [{ name: 'id', type: 'id' }] },
          { name: 'BATCH_TWICE', field: [{ name: 'id', type: 'id' }] },
        ],
      });
      expect(twice.status, env.kind).toBe(400);
      expect((await call(env, 'GET', '_schema/batch_twice')).status, env.kind).toBe(404);
    }
  });
});

describe('renames', () => {
  it("refuses to rename a field with 'new_name', changing nothing (it was left out, and the 200 said the field was changed)", async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', {
        resource: [
          {
            name: 'renamed',
            field: [
              { name: 'id', type: 'id' },
              { name: 'old', type: 'integer', allow_null: true },
            ],
          },
        ],
      });
      await ok(env, 'POST', '_table/renamed', { resource: [{ old: 3 }] });
      const refused = await call(env, 'PATCH', '_schema/renamed/_field/old', { new_name: 'fresh', allow_null: false });
      expect(refused.status, env.kind).toBe(400);
      expect(refused.body.error.context).toEqual({ table: 'renamed', field: 'old' });
      expect((await call(env, 'PATCH', '_schema/renamed', { field: [{ name: 'old', new_name: 'fresh' }] })).status, env.kind).toBe(400);
      expect(await fieldsOf(env, 'renamed')).toMatchObject({ old: { allow_null: true } });
      expect(await records(env, 'renamed')).toEqual([{ id: 1, old: 3 }]);
    }
  });
});

describe('changes the three databases take alike', () => {
  it('widens types keeping every value, and takes wider values at once', async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', {
        resource: [
          {
            name: 'widen',
            field: [
              { name: 'id', type: 'id' },
              { name: 'n', type: 'integer', allow_null: true },
              { name: 's', type: 'string', length: 10, allow_null: true },
              { name: 'd', type: 'decimal', precision: 5, scale: 2, allow_null: true },
            ],
          },
        ],
      });
      await ok(env, 'POST', '_table/widen', {
        resource: [
          { n: 2147483647, s: 'abcdefghij', d: 123.45 },
          { n: -5, s: 'é', d: -1.5 },
        ],
      });
      await ok(env, 'PATCH', '_schema/widen', {
        field: [
          { name: 'n', type: 'bigint' },
          { name: 's', length: 100 },
          { name: 'd', precision: 10, scale: 4 },
        ],
      });
      expect(await fieldsOf(env, 'widen')).toMatchObject({ n: { type: 'bigint' }, s: { length: 100 }, d: { precision: 10, scale: 4 } });
      await ok(env, 'POST', '_table/widen', { resource: [{ n: 9007199254740991, s: 'x'.repeat(100), d: 123456.1234 }] });
      expect(await records(env, 'widen')).toEqual([
        { id: 1, n: 2147483647, s: 'abcdefghij', d: 123.45 },
        { id: 2, n: -5, s: 'é', d: -1.5 },
        { id: 3, n: 9007199254740991, s: 'x'.repeat(100), d: 123456.1234 },
      ]);
    }
  });

  it('sets and drops a NOT NULL field default alike (MySQL refused default null on it)', async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', {
        resource: [
          {
            name: 'defaults',
            field: [
              { name: 'id', type: 'id' },
              { name: 'label', type: 'string', default: 'first' },
              { name: 'blank', type: 'string', default: null },
            ],
          },
        ],
      });
      await ok(env, 'POST', '_table/defaults', { resource: [{ blank: 'b' }] });
      await ok(env, 'PATCH', '_schema/defaults/_field/label', { default: 'second' });
      await ok(env, 'POST', '_table/defaults', { resource: [{ blank: 'b' }] });
      await ok(env, 'PATCH', '_schema/defaults/_field/label', { default: null });
      const label = (await fieldsOf(env, 'defaults')).label;
      expect(label, env.kind).toMatchObject({ default: null, allow_null: false, required: true });
      expect((await fieldsOf(env, 'defaults')).blank, env.kind).toMatchObject({ default: null, allow_null: false });
      expect((await call(env, 'POST', '_table/defaults', { resource: [{ blank: 'b' }] })).status, env.kind).toBe(400);
      expect(await records(env, 'defaults', 'fields=id,label')).toEqual([
        { id: 1, label: 'first' },
        { id: 2, label: 'second' },
      ]);
    }
  });
});

describe('sizes', () => {
  it('refuses a length, precision or scale no database holds, alike (SQLite took length 1e300 and wrote varchar(1e+300))', async () => {
    for (const env of envs) {
      await ok(env, 'POST', '_schema', { resource: [{ name: 'sizes', field: [{ name: 'id', type: 'id' }] }] });
      for (const extra of [
        { type: 'string', length: 1e300 },
        { type: 'decimal', precision: 2 ** 53, scale: 2 },
        { type: 'string', length: '9'.repeat(40) },
      ]) {
        const refused = await call(env, 'POST', '_schema/sizes/_field', { resource: [{ name: 'big', allow_null: true, ...extra }] });
        expect(refused.status, `${env.kind} ${JSON.stringify(extra)}`).toBe(400);
        expect(refused.body.error.message).toMatch(/'(length|precision)' for field 'big'/);
      }
      expect(Object.keys(await fieldsOf(env, 'sizes'))).toEqual(['id']);
    }
  });
});

/** One change of the fuzzed table, as a request. */
interface Change {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

const NEW_FIELDS = ['x1', 'x2'];
const OWN_FIELDS = ['a', 'b', 'c'];
const ALL_FIELDS = [...OWN_FIELDS, ...NEW_FIELDS];

/** Types and a default each takes. */
const TYPED: Array<[string, Record<string, unknown>, unknown]> = [
  ['integer', {}, 7],
  ['bigint', {}, 9007199254740991],
  ['string', { length: 30 }, "it's"],
  ['text', {}, 'long'],
  ['boolean', {}, true],
  ['decimal', { precision: 12, scale: 3 }, 1.5],
  ['date', {}, '2024-02-29'],
];

const changeArbitrary = (table: string): fc.Arbitrary<Change> =>
  fc.oneof(
    fc
      .record({ name: fc.constantFrom(...NEW_FIELDS), typed: fc.constantFrom(...TYPED), nullable: fc.boolean(), withDefault: fc.boolean() })
      .map(
        ({ name, typed: [type, extra, value], nullable, withDefault }): Change => ({
          method: 'POST',
          path: `_schema/${table}/_field`,
          body: { resource: [{ name, type, ...extra, allow_null: nullable, ...(withDefault ? { default: value } : {}) }] },
        }),
      ),
    fc.constantFrom<Change>(
      { method: 'PATCH', path: `_schema/${table}/_field/a`, body: { type: 'bigint' } },
      { method: 'PATCH', path: `_schema/${table}/_field/b`, body: { length: 200 } },
      { method: 'PATCH', path: `_schema/${table}/_field/c`, body: { precision: 14, scale: 4 } },
      { method: 'PATCH', path: `_schema/${table}/_field/b`, body: { default: 'dflt' } },
      { method: 'PATCH', path: `_schema/${table}/_field/a`, body: { is_index: true } },
      { method: 'PATCH', path: `_schema/${table}/_field/a`, body: { is_unique: true } },
      { method: 'PATCH', path: `_schema/${table}/_field/b`, body: { is_unique: true } },
      { method: 'PATCH', path: `_schema/${table}/_field/b`, body: { length: 3 } },
      { method: 'PATCH', path: `_schema/${table}/_field/a`, body: { type: 'string', length: 40 } },
    ),
    fc
      .record({ name: fc.constantFrom(...ALL_FIELDS), nullable: fc.boolean() })
      .map(({ name, nullable }): Change => ({ method: 'PATCH', path: `_schema/${table}/_field/${name}`, body: { allow_null: nullable } })),
    fc.constantFrom(...ALL_FIELDS).map((name): Change => ({ method: 'DELETE', path: `_schema/${table}/_field/${name}` })),
  );

const SEED = Number(process.env.PORTICO_FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.PORTICO_FUZZ_RUNS ?? 12);

describe('random sequences of changes', () => {
  it('answer alike on the three databases, keep every record and the values of what they leave alone, and describe the table as it is', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer(), { minLength: 0, maxLength: 0 }).chain(() => {
          const table = `fz_change_${++run}`;
          return fc.tuple(fc.constant(table), fc.array(changeArbitrary(table), { minLength: 1, maxLength: 5 }));
        }),
        async ([table, changes]) => {
          for (const env of envs) {
            await ok(env, 'POST', '_schema', {
              resource: [
                {
                  name: table,
                  field: [
                    { name: 'id', type: 'id' },
                    { name: 'a', type: 'integer', allow_null: true },
                    { name: 'b', type: 'string', length: 20, allow_null: true },
                    { name: 'c', type: 'decimal', precision: 8, scale: 2, allow_null: true },
                  ],
                },
              ],
            });
            await ok(env, 'POST', `_table/${table}`, {
              resource: [
                { a: 1, b: 'same', c: 1.25 },
                { a: 2, b: 'same', c: null },
                { a: null, b: 'ünï 💥', c: -3.5 },
              ],
            });
          }
          for (const change of changes) {
            const answers: Array<{ env: Env; status: number; before: Record<string, unknown>[]; fields: string[] }> = [];
            for (const env of envs) {
              const before = await records(env, table);
              const fields = Object.keys(await fieldsOf(env, table));
              const answer = await call(env, change.method, change.path, change.body);
              answers.push({ env, status: answer.status, before, fields });
            }
            const where = `${change.method} ${change.path} ${JSON.stringify(change.body ?? null)}: ${answers.map((a) => `${a.env.kind} ${a.status}`).join(', ')}`;
            expect(new Set(answers.map((a) => a.status < 300)).size, where).toBe(1);
            const touched = change.path.split('/').at(-1) === '_field' ? NEW_FIELDS : [change.path.split('/').at(-1) as string];
            for (const { env, status, before, fields } of answers) {
              const after = await records(env, table);
              const now = Object.keys(await fieldsOf(env, table));
              expect(
                after.map((r) => r.id),
                `${env.kind}: ${where}`,
              ).toEqual(before.map((r) => r.id));
              // The fields served are the ones described, and a refused change changed none.
              expect(Object.keys(after[0] ?? {}).sort(), `${env.kind}: ${where}`).toEqual([...now].sort());
              if (status >= 300) expect(now, `${env.kind}: ${where}`).toEqual(fields);
              const untouched = now.filter((name) => fields.includes(name) && (status >= 300 || !touched.includes(name)));
              const pick = (rows: Record<string, unknown>[]) =>
                rows.map((row) => Object.fromEntries(untouched.map((name) => [name, row[name]])));
              expect(pick(after), `${env.kind}: ${where}`).toEqual(pick(before));
            }
            // The three describe the same fields.
            const described = await Promise.all(envs.map(async (env) => Object.keys(await fieldsOf(env, table))));
            for (const names of described) expect(names, where).toEqual(described[0]);
          }
          for (const env of envs) await ok(env, 'DELETE', `_schema/${table}`);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  }, 120_000);
});
