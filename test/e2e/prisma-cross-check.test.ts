/**
 * Portico's introspection and Prisma emitter against Prisma's own introspection (its schema
 * engine's wasm build, `prisma db pull` without the CLI) on a schema with every column type, key
 * and relation kind: the same models, fields, types, keys and relations, on SQLite and
 * PostgreSQL. MySQL/MariaDB, which the wasm engine cannot introspect, is checked for a schema
 * Prisma's validator accepts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaFile } from '#generator/emit/create-prisma-file.js';
import type { ServiceModel, SqlServiceModel } from '#runtime/model/platform-model.js';
import { sqlServiceKinds } from '#runtime/services/sql/sql-service-kinds.js';
import { prismaSchemaError } from '#test/golden/validators.js';
import { prismaIntrospect } from '#test/helpers/prisma-schema-engine.js';
import { prismaSchemaShape } from '#test/helpers/prisma-schema-shape.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';
import { loadTemplates } from '#generator/load-templates.js';

/**
 * Every relation kind: one-to-many with cascade, a self relation with SET NULL, one-to-one (the
 * key is the primary key), many-to-many through a junction with a composite key; a composite
 * unique key, names Prisma cannot take, a table without a key (ignored), a view (left out).
 */
const RELATIONS = `
create table pet (id {bigid}, owner_id integer not null references owner(id) on delete cascade,
  buddy_id {bigref} references pet(id) on delete set null on update cascade, name varchar(40) not null, unique (owner_id, name))
;;
create table passport (owner_id integer primary key references owner(id), number varchar(20) not null)
;;
create table tag (id integer primary key, label text not null unique)
;;
create table pet_tag (pet_id {bigref} not null references pet(id), tag_id integer not null references tag(id), primary key (pet_id, tag_id))
;;
create table "Weird Name" ("Mixed Col" integer primary key, "2nd" text)
;;
create table no_key (a integer, b text)
;;
create view owner_names as select id, name from owner
`;

const SQLITE = `
create table owner (id integer primary key autoincrement, code varchar(8) not null unique, name text not null default 'x', nick char(3),
  small smallint, score integer, big bigint, ratio real, precise double, price decimal(10,2), flag boolean not null default true,
  born date, wake time, seen datetime default current_timestamp, stamp timestamp, doc json, docb jsonb, blob blob, uid uuid,
  spot point, odd geometry, num numeric, untyped, wide int(11))
;;
${RELATIONS.replace(/\{bigid\}/g, 'integer primary key').replace(/\{bigref\}/g, 'integer')}`;

const POSTGRES = `
create domain positive as integer check (value > 0)
;;
create type mood as enum ('happy', 'sad', 'so-so')
;;
create table owner (id serial primary key, code varchar(8) not null unique, name text not null default 'x', nick char(3),
  small smallint, score integer, big bigint, pos positive, ratio real, precise double precision, price numeric(10,2), amount money,
  flag boolean not null default true, born date, wake time, wake_tz timetz, seen timestamp default current_timestamp, seen_tz timestamptz,
  doc json, docb jsonb, uid uuid, blob bytea, tags text[], counts integer[], addr inet, page xml, bits bit(3), varbits bit varying(5),
  spot point, span interval, words tsvector, free varchar, feel mood default 'happy', feels mood not null default 'so-so',
  num numeric, stamp3 timestamp(3), stamp0_tz timestamptz(0), wake3 time(3), letter char, ident oid, short_code varchar(20))
;;
${RELATIONS.replace(/\{bigid\}/g, 'bigserial primary key').replace(/\{bigref\}/g, 'bigint')}`;

const MYSQL = `
create table owner (id int auto_increment primary key, code varchar(8) not null unique, name text not null, nick char(3),
  small smallint, score int, big bigint, ratio float, precise double, price decimal(10,2), flag tinyint(1) not null default 1,
  born date, wake time, seen datetime default current_timestamp, stamp timestamp null, doc json, bin blob, kind enum('a','b'),
  year_made year, updated timestamp not null default current_timestamp on update current_timestamp)
;;
${RELATIONS.replace(/\{bigid\}/g, 'bigint auto_increment primary key')
  .replace(/\{bigref\}/g, 'bigint')
  .replace(/"/g, '`')}`;

const statements = (text: string) =>
  text
    .split(/^\s*;;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '');

function service(type: string, config: Record<string, unknown>): ServiceModel {
  return { id: 9, name: 'db', label: 'Database', type, description: '', is_active: true, config, origin: 'platform', kind: 'plain' };
}

/** Portico's schema.prisma for the database, from its own introspection. */
async function portico(type: string, config: Record<string, unknown>): Promise<string> {
  const kind = sqlServiceKinds.find((k) => k.type === type);
  const model = await kind!.introspect!(service(type, config), { baseDir: os.tmpdir(), resolveEnv: (value) => value });
  return createPrismaFile(model as SqlServiceModel, loadTemplates().prismaSchema);
}

describe('Prisma cross-check on SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-prisma-'));
  const file = path.join(dir, 'cross.sqlite');
  beforeAll(() => {
    const raw = new Database(file);
    for (const statement of statements(SQLITE)) raw.exec(statement);
    raw.close();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('emits a schema Prisma accepts, with the models, fields, types, keys and relations Prisma finds', async () => {
    const ours = await portico('sqlite', { database: file });
    expect(prismaSchemaError(ours)).toBeNull();
    const theirs = await prismaIntrospect('sqlite', file);
    expect(prismaSchemaShape(ours)).toEqual(prismaSchemaShape(theirs));
    expect(Object.keys(prismaSchemaShape(ours))).toEqual(['Weird Name', 'no_key', 'owner', 'passport', 'pet', 'pet_tag', 'tag']);
  });
});

/** Each enum block of a formatted Prisma schema: its value lines, attributes included. */
function enumBlocks(schema: string): Record<string, string[]> {
  const blocks: Record<string, string[]> = {};
  for (const match of schema.matchAll(/^enum (\S+) \{\n([\s\S]*?)^\}/gm)) {
    blocks[match[1]] = match[2]
      .split('\n')
      .map((line) => line.trim().replace(/\s+/g, ' '))
      .filter((line) => line !== '' && !line.startsWith('@@'));
  }
  return blocks;
}

describe.skipIf(!(await requireService('postgres')))('Prisma cross-check on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    for (const statement of statements(POSTGRES)) await client.query(statement);
    await client.end();
  });
  afterAll(async () => database?.drop());

  it('emits a schema Prisma accepts, with the models, fields, types, keys and relations Prisma finds', async () => {
    const ours = await portico('pgsql', { ...database.config });
    expect(prismaSchemaError(ours)).toBeNull();
    const theirs = await prismaIntrospect('postgresql', database.url);
    const shape = prismaSchemaShape(ours);
    expect(shape).toEqual(prismaSchemaShape(theirs));
    expect(shape.owner.fields).toMatchObject({
      tags: 'String[]',
      counts: 'Int[]',
      addr: 'String? @db.Inet',
      spot: 'Unsupported("point")?',
      span: 'Unsupported("interval")?',
      feel: 'mood?',
      feels: 'mood',
    });
    // Enum types become Prisma enums with the same values (mapped where a label is no identifier) and defaults.
    expect(enumBlocks(ours)).toEqual(enumBlocks(theirs));
    expect(enumBlocks(ours).mood).toEqual(['happy', 'sad', 'so_so @map("so-so")']);
    expect(ours).toMatch(/feels\s+mood\s+@default\(so_so\)/);
    expect(shape.pet.relations).toEqual([
      '<- pet[]',
      '<- pet_tag[]',
      'buddy_id -> pet(id) onDelete SetNull onUpdate Cascade',
      'owner_id -> owner(id) onDelete Cascade onUpdate NoAction',
    ]);
  });
});

describe.skipIf(!(await requireService('mysql')))('Prisma schema of MySQL/MariaDB', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    const connection = await mysql.createConnection({ uri: database.url });
    for (const statement of statements(MYSQL)) await connection.query(statement);
    await connection.end();
  });
  afterAll(async () => database?.drop());

  it('emits a schema Prisma accepts, relations included', async () => {
    const ours = await portico('mysql', { ...database.config });
    expect(prismaSchemaError(ours)).toBeNull();
    const shape = prismaSchemaShape(ours);
    expect(shape.owner.fields).toMatchObject({ id: 'Int', flag: 'Boolean', doc: 'Json?', big: 'BigInt?', kind: 'Owner_kind?' });
    // Native types as Prisma documents them for MySQL (its wasm engine cannot introspect MySQL to compare).
    expect(shape.owner.fields).toMatchObject({
      code: 'String @db.VarChar(8)',
      name: 'String @db.Text',
      nick: 'String? @db.Char(3)',
      small: 'Int? @db.SmallInt',
      score: 'Int?',
      ratio: 'Float? @db.Float',
      precise: 'Float?',
      price: 'Decimal? @db.Decimal(10, 2)',
      born: 'DateTime? @db.Date',
      wake: 'DateTime? @db.Time(0)',
      seen: 'DateTime? @db.DateTime(0)',
      stamp: 'DateTime? @db.Timestamp(0)',
      bin: 'Bytes? @db.Blob',
      year_made: 'Int? @db.Year',
    });
    // A text column in a key stays unannotated: MySQL indexes it only by a prefix, which Prisma's @unique cannot state.
    expect(shape.tag.fields.label).toBe('String');
    expect(enumBlocks(ours)).toEqual({ Owner_kind: ['a', 'b'] });
    expect(shape.pet.relations).toEqual([
      '<- pet[]',
      '<- pet_tag[]',
      'buddy_id -> pet(id) onDelete SetNull onUpdate Cascade',
      'owner_id -> owner(id) onDelete Cascade onUpdate Restrict',
    ]);
    expect(shape.pet_tag).toMatchObject({
      id: ['pet_id', 'tag_id'],
      relations: ['pet_id -> pet(id) onDelete Restrict onUpdate Restrict', 'tag_id -> tag(id) onDelete Restrict onUpdate Restrict'],
    });
    expect(shape['Weird Name']).toMatchObject({ id: ['Mixed Col'] });
    expect(shape.no_key.ignored).toBe(true);
  });
});
