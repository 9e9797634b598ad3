/**
 * Runs a statement compiled once (per table plan and shape) with this request's bound values.
 * A dialect may register a direct runner for its Kysely instance, which skips Kysely's
 * connection hand-off: SQLite runs the statement at once (in-process, synchronous) and declines
 * (null) while a transaction or a held connection owns the database; PostgreSQL hands it to its
 * pool. Every other instance (transactions, MySQL) goes through Kysely.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

export type DirectRunner = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | Promise<QueryResult<unknown>> | null;

const runners = new WeakMap<Kysely<any>, DirectRunner>();

export function registerDirectRunner(db: Kysely<any>, runner: DirectRunner): void {
  runners.set(db, runner);
}

export function runCompiled<R>(
  db: Kysely<any>,
  compiled: CompiledQuery,
  parameters: readonly unknown[],
): QueryResult<R> | Promise<QueryResult<R>> {
  const direct = runners.get(db)?.(compiled.sql, parameters);
  return direct ? (direct as QueryResult<R> | Promise<QueryResult<R>>) : db.executeQuery<R>({ ...compiled, parameters });
}
