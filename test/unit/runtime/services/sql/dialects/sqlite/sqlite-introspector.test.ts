import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema, FieldModel, TableModel } from '#runtime/model/platform-model.js';
import { openSqliteDatabase } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { parseSqliteDefault } from '#runtime/services/sql/dialects/sqlite/sqlite-introspector.js';
import { sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { readDatabaseSchema } from '#runtime/services/sql/sql-service-kind.js';
import { tempDir } from '../../sql-test-helpers.js';

// Every column kind, key kind and relation kind SQLite can express.
const DDL = `
create table author (
  id integer primary key,
  name varchar(80) not null,
  email text unique,
  active tinyint(1) not null default 1,
  flag boolean,
  rating decimal(4,2) default 0.5,
  score double,
  weight float,
  big bigint,
  born date,
  wake time,
  seen datetime,
  created timestamp default CURRENT_TIMESTAMP,
  photo blob,
  meta json,
  uid uuid,
  code char(3) default 'abc',
  note nvarchar(20) default 'it''s',
  price money,
  loose,
  mentor_id integer references author(id) on delete set null
);
create table profile (author_id integer primary key references author(id) on delete cascade, bio text);
create table book (
  id integer primary key autoincrement,
  author_id integer not null references author(id) on delete cascade on update no action,
  title varchar(200) not null,
  isbn varchar(13),
  edition integer default 1,
  unique (isbn),
  unique (title, edition)
);
create index ndx_book_title on book (title);
create unique index undx_book_lower on book (lower(title));
create table tag (code text primary key, label text);
create table book_tag (
  book_id integer not null references book(id),
  tag_code text not null references tag(code),
  primary key (book_id, tag_code)
) without rowid;
create table edition (book_id integer, number integer, primary key (book_id, number), foreign key (book_id) references book(id));
create table review (id integer primary key, book_id integer, book_number integer, foreign key (book_id, book_number) references edition(book_id, number));
create view book_titles as select id, title from book;
create table "MixedCase" ("ID" integer primary key, "FullName" text);
`;

const { dir, cleanup } = tempDir();
const file = path.join(dir, 'kinds.sqlite');
let schema: DatabaseSchema;

function table(name: string): TableModel {
  const found = schema.tables.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no table ${name}`);
  return found;
}

function field(tableName: string, name: string): FieldModel {
  const found = table(tableName).fields.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no field ${tableName}.${name}`);
  return found;
}

beforeAll(async () => {
  const raw = new Database(file);
  raw.exec(DDL);
  raw.close();
  const connection = openSqliteDatabase(file);
  schema = await readDatabaseSchema(connection.db, sqliteDialect, false);
  await connection.close();
});
afterAll(cleanup);

describe('sqlite introspection', () => {
  it('lists tables and views sorted, with API names lower-cased and source names kept', () => {
    expect(schema.tables.map((t) => [t.name, t.sourceName, t.isView])).toEqual([
      ['author', 'author', false],
      ['book', 'book', false],
      ['book_tag', 'book_tag', false],
      ['book_titles', 'book_titles', true],
      ['edition', 'edition', false],
      ['mixedcase', 'MixedCase', false],
      ['profile', 'profile', false],
      ['review', 'review', false],
      ['tag', 'tag', false],
    ]);
    expect(schema.routines).toEqual([]);
    expect(table('mixedcase').fields.map((f) => [f.name, f.sourceName, f.label])).toEqual([
      ['id', 'ID', 'ID'],
      ['fullname', 'FullName', 'Full Name'],
    ]);
    expect(table('book_tag').label).toBe('Book Tag');
  });

  // [field, type, dbType, length, precision, scale, default, allowNull]
  it.each([
    ['id', 'id', 'integer', null, null, null, null, false],
    ['name', 'string', 'varchar(80)', 80, null, null, null, false],
    ['email', 'text', 'text', null, null, null, null, true],
    ['active', 'boolean', 'tinyint(1)', 1, null, null, true, false],
    ['flag', 'boolean', 'boolean', null, null, null, null, true],
    ['rating', 'decimal', 'decimal(4,2)', 4, 4, 2, 0.5, true],
    ['score', 'double', 'double', null, null, null, null, true],
    ['weight', 'float', 'float', null, null, null, null, true],
    ['big', 'bigint', 'bigint', null, null, null, null, true],
    ['born', 'date', 'date', null, null, null, null, true],
    ['wake', 'time', 'time', null, null, null, null, true],
    ['seen', 'datetime', 'datetime', null, null, null, null, true],
    ['created', 'timestamp_on_create', 'timestamp', null, null, null, { expression: 'CURRENT_TIMESTAMP' }, true],
    ['photo', 'binary', 'blob', null, null, null, null, true],
    ['meta', 'json', 'json', null, null, null, null, true],
    ['uid', 'uuid', 'uuid', null, null, null, null, true],
    ['code', 'string', 'char(3)', 3, null, null, 'abc', true],
    ['note', 'string', 'nvarchar(20)', 20, null, null, "it's", true],
    ['price', 'money', 'money', null, null, null, null, true],
    ['loose', 'string', '', null, null, null, null, true],
    ['mentor_id', 'reference', 'integer', null, null, null, null, true],
  ])('author.%s is %s (%s)', (name, type, dbType, length, precision, scale, defaultValue, allowNull) => {
    expect(field('author', name)).toMatchObject({ type, dbType, length, precision, scale, default: defaultValue, allowNull });
  });

  it('finds primary keys: rowid alias auto-increments, others do not', () => {
    expect(field('author', 'id')).toMatchObject({ isPrimaryKey: true, autoIncrement: true, type: 'id' });
    expect(field('book', 'id')).toMatchObject({ isPrimaryKey: true, autoIncrement: true, type: 'id' });
    expect(field('tag', 'code')).toMatchObject({ isPrimaryKey: true, autoIncrement: false, type: 'text', allowNull: false });
    expect(table('book_tag').primaryKey).toEqual(['book_id', 'tag_code']);
    expect(field('book_tag', 'book_id')).toMatchObject({ autoIncrement: false, type: 'reference', isForeignKey: true });
    expect(field('book_tag', 'tag_code')).toMatchObject({ type: 'text', isForeignKey: true, refTable: 'tag', refField: 'code' });
    expect(table('edition').primaryKey).toEqual(['book_id', 'number']);
    expect(field('edition', 'number')).toMatchObject({ autoIncrement: false, type: 'integer' });
    expect(table('book_titles').primaryKey).toEqual([]);
  });

  it('finds unique keys (not the primary key, not expression indexes) and marks single-field ones', () => {
    expect(table('book').uniqueKeys).toEqual([['isbn'], ['title', 'edition']]);
    expect(field('book', 'isbn').isUnique).toBe(true);
    expect(field('book', 'title').isUnique).toBe(false);
    expect(field('author', 'email').isUnique).toBe(true);
    expect(table('book_tag').uniqueKeys).toEqual([]);
  });

  it('reads foreign keys with actions and implicit reference columns', () => {
    expect(table('book').foreignKeys).toEqual([
      {
        name: 'fk_book_author_id',
        fields: ['author_id'],
        refTable: 'author',
        refFields: ['id'],
        onUpdate: 'no action',
        onDelete: 'cascade',
      },
    ]);
    expect(table('author').foreignKeys[0]).toMatchObject({
      fields: ['mentor_id'],
      refTable: 'author',
      refFields: ['id'],
      onDelete: 'set null',
    });
    expect(table('review').foreignKeys).toEqual([
      {
        name: 'fk_review_book_id_book_number',
        fields: ['book_id', 'book_number'],
        refTable: 'edition',
        refFields: ['book_id', 'number'],
        onUpdate: 'no action',
        onDelete: 'no action',
      },
    ]);
    // Part of a multi-column key: a foreign key field, but not a `reference`.
    expect(field('review', 'book_number')).toMatchObject({ type: 'integer', isForeignKey: true, refTable: 'edition', refField: 'number' });
    expect(field('profile', 'author_id')).toMatchObject({ type: 'id', isForeignKey: true, refTable: 'author', refField: 'id' });
  });

  it('derives every relation kind with the reference naming, sorted', () => {
    const relations = (name: string) => table(name).relations.map((r) => `${r.name}:${r.type}`);
    expect(relations('author')).toEqual(['author_by_mentor_id:belongs_to', 'book_by_author_id:has_many', 'profile_by_author_id:has_one']);
    expect(relations('book')).toEqual([
      'author_by_author_id:belongs_to',
      'book_tag_by_book_id:has_many',
      'edition_by_book_id:has_many',
      'tag_by_book_tag:many_many',
    ]);
    expect(relations('tag')).toEqual(['book_by_book_tag:many_many', 'book_tag_by_tag_code:has_many']);
    expect(relations('review')).toEqual(['edition_by_book_id_book_number:belongs_to']);
    expect(relations('edition')).toEqual(['book_by_book_id:belongs_to', 'review_by_book_id_book_number:has_many']);
    expect(table('book').relations.find((r) => r.type === 'many_many')).toEqual({
      name: 'tag_by_book_tag',
      type: 'many_many',
      field: ['id'],
      refTable: 'tag',
      refField: ['code'],
      junctionTable: 'book_tag',
      junctionField: 'book_id',
      junctionRefField: 'tag_code',
    });
  });

  it('survives a JSON snapshot round trip and reads the same twice', async () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    const connection = openSqliteDatabase(file);
    const again = await readDatabaseSchema(connection.db, sqliteDialect, false);
    await connection.close();
    expect(JSON.stringify(again)).toBe(JSON.stringify(schema));
  });

  it('keeps the database case when asked', async () => {
    const connection = openSqliteDatabase(file);
    const kept = await readDatabaseSchema(connection.db, sqliteDialect, true);
    await connection.close();
    const mixed = kept.tables.find((t) => t.sourceName === 'MixedCase');
    expect(mixed?.name).toBe('MixedCase');
    expect(mixed?.primaryKey).toEqual(['ID']);
    expect(mixed?.fields.map((f) => f.name)).toEqual(['ID', 'FullName']);
  });

  it('leaves out the shadow tables of a full-text table and, with a warning, a view of a table dropped since', async () => {
    const odd = path.join(dir, 'odd.sqlite');
    const raw = new Database(odd);
    raw.exec(
      'create virtual table docs using fts5(title, body); create table gone (id integer primary key); create view stale as select * from gone; drop table gone',
    );
    raw.close();
    const connection = openSqliteDatabase(odd);
    const read = await readDatabaseSchema(connection.db, sqliteDialect, false);
    await connection.close();
    expect(read.tables.map((t) => t.name)).toEqual(['docs']);
    expect(read.warnings).toEqual(['view "stale" can not be read (no such table: main.gone): it is not served.']);
  });

  it('reads generated columns (VIRTUAL and STORED, which pragma table_info leaves out) as computed', async () => {
    const generated = path.join(dir, 'generated.sqlite');
    const raw = new Database(generated);
    raw.exec(
      "create table reading (id integer primary key, celsius real not null, fahrenheit real generated always as (celsius * 9 / 5 + 32) virtual, label text as (celsius || ' C') stored)",
    );
    raw.close();
    const connection = openSqliteDatabase(generated);
    const read = await readDatabaseSchema(connection.db, sqliteDialect, false);
    await connection.close();
    expect(read.tables[0].fields.map((f) => [f.name, f.type, f.computed ?? false])).toEqual([
      ['id', 'id', false],
      ['celsius', 'float', false],
      ['fahrenheit', 'float', true],
      ['label', 'text', true],
    ]);
  });
});

describe('parseSqliteDefault', () => {
  it.each([
    [null, null],
    ['NULL', null],
    ["'abc'", 'abc'],
    ["'it''s'", "it's"],
    ['"dq"', 'dq'],
    ['42', 42],
    ['-1.5', -1.5],
    ['TRUE', true],
    ['false', false],
    ['current_timestamp', { expression: 'CURRENT_TIMESTAMP' }],
    ["(datetime('now'))", { expression: "(datetime('now'))" }],
  ])('%s', (text, want) => expect(parseSqliteDefault(text)).toEqual(want));
});
