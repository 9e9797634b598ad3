/**
 * A write whose connection is lost once the database has it (a statement outside a transaction,
 * or a transaction's COMMIT) may have been stored: the server goes on with a statement whose
 * client is gone, and a commit may be done before its answer is lost. Such a write answers "it
 * may or may not have been stored" (503) rather than "the database is unavailable", which a
 * client takes for "nothing was stored" and repeats. A connection lost in the midst of a
 * transaction leaves no doubt (the server rolls it back), nor does one lost before the statement
 * was sent (connecting, a connection already broken): those stay "unavailable".
 */
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { PorticoError } from '../../../core/errors.js';
import { sqlMessages } from '../sql-messages.js';

/** Whether a driver error is a connection lost while a statement sent on it was under way. */
export type LostWhileRunning = (error: unknown) => boolean;

/** Statements that store nothing, by their first words. */
const STORES_NOTHING = /^\s*(select|show|explain|set|begin|start transaction|rollback|savepoint|release)\b/i;

/** Whether a statement's text may have stored something. */
export function mayStore(sql: string): boolean {
  return !STORES_NOTHING.test(sql);
}

/** The 503 of a write whose outcome is unknown, the driver's error kept as its cause. */
export function outcomeUnknown(error: unknown): PorticoError {
  const unknown = sqlMessages.outcomeUnknown.error();
  unknown.cause = error;
  return unknown;
}

/**
 * Runs a stored routine's call. A routine may store whatever its statement's first word (a
 * function is called by `select`): a call whose connection is lost while it runs may have been stored.
 */
export async function routineCall<T>(lost: LostWhileRunning, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw lost(error) ? outcomeUnknown(error) : error;
  }
}

class OutcomeConnection implements DatabaseConnection {
  inTransaction = false;
  /** Its COMMIT was lost: the connection is gone, and rolling back would only fail again. */
  commitLost = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly lost: LostWhileRunning,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(compiled);
    } catch (error) {
      if (!this.inTransaction && mayStore(compiled.sql) && this.lost(error)) throw outcomeUnknown(error);
      throw error;
    }
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

/** A Kysely driver (PostgreSQL's, MySQL's) whose lost writes and commits say that their outcome is unknown. */
export class OutcomeReportingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly lost: LostWhileRunning,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new OutcomeConnection(await this.inner.acquireConnection(), this.lost);
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as OutcomeConnection).inTransaction = true;
    return this.inner.beginTransaction(connection, settings);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const outcome = connection as OutcomeConnection;
    try {
      await this.inner.commitTransaction(connection);
    } catch (error) {
      if (!this.lost(error)) throw error;
      outcome.commitLost = true;
      throw outcomeUnknown(error);
    } finally {
      outcome.inTransaction = false;
    }
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const outcome = connection as OutcomeConnection;
    outcome.inTransaction = false;
    // Kysely rolls back after a failed commit; its error would take the place of the commit's.
    if (outcome.commitLost) return;
    await this.inner.rollbackTransaction(connection);
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as OutcomeConnection).inner);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
