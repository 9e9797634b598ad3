/**
 * In-process counters for periods longer than a Node.js timer can wait (2^31 - 1 ms, about 24.8
 * days): the '30-day' period, which the reference makes 30 weeks. rate-limiter-flexible's memory
 * store deletes each key with a timer of the period's length; beyond that limit Node.js fires it
 * after 1 ms, so the count started again with every request and such a limit never held. Here a
 * key's end is a time, looked at when the key is next counted, and ended keys are swept as more
 * keys arrive. The library's own answers (RateLimiterRes) keep callers and the Redis store's
 * insurance path unchanged.
 */
import type { IRateLimiterOptions, RateLimiterAbstract } from 'rate-limiter-flexible';

type Library = typeof import('rate-limiter-flexible');

/** The longest wait a Node.js timer takes as given. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export function outlastsTimers(seconds: number): boolean {
  return seconds * 1000 > LONGEST_TIMER_MS;
}

interface Count {
  consumed: number;
  endsAt: number;
}

/**
 * The in-process counter of a limit: the library's memory store, or for a period no timer can wait
 * the one below. A process serving alone counts with it, and so does the primary of several
 * workers (rate-limits.ts, keepWorkerCounters), for every period.
 */
export function memoryCounter(library: Library, options: IRateLimiterOptions & { duration: number }): RateLimiterAbstract {
  return outlastsTimers(options.duration) ? longPeriodCounter(library, options) : new library.RateLimiterMemory(options);
}

/** A memory limiter for `options.duration` (seconds) beyond what a timer can wait; `blockDuration` as the library reads it. */
export function longPeriodCounter(library: Library, options: IRateLimiterOptions): RateLimiterAbstract {
  const { RateLimiterMemory, RateLimiterRes } = library;

  class LongPeriodCounter extends RateLimiterMemory {
    private readonly counts = new Map<string, Count>();
    private sweepAt = 1024;

    private live(key: string, now: number): Count | undefined {
      const count = this.counts.get(key);
      return count !== undefined && count.endsAt > now ? count : undefined;
    }

    override consume(key: string | number, points = 1): Promise<InstanceType<Library['RateLimiterRes']>> {
      const now = Date.now();
      const at = this.getKey(key);
      let count = this.live(at, now);
      const first = count === undefined;
      if (count === undefined) {
        count = { consumed: 0, endsAt: now + this.duration * 1000 };
        this.counts.set(at, count);
        this.sweep(now);
      }
      count.consumed += points;
      if (count.consumed > this.points) {
        // Locked for blockDuration from the request that first went over, as the library's memory store does.
        if (this.blockDuration > 0 && count.consumed <= this.points + points) count.endsAt = now + this.blockDuration * 1000;
        return Promise.reject(new RateLimiterRes(0, count.endsAt - now, count.consumed, false));
      }
      return Promise.resolve(new RateLimiterRes(this.points - count.consumed, count.endsAt - now, count.consumed, first));
    }

    override get(key: string | number): Promise<InstanceType<Library['RateLimiterRes']> | null> {
      const now = Date.now();
      const count = this.live(this.getKey(key), now);
      if (count === undefined) return Promise.resolve(null);
      return Promise.resolve(new RateLimiterRes(Math.max(this.points - count.consumed, 0), count.endsAt - now, count.consumed, false));
    }

    override delete(key: string | number): Promise<boolean> {
      return Promise.resolve(this.counts.delete(this.getKey(key)));
    }

    /** Drops ended keys once the map has doubled since the last sweep. */
    private sweep(now: number): void {
      if (this.counts.size < this.sweepAt) return;
      for (const [at, count] of this.counts) if (count.endsAt <= now) this.counts.delete(at);
      this.sweepAt = Math.max(1024, this.counts.size * 2);
    }
  }

  return new LongPeriodCounter(options);
}
