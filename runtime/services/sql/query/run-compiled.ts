/**
 * Runs a statement compiled once (per table plan and shape) with this request's bound values.
 * A dialect may register a direct runner for its Kysely instance, which skips Kysely's
 * connection hand-off: SQLite runs the statement at once (in-process, synchronous) and declines
 * (null) while a transaction or a held connection owns the database; PostgreSQL hands it to its
 * pool. A dialect may also give a runner for its transactions (SQLite: the transaction holds the
 * one connection, so its statements run at once); transactions begun by `inTransaction` use it.
 * Every other instance (PostgreSQL's transactions, MySQL) goes through Kysely.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

export type DirectRunner = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | Promise<QueryResult<unknown>> | null;

const runners = new WeakMap<Kysely<any>, DirectRunner>();
const transactionRunners = new WeakMap<Kysely<any>, DirectRunner>();

export function registerDirectRunner(db: Kysely<any>, runner: DirectRunner, inTransactions?: DirectRunner): void {
  runners.set(db, runner);
  if (inTransactions !== undefined) transactionRunners.set(db, inTransactions);
}

const stalePlanCounts = new WeakMap<Kysely<any>, () => number>();

/**
 * How many statements of `db`'s transactions were found stale (PostgreSQL: prepared before
 * another client changed their table): such a transaction failed with nothing stored, and the
 * statement is prepared afresh the next time.
 */
export function registerStalePlanCount(db: Kysely<any>, count: () => number): void {
  stalePlanCounts.set(db, count);
}

/**
 * Runs work in a transaction of `db`, its precompiled statements taken by the dialect's runner for
 * transactions. With `rerunStale`, a transaction that failed while one of `db`'s statements was
 * found stale runs once more: only for work that does nothing but its statements (no hooks, which
 * may act outside the database), since the first run must leave nothing behind.
 */
export function inTransaction<T>(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<T>, rerunStale = false): Promise<T> {
  const stale = rerunStale ? stalePlanCounts.get(db) : undefined;
  if (stale === undefined) return transaction(db, work);
  const before = stale();
  return transaction(db, work).catch((error: unknown) => (stale() === before ? Promise.reject(error) : transaction(db, work)));
}

function transaction<T>(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<T>): Promise<T> {
  const runner = transactionRunners.get(db);
  if (runner === undefined) return db.transaction().execute(work);
  return db.transaction().execute(async (trx) => {
    runners.set(trx, runner);
    try {
      return await work(trx);
    } finally {
      runners.delete(trx);
    }
  });
}

export function runCompiled<R>(
  db: Kysely<any>,
  compiled: CompiledQuery,
  parameters: readonly unknown[],
): QueryResult<R> | Promise<QueryResult<R>> {
  const direct = runners.get(db)?.(compiled.sql, parameters);
  return direct ? (direct as QueryResult<R> | Promise<QueryResult<R>>) : db.executeQuery<R>({ ...compiled, parameters });
}
