/**
 * Multi-record operations with the reference's three modes (reference 2.3) and the spec's error
 * shape: default stops at the first failure and keeps what was written; `continue` tries every
 * record; `rollback` runs in a transaction and undoes everything at the first failure. A batch of
 * one record fails with that record's own error. Inside a transaction already (hooks around the
 * write, runtime/http/hooks.ts) each record, or a rollback batch as a whole, runs in a savepoint,
 * so that the modes keep and undo what they do without one. A table found missing (dropped
 * outside the service) is the whole request's answer, not one record's.
 */
import type { Kysely } from 'kysely';
import { BatchError, type PorticoError } from '../../../core/errors.js';
import { sqlMessages, type RecordAction } from '../sql-messages.js';
import { atomically } from './atomic.js';
import { isMissingTable } from '../dialects/driver-errors.js';

export type BatchMode = 'default' | 'continue' | 'rollback';

export interface BatchOptions<T> {
  db: Kysely<any>;
  items: readonly T[];
  mode: BatchMode;
  action: RecordAction;
  /** Turns any thrown value into a PorticoError. */
  toError: (error: unknown) => PorticoError;
}

interface Outcome {
  results: unknown[];
  errors: Array<{ index: number; error: PorticoError }>;
}

/** Runs one item on the given connection (a transaction in rollback mode): its result, or a promise of it. */
export type BatchItemRunner<T> = (db: Kysely<any>, item: T, index: number) => unknown;

async function runAll<T>(db: Kysely<any>, options: BatchOptions<T>, run: BatchItemRunner<T>, stopAtFirst: boolean): Promise<Outcome> {
  const outcome: Outcome = { results: [], errors: [] };
  // In an enclosing transaction, a record that fails must not take the others (or the transaction) with it.
  const each = db.isTransaction && options.mode !== 'rollback' && options.items.length > 1;
  for (let index = 0; index < options.items.length; index++) {
    try {
      const item = options.items[index];
      outcome.results.push(await (each ? atomically(db, async (conn) => run(conn, item, index)) : run(db, item, index)));
    } catch (thrown) {
      const error = options.toError(thrown);
      // No record can be written to a table that is gone: the request's answer is its 404.
      if (isMissingTable(error)) throw error;
      outcome.errors.push({ index, error });
      outcome.results.push(error.toBody().error);
      if (stopAtFirst) break;
    }
  }
  return outcome;
}

class RollbackSignal extends Error {
  constructor(readonly outcome: Outcome) {
    super('rollback');
  }
}

/**
 * Runs every item; returns the results in input order or throws (the item's own error, or a BatchError).
 * A batch of one record outside rollback mode is that record's write itself (its result, or its
 * error as `toError` makes it), without a promise when the write answers at once (SQLite).
 */
export function runBatch<T>(options: BatchOptions<T>, run: BatchItemRunner<T>): unknown[] | Promise<unknown[]> {
  if (options.items.length !== 1 || options.mode === 'rollback') return runMany(options, run);
  let result: unknown;
  try {
    result = run(options.db, options.items[0], 0);
  } catch (thrown) {
    throw options.toError(thrown);
  }
  if (!(result instanceof Promise)) return [result];
  return result.then(
    (value) => [value],
    (thrown) => {
      throw options.toError(thrown);
    },
  );
}

async function runMany<T>(options: BatchOptions<T>, run: BatchItemRunner<T>): Promise<unknown[]> {
  let outcome: Outcome;
  if (options.mode === 'rollback') {
    try {
      outcome = await atomically(options.db, async (trx) => {
        const result = await runAll(trx, options, run, true);
        if (result.errors.length > 0) throw new RollbackSignal(result);
        return result;
      });
    } catch (thrown) {
      if (!(thrown instanceof RollbackSignal)) throw options.toError(thrown);
      outcome = thrown.outcome;
    }
  } else {
    outcome = await runAll(options.db, options, run, options.mode === 'default');
  }
  if (outcome.errors.length === 0) return outcome.results;
  if (options.items.length === 1) throw outcome.errors[0].error;
  throw new BatchError(
    sqlMessages.batch.text(options.action, options.mode === 'rollback'),
    outcome.errors.map(({ index, error }) => ({ index, message: error.message, code: error.status })),
    outcome.results,
  );
}
