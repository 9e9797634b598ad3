/** The MySQL/MariaDB dialect: defaults, column types and driver errors offline; the catalog on the live server. */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema, TableModel } from '#runtime/model/platform-model.js';
import { mysqlColumnSuffix, mysqlColumnType } from '#runtime/services/sql/dialects/mysql/mysql-column-types.js';
import { mysqlDialect, openMysqlDatabase } from '#runtime/services/sql/dialects/mysql/mysql-dialect.js';
import { translateMysqlError } from '#runtime/services/sql/dialects/mysql/mysql-errors.js';
import { parseMysqlDefault } from '#runtime/services/sql/dialects/mysql/mysql-introspector.js';
import type { SqlConnection } from '#runtime/services/sql/dialects/sql-dialect.js';
import { readDatabaseSchema } from '#runtime/services/sql/schema/database-schema-reader.js';
import { parseField } from '#runtime/services/sql/schema/table-definition.js';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';

describe('parseMysqlDefault', () => {
  it.each<[string | null, string, unknown]>([
    [null, '', null],
    ['NULL', '', null],
    ["'abc'", '', 'abc'],
    ["'it''s'", '', "it's"],
    ['abc', '', 'abc'],
    ['42', '', 42],
    ['1.50', '', 1.5],
    ['current_timestamp()', 'on update current_timestamp()', { expression: 'CURRENT_TIMESTAMP' }],
    ['CURRENT_TIMESTAMP', 'DEFAULT_GENERATED', { expression: 'CURRENT_TIMESTAMP' }],
    ['uuid()', 'DEFAULT_GENERATED', { expression: 'uuid()' }],
  ])('%s (%s)', (text, extra, want) => {
    expect(parseMysqlDefault(text, extra)).toEqual(want);
  });
});

describe('mysqlColumnType', () => {
  it.each<[Record<string, unknown>, string, string | null]>([
    [{ type: 'id' }, 'int(11)', null],
    [{ type: 'string', length: 40 }, 'varchar(40)', null],
    [{ type: 'string', supports_multibyte: true }, 'national varchar(255)', null],
    [{ type: 'boolean' }, 'tinyint(1)', null],
    [{ type: 'money' }, 'decimal(19,4)', null],
    [{ type: 'binary' }, 'varbinary(255)', null],
    [{ type: 'binary', length: 16, fixed_length: true }, 'binary(16)', null],
    [{ type: 'uuid' }, 'char(36)', null],
    [{ type: 'json' }, 'json', null],
    [{ type: 'timestamp_on_update' }, 'timestamp', 'on update CURRENT_TIMESTAMP'],
    [{ type: 'decimal', precision: 8, scale: 3 }, 'decimal(8,3)', null],
  ])('%j -> %s', (definition, type, suffix) => {
    const field = parseField({ name: 'f', ...definition }, 't', 0);
    expect([mysqlColumnType(field), mysqlColumnSuffix(field)]).toEqual([type, suffix]);
  });
});

describe('translateMysqlError', () => {
  const table = {
    name: 'item',
    primaryKey: ['id'],
    fields: [
      { name: 'code', sourceName: 'Code' },
      { name: 'id', sourceName: 'id' },
    ],
  } as unknown as TableModel;
  const error = (errno: number, sqlMessage: string) => Object.assign(new Error(sqlMessage), { code: 'ER', errno, sqlMessage });
  it.each<[Error, number, string]>([
    [error(1062, "Duplicate entry 'x' for key 'Code'"), 409, "Duplicate entry: a record with the same 'code' already exists."],
    [error(1062, "Duplicate entry '1' for key 'PRIMARY'"), 409, "Duplicate entry: a record with the same 'id' already exists."],
    [error(1048, "Column 'Code' cannot be null"), 400, "Field 'code' can not be NULL."],
    [error(1364, "Field 'Code' doesn't have a default value"), 400, "Required field 'code' can not be NULL."],
    [error(1406, "Data too long for column 'Code' at row 1"), 400, "Invalid value for field 'code': the value is too long for the field."],
    [
      error(1366, "Incorrect integer value: 'x' for column `db`.`item`.`Code` at row 1"),
      400,
      "Invalid value for field 'code': not a valid value for the field's type.",
    ],
    [
      error(1264, "Out of range value for column 'Code' at row 1"),
      400,
      "Invalid value for field 'code': the number is out of range for the field.",
    ],
    [
      error(1390, 'Prepared statement contains too many placeholders'),
      400,
      'The request is too large for the database: use fewer filter terms, values, fields or records at once.',
    ],
    [error(3819, "Check constraint 'positive' is violated."), 400, "Check constraint 'positive' failed."],
    [error(1644, 'Stock may not go negative'), 400, 'Stock may not go negative'],
    [
      error(1452, 'Cannot add or update a child row'),
      409,
      'Foreign key constraint failed: a referenced record does not exist, or other records still reference this one.',
    ],
    [error(1050, "Table 'item' already exists"), 409, "A table with name 'item' already exist in the database."],
    [
      error(1045, "Access denied for user 'x'@'localhost'"),
      500,
      "The database refused the service's connection: check its database name, username and password.",
    ],
    [
      error(1049, "Unknown database 'nope'"),
      503,
      "The service's database does not exist on its server (dropped, or not created yet); try again once it is there.",
    ],
    [error(1292, "Truncated incorrect INTEGER value: 'a'"), 400, "Invalid value: not a valid value for the field's type."],
    [
      error(1292, "Incorrect datetime value: 'x' for column `t`.`d` at row 1"),
      400,
      "Invalid value for field 'd': not a valid date or time.",
    ],
    [error(1365, 'Division by 0'), 400, 'Invalid value: it leads to a division by zero.'],
    [
      error(1416, 'Cannot get geometry object from data you send to the GEOMETRY field'),
      400,
      "Invalid value: not a valid value for the field's type.",
    ],
  ])('%s', (thrown, status, message) => {
    expect(translateMysqlError(thrown, table)).toMatchObject({ status, message });
  });
  it('maps connection failures to 503 and leaves others alone', () => {
    expect(
      translateMysqlError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3306'), { code: 'ECONNREFUSED' }), null),
    ).toMatchObject({ status: 503, message: 'The database is unavailable; try again later.' });
    // mysql2's own error of a command given to a connection that is closed: fatal, no code, no errno.
    expect(
      translateMysqlError(Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true }), null),
    ).toMatchObject({ status: 503, message: 'The database is unavailable; try again later.' });
    expect(translateMysqlError(error(1927, 'Connection was killed'), table)).toMatchObject({ status: 503 });
    // Out of memory, of sort memory, of resources, of threads.
    for (const errno of [1037, 1038, 1041, 1135])
      expect(translateMysqlError(error(errno, 'Out of memory'), table)).toMatchObject({
        status: 503,
        message: 'The database is unavailable; try again later.',
      });
    // The server takes no writes (read_only, a replica; InnoDB read-only); 1290 for another option is not that.
    for (const [errno, text] of [
      [1290, 'The MariaDB server is running with the --read-only option so it cannot execute this statement'],
      [1290, 'The MySQL server is running with the --super-read-only option so it cannot execute this statement'],
      [1836, 'Running in read-only mode'],
      [1874, 'InnoDB is in read only mode.'],
    ] as const)
      expect(translateMysqlError(error(errno, text), table)).toMatchObject({
        status: 503,
        message: 'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.',
      });
    expect(
      translateMysqlError(
        error(1290, 'The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement'),
        table,
      ),
    ).toBeNull();
    // The database user's connections all taken: the server's max_user_connections, the user's own.
    for (const [errno, text] of [
      [1203, "User u already has more than 'max_user_connections' active connections"],
      [1226, "User 'u' has exceeded the 'max_user_connections' resource (current value: 1)"],
    ] as const)
      expect(translateMysqlError(error(errno, text), table)).toMatchObject({
        status: 503,
        message: 'The database is unavailable; try again later.',
      });
    expect(translateMysqlError(error(1317, 'Query execution was interrupted'), table)).toMatchObject({
      status: 503,
      message: 'The database is busy; try again.',
    });
    // MariaDB's max_statement_time: an error number mysql2 has no code name for.
    const timedOut = Object.assign(new Error('Query execution was interrupted (max_statement_time exceeded)'), { errno: 1969 });
    expect(translateMysqlError(timedOut, table)).toMatchObject({
      status: 503,
      message: "The database did not finish the statement within the service's statement_timeout; try again later.",
    });
    expect(translateMysqlError(error(1114, "The table 'item' is full"), table)).toMatchObject({
      status: 503,
      message: 'The database has no room left to store the change; try again later.',
    });
    expect(translateMysqlError(error(1234, 'other'), table)).toBeNull();
  });
});

describe.skipIf(!(await requireService('mysql')))('the MySQL/MariaDB catalog', () => {
  let database: TestDatabase;
  let connection: SqlConnection;
  let schema: DatabaseSchema;
  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    const raw = await mysql.createConnection({ uri: database.url, multipleStatements: true });
    await raw.query(`
      create table customer (id int auto_increment primary key, Email varchar(80) not null unique, tier char(1) default 'a',
        created timestamp not null default current_timestamp, changed datetime default current_timestamp on update current_timestamp,
        doc json, kind enum('x','y'), flag tinyint(1) not null default 1, big bigint unsigned);
      create table orders (id int auto_increment primary key, customer_id int not null, total decimal(10,2) not null default 0,
        unique key pair (customer_id, total), constraint fk_orders_customer foreign key (customer_id) references customer(id) on delete cascade);
      create view big_orders as select * from orders where total > 100;`);
    await raw.end();
    connection = await openMysqlDatabase({ ...database.config, maxConnections: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
    schema = await readDatabaseSchema(connection.db, mysqlDialect, false);
  });
  afterAll(async () => {
    await connection?.close();
    await database?.drop();
  });

  it('reads tables and views, columns with types, defaults and keys', () => {
    expect(schema.tables.map((t) => [t.name, t.isView])).toEqual([
      ['big_orders', true],
      ['customer', false],
      ['orders', false],
    ]);
    const customer = schema.tables.find((t) => t.name === 'customer')!;
    expect(customer.fields.map((f) => [f.name, f.sourceName, f.type, f.default, f.allowNull])).toEqual([
      ['id', 'id', 'id', null, false],
      ['email', 'Email', 'string', null, false],
      ['tier', 'tier', 'string', 'a', true],
      ['created', 'created', 'timestamp_on_create', { expression: 'CURRENT_TIMESTAMP' }, false],
      ['changed', 'changed', 'timestamp_on_update', { expression: 'CURRENT_TIMESTAMP' }, true],
      ['doc', 'doc', 'json', null, true],
      ['kind', 'kind', 'string', null, true],
      ['flag', 'flag', 'boolean', true, false],
      ['big', 'big', 'bigint', null, true],
    ]);
    expect(customer.uniqueKeys).toEqual([['email']]);
    const orders = schema.tables.find((t) => t.name === 'orders')!;
    expect(orders.uniqueKeys).toEqual([['customer_id', 'total']]);
    expect(orders.foreignKeys).toEqual([
      {
        name: 'fk_orders_customer',
        fields: ['customer_id'],
        refTable: 'customer',
        refFields: ['id'],
        onUpdate: 'restrict',
        onDelete: 'cascade',
      },
    ]);
    expect(customer.relations.map((r) => r.name)).toEqual(['orders_by_customer_id']);
  });
});
