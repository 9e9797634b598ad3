import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PorticoError } from '#runtime/core/errors.js';
import type { DatabaseSchema, FieldModel } from '#runtime/model/platform-model.js';
import { openSqliteDatabase, sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import type { SqlConnection } from '#runtime/services/sql/dialects/sql-dialect.js';
import { createTables } from '#runtime/services/sql/schema/table-ddl.js';
import { readDatabaseSchema } from '#runtime/services/sql/sql-service-kind.js';
import { tempDir } from '../sql-test-helpers.js';

let env: ReturnType<typeof tempDir>;
let connection: SqlConnection;

beforeEach(() => {
  env = tempDir();
  connection = openSqliteDatabase(path.join(env.dir, 'ddl.sqlite'));
});
afterEach(async () => {
  await connection.close();
  env.cleanup();
});

async function schema(): Promise<DatabaseSchema> {
  return readDatabaseSchema(connection.db, sqliteDialect, false);
}

async function fieldsOf(table: string): Promise<Record<string, FieldModel>> {
  const found = (await schema()).tables.find((t) => t.name === table);
  return Object.fromEntries((found?.fields ?? []).map((f) => [f.name, f]));
}

async function failure(defs: unknown[]): Promise<PorticoError> {
  try {
    await createTables(connection.db, sqliteDialect, defs);
  } catch (error) {
    if (error instanceof PorticoError) return error;
    throw error;
  }
  throw new Error('createTables did not fail');
}

const PARENT = {
  name: 'parent',
  field: [
    { name: 'id', type: 'id' },
    { name: 'code', type: 'string', size: 8, is_unique: true },
  ],
};

describe('createTables: abstract types to SQLite columns and back', () => {
  // [definition, dbType, type read back, allowNull, default]
  it.each([
    [{ type: 'id' }, 'integer', 'id', false, null],
    [{ type: 'string' }, 'varchar(255)', 'string', false, null],
    [{ type: 'string', size: 40, allow_null: true }, 'varchar(40)', 'string', true, null],
    [{ type: 'string', length: 3, fixed_length: true }, 'char(3)', 'string', false, null],
    [{ type: 'string', length: 20, supports_multibyte: true }, 'nvarchar(20)', 'string', false, null],
    [{ type: 'text', allow_null: true }, 'text', 'text', true, null],
    [{ type: 'integer', default: 7 }, 'integer', 'integer', false, 7],
    [{ type: 'bigint' }, 'bigint', 'bigint', false, null],
    [{ type: 'boolean', default: true }, 'boolean', 'boolean', false, true],
    [{ type: 'float' }, 'float', 'float', false, null],
    [{ type: 'double' }, 'double', 'double', false, null],
    [{ type: 'decimal', precision: 10, scale: 2 }, 'decimal(10,2)', 'decimal', false, null],
    [{ type: 'money' }, 'decimal(19,4)', 'decimal', false, null],
    [{ type: 'date' }, 'date', 'date', false, null],
    [{ type: 'time' }, 'time', 'time', false, null],
    [{ type: 'datetime' }, 'datetime', 'datetime', false, null],
    [{ type: 'timestamp', allow_null: true }, 'timestamp', 'timestamp', true, null],
    [{ type: 'timestamp_on_create' }, 'timestamp', 'timestamp_on_create', false, { expression: 'CURRENT_TIMESTAMP' }],
    // SQLite keeps no trace of "on update": it reads back as on-create.
    [{ type: 'timestamp_on_update' }, 'timestamp', 'timestamp_on_create', false, { expression: 'CURRENT_TIMESTAMP' }],
    [{ type: 'json', allow_null: true }, 'json', 'json', true, null],
    [{ type: 'uuid' }, 'uuid', 'uuid', false, null],
    [{ type: 'binary', allow_null: true }, 'blob', 'binary', true, null],
    [{ type: 'string', default: "it's" }, 'varchar(255)', 'string', false, "it's"],
    [
      { type: 'datetime', default: { expression: 'CURRENT_TIMESTAMP' } },
      'datetime',
      'datetime',
      false,
      { expression: 'CURRENT_TIMESTAMP' },
    ],
    [{ db_type: 'varchar(12)' }, 'varchar(12)', 'string', false, null],
    [{ db_type: 'double precision' }, 'double precision', 'double', false, null],
  ])('%j -> %s', async (definition, dbType, type, allowNull, defaultValue) => {
    const key = 'type' in definition && definition.type === 'id' ? [] : [{ name: 'id', type: 'id' }];
    await createTables(connection.db, sqliteDialect, [{ name: 't', field: [...key, { name: 'f', ...definition }] }]);
    expect((await fieldsOf('t')).f).toMatchObject({ dbType, type, allowNull, default: defaultValue });
  });

  it('creates keys, references, unique fields and indexes', async () => {
    const names = await createTables(connection.db, sqliteDialect, [
      {
        name: 'child',
        field: [
          { name: 'id', type: 'pk' },
          { name: 'parent_id', type: 'reference', ref_table: 'parent', ref_fields: 'id', ref_on_delete: 'CASCADE', allow_null: true },
          { name: 'parent_code', type: 'string', size: 8, ref_table: 'parent', ref_field: 'code', ref_on_update: 'set null' },
          { name: 'email', type: 'string', is_unique: true },
          { name: 'last_name', type: 'string', is_index: true },
        ],
      },
      PARENT,
    ]);
    expect(names).toEqual(['child', 'parent']);
    const fields = await fieldsOf('child');
    expect(fields.id).toMatchObject({ type: 'id', isPrimaryKey: true, autoIncrement: true });
    expect(fields.parent_id).toMatchObject({ type: 'reference', refTable: 'parent', refField: 'id', allowNull: true });
    expect(fields.parent_code).toMatchObject({ type: 'string', isForeignKey: true, refTable: 'parent', refField: 'code' });
    expect(fields.email.isUnique).toBe(true);
    const child = (await schema()).tables.find((t) => t.name === 'child');
    expect(child?.foreignKeys.map((fk) => [fk.fields[0], fk.onDelete, fk.onUpdate])).toEqual([
      ['parent_code', 'no action', 'set null'],
      ['parent_id', 'cascade', 'no action'],
    ]);
    const indexes = await sql<{ name: string }>`select name from pragma_index_list('child') order by name`.execute(connection.db);
    expect(indexes.rows.map((r) => r.name)).toContain('ndx_child_last_name');
    // Two keys to the same table make `child` a junction from parent to parent, as a friendship table would be.
    expect((await schema()).tables.find((t) => t.name === 'parent')?.relations.map((r) => `${r.name}:${r.type}`)).toEqual([
      'child_by_parent_code:has_many',
      'child_by_parent_id:has_many',
      'parent_by_child:many_many',
    ]);
  });

  it('makes a composite primary key from several is_primary_key fields', async () => {
    await createTables(connection.db, sqliteDialect, [
      {
        name: 'pair',
        field: [
          { name: 'a', type: 'integer', is_primary_key: true },
          { name: 'b', type: 'string', is_primary_key: true },
        ],
      },
    ]);
    expect((await schema()).tables[0].primaryKey).toEqual(['a', 'b']);
  });

  it('accepts upper-case keys and type names', async () => {
    await createTables(connection.db, sqliteDialect, [
      {
        NAME: 'up',
        FIELD: [
          { Name: 'id', Type: 'ID' },
          { NAME: 'n', TYPE: 'String', SIZE: 5 },
        ],
      },
    ]);
    expect((await fieldsOf('up')).n.dbType).toBe('varchar(5)');
  });
});

describe('createTables: bad definitions', () => {
  it.each([
    [[], 400, 'No data in schema create request.'],
    [[{ field: [{ name: 'a', type: 'string' }] }], 400, 'Table schema received does not have a valid name.'],
    [
      [{ name: 'a.b', field: [{ name: 'a', type: 'string' }] }],
      400,
      "Invalid schema detected - invalid name 'a.b' for a table: a name may not contain '.' (it joins a related table to its field) nor begin or end with a space.",
    ],
    [[{ name: 't' }], 400, "There are no fields in the requested schema of table 't'."],
    [[{ name: 't', field: [{ type: 'string' }] }], 400, "Invalid schema detected - no name element for field 0 of table 't'."],
    [[{ name: 't', field: [{ name: 'a' }] }], 400, "Invalid schema detected - no type or db_type element for field 'a' of table 't'."],
    [
      [{ name: 't', field: [{ name: 'a', db_type: 'int); drop table x; --' }] }],
      400,
      "Invalid schema detected - invalid type 'int); drop table x; --' for field 'a' of table 't'.",
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'id id' }] }],
      400,
      expect.stringMatching(
        /^Invalid schema detected - invalid type 'id id' for field 'a' of table 't': use one of id, bigid, .*, or 'db_type' for a native type\.$/,
      ),
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'double precision' }] }],
      400,
      expect.stringMatching(/^Invalid schema detected - invalid type 'double precision'/),
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'varchar', db_type: 'varchar(20)' }] }],
      400,
      expect.stringMatching(/^Invalid schema detected - invalid type 'varchar'/),
    ],
    [
      [{ name: 'bad"name', field: [{ name: 'a', type: 'string' }] }],
      400,
      "Invalid name for table 'bad\"name': use letters, digits, '_' and '$', starting with a letter or '_'.",
    ],
    [
      [{ name: 't', field: [{ name: "it's", type: 'string' }] }],
      400,
      "Invalid name for field 'it's' of table 't': use letters, digits, '_' and '$', starting with a letter or '_'.",
    ],
    [
      [{ name: 't', field: [{ name: 'nul\u0000x', type: 'string' }] }],
      400,
      "Invalid name for field 'nul\u0000x' of table 't': use letters, digits, '_' and '$', starting with a letter or '_'.",
    ],
    [
      [{ name: 't', field: [{ name: 'tab\tx', type: 'string' }] }],
      400,
      "Invalid name for field 'tab\tx' of table 't': use letters, digits, '_' and '$', starting with a letter or '_'.",
    ],
    [
      [{ name: 't', field: [{ name: '1st', type: 'string' }] }],
      400,
      "Invalid name for field '1st' of table 't': use letters, digits, '_' and '$', starting with a letter or '_'.",
    ],
    [
      [{ name: 'x'.repeat(129), field: [{ name: 'a', type: 'string' }] }],
      400,
      `Invalid name for table '${'x'.repeat(80)}...': at most 128 characters on this database.`,
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'reference' }] }],
      400,
      "Invalid schema detected - no table element for reference type of field 'a' of table 't'.",
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'string', size: 'big' }] }],
      400,
      "Invalid 'length' for field 'a' of table 't': must be a non-negative integer.",
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'string', default: { expression: '1; drop table t' } }] }],
      400,
      `Invalid 'default' for field 'a' of table 't': use a scalar or {"expression": "SQL"}.`,
    ],
    [
      [{ name: 't', field: [{ name: 'a', type: 'reference', ref_table: 'p', ref_on_delete: 'explode' }] }],
      400,
      "Invalid 'ref_on_delete' for field 'a' of table 't': use one of NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT.",
    ],
    [
      [
        {
          name: 't',
          field: [
            { name: 'a', type: 'string' },
            { name: 'A', type: 'text' },
          ],
        },
      ],
      400,
      "Field 'A' already exists in table 't'.",
    ],
  ])('%j -> %i', async (defs, status, message) => {
    const error = await failure(defs);
    expect([error.status, error.message]).toEqual([status, message]);
  });

  it('is 409 for an existing table and creates nothing of a failing request', async () => {
    await createTables(connection.db, sqliteDialect, [PARENT]);
    const error = await failure([{ name: 'fresh', field: [{ name: 'id', type: 'id' }] }, PARENT]);
    expect([error.status, error.message]).toEqual([409, "A table with name 'parent' already exist in the database."]);
    expect((await schema()).tables.map((t) => t.name)).toEqual(['parent']);
  });
});
