/**
 * Connections to a database server whose statements get no answer at all: the server frozen, the
 * network between partitioned (the connection stays open, nothing comes back). The server's own
 * statement timeout cannot end such a wait, so a request would hang for ever, and its pooled
 * connection with it. A connection that has had a statement under way for longer than the
 * statement timeout plus a grace, without an answer, is destroyed: its statement fails as a
 * connection lost while it ran (a 503 "unavailable", or "may have been stored" for a write), and
 * the pool replaces it. One timer checks the busy connections, running only while there are any.
 */
import type pg from 'pg';

/** How long past the statement timeout an answer may be late (a loaded server, a slow network) before its connection counts as dead. */
export const ANSWER_GRACE_MS = 5_000;
const SWEEP_MS = 500;

interface Watched {
  /** When the oldest unanswered statement started, or its last answer came. */
  since: number;
  pending: number;
  limitMs: number;
  kill(): void;
}

const busy = new Set<Watched>();
let timer: NodeJS.Timeout | null = null;

function sweep(): void {
  const now = Date.now();
  for (const watched of busy)
    if (now - watched.since > watched.limitMs) {
      busy.delete(watched);
      watched.kill();
    }
  if (busy.size === 0 && timer !== null) {
    clearInterval(timer);
    timer = null;
  }
}

function started(watched: Watched): void {
  if (watched.pending++ === 0) {
    watched.since = Date.now();
    busy.add(watched);
    timer ??= setInterval(sweep, SWEEP_MS).unref();
  }
}

function answered(watched: Watched): void {
  if (watched.pending === 0) return;
  watched.since = Date.now();
  if (--watched.pending === 0) busy.delete(watched);
}

/** The longest wait for an answer, for a statement timeout of `statementTimeoutMs` (0: none, so no limit either). */
export function answerLimitMs(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? statementTimeoutMs + ANSWER_GRACE_MS : 0;
}

/** A pg.Client class (for a pool's `Client` option) whose connection ends when a statement gets no answer within `limitMs` (0: `Base` itself). */
export function answerWatchedClient(Base: typeof pg.Client, limitMs: number): typeof pg.Client {
  if (limitMs <= 0) return Base;
  return class AnswerWatchedClient extends Base {
    private readonly watched: Watched = {
      since: 0,
      pending: 0,
      limitMs,
      kill: () => (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
    };

    query(...args: any[]): any {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        started(this.watched);
        args[last] = (error: unknown, result: unknown) => {
          answered(this.watched);
          callback(error, result);
        };
        return (super.query as any)(...args);
      }
      // A submittable (a pg.Query of its own): its answer is not seen here.
      if (typeof (args[0] as { submit?: unknown } | null)?.submit === 'function') return (super.query as any)(...args);
      started(this.watched);
      return ((super.query as any)(...args) as Promise<unknown>).then(
        (result) => {
          answered(this.watched);
          return result;
        },
        (error: unknown) => {
          answered(this.watched);
          throw error;
        },
      );
    }
  };
}

interface MysqlConnectionLike {
  query(...args: any[]): any;
  stream?: { destroy(): void };
}

/** Makes a mysql2 connection (of a pool's `connection` event) end when a statement (called back) gets no answer within `limitMs` (0: none). */
export function watchMysqlAnswers(connection: MysqlConnectionLike, limitMs: number): void {
  if (limitMs <= 0) return;
  const watched: Watched = { since: 0, pending: 0, limitMs, kill: () => connection.stream?.destroy() };
  const query = connection.query;
  connection.query = function watchedQuery(this: MysqlConnectionLike, ...args: any[]) {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback !== 'function') return query.apply(this, args);
    started(watched);
    args[last] = (...results: unknown[]) => {
      answered(watched);
      callback(...results);
    };
    return query.apply(this, args);
  };
}
