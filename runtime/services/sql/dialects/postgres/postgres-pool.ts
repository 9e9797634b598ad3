/**
 * The PostgreSQL service's connection pool: pg-pool, with a request's wait for a connection bounded
 * by connection_timeout, and idle connections closed after a while, without a timer per statement.
 * Given `connectionTimeoutMillis`, pg-pool armed a timer for every checkout, even one handed an idle
 * connection at once; given `idleTimeoutMillis`, one for every connection released (a Timeout and a
 * closure each, per statement).
 */
import pg from 'pg';
import { sqlMessages } from '../../sql-messages.js';

type Release = (release?: unknown) => void;
type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: Release) => void;

/** What the pool reads of pg-pool 3: the requests waiting for a connection, the idle connections, and all of them (open or opening). */
interface PgPoolState {
  _pendingQueue: { callback: ConnectCallback }[];
  _idle: { client: pg.PoolClient }[];
  _clients: unknown[];
  _remove(client: pg.PoolClient, callback: () => void): void;
  _pulseQueue(): void;
}

/** pg-pool's wording of a wait that ran out (postgres-errors.ts reads it as the database unavailable). */
const WAIT_TIMED_OUT = 'timeout exceeded when trying to connect';
const NO_RELEASE: Release = () => undefined;
/** How often idle connections are looked at: one is closed between its idle time and this much later. */
const IDLE_SWEEP_MS = 5_000;

/**
 * A pool whose wait for a connection ends after connection_timeout, saying why: every connection
 * open and checked out by other requests (the database is up and busy: connectionsBusy) rather than
 * the database down or not answering (a connection still connecting counts as taken: a wait behind
 * one to a server that does not answer stays "unavailable"). Nothing was sent either way.
 *
 * A checkout that finds an idle connection, or opens a new one, arms nothing here: the new
 * connection's client ends its own connecting after the same time (pg's `connectionTimeoutMillis`
 * of a client), so a server that accepts and never answers still ends the request. Idle
 * connections are closed by one sweep every IDLE_SWEEP_MS while the pool has any connection.
 */
export class BusyExplainingPool extends pg.Pool {
  /**
   * Connections checked out and not yet released, counted from the pool's events: pg-pool hands out
   * only connected ones ('acquire'), and every checked-out one is released once ('release'). Its
   * totalCount also counts the ones still connecting.
   */
  private checkedOut = 0;
  private readonly waitLimitMs: number;
  /** Sweeps since the pool began (the idle connections' clock), the sweep each connection was last released at, and how many sweeps make it idle. */
  private sweeps = 0;
  private readonly releasedAt = new Map<pg.PoolClient, number>();
  private readonly idleSweeps: number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor({
    connectionTimeoutMillis,
    idleTimeoutMillis,
    ...config
  }: pg.PoolConfig & { connectionTimeoutMillis: number; idleTimeoutMillis: number }) {
    // The clients get the config as given (pg-pool's copy hides the password from a spread) and the timeout.
    const clientConfig = { ...config, connectionTimeoutMillis };
    const Base = config.Client ?? pg.Client;
    super({
      ...config,
      idleTimeoutMillis: 0,
      Client: class ConnectTimedClient extends Base {
        constructor() {
          super(clientConfig);
        }
      } as typeof pg.Client,
    });
    this.waitLimitMs = connectionTimeoutMillis;
    // At least the idle time: released just after a sweep, a connection is closed one sweep past it.
    this.idleSweeps = Math.ceil(idleTimeoutMillis / IDLE_SWEEP_MS) + 1;
    this.on('acquire', () => {
      this.checkedOut += 1;
    });
    this.on('release', (_error: Error | undefined, client: pg.PoolClient) => {
      this.checkedOut -= 1;
      this.releasedAt.set(client, this.sweeps);
    });
    this.on('connect', () => {
      this.sweeper ??= setInterval(() => this.closeIdle(), IDLE_SWEEP_MS).unref();
    });
    this.on('remove', (client: pg.PoolClient) => this.releasedAt.delete(client));
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (callback === undefined) {
      if (!this.mustWait()) return super.connect();
      return new Promise((resolve, reject) => this.waitFor((error, client) => (error ? reject(error) : resolve(client!))));
    }
    if (this.mustWait()) this.waitFor(callback);
    else super.connect(callback);
    return undefined;
  }

  /**
   * Whether a checkout waits for a connection another request releases: the pool has every
   * connection it may open (open or opening), and no idle one is left for it (requests queued
   * before it in the same tick take those first).
   */
  private mustWait(): boolean {
    const state = this as unknown as PgPoolState;
    return !this.ending && state._clients.length >= this.options.max && state._idle.length <= state._pendingQueue.length;
  }

  /**
   * Queues the checkout in pg-pool, under a timer: once it runs out the request leaves the queue
   * with the reason, and a connection the pool hands it later (one it was opening for it) goes back.
   */
  private waitFor(callback: ConnectCallback): void {
    let late = false;
    const answer: ConnectCallback = (error, client, release) => {
      if (!late) {
        clearTimeout(timer);
        callback(error, client, release);
      } else if (client !== undefined) release();
    };
    const timer = setTimeout(() => {
      late = true;
      const queue = (this as unknown as PgPoolState)._pendingQueue;
      const index = queue.findIndex((item) => item.callback === answer);
      if (index !== -1) queue.splice(index, 1);
      callback(this.waitTimedOut(), undefined, NO_RELEASE);
    }, this.waitLimitMs);
    // As pg-pool's own: a wait does not keep the process alive.
    timer.unref();
    super.connect(answer);
  }

  /** Closes the connections idle for idleSweeps sweeps (as pg-pool's idle timer did), and stops once the pool has none. */
  private closeIdle(): void {
    this.sweeps += 1;
    const state = this as unknown as PgPoolState;
    for (const { client } of [...state._idle])
      if (this.sweeps - (this.releasedAt.get(client) ?? this.sweeps) >= this.idleSweeps) state._remove(client, () => state._pulseQueue());
    if (state._clients.length === 0 && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private waitTimedOut(): Error {
    const timedOut = new Error(WAIT_TIMED_OUT);
    const busy = this.idleCount === 0 && this.checkedOut >= this.options.max;
    if (!busy) return timedOut;
    const explained = sqlMessages.connectionsBusy.error();
    explained.cause = timedOut;
    return explained;
  }
}
