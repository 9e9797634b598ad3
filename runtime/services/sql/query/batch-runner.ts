/**
 * Multi-record operations with the reference's three modes (reference 2.3) and the spec's error
 * shape: default stops at the first failure and keeps what was written; `continue` tries every
 * record; `rollback` runs in a transaction and undoes everything at the first failure. A batch of
 * one record fails with that record's own error.
 */
import type { Kysely } from 'kysely';
import { BatchError, type PorticoError } from '../../../core/errors.js';
import { sqlMessages, type RecordAction } from '../sql-messages.js';

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

/** Runs one item on the given connection (a transaction in rollback mode). */
export type BatchItemRunner<T> = (db: Kysely<any>, item: T, index: number) => Promise<unknown>;

async function runAll<T>(db: Kysely<any>, options: BatchOptions<T>, run: BatchItemRunner<T>, stopAtFirst: boolean): Promise<Outcome> {
  const outcome: Outcome = { results: [], errors: [] };
  for (let index = 0; index < options.items.length; index++) {
    try {
      outcome.results.push(await run(db, options.items[index], index));
    } catch (thrown) {
      const error = options.toError(thrown);
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

/** Runs every item; returns the results in input order or throws (the item's own error, or a BatchError). */
export async function runBatch<T>(options: BatchOptions<T>, run: BatchItemRunner<T>): Promise<unknown[]> {
  let outcome: Outcome;
  if (options.mode === 'rollback') {
    try {
      outcome = await options.db.transaction().execute(async (trx) => {
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
