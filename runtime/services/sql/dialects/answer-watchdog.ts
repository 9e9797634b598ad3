/**
 * Connections to a database server whose statements get no answer at all: the server frozen, the
 * network between partitioned (the connection stays open, nothing comes back). The server's own
 * statement timeout cannot end such a wait, so a request would hang for ever, and its pooled
 * connection with it. A connection that has had a statement under way for longer than the
 * statement timeout plus a grace, without an answer, is destroyed: its statement fails as a
 * connection lost while it ran (a 503 "unavailable", or "may have been stored" for a write), and
 * the pool replaces it. One timer checks the busy connections (MySQL) or the open clients
 * (PostgreSQL), running only while there are any.
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

/** What the sweep reads of a node-postgres client (pg 8: the statement under way, and the socket). */
interface PgClientState {
  _activeQuery?: object | null;
  _ending?: boolean;
  connection: { stream: { destroy(): void; destroyed?: boolean } };
}

/** A node-postgres client under watch: the statement last seen under way on it, and since when. */
interface WatchedPg {
  client: PgClientState;
  limitMs: number;
  query: object | null;
  since: number;
}

const pgClients = new Set<WatchedPg>();
let pgTimer: NodeJS.Timeout | null = null;

/**
 * Looks at each watched client's statement under way: one still the same after `limitMs` got no
 * answer in that time (node-postgres clears it when the statement's ReadyForQuery arrives), so
 * the connection is destroyed. Nothing runs per statement: wrapping every query in a callback of
 * its own made PostgreSQL lists about 30 % dearer (the young generation's collections took three
 * times as long under load).
 */
function sweepPg(): void {
  const now = Date.now();
  for (const watched of pgClients) {
    const { client } = watched;
    if (client._ending || client.connection.stream.destroyed) {
      pgClients.delete(watched);
      continue;
    }
    const query = client._activeQuery ?? null;
    if (query !== watched.query) {
      watched.query = query;
      watched.since = now;
    } else if (query !== null && now - watched.since > watched.limitMs) {
      pgClients.delete(watched);
      client.connection.stream.destroy();
    }
  }
  if (pgClients.size === 0 && pgTimer !== null) {
    clearInterval(pgTimer);
    pgTimer = null;
  }
}

/**
 * A pg.Client class (for a pool's `Client` option) whose connection ends when a statement gets no
 * answer within `limitMs` (0: `Base` itself). Its clients are looked at every SWEEP_MS while any
 * is open (a pool closes idle ones after 10 s), so a statement is ended at most SWEEP_MS past it.
 */
export function answerWatchedClient(Base: typeof pg.Client, limitMs: number): typeof pg.Client {
  if (limitMs <= 0) return Base;
  return class AnswerWatchedClient extends Base {
    constructor(...args: any[]) {
      super(...args);
      const watched: WatchedPg = { client: this as unknown as PgClientState, limitMs, query: null, since: 0 };
      pgClients.add(watched);
      pgTimer ??= setInterval(sweepPg, SWEEP_MS).unref();
      this.once('end', () => pgClients.delete(watched));
    }
  } as typeof pg.Client;
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
