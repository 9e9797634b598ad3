/** SQLite's limit errors, raised for real by better-sqlite3, come out as our own 400s. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { translateSqliteError } from '#runtime/services/sql/dialects/sqlite/sqlite-errors.js';

const db = new Database(':memory:');
db.exec("create table t (id integer primary key, name text, n integer check (n >= 0)); insert into t (name, n) values ('a', 1)");
afterAll(() => db.close());

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the statement to fail');
}

const LIMIT = 'The request is too large for the database: use fewer filter terms, values, fields or records at once.';

describe('translateSqliteError', () => {
  it.each<[string, () => unknown, number, string]>([
    [
      'an expression tree deeper than 1000',
      () => db.prepare(`select * from t where ${Array.from({ length: 1100 }, (_, i) => `id = ${i}`).join(' or ')}`).all(),
      400,
      LIMIT,
    ],
    [
      'more bound variables than SQLite takes',
      () => db.prepare(`select * from t where id in (${Array(40000).fill('?').join(',')})`).all(...Array(40000).fill(1)),
      400,
      LIMIT,
    ],
    ['a LIKE pattern beyond 50,000 bytes', () => db.prepare('select * from t where name like ?').all('%a'.repeat(30000)), 400, LIMIT],
    [
      'a bigint beyond 64 bits',
      () => db.prepare('select * from t where id = ?').all(2n ** 70n),
      400,
      'Invalid value: the number is out of range for the field.',
    ],
    ['a failed check', () => db.prepare('insert into t (n) values (-1)').run(), 400, "Check constraint 'n >= 0' failed."],
    [
      'a database with no room left (its disk full)',
      () => {
        const full = new Database(':memory:');
        full.exec('create table big (v text)');
        full.pragma(`max_page_count = ${full.pragma('page_count', { simple: true })}`);
        try {
          full.prepare('insert into big values (?)').run('x'.repeat(100_000));
        } finally {
          full.close();
        }
      },
      503,
      'The database has no room left to store the change; try again later.',
    ],
    [
      'a file that takes no writes (opened read-only, a disk remounted read-only)',
      () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-readonly-'));
        const file = path.join(dir, 'ro.sqlite');
        new Database(file).exec('create table t (v text)').close();
        const readOnly = new Database(file, { readonly: true });
        try {
          readOnly.prepare('insert into t values (?)').run('x');
        } finally {
          readOnly.close();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
      503,
      'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.',
    ],
  ])('%s', (_name, run, status, message) => {
    expect(translateSqliteError(thrown(run), null)).toMatchObject({ status, message });
  });

  it('leaves unknown errors alone (their callers answer without the driver text)', () => {
    expect(
      translateSqliteError(
        thrown(() => db.prepare('select nosuch from t').all()),
        null,
      ),
    ).toBeNull();
  });
});
