/**
 * Opens the system database (a SQLite file, or a PostgreSQL or MySQL/MariaDB database by URL) and
 * brings its schema up to date. On the server databases the connections read flags as 0/1 and
 * JSON columns as text, as SQLite does, so the system layer sees one shape of row everywhere.
 * The PostgreSQL and MySQL drivers load only when the system database is on such a server.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  Kysely,
  MIGRATION_LOCK_ID,
  Migrator,
  MysqlAdapter,
  PostgresAdapter,
  sql,
  type MigrationProvider,
} from 'kysely';
import type pg from 'pg';
import type { PorticoError } from '../../core/errors.js';
import type { SqlDialectModule } from '../../services/sql/dialects/sql-dialect.js';
import { BusyWaitingSqliteDialect } from '../../services/sql/dialects/sqlite/sqlite-busy.js';
import { sqliteDialect } from '../../services/sql/dialects/sqlite/sqlite-dialect.js';
import { answerLimitMs, answerWatchedClient, watchMysqlAnswers } from '../../services/sql/dialects/answer-watchdog.js';
import { sqlMessages } from '../../services/sql/sql-messages.js';
import { systemMessages } from '../system-messages.js';
import { systemMigrations } from './system-migrations.js';
import type { SystemTables } from './system-tables.js';
import { systemDbKind } from './system-db-target.js';

export { type SystemDbKind, systemDbKind, unknownSystemDbScheme } from './system-db-target.js';

export type SystemDb = Kysely<SystemTables>;

/** A store (system database, Redis) unreachable at start: the server prints this one line and exits 1. */
export class StartupError extends Error {}

const provider: MigrationProvider = { getMigrations: async () => systemMigrations };
// Migration names are ASCII; kysely's default (localeCompare) loads ICU's collator, ~10 ms of every start.
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The target as it may be shown: a URL without its password. */
export function describeTarget(target: string): string {
  if (systemDbKind(target) === 'sqlite') return target;
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return target.replace(/:[^:@/]*@/, ':***@');
  }
}

/** The dialects of the server databases, loaded when a system database of their kind opens. */
const serverDialects: { postgres?: SqlDialectModule; mysql?: SqlDialectModule } = {};

/**
 * A server dialect as the system database uses it: a statement stopped at the timeout names
 * PORTICO_SYSTEM_STATEMENT_TIMEOUT, not a service's statement_timeout (the records engine that
 * serves the system resources translates errors through it too).
 */
function systemDialectOf(dialect: SqlDialectModule): SqlDialectModule {
  return {
    ...dialect,
    translateError(error, table) {
      const translated = dialect.translateError(error, table);
      return translated?.message === sqlMessages.statementTimeout.text() ? systemMessages.systemStatementTimeout.error() : translated;
    },
  };
}

/** The records-engine dialect of a system database (or one of its transactions). */
export function systemDialect(db: Kysely<any>): SqlDialectModule {
  const { adapter } = db.getExecutor();
  if (adapter instanceof PostgresAdapter) return serverDialects.postgres!;
  if (adapter instanceof MysqlAdapter) return serverDialects.mysql!;
  return sqliteDialect;
}

/**
 * An error of a system database call that says the database cannot be had (unreachable, its
 * connection lost, busy) as the dialect's 503, its cause kept for the log; null for any other error.
 */
export function systemDatabaseUnavailable(db: Kysely<any>, error: unknown): PorticoError | null {
  const translated = systemDialect(db).translateError(error, null);
  if (translated?.status !== 503) return null;
  translated.cause = error;
  return translated;
}

/** Seconds a system database statement may run, waiting on locks included, unless PORTICO_SYSTEM_STATEMENT_TIMEOUT says otherwise. */
export const DEFAULT_SYSTEM_STATEMENT_TIMEOUT_SECONDS = 30;

/**
 * PORTICO_SYSTEM_STATEMENT_TIMEOUT: whole seconds, 0 for none; the default when unset. Another
 * value stops the server at start with one line.
 */
export function systemStatementTimeout(env: Record<string, string | undefined>): number {
  const text = env.PORTICO_SYSTEM_STATEMENT_TIMEOUT?.trim();
  if (text === undefined || text === '') return DEFAULT_SYSTEM_STATEMENT_TIMEOUT_SECONDS;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new StartupError(`Portico: PORTICO_SYSTEM_STATEMENT_TIMEOUT must be a whole number of seconds (0: none), not '${text}'.`);
  return Number(text);
}

/** A server system database's session: its statement timeout, set up once the first connection is had. */
type PrepareSession = (conn: Kysely<any>) => Promise<void>;

/**
 * Opens (creating the SQLite file when missing; `:memory:` keeps it in memory) and migrates a
 * system database. Instances starting together on one server database migrate once: Kysely's
 * migrator holds a database lock while it runs. On PostgreSQL and MySQL statements stop after
 * `statementTimeoutSeconds` (0: never), as the pgsql/mysql services' do: a row of a system table
 * another session keeps locked must not hold admin requests and logins (and their pooled
 * connections) for ever; and a write whose connection is lost says that it may have been stored.
 */
export async function openSystemDb(target: string, statementTimeoutSeconds = DEFAULT_SYSTEM_STATEMENT_TIMEOUT_SECONDS): Promise<SystemDb> {
  const kind = systemDbKind(target);
  const { db, prepare } =
    kind === 'postgres'
      ? await openPostgres(target, statementTimeoutSeconds)
      : kind === 'mysql'
        ? await openMysql(target, statementTimeoutSeconds)
        : { db: openSqlite(target), prepare: null };
  try {
    await db.connection().execute(async (conn) => prepare?.(conn));
  } catch (error) {
    await db.destroy();
    throw new StartupError(
      `Portico: cannot reach the system database ${describeTarget(target)}: ${(error as Error).message || String(error)}`,
    );
  }
  if (await migrated(db)) return db;
  // Branches developed side by side add migrations out of name order: run whichever have not run.
  const { error, results } = await new Migrator({
    db,
    provider,
    allowUnorderedMigrations: true,
    nameComparator: byCodeUnits,
  }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    await db.destroy();
    // Usually a database that holds another application's tables (`user` exists already): the operator's to fix, in one line.
    throw new StartupError(
      `Portico: cannot set up the system database ${describeTarget(target)}: migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}. Give Portico a database of its own.`,
    );
  }
  return db;
}

/**
 * Whether every migration has run already (every start but the first after an upgrade): one read of
 * Kysely's migration table, where its migrator reads the columns of every table first (a fifth of
 * a SQLite server's start after loading its code). Anything else (no such table yet) is for the migrator.
 */
async function migrated(db: SystemDb): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    const done = new Set(rows.map((row) => row.name));
    return Object.keys(systemMigrations).every((name) => done.has(name));
  } catch {
    return false;
  }
}

/** Opens a SQLite system database; a file that cannot be one (a directory, another kind of file, no permission) stops the start with one line. */
function openSqlite(file: string): SystemDb {
  let sqlite: Database.Database | undefined;
  try {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    sqlite = new Database(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
  } catch (error) {
    sqlite?.close();
    const reason = fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ? 'it is a directory' : (error as Error).message;
    throw new StartupError(`Portico: cannot open the system database ${file}: ${reason}.`);
  }
  // Workers share the file: a lock one of them holds is waited for without blocking the event loop.
  return new Kysely<SystemTables>({ dialect: new BusyWaitingSqliteDialect(sqlite) });
}

const BOOL_OID = 16;
const JSON_OIDS = [114, 3802];
const INT8_OID = 20;

async function openPostgres(url: string, timeoutSeconds: number): Promise<{ db: SystemDb; prepare: null }> {
  const [{ default: pg }, { guardPoolConnections, OutcomeReportingPostgresDialect, postgresDialect }] = await Promise.all([
    import('pg'),
    import('../../services/sql/dialects/postgres/postgres-dialect.js'),
  ]);
  serverDialects.postgres = systemDialectOf(postgresDialect);
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if ((format ?? 'text') === 'text') {
        if (oid === BOOL_OID) return (value: string) => (value === 't' ? 1 : 0);
        if (JSON_OIDS.includes(oid)) return (value: string) => value;
        if (oid === INT8_OID) return (value: string) => Number(value);
      }
      return pg.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
  const pool = new pg.Pool({
    connectionString: url,
    types,
    max: 10,
    connectionTimeoutMillis: 5000,
    // A startup parameter of every connection: it also ends waits on locks other sessions hold.
    ...(timeoutSeconds > 0 ? { statement_timeout: timeoutSeconds * 1000 } : {}),
    // A connection that gets no answer at all (a frozen server, a partitioned network) is ended.
    Client: answerWatchedClient(pg.Client, answerLimitMs(timeoutSeconds * 1000)),
  });
  guardPoolConnections(pool);
  return { db: new Kysely<SystemTables>({ dialect: new OutcomeReportingPostgresDialect({ pool }) }), prepare: null };
}

async function openMysql(url: string, timeoutSeconds: number): Promise<{ db: SystemDb; prepare: PrepareSession }> {
  const [{ createPool }, { isMariadb, mysqlDialect, OutcomeReportingMysqlDialect, timeoutSettings }] = await Promise.all([
    import('mysql2'),
    import('../../services/sql/dialects/mysql/mysql-dialect.js'),
  ]);
  serverDialects.mysql = systemDialectOf(mysqlDialect);
  const pool = createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: 10,
    connectTimeout: 5000,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
    // JSON columns as text, as on SQLite (mysql2 would parse them, MariaDB's too).
    jsonStrings: true,
  });
  // The timeout's settings differ between MariaDB and MySQL: known once the first connection has asked (prepare).
  let timeouts = '';
  pool.on('connection', (connection) => {
    // A connection that gets no answer at all (a frozen server, a partitioned network) is ended.
    watchMysqlAnswers(connection, answerLimitMs(timeoutSeconds * 1000));
    connection.query(`set session sql_mode = concat_ws(',', @@session.sql_mode, 'STRICT_ALL_TABLES')${timeouts}`);
  });
  const prepare: PrepareSession = async (conn) => {
    if (timeoutSeconds === 0) return;
    timeouts = `, ${timeoutSettings(timeoutSeconds, await isMariadb(conn))}`;
    await sql.raw(`set session ${timeouts.slice(2)}`).execute(conn);
  };
  return { db: new Kysely<SystemTables>({ dialect: new OutcomeReportingMysqlDialect({ pool }) }), prepare };
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's date format. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Inserts a row, or (when `update` is given) updates the existing one with the same key, else
 * leaves it: `on conflict` on SQLite and PostgreSQL, `on duplicate key` / `insert ignore` on MySQL.
 */
export async function upsert(
  db: Kysely<any>,
  table: string,
  key: string,
  values: Record<string, unknown>,
  update?: Record<string, unknown>,
): Promise<void> {
  const insert = db.insertInto(table).values(values);
  if (db.getExecutor().adapter instanceof MysqlAdapter) {
    await (update ? insert.onDuplicateKeyUpdate(update) : insert.ignore()).execute();
  } else {
    await insert.onConflict((c) => (update ? c.column(key).doUpdateSet(update) : c.column(key).doNothing())).execute();
  }
}

/**
 * Within a transaction, waits until no other instance holds the start-up lock (the row Kysely's
 * migrator locks on server databases), so that instances starting together seed once. SQLite
 * transactions are exclusive already.
 */
export async function lockForStartup(trx: Kysely<any>): Promise<void> {
  if (systemDialect(trx) === sqliteDialect) return;
  await trx.selectFrom(DEFAULT_MIGRATION_LOCK_TABLE).select('id').where('id', '=', MIGRATION_LOCK_ID).forUpdate().execute();
}

/** Whether a driver error is a unique-key violation, on any of the system database kinds. */
export function isUniqueViolation(error: unknown): boolean {
  const { code } = error as { code?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'ER_DUP_ENTRY';
}
