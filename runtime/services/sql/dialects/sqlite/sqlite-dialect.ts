/** The SQLite dialect: better-sqlite3 under Kysely, with a prepared-statement cache. */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, type DatabaseConnection, type Driver, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { AbstractType, FieldModel } from '../../../../model/platform-model.js';
import { registerDirectRunner, type DirectRunner } from '../../query/run-compiled.js';
import { decodeJsonText } from '../../query/value-codec.js';
import { SQL_CAPABILITIES } from '../dialect-capabilities.js';
import type { SqlConnection, SqlDialectModule } from '../sql-dialect.js';
import { sqliteColumnType } from './sqlite-column-types.js';
import { translateSqliteError } from './sqlite-errors.js';
import { alterSqliteTable } from './sqlite-table-rebuild.js';
import { BusyWaitingDriver, BusyWaitingSqliteDialect, isBusy, whileBusy } from './sqlite-busy.js';
import { readSqliteCatalog } from './sqlite-introspector.js';
import { TableSourcePlugin } from '../../query/table-source.js';
import { withCause } from '../driver-errors.js';

const TEXT_TYPES = new Set<AbstractType>([
  'string',
  'text',
  'uuid',
  'date',
  'time',
  'datetime',
  'timestamp',
  'timestamp_on_create',
  'timestamp_on_update',
]);

/** SQLite's type affinity of a declared column type (https://sqlite.org/datatype3.html 3.1). */
function affinity(dbType: string): 'integer' | 'text' | 'blob' | 'real' | 'numeric' {
  if (dbType.includes('int')) return 'integer';
  if (/char|clob|text/.test(dbType)) return 'text';
  if (dbType === '' || dbType.includes('blob')) return 'blob';
  if (/real|floa|doub/.test(dbType)) return 'real';
  return 'numeric';
}

const numberAsText = (value: unknown) => (typeof value === 'number' ? String(value) : value);

export const sqliteDialect: SqlDialectModule = {
  dialect: 'sqlite',
  capabilities: SQL_CAPABILITIES.sqlite,
  readCatalog: readSqliteCatalog,
  routines: null,
  columnType: sqliteColumnType,
  columnSuffix: () => null,
  // SQLite takes a literal, a signed number or CURRENT_* bare, any other expression in parentheses only.
  defaultExpression: (expression) =>
    /^(current_(timestamp|date|time)|null|true|false|[+-]?\d+(\.\d+)?([eE][+-]?\d+)?|'([^']|'')*')$/is.test(expression.trim())
      ? expression
      : `(${expression})`,
  bindBoolean: (value) => (value ? 1 : 0),
  // JSON is kept as text. A text-typed field whose declared type has numeric affinity (`uuid`,
  // `datetime`) stores digit-only text as a number.
  readConverter: (field: FieldModel) => {
    if (field.type === 'json') return decodeJsonText;
    if (!TEXT_TYPES.has(field.type)) return null;
    const kind = affinity(field.dbType);
    return kind === 'text' || kind === 'blob' ? null : numberAsText;
  },
  alterTable: (db, schema, table, changes) => alterSqliteTable(db, schema, table, changes, sqliteDialect),
  translateError: translateSqliteError,
};

// Kysely's SQLite driver prepares every query again; this cache keeps the statements of recurring SQL text.
const STATEMENT_CACHE_SIZE = 500;

interface CachingDatabase extends SqliteDatabase {
  prepare(sql: string): SqliteStatement & { reader: boolean; all(parameters: readonly unknown[]): unknown[] };
}

/**
 * Integers as PostgreSQL's and MySQL's drivers give them: a number while it is exact, else its
 * text. better-sqlite3 would round a 64-bit integer beyond 2^53 to the nearest double.
 */
function exactIntegers(rows: unknown[]): unknown[] {
  for (const row of rows as Record<string, unknown>[]) {
    for (const key in row) {
      const value = row[key];
      if (typeof value === 'bigint') {
        row[key] = value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
      }
    }
  }
  return rows;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** A constant: `-MAX_SAFE` in the loop made a new BigInt for every integer of every row read. */
const MIN_SAFE = -MAX_SAFE;

/** A reading statement whose integers come back exact (see exactIntegers). */
function readingExactly(statement: Database.Statement): Database.Statement {
  if (!statement.reader) return statement;
  statement.safeIntegers(true);
  const all = statement.all.bind(statement);
  statement.all = ((...parameters: unknown[]) => exactIntegers(all(...parameters))) as typeof statement.all;
  return statement;
}

function cachingDatabase(sqlite: Database.Database): CachingDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => {
      sqlite.close();
    },
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = readingExactly(sqlite.prepare(sql));
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement as unknown as ReturnType<CachingDatabase['prepare']>;
    },
  };
}

/**
 * The busy-waiting driver (sqlite-busy.ts), noting whether its one connection is held (by a
 * transaction, or by a query waiting its turn): while it is not, a statement may run at once (see
 * run-compiled.ts). A transaction waiting to begin does not hold it while it pauses.
 */
class HeldTrackingDriver extends BusyWaitingDriver {
  held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    return connection;
  }
  override releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.held = false;
    return super.releaseConnection(connection);
  }
  protected override pausing(pausing: boolean): void {
    this.held = !pausing;
  }
}

class TrackingSqliteDialect extends BusyWaitingSqliteDialect {
  driver: HeldTrackingDriver | null = null;

  constructor(
    sqlite: Database.Database,
    readonly database: CachingDatabase = cachingDatabase(sqlite),
  ) {
    super(sqlite, database);
  }

  protected override wrap(inner: Driver): BusyWaitingDriver {
    this.driver = new HeldTrackingDriver(inner, this.sqlite);
    return this.driver;
  }
}

/**
 * Opens a SQLite file (created when missing) or `:memory:`, with foreign keys enforced. LIKE keeps
 * SQLite's own case rule (ASCII letters match either case), as the reference platform's SQLite
 * services do: users search an address book with `like 'jo%'` and expect John.
 */
export function openSqliteDatabase(file: string): SqlConnection {
  return connectionOver(new Database(file, { timeout: 0 }), file);
}

/**
 * As openSqliteDatabase, and switches a file to write-ahead logging (readers then never wait for
 * a writer). The switch needs the file to itself: while another connection (another program, a
 * worker) holds a lock, it is tried again after growing pauses without blocking the event loop (as
 * statements are, sqlite-busy.ts), up to BUSY_WAIT_MS; then the open fails with the 503 "The
 * database is busy" (and the next call opens again). better-sqlite3 waited for it synchronously,
 * holding every request of the server for up to five seconds.
 */
export async function openSqliteFile(file: string, options: { wal: boolean }): Promise<SqlConnection> {
  const sqlite = new Database(file, { timeout: 0 });
  if (options.wal && file !== ':memory:') {
    const toWal = () => sqlite.pragma('journal_mode = WAL', { simple: true });
    try {
      try {
        toWal();
      } catch (error) {
        if (!isBusy(error)) throw error;
        await whileBusy(error, toWal);
      }
    } catch (error) {
      // A file that takes no writes (a read-only disk or mount) is served as it is, without the
      // switch: reads go on, and writes answer 503 read-only. Closed, reads answered 503 as well.
      if (!isReadOnly(error)) {
        sqlite.close();
        throw withCause(translateSqliteError(error, null), error);
      }
    }
  }
  return connectionOver(sqlite, file);
}

/** SQLITE_READONLY and its extended codes (the file, the directory or the disk takes no writes). */
const isReadOnly = (error: unknown) => String((error as { code?: unknown }).code).startsWith('SQLITE_READONLY');

function connectionOver(sqlite: Database.Database, file: string): SqlConnection {
  sqlite.pragma('foreign_keys = ON');
  const dialect = new TrackingSqliteDialect(sqlite);
  const db = new Kysely<any>({ dialect, plugins: [new TableSourcePlugin()] });
  const driver = dialect.driver!;
  const database = dialect.database;
  const run: DirectRunner = (sql, parameters) => {
    const statement = database.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  };
  // Outside a transaction only while no one holds the connection; a transaction holds it, so its own statements run at once.
  const runOutside: DirectRunner = (sql, parameters) => {
    if (driver.held) return null;
    try {
      return run(sql, parameters);
    } catch (error) {
      if (!isBusy(error)) throw error;
      // Refused as busy, the statement did nothing: it runs again once the lock is free, while the connection is not held.
      return whileBusy(error, () => (driver.held ? null : run(sql, parameters)));
    }
  };
  registerDirectRunner(db, runOutside, run);
  if (file === ':memory:') return { db, close: () => db.destroy() };
  const watch = watchFile(file);
  return {
    db,
    fileState: watch.state,
    close: () => {
      watch.close();
      return db.destroy();
    },
  };
}

/**
 * Linux's O_PATH (asm-generic's value, which every architecture Node.js runs on uses): a
 * descriptor of the file that reads nothing and holds no locks. Closing any other descriptor of
 * the database file in this process would drop every POSIX lock SQLite holds on it (fcntl(2)),
 * such as a WAL connection's shared lock; closing this one drops none (checked by
 * sqlite-file-watch.test.ts).
 */
const O_PATH = 0o10000000;

/** An O_PATH descriptor of the file at `path`, or null (not Linux, or refused). */
function pathDescriptor(path: string): number | null {
  if (process.platform !== 'linux') return null;
  try {
    return fs.openSync(path, O_PATH);
  } catch {
    return null;
  }
}

/**
 * Whether the file at `path` is still the one opened: a removed database file keeps taking writes
 * that are lost with it, and a file put back in its place (a restored backup) is another one.
 * The file is watched (inotify), and the path looked at again once it changed or vanished (the
 * event comes within a turn of the event loop), or every time where it cannot be watched. A read
 * takes what was seen last. A write (`strict`) looks every time: through a descriptor of the opened
 * file where there is one (an fstat, half the cost of the path's stat, with no path walk), which
 * tells at once whether the file lost a link (removed, or replaced by a rename over it). A move
 * elsewhere keeps the count and is seen once its event came: until then writes go to the moved
 * file, which keeps them. Of the looks Node's API offers, the fstat costs least in all (its Stats
 * object included): the path's `existsSync` misses a file renamed over it, and a readlink of
 * /proc/self/fd/N costs more kernel time than it saves (bench/README.md, seventeenth session, h3).
 */
function watchFile(path: string): { state(strict: boolean): 'same' | 'missing' | 'replaced'; close(): void } {
  let fd = pathDescriptor(path);
  const opened = fd === null ? fs.statSync(path) : fs.fstatSync(fd);
  let links = opened.nlink;
  let look = true;
  let watcher: fs.FSWatcher | null = null;
  const unwatch = () => {
    watcher?.close();
    watcher = null;
  };
  try {
    watcher = fs.watch(path, { persistent: false }, () => {
      look = true;
    });
    watcher.on('error', unwatch);
  } catch {
    watcher = null;
  }
  let last: 'same' | 'missing' | 'replaced' = 'same';
  return {
    state(strict) {
      // Not looking means the last look found the file in place.
      if (!look && watcher !== null && (!strict || (fd !== null && fs.fstatSync(fd).nlink === links))) return last;
      const now = fs.statSync(path, { throwIfNoEntry: false });
      const same = now !== undefined && now.ino === opened.ino && now.dev === opened.dev;
      last = same ? 'same' : now === undefined ? 'missing' : 'replaced';
      if (same) links = now.nlink;
      // Once the opened file is gone from the path, its watch ends with it: keep looking.
      look = last !== 'same';
      return last;
    },
    close() {
      unwatch();
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
