/**
 * The PostgreSQL dialect: node-postgres under Kysely. Connections use the service's schema as
 * their search path; dates and times come back as the database's text, 64-bit integers as
 * numbers while they fit, JSON as values.
 */
import { Kysely, PostgresDialect, sql, type Driver, type QueryResult } from 'kysely';
import pg from 'pg';
import { InternalServerError } from '../../../../core/errors.js';
import { alterPostgresTable } from './postgres-alter.js';
import { SQL_CAPABILITIES } from '../dialect-capabilities.js';
import type { SqlConnection, SqlDialectModule } from '../sql-dialect.js';
import { IDLE_CONNECTION_MS, type ServerConnection } from '../server-config.js';
import { postgresColumnType } from './postgres-column-types.js';
import { lostWhileRunning, translatePostgresError } from './postgres-errors.js';
import { readPostgresCatalog } from './postgres-introspector.js';
import { postgresRoutines } from './postgres-routines.js';
import { registerDirectRunner, registerStalePlanCount } from '../../query/run-compiled.js';
import { DEFAULT_MAX_PREPARED, preparingClient, type SchemaGeneration } from './postgres-prepared.js';
import { withCause } from '../driver-errors.js';
import { TableSourcePlugin } from '../../query/table-source.js';
import { mayStore, OutcomeReportingDriver, outcomeUnknown } from '../unknown-outcome.js';
import { answerLimitMs, answerWatchedClient } from '../answer-watchdog.js';
import { BusyExplainingPool } from './postgres-pool.js';

const asText = (value: string) => value;
const int8 = (value: string) => {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
};
/** node-postgres's parser of text[] (oid 1009, which its TypeId type leaves out). */
const textArray = (pg.types.getTypeParser as (oid: number, format: 'text') => (value: string) => unknown)(1009, 'text');
/** Each element of a (nested) array of texts, null kept. */
const eachText = (convert: (text: string) => unknown) => {
  const walk = (item: unknown): unknown => (Array.isArray(item) ? item.map(walk) : item === null ? null : convert(item as string));
  return walk;
};
/** int8[] elements as a scalar int8 reads (node-postgres gave them all as text). */
const int8Array = (value: string) => eachText(int8)(textArray(value));
/**
 * float4 and float8 as numbers, but NaN, Infinity and -Infinity as PostgreSQL writes them (and
 * its to_json): JSON has no number for them (JSON.stringify wrote null, as for SQL NULL, and the
 * compiled by-id serialiser threw on NaN).
 */
const float = (value: string) => {
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
};
const floatArray = (value: string) => eachText(float)(textArray(value));
/**
 * date, time, timestamp, timestamptz, timetz, interval: as PostgreSQL writes them, alone and in
 * arrays (node-postgres made Dates of array elements, losing microseconds); int8 as a number;
 * numeric[] as its elements' texts (node-postgres made doubles of them, losing digits), which the
 * value codec reads as it reads a numeric; int8[] elements as int8 is read; float4, float8 and
 * their arrays as `float` reads them.
 */
const PARSERS = new Map<number, (value: string) => unknown>([
  [1082, asText],
  [1083, asText],
  [1114, asText],
  [1184, asText],
  [1266, asText],
  [1186, asText],
  [1182, textArray],
  [1183, textArray],
  [1115, textArray],
  [1185, textArray],
  [1270, textArray],
  [1187, textArray],
  [1231, textArray],
  [20, int8],
  [1016, int8Array],
  [700, float],
  [701, float],
  [1021, floatArray],
  [1022, floatArray],
]);
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    (format ?? 'text') === 'text' && PARSERS.has(oid) ? PARSERS.get(oid) : pg.types.getTypeParser(oid, format),
} as pg.CustomTypesConfig;

/**
 * An array of a type node-postgres has no parser for (an enum's, a domain's, a range's) comes as
 * PostgreSQL's array text (`{sad,happy}`): read as text[] is, an array of the elements' texts.
 */
const decodeArrayText = (value: unknown): unknown => (typeof value === 'string' && value.startsWith('{') ? textArray(value) : value);

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export const postgresDialect: SqlDialectModule = {
  dialect: 'postgres',
  capabilities: SQL_CAPABILITIES.postgres,
  readCatalog: readPostgresCatalog,
  routines: postgresRoutines,
  columnType: postgresColumnType,
  columnSuffix: () => null,
  // A serial or identity column given a value leaves its sequence behind: move it past the largest value,
  // never back (values other sessions took and have not committed yet, or ids of deleted rows, stay used).
  afterExplicitKey: async (db, table, field) => {
    const column = sql.id(field.sourceName);
    // The table argument is read as SQL (case-folded unless quoted); the column argument is not.
    await sql`select setval(seq, greatest((select coalesce(max(${column}), 0) + 1 from ${sql.id(table.sourceName)}),
        coalesce(pg_sequence_last_value(seq::regclass) + 1, 1)), false)
      from (select pg_get_serial_sequence(${quoteIdentifier(table.sourceName)}, ${field.sourceName}) as seq) as serial`.execute(db);
  },
  bindBoolean: (value) => value,
  readConverter: (field) => (field.type === 'array' ? decodeArrayText : null),
  alterTable: (db, schema, table, changes) => alterPostgresTable(db, schema, table, changes, postgresDialect),
  translateError: translatePostgresError,
};

/**
 * Runs one statement on a connection of the pool. A statement the server refused (a duplicate key,
 * say) leaves the connection and its prepared statements in the pool, where pool.query() would
 * close it; a broken connection is closed. (Callbacks are anonymous: no per-request named closures.)
 */
function runOnPool(pool: pg.Pool, text: string, values: unknown[]): Promise<QueryResult<unknown>> {
  // One promise, settled with Kysely's result: no second promise and reaction to map the driver's.
  return new Promise((resolve, reject) =>
    pool.connect((error, client, release) => {
      if (error || !client) return reject(error);
      client.query(text, values, (queryError, result) => {
        release(queryError instanceof pg.DatabaseError ? undefined : (queryError ?? undefined));
        if (queryError) reject(mayStore(text) && lostWhileRunning(queryError) ? outcomeUnknown(queryError) : queryError);
        else resolve({ rows: result.rows, numAffectedRows: result.rowCount === null ? undefined : BigInt(result.rowCount) });
      });
    }),
  );
}

/** An error message of the server that ends the session: FATAL or PANIC, or an operator's (57P01 pg_terminate_backend, 57P02, 57P03). */
function endsSession(message: { severity?: string; code?: string }): boolean {
  return message.severity === 'FATAL' || message.severity === 'PANIC' || message.code?.startsWith('57P') === true;
}

/**
 * Makes a pool's connections safe to keep. An idle connection the server drops must not crash the
 * process; nor may one that breaks while checked out (the pool listens only to idle ones): its
 * statement fails with the error instead. A session the server ends while a statement runs
 * (pg_terminate_backend, idle_session_timeout, a shutdown) fails that statement with the server's
 * error before the socket closes: node-postgres still takes the connection for usable, and the pool
 * would hand it to the next statement (the next record of a batch, a request waiting for a
 * connection), which would fail as lost. Such a connection is ended at once, so the pool drops it
 * when it is released. (Listeners are set once per connection: nothing per statement.)
 */
export function guardPoolConnections(pool: pg.Pool): void {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // Ahead of the client's own listener, which hands the error to the statement (and the connection back to the pool).
    (client as unknown as { connection: NodeJS.EventEmitter }).connection.prependListener(
      'errorMessage',
      (message: { severity?: string; code?: string }) => {
        if (endsSession(message)) client.end().catch(() => undefined);
      },
    );
  });
}

/** A write or commit whose connection is lost says that it may have been stored (unknown-outcome.ts). */
export class OutcomeReportingPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new OutcomeReportingDriver(super.createDriver(), lostWhileRunning);
  }
}

/** Opens a pool on the server; every connection works in `schema` (which must exist). */
export async function openPostgresDatabase(server: ServerConnection, schema: string): Promise<SqlConnection> {
  const generation: SchemaGeneration = { value: 0 };
  const pool = new BusyExplainingPool({
    host: server.host,
    port: server.port,
    database: server.database,
    user: server.username,
    password: server.password,
    max: server.maxConnections,
    // Without it a server that accepts and never answers, or a pool whose connections all hang, holds requests for ever
    // (postgres-pool.ts: a timer only while a connection is opened or waited for).
    connectionTimeoutMillis: server.connectTimeoutMs,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    // A startup parameter of every connection (0: none): it also ends waits on locks other sessions hold.
    ...(server.statementTimeoutMs > 0 ? { statement_timeout: server.statementTimeoutMs } : {}),
    types,
    // A connection that gets no answer at all (a frozen server, a partitioned network) is ended (answer-watchdog.ts).
    Client: answerWatchedClient(preparingClient(DEFAULT_MAX_PREPARED, generation), answerLimitMs(server.statementTimeoutMs)),
    // The schema is a startup parameter: no extra query races the first one on a new connection.
    // In `options`, spaces and backslashes are escaped with a backslash (libpq).
    options: `-c search_path=${quoteIdentifier(schema).replace(/[\\ ]/g, '\\$&')}`,
  });
  guardPoolConnections(pool);
  const db = new Kysely<any>({ dialect: new OutcomeReportingPostgresDialect({ pool }), plugins: [new TableSourcePlugin()] });
  // Precompiled statements go straight to the pool (a transaction has its own Kysely instance and client).
  registerDirectRunner(db, (text, parameters) => runOnPool(pool, text, parameters as unknown[]));
  registerStalePlanCount(db, () => generation.staleInTransaction ?? 0);
  try {
    const found = await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
    if (found.rows[0].n === 0)
      throw new InternalServerError(`Schema '${schema}' does not exist in PostgreSQL database '${server.database}'.`);
  } catch (error) {
    // Closing may report the connection that failed again: the failure to answer is the first one (as openMysqlDatabase).
    await db.destroy().catch(() => undefined);
    throw withCause(translatePostgresError(error, null), error);
  }
  return {
    db,
    close: () => db.destroy(),
    schemaChanged: () => {
      generation.value++;
    },
  };
}
