/**
 * Gives memory back to the system once a load is over. Under load V8 grows its young generation
 * (to 2 x 16 MB on Node.js 20 and 22, 2 x 64 MB on 24) and the old generation's pages, and keeps
 * them: V8 shrinks them only during a garbage collection, and a server with nothing to do
 * allocates nothing, so no collection comes. An idle server that had served a burst kept 40 MB
 * (Node.js 20) to 130 MB (24) more than after start.
 *
 * So a server process looks at its event loop every second. At the first idle second after work
 * (or after start-up) it runs a full collection that asks V8 to reduce memory (`flavor:
 * 'last-resort'`): Node.js 22's and 24's V8 give the pages back then. Node.js 20's V8 does not
 * know that option; it shrinks the young generation during any collection when it allocated little
 * over the last 5 s (the load's allocation counts until then), so if the young generation did not
 * shrink, a second collection once the server has stayed idle SETTLE_MS more does it there. Any
 * busy second starts over. This happens once per load (at most once per SPACING_MS), only while
 * nothing is being served, and costs nothing per request.
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the event loop is looked at. */
const CHECK_MS = 1_000;
/** Longer than the 5 s over which V8 measures allocation throughput (a low one lets Node.js 20 shrink). */
export const SETTLE_MS = 5_500;
/**
 * The least time between two loads' collections: a load that comes and goes every other second
 * would otherwise cost a full collection (tens of milliseconds on Node.js 22 and 24) each time.
 */
export const SPACING_MS = 10_000;
/** An event loop busy for less than this share of a check's interval counts as idle. */
const IDLE_UTILISATION = 0.02;
/** When the resident set has shrunk, after the last collection. */
const REPORT_AFTER_MS = 1_000;

type Collect = (options: { type: 'major'; flavor: 'last-resort' }) => void;

let collect: Collect | null | undefined;

/**
 * V8's `gc()`, exposed once for the process (the flag applies to contexts created after it); null
 * where it cannot be had (a Node.js that refuses the flag): the server then keeps its memory.
 */
function collector(): Collect | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const gc: unknown = vm.runInNewContext('typeof gc === "function" ? gc : null');
      collect = typeof gc === 'function' ? (gc as Collect) : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** What a check does: collect now (`first` of a load, or the `last`), or nothing. */
export type IdleStep = 'first' | 'last' | null;

/** When to collect, from whether each check's interval was busy (the clock and V8 apart). */
export class IdleSchedule {
  /** Whether the server worked since the memory was last given back (starting up leaves garbage too). */
  private loaded = true;
  /** When the first collection after the work ran. */
  private firstAt: number | null = null;
  /** When the latest first collection ran (SPACING_MS). */
  private lastFirstAt = Number.NEGATIVE_INFINITY;

  step(busy: boolean, now: number): IdleStep {
    if (busy) {
      this.loaded = true;
      this.firstAt = null;
      return null;
    }
    if (!this.loaded) return null;
    if (this.firstAt === null) {
      if (now - this.lastFirstAt < SPACING_MS) return null;
      this.firstAt = now;
      this.lastFirstAt = now;
      return 'first';
    }
    if (now - this.firstAt < SETTLE_MS) return null;
    this.returned();
    return 'last';
  }

  /** The memory is back (after the last collection, or the first where it was enough): nothing more until the next work. */
  returned(): void {
    this.loaded = false;
    this.firstAt = null;
  }
}

/** The young generation's committed size: what Node.js 20 keeps after the first collection. */
function youngGeneration(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

export interface MemoryReturned {
  /** Committed heap and resident set before and after, in bytes. */
  heapBefore: number;
  heapAfter: number;
  rssBefore: number;
  rssAfter: number;
  /** How long the collections took. */
  ms: number;
}

/** Starts looking, for the life of the process (the timer does not keep it alive). */
export function returnMemoryWhenIdle(report: (returned: MemoryReturned) => void): void {
  let since = performance.eventLoopUtilization();
  const schedule = new IdleSchedule();
  /** The heap and resident set before the first collection, and the collections' time so far. */
  let before = { heap: 0, rss: 0, ms: 0 };
  const timer = setInterval(() => {
    const gc = collector();
    if (gc === null) {
      clearInterval(timer);
      return;
    }
    const busy = performance.eventLoopUtilization(since).utilization > IDLE_UTILISATION;
    const step = schedule.step(busy, performance.now());
    if (step !== null) {
      if (step === 'first') before = { heap: v8.getHeapStatistics().total_heap_size, rss: process.memoryUsage.rss(), ms: 0 };
      const young = youngGeneration();
      const began = performance.now();
      gc({ type: 'major', flavor: 'last-resort' });
      before.ms += performance.now() - began;
      // The last collection, or a first that shrank the young generation (Node.js 22 and 24).
      if (step === 'last' || youngGeneration() < young) {
        schedule.returned();
        const { heap, rss, ms } = before;
        const heapAfter = v8.getHeapStatistics().total_heap_size;
        // V8 hands emptied pages back to the system from a background thread, soon after.
        setTimeout(
          () => report({ heapBefore: heap, heapAfter, rssBefore: rss, rssAfter: process.memoryUsage.rss(), ms }),
          REPORT_AFTER_MS,
        ).unref();
      }
    }
    since = performance.eventLoopUtilization();
  }, CHECK_MS);
  timer.unref();
}

/** The report as a log message. */
export function memoryReturnedMessage(returned: MemoryReturned): string {
  // Tenths: a light load leaves differences below a whole megabyte.
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  return (
    `idle: returned memory to the system (heap ${mb(returned.heapBefore)} -> ${mb(returned.heapAfter)} MB, ` +
    `RSS ${mb(returned.rssBefore)} -> ${mb(returned.rssAfter)} MB, ${returned.ms.toFixed(0)} ms)`
  );
}
