/**
 * Values at the edges of what JSON numbers hold, and a `continue` batch with a pre_process hook,
 * on SQLite, PostgreSQL and MariaDB:
 * - sums and averages of wide decimals (and sums of 64-bit integers) read as the columns read: a
 *   number while a double holds the digits, else the digits as text (SQLite's decimal is a REAL:
 *   its sums are of doubles);
 * - PostgreSQL's bigint[] elements read as a bigint reads: a number when safe, else its text;
 * - NaN and ±Infinity, which PostgreSQL's float and numeric columns hold and JSON has no number
 *   for: read as the texts PostgreSQL's own to_json gives ("NaN", "Infinity", "-Infinity"), by id
 *   as in lists (the by-id serialiser threw a 500 on NaN); a write of them is refused with a 400
 *   naming the field on every database (SQLite stores NaN as NULL, MariaDB has none), so that a
 *   client never stores one through the API;
 * - `continue=true` with a pre_process hook: a record with a bad value fails alone in the batch
 *   error (reference 2.3), the others go through the hook and are stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineHooks } from '#runtime/http/hooks.js';
import { requireService } from '#test/helpers/require-service.js';
import { startApi, startGeneratedApi, type ApiClient } from './database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-api/database-targets.js';

const WIDE: Record<TargetKind, string> = {
  sqlite: 'create table wide (id integer primary key, grp int not null, d decimal, b bigint)',
  postgres: 'create table wide (id int primary key, grp int not null, d numeric, b bigint)',
  mysql: 'create table wide (id int primary key, grp int not null, d decimal(30,1), b bigint)',
};

const LOT: Record<TargetKind, string> = {
  sqlite: 'create table lot (id integer primary key autoincrement, label varchar(20) not null, qty int)',
  postgres: 'create table lot (id serial primary key, label varchar(20) not null, qty int)',
  mysql: 'create table lot (id int auto_increment primary key, label varchar(20) not null, qty int)',
};

/** What grouped sums and averages of `wide` read: exact on PostgreSQL and MariaDB, of the stored doubles on SQLite. */
const AGGREGATES: Record<TargetKind, unknown[]> = {
  sqlite: [
    { grp: 1, SUM_d: Number('12345678901234567891.5'), AVG_d: Number('6172839450617283945.75'), SUM_b: '9007199254740993' },
    { grp: 2, SUM_d: 4, AVG_d: 2, SUM_b: 3 },
  ],
  // PostgreSQL's own average keeps 16 significant digits at least, and the argument's scale (1) here.
  postgres: [
    { grp: 1, SUM_d: '12345678901234567891.5', AVG_d: '6172839450617283945.8', SUM_b: '9007199254740993' },
    { grp: 2, SUM_d: 4, AVG_d: 2, SUM_b: 3 },
  ],
  mysql: [
    { grp: 1, SUM_d: '12345678901234567891.5', AVG_d: '6172839450617283945.75', SUM_b: '9007199254740993' },
    { grp: 2, SUM_d: 4, AVG_d: 2, SUM_b: 3 },
  ],
};

/** Doubles the lot's hook adds to every record it sees, so that a test can tell which records went through it. */
const hooks = defineHooks<Record<string, Array<{ label: string; qty: number | null }>>>({
  'db._table.lot.post.pre_process': (records) => records.map((record) => ({ ...record, label: `${record.label}+hook` })),
});

function edgeValueTests(kind: TargetKind): void {
  let target: DatabaseTarget;
  let api: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    await target.exec(WIDE[kind]);
    await target.exec(LOT[kind]);
    await target.exec(
      `insert into wide (id, grp, d, b) values (1, 1, '12345678901234567890.5', 9007199254740991), (2, 1, '1.0', 2), (3, 2, '1.5', 1), (4, 2, '2.5', 2)`,
    );
    api = await startApi(target, {}, { hooks: [{ file: 'hooks/lot.ts', hooks }] });
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  it(`${kind}: sums and averages of a wide decimal, and sums of bigints, keep their digits`, async () => {
    const grouped = await api.get('_table/wide', { group: 'grp', fields: 'grp,SUM(d),AVG(d),SUM(b)', order: 'grp' });
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(200);
    expect(grouped.body.resource).toEqual(AGGREGATES[kind]);
  });

  it(`${kind}: continue=true with a pre_process hook: the record with a bad value fails alone, the others are hooked and stored`, async () => {
    const answer = await api.call('POST', '_table/lot?continue=true&fields=label', {
      resource: [
        { label: 'one', qty: 1 },
        { label: 'two', qty: 'many' },
        { label: 'three', qty: '3' },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toEqual({
      code: 400,
      message: 'Batch Error: Not all requested records could be created.',
      context: {
        errors: [{ index: 1, message: "Field 'qty' must be a valid integer.", code: 400 }],
        resource: [
          { label: 'one+hook' },
          expect.objectContaining({ code: 400, message: "Field 'qty' must be a valid integer." }),
          { label: 'three+hook' },
        ],
      },
    });
    const stored = await target.query('select label, qty from lot order by id');
    expect(stored.map((row) => ({ label: row.label, qty: Number(row.qty) }))).toEqual([
      { label: 'one+hook', qty: 1 },
      { label: 'three+hook', qty: 3 },
    ]);
    // Without continue the batch is still refused whole before the hook runs (nothing stored).
    const refused = await api.call('POST', '_table/lot', { resource: [{ label: 'four' }, { label: 'five', qty: 'x' }] });
    expect(refused.status).toBe(400);
    expect((await target.query('select count(*) as n from lot'))[0].n).toEqual(kind === 'postgres' ? '2' : 2);
  });

  it(`${kind}: a write of NaN or Infinity to a number column is refused, naming the field`, async () => {
    for (const value of ['NaN', 'Infinity', '-Infinity']) {
      const answer = await api.call('POST', '_table/wide', { resource: [{ id: 9, grp: 9, d: value }] });
      expect(answer.status, `${value}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error.message).toContain("'d'");
    }
    expect(await target.query('select id from wide where id = 9')).toEqual([]);
  });
}

describe('on SQLite', () => edgeValueTests('sqlite'));
describe.skipIf(!(await requireService('postgres')))('on PostgreSQL', () => edgeValueTests('postgres'));
describe.skipIf(!(await requireService('mysql')))('on MariaDB', () => edgeValueTests('mysql'));

describe.skipIf(!(await requireService('postgres')))('PostgreSQL values JSON numbers do not hold', () => {
  let target: DatabaseTarget;
  let api: ApiClient;
  /** The same database served as a generated server serves it (a by-id read with `fields` goes through its compiled serialiser). */
  let generated: ApiClient;
  beforeAll(async () => {
    target = await openDatabaseTarget('postgres');
    await target.exec('create table odd (id int primary key, f float8, r real, n numeric, ns bigint[])');
    await target.exec(`insert into odd values
      (1, 'NaN', 'NaN', 'NaN', '{1,9007199254740993,NULL}'),
      (2, 'Infinity', 'Infinity', 'Infinity', '{{-9223372036854775808,2},{3,4}}'),
      (3, '-Infinity', '-Infinity', '-Infinity', '{}'),
      (4, 1.5, 2.5, 3.5, null)`);
    await target.exec('create table holder (id int primary key, odd_id int references odd (id))');
    await target.exec('insert into holder values (1, 1), (2, 2)');
    api = await startApi(target);
    generated = await startGeneratedApi(target);
  });
  afterAll(async () => {
    await api?.close();
    await generated?.close();
    await target?.close();
  });

  /** The rows as a list reads them: non-finite floats and numerics as PostgreSQL's to_json writes them. */
  const ROWS = [
    { id: 1, f: 'NaN', r: 'NaN', n: 'NaN' },
    { id: 2, f: 'Infinity', r: 'Infinity', n: 'Infinity' },
    { id: 3, f: '-Infinity', r: '-Infinity', n: '-Infinity' },
    { id: 4, f: 1.5, r: 2.5, n: 3.5 },
  ];

  it('reads NaN and ±Infinity as the texts to_json gives, in a list and by id alike, whole or by fields', async () => {
    for (const [name, client] of [
      ['runtime routes', api],
      ['generated routes', generated],
    ] as const) {
      const list = await client.get('_table/odd', { order: 'id', fields: 'id,f,r,n' });
      expect(list.status, `${name}: ${JSON.stringify(list.body)}`).toBe(200);
      expect(list.body.resource).toEqual(ROWS);
      for (const row of ROWS) {
        const whole = await client.call('GET', `_table/odd/${row.id}`);
        expect(whole.status, `${name} ${row.id}: ${JSON.stringify(whole.body)}`).toBe(200);
        expect(whole.body).toMatchObject(row);
        const subset = await client.call('GET', `_table/odd/${row.id}?fields=id,f,r,n`);
        expect(subset.status, `${name} ${row.id}: ${JSON.stringify(subset.body)}`).toBe(200);
        expect(subset.body).toEqual(row);
      }
    }
  });

  it('reads aggregates of NaN and ±Infinity as the same texts', async () => {
    const answer = await generated.get('_table/odd', { fields: 'MAX(f),MIN(f),MAX(n),MIN(r)' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.resource).toEqual([{ MAX_f: 'NaN', MIN_f: '-Infinity', MAX_n: 'NaN', MIN_r: '-Infinity' }]);
  });

  it('reads a related record holding NaN as it reads alone', async () => {
    const answer = await generated.call('GET', '_table/holder/1?related=odd_by_odd_id');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.odd_by_odd_id).toMatchObject(ROWS[0]);
  });

  it('reads a two-dimensional array by id as a list reads it', async () => {
    const nested = [
      ['-9223372036854775808', 2],
      [3, 4],
    ];
    for (const path of ['_table/odd/2', '_table/odd/2?fields=id,ns']) {
      const answer = await generated.call('GET', path);
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect(answer.body.ns).toEqual(nested);
    }
  });

  it('reads bigint[] elements as a bigint reads: a number when safe, else its text', async () => {
    expect((await api.get('_table/odd', { order: 'id', fields: 'id,ns' })).body.resource).toEqual([
      { id: 1, ns: [1, '9007199254740993', null] },
      {
        id: 2,
        ns: [
          ['-9223372036854775808', 2],
          [3, 4],
        ],
      },
      { id: 3, ns: [] },
      { id: 4, ns: null },
    ]);
    expect((await api.call('GET', '_table/odd/1?fields=ns')).body).toEqual({ ns: [1, '9007199254740993', null] });
    const schema = (await api.call('GET', '_spec')).body.components.schemas.odd.properties.ns;
    expect(schema.items.anyOf).toEqual([
      { type: 'integer', nullable: true },
      { type: 'string', pattern: '^-?[0-9]+$', nullable: true },
      { type: 'array', items: {}, nullable: true },
    ]);
  });
});
