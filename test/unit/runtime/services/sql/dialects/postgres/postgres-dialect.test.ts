/** The PostgreSQL dialect: defaults, column types and driver errors offline; the catalog and routines on the live server. */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseSchema, TableModel } from '#runtime/model/platform-model.js';
import { postgresColumnType } from '#runtime/services/sql/dialects/postgres/postgres-column-types.js';
import { openPostgresDatabase, postgresDialect } from '#runtime/services/sql/dialects/postgres/postgres-dialect.js';
import { translatePostgresError } from '#runtime/services/sql/dialects/postgres/postgres-errors.js';
import { parsePostgresDefault } from '#runtime/services/sql/dialects/postgres/postgres-introspector.js';
import type { SqlConnection } from '#runtime/services/sql/dialects/sql-dialect.js';
import { readDatabaseSchema } from '#runtime/services/sql/schema/database-schema-reader.js';
import { parseField } from '#runtime/services/sql/schema/table-definition.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

describe('parsePostgresDefault', () => {
  it.each<[string | null, unknown]>([
    [null, null],
    ["'abc'::character varying", 'abc'],
    ["'it''s'::text", "it's"],
    ['NULL::character varying', null],
    ['42', 42],
    ["'-1'::integer", '-1'],
    ['(-1)', -1],
    ['1.5', 1.5],
    ['true', true],
    ['CURRENT_TIMESTAMP', { expression: 'CURRENT_TIMESTAMP' }],
    ['now()', { expression: 'now()' }],
    ["'2024-01-01'::date", '2024-01-01'],
    ['gen_random_uuid()', { expression: 'gen_random_uuid()' }],
  ])('%s', (text, want) => {
    expect(parsePostgresDefault(text)).toEqual(want);
  });
});

describe('postgresColumnType', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ type: 'id' }, 'serial'],
    [{ type: 'bigid' }, 'bigserial'],
    [{ type: 'reference', ref_table: 't' }, 'integer'],
    [{ type: 'string' }, 'varchar(255)'],
    [{ type: 'string', length: 3, fixed_length: true }, 'char(3)'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'money' }, 'money'],
    [{ type: 'binary' }, 'bytea'],
    [{ type: 'float' }, 'real'],
    [{ type: 'double' }, 'double precision'],
    [{ type: 'datetime' }, 'timestamp'],
    [{ type: 'timestamptz' }, 'timestamp with time zone'],
    [{ type: 'decimal', precision: 10, scale: 2 }, 'numeric(10,2)'],
    [{ type: 'json' }, 'json'],
    [{ type: 'uuid' }, 'uuid'],
    [{ type: 'array' }, 'text[]'],
    [{ type: 'timestamp_on_update' }, 'timestamp'],
    [{ db_type: 'character varying', length: 30 }, 'character varying(30)'],
    [{ db_type: 'int4[]' }, 'int4[]'],
  ])('%j -> %s', (definition, want) => {
    expect(postgresColumnType(parseField({ name: 'f', ...definition }, 't', 0))).toBe(want);
  });
});

describe('translatePostgresError', () => {
  const table = { name: 'item', fields: [{ name: 'code', sourceName: 'Code' }] } as unknown as TableModel;
  const pgError = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`pg ${code}`), { code, ...extra });
  it.each<[Error, number, string]>([
    [
      pgError('23505', { detail: 'Key ("Code")=(x) already exists.' }),
      409,
      "Duplicate entry: a record with the same 'code' already exists.",
    ],
    [pgError('23502', { column: 'Code' }), 400, "Field 'code' can not be NULL."],
    [
      pgError('23503'),
      409,
      'Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.',
    ],
    [pgError('22P02'), 400, "Invalid value: not a valid value for the field's type."],
    [pgError('22021', { column: 'Code' }), 400, "Invalid value for field 'code': the text holds characters the database can not store."],
    [pgError('22003'), 400, 'Invalid value: the number is out of range for the field.'],
    [pgError('54001'), 400, 'The request is too large for the database: use fewer filter terms, values, fields or records at once.'],
    [
      pgError('08P01', { message: 'bind message has 4464 parameter formats but 0 parameters' }),
      400,
      'The request is too large for the database: use fewer filter terms, values, fields or records at once.',
    ],
    [pgError('23514', { constraint: 'positive' }), 400, "Check constraint 'positive' failed."],
    [pgError('P0001', { message: 'Stock may not go negative' }), 400, 'Stock may not go negative'],
    [pgError('42P07', { message: 'relation "item" already exists' }), 409, "A table with name 'item' already exist in the database."],
    [pgError('40P01'), 409, 'The records were changed concurrently; try again.'],
    [pgError('57014', { message: 'canceling statement due to user request' }), 503, 'The database is busy; try again.'],
    [
      pgError('57014', { message: 'canceling statement due to statement timeout' }),
      503,
      "The database did not finish the statement within the service's statement_timeout; try again later.",
    ],
    [pgError('53100'), 503, 'The database has no room left to store the change; try again later.'],
    // Out of (shared) memory, a configuration limit, an I/O error of the server's disk.
    [pgError('53200', { message: 'out of shared memory' }), 503, 'The database is unavailable; try again later.'],
    [pgError('53400'), 503, 'The database is unavailable; try again later.'],
    [pgError('58030', { message: 'could not write to file' }), 503, 'The database is unavailable; try again later.'],
    // A hot standby (or default_transaction_read_only): cannot execute INSERT in a read-only transaction.
    [pgError('25006'), 503, 'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.'],
    [pgError('ECONNREFUSED'), 503, 'The database is unavailable; try again later.'],
    [pgError('08006'), 503, 'The database is unavailable; try again later.'],
    [new Error('Connection terminated unexpectedly'), 503, 'The database is unavailable; try again later.'],
    [new Error('Client has encountered a connection error and is not queryable'), 503, 'The database is unavailable; try again later.'],
    [new Error('timeout exceeded when trying to connect'), 503, 'The database is unavailable; try again later.'],
    [pgError('28P01'), 500, "The database refused the service's connection: check its database name, username and password."],
    [
      pgError('3D000'),
      503,
      "The service's database does not exist on its server (dropped, or not created yet); try again once it is there.",
    ],
    [pgError('2BP01'), 409, 'Other database objects (views, foreign keys) depend on what the change drops: drop them first.'],
    [pgError('22012'), 400, 'Invalid value: it leads to a division by zero.'],
    // Other data exceptions: invalid XML content, a bit string of the wrong length, a reversed range.
    [pgError('2200N'), 400, "Invalid value: not a valid value for the field's type."],
    [pgError('22026', { column: 'Code' }), 400, "Invalid value for field 'code': not a valid value for the field's type."],
    [pgError('22000'), 400, "Invalid value: not a valid value for the field's type."],
    [
      pgError('42883', { message: 'could not identify an ordering operator for type json' }),
      400,
      'The database can not compare, order or group the values of a field of this type.',
    ],
  ])('%s', (error, status, message) => {
    expect(translatePostgresError(error, table)).toMatchObject({ status, message });
  });
  it('leaves other errors alone', () => {
    expect(translatePostgresError(pgError('XX000'), table)).toBeNull();
    expect(translatePostgresError(new Error('plain'), table)).toBeNull();
  });
});

describe.skipIf(!(await requireService('postgres')))('the PostgreSQL catalog', () => {
  let database: TestDatabase;
  let connection: SqlConnection;
  let schema: DatabaseSchema;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`
      create schema sales;
      create table sales.customer (id serial primary key, "Email" varchar(80) not null, tier char(1) default 'a', created timestamptz default now(),
        big bigint, flags bit(3), unique ("Email"));
      create table sales."Order" (id bigint generated always as identity primary key, customer_id integer not null references sales.customer(id) on delete cascade,
        total numeric(10,2) not null default 0, tags text[]);
      create unique index order_pair on sales."Order" (customer_id, total);
      create view sales.big_orders as select * from sales."Order" where total > 100;
      create table public.elsewhere (id integer primary key);
      create function sales.add(a integer, b integer default 2) returns integer language sql as 'select a + b';
      create function sales.add(a text) returns text language sql as 'select a';
      create procedure sales.noop() language sql as 'select 1';
      create table sales."Thing" (id serial primary key, n integer);`);
    await client.end();
    connection = await openPostgresDatabase(
      { ...database.config, maxConnections: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 },
      'sales',
    );
    schema = await readDatabaseSchema(connection.db, postgresDialect, false);
  });
  afterAll(async () => {
    await connection?.close();
    await database?.drop();
  });

  it('reads the tables and views of the service schema only', () => {
    expect(schema.tables.map((t) => [t.name, t.sourceName, t.isView])).toEqual([
      ['big_orders', 'big_orders', true],
      ['customer', 'customer', false],
      ['order', 'Order', false],
      ['thing', 'Thing', false],
    ]);
  });

  it('reads columns with types, defaults, identity and keys', () => {
    const customer = schema.tables.find((t) => t.name === 'customer')!;
    expect(customer.fields.map((f) => [f.name, f.sourceName, f.type, f.dbType, f.default, f.allowNull])).toEqual([
      ['id', 'id', 'id', 'integer', null, false],
      ['email', 'Email', 'string', 'character varying(80)', null, false],
      ['tier', 'tier', 'string', 'character(1)', 'a', true],
      ['created', 'created', 'timestamp_on_create', 'timestamp with time zone', { expression: 'now()' }, true],
      ['big', 'big', 'bigint', 'bigint', null, true],
      ['flags', 'flags', 'string', 'bit(3)', null, true],
    ]);
    expect(customer.uniqueKeys).toEqual([['email']]);
    const order = schema.tables.find((t) => t.name === 'order')!;
    expect(order.fields.find((f) => f.name === 'id')).toMatchObject({ type: 'bigid', autoIncrement: true });
    expect(order.fields.find((f) => f.name === 'tags')).toMatchObject({ type: 'array', dbType: 'text[]' });
    expect(order.uniqueKeys).toEqual([['customer_id', 'total']]);
    expect(order.foreignKeys).toEqual([
      {
        name: 'Order_customer_id_fkey',
        fields: ['customer_id'],
        refTable: 'customer',
        refFields: ['id'],
        onUpdate: 'no action',
        onDelete: 'cascade',
      },
    ]);
    expect(customer.relations.map((r) => [r.name, r.type])).toEqual([['order_by_customer_id', 'has_many']]);
  });

  it('reads routines (of overloads the oldest) with their parameters', () => {
    expect(schema.routines).toEqual([
      {
        name: 'add',
        sourceName: 'add',
        kind: 'function',
        returnType: 'integer',
        params: [
          { name: 'a', position: 1, mode: 'IN', dbType: 'integer' },
          { name: 'b', position: 2, mode: 'IN', dbType: 'integer', defaulted: true },
        ],
      },
      { name: 'noop', sourceName: 'noop', kind: 'procedure', returnType: null, params: [] },
    ]);
  });

  it('works in the service schema: unqualified statements find its tables', async () => {
    const result = await postgresDialect.routines!.call(connection.db, schema.routines[0], new Map([['a', 40]]));
    expect(result.value).toBe(42);
  });

  it('moves a sequence past a key given explicitly (mixed-case table names included)', async () => {
    const thing = schema.tables.find((t) => t.name === 'thing')!;
    await sql`insert into "Thing" (id, n) values (10, 1)`.execute(connection.db);
    await postgresDialect.afterExplicitKey!(connection.db, thing, thing.fields[0]);
    const { rows } = await sql<{ id: number }>`insert into "Thing" (n) values (2) returning id`.execute(connection.db);
    expect(rows).toEqual([{ id: 11 }]);
  });

  it('never moves a sequence back: ids of deleted rows and ids another session took stay used', async () => {
    const thing = schema.tables.find((t) => t.name === 'thing')!;
    const next = async () => (await sql<{ id: number }>`insert into "Thing" (n) values (3) returning id`.execute(connection.db)).rows[0].id;
    const first = await next();
    const second = await next();
    const third = await next();
    await sql`delete from "Thing" where id in (${second}, ${third})`.execute(connection.db);
    await sql`insert into "Thing" (id, n) values (${second}, 4)`.execute(connection.db);
    await postgresDialect.afterExplicitKey!(connection.db, thing, thing.fields[0]);
    expect(await next()).toBe(third + 1);
    expect(first).toBeLessThan(second);
  });

  it('works in a schema whose name needs quoting (set at connection start)', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`create schema "Sales Team"; create type "Sales Team".stage as enum ('new', 'won', 'it''s lost');
      create table "Sales Team".lead (id integer primary key, stage "Sales Team".stage)`);
    await client.end();
    const team = await openPostgresDatabase(
      { ...database.config, maxConnections: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 },
      'Sales Team',
    );
    try {
      expect((await sql<{ schema: string }>`select current_schema() as schema`.execute(team.db)).rows).toEqual([{ schema: 'Sales Team' }]);
      const [lead] = (await readDatabaseSchema(team.db, postgresDialect, false)).tables;
      expect(lead.name).toBe('lead');
      // An enum column is a string with its values as the picklist.
      expect(lead.fields[1]).toMatchObject({ type: 'string', picklist: ['new', 'won', "it's lost"] });
    } finally {
      await team.close();
    }
  });

  it('keeps an idle connection for a minute: traffic with pauses of seconds finds its connections (and their prepared statements) open', async () => {
    // The pool sweeps its idle connections on an interval (postgres-pool.ts): the test runs the clock forward instead of waiting.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const pooled = await openPostgresDatabase(
      { ...database.config, maxConnections: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 },
      'sales',
    );
    const backend = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(pooled.db)).rows[0].pid;
    try {
      const first = await backend();
      vi.advanceTimersByTime(30_000);
      expect(await backend()).toBe(first);
      // Closed between its minute and one sweep (5 s) later.
      vi.advanceTimersByTime(66_000);
      expect(await backend()).not.toBe(first);
    } finally {
      vi.useRealTimers();
      await pooled.close();
    }
  });

  it('refuses a schema that does not exist', async () => {
    await expect(
      openPostgresDatabase({ ...database.config, maxConnections: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 }, 'nope'),
    ).rejects.toThrow(`Schema 'nope' does not exist in PostgreSQL database '${database.name}'.`);
  });
});
