/**
 * Results of GET calls kept for the service's cache TTL (the reference's data retrieval cache).
 * With the platform's shared store (its Redis) every instance reads and fills the same entries,
 * so a result fetched through one instance is served by all, and clearing it clears it for all.
 * In process otherwise, and while the shared store is away: at most MAX_ENTRIES, the oldest
 * dropped first. Errors are never stored.
 */
import type { PlatformCache } from './cache/shared-cache.js';

const MAX_ENTRIES = 1000;

export class ResponseCache {
  private readonly entries = new Map<string, { expires: number; value: unknown }>();

  constructor(
    private readonly ttlMs: number,
    private readonly shared: PlatformCache | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<unknown> {
    if (this.shared?.ready()) return this.shared.get(key);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    if (this.shared?.ready()) {
      await this.shared.set(key, value, Math.max(1, Math.ceil(this.ttlMs / 1000)));
      return;
    }
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { expires: this.now() + this.ttlMs, value });
  }

  /** Forgets every entry, here and in the shared store (for every instance); while it is away, once it is back (withOwedClears). */
  async clear(): Promise<void> {
    this.entries.clear();
    await this.shared?.clear();
  }
}
