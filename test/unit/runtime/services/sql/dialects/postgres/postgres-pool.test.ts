/** The PostgreSQL service's pool: a timer only for a checkout that waits, and the reason a wait ran out (live server). */
import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BusyExplainingPool } from '#runtime/services/sql/dialects/postgres/postgres-pool.js';
import { sqlMessages } from '#runtime/services/sql/sql-messages.js';
import { requireService, serverUrl } from '#test/helpers/require-service.js';

/** A connection_timeout no other timer of the path uses, to tell the pool's timers from the rest. */
const WAIT_MS = 7_777;
/** The pool's sweep of idle connections (postgres-pool.ts). */
const IDLE_SWEEP_MS = 5_000;
const IDLE_MS = 60_000;
const openPool = (max: number) =>
  new BusyExplainingPool({ connectionString: serverUrl('postgres'), max, connectionTimeoutMillis: WAIT_MS, idleTimeoutMillis: IDLE_MS });
const timersOfWait = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.filter((call) => call[1] === WAIT_MS).length;

describe.skipIf(!(await requireService('postgres')))('BusyExplainingPool', () => {
  let pool: BusyExplainingPool | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    await pool?.end();
    pool = undefined;
  });

  it('hands out an idle connection and takes it back without arming a timer (pg-pool armed one per checkout and one per release)', async () => {
    pool = openPool(2);
    (await pool.connect()).release();
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const client = await pool.connect();
    client.release();
    const viaCallback = await new Promise<pg.PoolClient>((resolve, reject) =>
      pool!.connect((error, pooled) => (error ? reject(error) : resolve(pooled!))),
    );
    viaCallback.release();
    // Nothing between: pg-pool hands an idle connection out on the next tick, and the promises settle in microtasks.
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    expect(pool.totalCount).toBe(1);
  });

  it('closes a connection idle for idleTimeoutMillis (at most one sweep later), and keeps one used meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    pool = openPool(2);
    const [first, second] = [await pool.connect(), await pool.connect()];
    first.release();
    second.release();
    vi.advanceTimersByTime(IDLE_MS / 2);
    (await pool.connect()).release();
    vi.advanceTimersByTime(IDLE_MS / 2 + 1);
    expect(pool.totalCount).toBe(2);
    vi.advanceTimersByTime(IDLE_SWEEP_MS);
    // The connection unused for a minute is closing; the other was released half a minute ago.
    await vi.waitFor(() => expect(pool!.totalCount).toBe(1));
    vi.advanceTimersByTime(IDLE_MS / 2);
    await vi.waitFor(() => expect(pool!.totalCount).toBe(0));
  });

  it('bounds a new connection by the client’s own connect timeout, not a pool timer', async () => {
    pool = openPool(2);
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const client = await pool.connect();
    client.release();
    // pg's Client arms it while connecting (and clears it once connected); pg-pool armed a second one.
    expect(timersOfWait(setTimeoutSpy)).toBe(1);
  });

  it('arms a timer for a checkout that waits, and answers "busy" once every connection stayed checked out that long', async () => {
    pool = openPool(1);
    const held = await pool.connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = pool.connect();
    const settled = waiting.then(
      () => 'served',
      (error: unknown) => error,
    );
    expect(pool.waitingCount).toBe(1);
    vi.advanceTimersByTime(WAIT_MS);
    expect(await settled).toMatchObject({ status: 503, message: sqlMessages.connectionsBusy.error().message });
    expect(pool.waitingCount).toBe(0);
    held.release();
    vi.useRealTimers();
    // The connection went back to the pool, and the next checkout gets it.
    (await pool.connect()).release();
    expect(pool.totalCount).toBe(1);
  });

  it('serves a waiting checkout with the connection released before its time ran out', async () => {
    pool = openPool(1);
    const held = await pool.connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = new Promise<pg.PoolClient>((resolve, reject) =>
      pool!.connect((error, client) => (error ? reject(error) : resolve(client!))),
    );
    held.release();
    const client = await waiting;
    // Its timer was cleared: running the clock past it changes nothing.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(WAIT_MS);
    client.release();
    expect(pool.idleCount).toBe(1);
  });
});
