/**
 * The MySQL/MariaDB dialect: mysql2 under Kysely. Dates and times come back as the database's
 * text, big integers as numbers while they fit, JSON (MariaDB keeps it as text) as values.
 * Connections run in strict mode and with the service's statement timeout (sessionSettings).
 */
import { Kysely, MysqlDialect, type MysqlPool, sql, type Driver } from 'kysely';
import { createPool, type Pool } from 'mysql2';
import type { FieldModel } from '../../../../model/platform-model.js';
import { decodeJsonText } from '../../query/value-codec.js';
import { alterMysqlTable } from './mysql-alter.js';
import { SQL_CAPABILITIES } from '../dialect-capabilities.js';
import type { SqlConnection, SqlDialectModule } from '../sql-dialect.js';
import { IDLE_CONNECTION_MS, type ServerConnection } from '../server-config.js';
import { mysqlColumnSuffix, mysqlColumnType } from './mysql-column-types.js';
import { lostWhileRunning, translateMysqlError } from './mysql-errors.js';
import { readMysqlCatalog } from './mysql-introspector.js';
import { mysqlRoutines } from './mysql-routines.js';
import { withCause } from '../driver-errors.js';
import { TableSourcePlugin } from '../../query/table-source.js';
import { OutcomeReportingDriver } from '../unknown-outcome.js';
import { answerLimitMs, watchMysqlAnswers } from '../answer-watchdog.js';
import { sqlMessages } from '../../sql-messages.js';

/** A bit(n) value, which mysql2 reads as big-endian bytes: a number, as text beyond 2^53 (as 64-bit integers are). */
const decodeBits = (value: unknown): unknown => {
  if (!(value instanceof Uint8Array)) return value;
  let bits = 0n;
  for (const byte of value) bits = (bits << 8n) | BigInt(byte);
  return bits <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(bits) : bits.toString();
};

export const mysqlDialect: SqlDialectModule = {
  dialect: 'mysql',
  capabilities: SQL_CAPABILITIES.mysql,
  readCatalog: readMysqlCatalog,
  routines: mysqlRoutines,
  columnType: mysqlColumnType,
  columnSuffix: mysqlColumnSuffix,
  // MariaDB takes a literal or CURRENT_TIMESTAMP bare, any other expression in parentheses only ('1+1' was a syntax error, a 400 saying nothing).
  defaultExpression: (expression) =>
    /^(\(.*\)|current_timestamp(\(\d*\))?|now\(\d*\)|null|true|false|[+-]?\d+(\.\d+)?([eE][+-]?\d+)?|'([^']|'')*')$/is.test(
      expression.trim(),
    )
      ? expression
      : `(${expression})`,
  bindBoolean: (value) => (value ? 1 : 0),
  readConverter: (field: FieldModel) =>
    field.type === 'json' ? decodeJsonText : /^bit\(\d+\)$/.test(field.dbType) && field.type !== 'boolean' ? decodeBits : null,
  alterTable: (db, schema, table, changes) => alterMysqlTable(db, schema, table, changes, mysqlDialect),
  translateError: translateMysqlError,
};

/**
 * The session settings of a connection: strict mode, so that bad values fail instead of being
 * truncated; NO_AUTO_VALUE_ON_ZERO, so that a record written with key 0 is stored with key 0 as on
 * PostgreSQL and SQLite, not given the next generated key; and the statement timeout (seconds; 0: none). MariaDB's max_statement_time stops any
 * statement, waiting on a lock included; MySQL's max_execution_time stops reads only, so there its
 * lock wait timeouts (rows, and tables' metadata) bound what writes wait for.
 */
function sessionSettings(timeoutSeconds: number, mariadb: boolean | null): string {
  // div_precision_increment: AVG (and every division) with 30 decimals rather than 4, so that AVG(qty) of
  // 1, 2 and 2 reads 1.6666666666666667 as on PostgreSQL and SQLite, not 1.6667.
  const strict =
    "sql_mode = concat_ws(',', @@session.sql_mode, 'STRICT_ALL_TABLES', 'NO_AUTO_VALUE_ON_ZERO'), div_precision_increment = 30";
  if (timeoutSeconds === 0 || mariadb === null) return `set session ${strict}`;
  return `set session ${strict}, ${timeoutSettings(timeoutSeconds, mariadb)}`;
}

/** The session variables of a statement timeout of `timeoutSeconds` (more than 0) on MariaDB or MySQL (see sessionSettings). */
export function timeoutSettings(timeoutSeconds: number, mariadb: boolean): string {
  return mariadb
    ? `max_statement_time = ${timeoutSeconds}`
    : `max_execution_time = ${timeoutSeconds * 1000}, innodb_lock_wait_timeout = ${timeoutSeconds}, lock_wait_timeout = ${timeoutSeconds}`;
}

/** Whether the server of a connection is MariaDB (its statement timeout differs from MySQL's). */
export async function isMariadb(conn: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ version: string }>`select version() as version`.execute(conn);
  return /mariadb/i.test(rows[0]?.version ?? '');
}

/** A write or commit whose connection is lost says that it may have been stored (unknown-outcome.ts). */
export class OutcomeReportingMysqlDialect extends MysqlDialect {
  override createDriver(): Driver {
    return new OutcomeReportingDriver(super.createDriver(), lostWhileRunning);
  }
}

/**
 * The pool as Kysely takes it, a request's wait for a connection bounded by connection_timeout
 * (connecting, or a free one while every one is busy), after which it answers 503 as PostgreSQL's
 * pool does: mysql2 queued it for as long as the busy ones ran (slow statements held every
 * request for up to their statement timeout). A connection that comes after the wait went back to the pool.
 * A wait while every connection was open and checked out says so (connectionsBusy: the database is
 * up), distinct from one that found the database down or not answering.
 */
function waitBoundedPool(pool: Pool, waitMs: number, allBusy: () => boolean): MysqlPool {
  return {
    getConnection(callback) {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        callback((allBusy() ? sqlMessages.connectionsBusy : sqlMessages.databaseUnavailable).error(), undefined as never);
      }, waitMs);
      pool.getConnection((error, connection) => {
        if (late) {
          if (!error) connection.release();
          return;
        }
        clearTimeout(timer);
        callback(error, connection);
      });
    },
    end: (callback) => pool.end(callback),
  };
}

/**
 * The connections a pool has handed out and not taken back, from its public events: 'acquire' (a
 * connection, only ever an established one, handed out), 'release' (back among the free ones; one
 * passed straight to a queued request stays out), and a connection's 'end' or 'error' (mysql2 drops
 * it from the pool). Every connection the pool may open is busy when `size` reaches its limit.
 */
function checkedOutConnections(pool: Pool): Set<object> {
  const out = new Set<object>();
  pool.on('acquire', (connection) => out.add(connection));
  pool.on('release', (connection) => out.delete(connection));
  pool.on('connection', (connection) => {
    const dropped = () => out.delete(connection);
    connection.once('end', dropped);
    connection.once('error', dropped);
  });
  return out;
}

/** Opens a connection pool on the server's database. */
export async function openMysqlDatabase(server: ServerConnection): Promise<SqlConnection> {
  const pool = createPool({
    host: server.host,
    port: server.port,
    database: server.database,
    user: server.username,
    password: server.password,
    connectionLimit: server.maxConnections,
    connectTimeout: server.connectTimeoutMs,
    idleTimeout: IDLE_CONNECTION_MS,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  const timeoutSeconds = server.statementTimeoutMs / 1000;
  // Which server this is (the timeout settings differ) is known once the first connection has asked.
  let mariadb: boolean | null = null;
  const checkedOut = checkedOutConnections(pool);
  pool.on('connection', (connection) => {
    // A connection that gets no answer at all (a frozen server, a partitioned network) is ended (answer-watchdog.ts).
    watchMysqlAnswers(connection, answerLimitMs(server.statementTimeoutMs));
    connection.query(sessionSettings(timeoutSeconds, mariadb));
  });
  const db = new Kysely<any>({
    dialect: new OutcomeReportingMysqlDialect({
      pool: waitBoundedPool(pool, server.connectTimeoutMs, () => checkedOut.size >= server.maxConnections),
    }),
    plugins: [new TableSourcePlugin()],
  });
  try {
    await db.connection().execute(async (conn) => {
      mariadb = await isMariadb(conn);
      await sql.raw(sessionSettings(timeoutSeconds, mariadb)).execute(conn);
    });
  } catch (error) {
    // Closing reports the connection that failed again (a connect that timed out): the failure to answer is the first one.
    await db.destroy().catch(() => undefined);
    throw withCause(translateMysqlError(error, null), error);
  }
  // A pool some of whose connections broke reports it on closing: they are closed all the same.
  return { db, close: () => db.destroy().catch(() => undefined) };
}
