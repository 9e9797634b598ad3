import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '#runtime/model/platform-model.js';
import { openSqliteDatabase, sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { seedDatabase } from '#runtime/services/sql/dialects/sqlite/sqlite-seed.js';
import { readSeedDirectory } from '#runtime/services/sql/schema/seed-tables.js';
import { readDatabaseSchema } from '#runtime/services/sql/sql-service-kind.js';
import { ADDRESS_BOOK_DIR, tempDir } from '../../sql-test-helpers.js';

const env = tempDir();
const file = path.join(env.dir, 'nested', 'addressbook.sqlite');
let schema: DatabaseSchema;

beforeAll(async () => {
  await seedDatabase(file, readSeedDirectory(ADDRESS_BOOK_DIR));
  const connection = openSqliteDatabase(file);
  schema = await readDatabaseSchema(connection.db, sqliteDialect, false);
  await connection.close();
});
afterAll(env.cleanup);

describe('seedDatabase with the address-book fixture', () => {
  it('creates the four tables and loads every record', () => {
    const raw = new Database(file, { readonly: true });
    const count = (table: string) => (raw.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    expect(['contact', 'contact_info', 'contact_group', 'contact_group_relationship'].map(count)).toEqual([100, 300, 9, 100]);
    expect(raw.prepare('select id, first_name, last_name, twitter from contact where id = 1').get()).toEqual({
      id: 1,
      first_name: 'Jon',
      last_name: 'Yang',
      twitter: '@jon24',
    });
    raw.close();
  });

  it('creates the columns the schema describes', () => {
    const contact = schema.tables.find((t) => t.name === 'contact');
    expect(contact?.fields.map((f) => `${f.name}:${f.type}:${f.dbType}:${f.allowNull}`)).toEqual([
      'id:id:integer:false',
      'first_name:string:varchar(40):false',
      'last_name:string:varchar(40):false',
      'image_url:text:text:true',
      'twitter:string:varchar(18):true',
      'skype:string:varchar(255):true',
      'notes:text:text:true',
    ]);
    const info = schema.tables.find((t) => t.name === 'contact_info');
    expect(info?.fields.find((f) => f.name === 'contact_id')).toMatchObject({
      type: 'reference',
      refTable: 'contact',
      refField: 'id',
      allowNull: false,
    });
    expect(info?.foreignKeys[0]).toMatchObject({ fields: ['contact_id'], onDelete: 'cascade' });
  });

  it('discovers the relations real clients use, many_many included', () => {
    const relations = Object.fromEntries(schema.tables.map((t) => [t.name, t.relations.map((r) => `${r.name}:${r.type}`)]));
    expect(relations).toEqual({
      contact: [
        'contact_group_by_contact_group_relationship:many_many',
        'contact_group_relationship_by_contact_id:has_many',
        'contact_info_by_contact_id:has_many',
      ],
      contact_group: ['contact_by_contact_group_relationship:many_many', 'contact_group_relationship_by_contact_group_id:has_many'],
      contact_group_relationship: ['contact_by_contact_id:belongs_to', 'contact_group_by_contact_group_id:belongs_to'],
      contact_info: ['contact_by_contact_id:belongs_to'],
    });
    const manyMany = schema.tables.find((t) => t.name === 'contact')?.relations[0];
    expect(manyMany).toMatchObject({
      junctionTable: 'contact_group_relationship',
      junctionField: 'contact_id',
      junctionRefField: 'contact_group_id',
    });
  });

  it('removes a database file it created when seeding fails', async () => {
    const bad = path.join(env.dir, 'bad.sqlite');
    const seed = {
      schema: {
        resource: [
          {
            name: 't',
            field: [
              { name: 'id', type: 'id' },
              { name: 'n', type: 'integer' },
            ],
          },
        ],
      },
      data: { table: [{ name: 't', record: [{ n: 1 }, { n: 'many' }] }] },
    };
    await expect(seedDatabase(bad, seed)).rejects.toThrow("Seed record 1 of table 't': Field 'n' must be a valid integer.");
    expect(fs.existsSync(bad)).toBe(false);
  });

  it('rejects data for a table the schema does not create', async () => {
    const seed = { schema: [{ name: 't', field: [{ name: 'id', type: 'id' }] }], data: [{ name: 'other', record: [] }] };
    await expect(seedDatabase(path.join(env.dir, 'other.sqlite'), seed)).rejects.toThrow(
      "Seed data names table 'other', which the seed schema does not create.",
    );
  });

  it('reports a seed directory without schema.json', () => {
    expect(() => readSeedDirectory(env.dir)).toThrow(`Seed directory '${env.dir}' has no schema.json.`);
  });
});
