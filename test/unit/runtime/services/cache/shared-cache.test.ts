import { describe, expect, it } from 'vitest';
import { type SharedCache, withOwedClears } from '#runtime/services/cache/shared-cache.js';

/** A store in memory that fails every call while `down` (as Redis away), and whose clears can be held midway. */
function store() {
  const entries = new Map<string, unknown>();
  const state = { down: false, hold: null as Promise<void> | null };
  const fail = () => {
    if (state.down) throw new Error('unreachable');
  };
  const raw: SharedCache = {
    async get(key) {
      fail();
      return entries.get(key);
    },
    async set(key, value) {
      fail();
      entries.set(key, value);
    },
    async clear() {
      fail();
      await state.hold;
      fail();
      entries.clear();
    },
  };
  return { entries, state, cache: withOwedClears(raw) };
}

describe('withOwedClears', () => {
  it('answers misses, never errors, while the store is away', async () => {
    const { state, cache } = store();
    state.down = true;
    expect(await cache.get('k')).toBeUndefined();
    await cache.set('k', 1, 60);
    await cache.clear();
  });

  it('makes a clear the store missed before the next read or store, which miss until it is made', async () => {
    const { entries, state, cache } = store();
    await cache.set('k', 'before the write', 60);
    state.down = true;
    await cache.clear();
    state.down = false;
    expect(entries.get('k')).toBe('before the write');
    expect(await cache.get('k')).toBeUndefined();
    expect(entries.size).toBe(0);
    await cache.set('k', 'after', 60);
    expect(await cache.get('k')).toBe('after');
  });

  it('keeps the clear owed while the store fails it again, storing nothing meanwhile', async () => {
    const { entries, state, cache } = store();
    await cache.set('k', 'before', 60);
    state.down = true;
    await cache.clear();
    // The store answers reads but not the clear (a scan that times out, say).
    state.down = false;
    state.hold = Promise.reject(new Error('timeout'));
    state.hold.catch(() => undefined);
    expect(await cache.get('k')).toBeUndefined();
    await cache.set('k2', 'during', 60);
    expect(entries.has('k2')).toBe(false);
    state.hold = null;
    expect(await cache.get('k')).toBeUndefined();
    expect(entries.size).toBe(0);
  });

  it('is not discharged by a clear that began before the one that failed', async () => {
    const { entries, state, cache } = store();
    await cache.set('k', 'old', 60);
    let release: () => void = () => undefined;
    state.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const earlier = cache.clear();
    // A later clear fails outright; the earlier one then succeeds.
    state.hold = null;
    state.down = true;
    await cache.clear();
    state.down = false;
    release();
    await earlier;
    entries.set('k', 'stored between');
    expect(await cache.get('k')).toBeUndefined();
  });
});
