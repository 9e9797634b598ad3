import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChangeFeed, POLL_MS } from '#runtime/system/shared/change-feed.js';
import { openSystemDb, type SystemDb } from '#runtime/system/store/system-db.js';
import { compileCounter } from '#test/helpers/compile-counter.js';

let db: SystemDb;

beforeAll(async () => {
  db = await openSystemDb(':memory:');
});
afterAll(async () => db.destroy());
afterEach(() => {
  vi.useRealTimers();
});

describe('ChangeFeed polling (no Redis)', () => {
  it('compiles the change token read once, not at every poll, and still sees another instance news', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const counter = compileCounter();
    let reloads = 0;
    const feed = new ChangeFeed(db.withPlugin(counter.plugin), null, 'test:changes', async () => {
      reloads++;
    });
    await feed.start();
    const afterStart = counter.compiled();
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(counter.compiled()).toBe(afterStart);
    expect(reloads).toBe(0);

    // Another instance on the same database announces a change: the next poll reloads.
    const other = new ChangeFeed(db, null, 'test:changes', async () => undefined);
    await other.announce();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(reloads).toBe(1);
    expect(counter.compiled()).toBe(afterStart);
    await feed.close();
    await other.close();
  });
});
