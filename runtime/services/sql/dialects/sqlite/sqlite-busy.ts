/**
 * Waiting for a SQLite file another connection (another process, another worker) has locked,
 * without blocking the event loop. better-sqlite3 waits in busy_timeout synchronously: a write
 * waiting on another process's lock held the whole server, every other request included, for up
 * to five seconds. Connections are opened with no busy timeout instead, and a statement refused
 * as busy that did nothing (see BusyWaitingConnection) is tried again after a growing pause, up
 * to the same five seconds in all; then its SQLITE_BUSY error stands (503 "The database is busy").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase } from 'kysely';

/** How long a statement waits, in all, for a lock another connection holds (better-sqlite3's default busy timeout). */
export const BUSY_WAIT_MS = 5000;
const LONGEST_PAUSE_MS = 50;

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_RECOVERY, ...): another connection holds a lock this statement needs. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Tries `attempt` again while it fails as busy, pausing 1, 2, 4 ... up to 50 ms between tries,
 * until BUSY_WAIT_MS after `first` (the busy error of the first try); then throws the last busy
 * error. `attempt` returning null means "not now" (the connection is taken): it pauses again.
 * `onPause(true)` is called before each pause, `onPause(false)` after it.
 */
export async function whileBusy<T>(first: unknown, attempt: () => T | Promise<T> | null, onPause?: (pausing: boolean) => void): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  let last = first;
  for (let pause = 1; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const left = deadline - Date.now();
    if (left <= 0) throw last;
    onPause?.(true);
    try {
      await sleep(Math.min(pause, left));
    } finally {
      onPause?.(false);
    }
    try {
      const result = await attempt();
      if (result !== null) return result;
    } catch (error) {
      if (!isBusy(error)) throw error;
      last = error;
    }
  }
}

/** Whether a statement's text is COMMIT: one refused as busy leaves its transaction open, to be committed again. */
const COMMIT = /^\s*(commit|end)\b/i;

/**
 * A connection whose statements, refused as busy, run again once the lock is free: a statement
 * outside a transaction (SQLite undid all of it, and took no lock), `begin immediate` (the same)
 * and COMMIT. A statement inside a transaction is not: its transaction ends with the error, and
 * nothing of it is stored.
 */
export class BusyWaitingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly inTransaction: () => boolean,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const again = !this.inTransaction() || COMMIT.test(compiled.sql);
    try {
      return await this.inner.executeQuery<R>(compiled);
    } catch (error) {
      if (!again || !isBusy(error)) throw error;
      return whileBusy(error, () => this.inner.executeQuery<R>(compiled));
    }
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

const BEGIN = CompiledQuery.raw('begin immediate');

/**
 * Kysely's SQLite driver, its statements on a BusyWaitingConnection and its transactions taking
 * the write lock when they begin (`begin immediate`): a deferred transaction that has read cannot
 * wait for the lock without starting again. `pausing` is told when a transaction waiting to begin
 * pauses (true) and tries again (false): meanwhile its connection is in no transaction.
 */
export class BusyWaitingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly sqlite: BetterSqlite3.Database,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new BusyWaitingConnection(await this.inner.acquireConnection(), () => this.sqlite.inTransaction);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const inner = (connection as BusyWaitingConnection).inner;
    try {
      await inner.executeQuery(BEGIN);
    } catch (error) {
      if (!isBusy(error)) throw error;
      await whileBusy(
        error,
        () => inner.executeQuery(BEGIN),
        (pausing) => this.pausing(pausing),
      );
    }
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite ends the transaction itself on some errors (SQLITE_FULL, an I/O error, out of
    // memory): a ROLLBACK then fails ('no transaction is active'), and its error took the place of
    // the one that said what happened (a full disk answered 500 instead of 503).
    if (!this.sqlite.inTransaction) return;
    await this.inner.rollbackTransaction(connection);
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
  protected pausing(_pausing: boolean): void {}
}

/**
 * Kysely's SQLite dialect on a BusyWaitingDriver (or a subclass: `wrap`), over a better-sqlite3
 * database whose own busy timeout is set to 0 here, or over `database`, a wrapper of it.
 */
export class BusyWaitingSqliteDialect extends SqliteDialect {
  constructor(
    protected readonly sqlite: BetterSqlite3.Database,
    database: SqliteDatabase = sqlite,
  ) {
    super({ database });
    sqlite.pragma('busy_timeout = 0');
  }

  override createDriver(): Driver {
    return this.wrap(super.createDriver());
  }

  protected wrap(inner: Driver): BusyWaitingDriver {
    return new BusyWaitingDriver(inner, this.sqlite);
  }
}
