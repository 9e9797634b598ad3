/**
 * Results of GET calls kept for the service's cache TTL (the reference's data retrieval cache):
 * in process, at most MAX_ENTRIES, the oldest dropped first. Errors are never stored.
 */

const MAX_ENTRIES = 1000;

export class ResponseCache {
  private readonly entries = new Map<string, { expires: number; value: unknown }>();

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  get(key: string): unknown {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: unknown): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { expires: this.now() + this.ttlMs, value });
  }

  clear(): void {
    this.entries.clear();
  }
}
