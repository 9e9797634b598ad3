/**
 * Gives memory back to the system once a load is over. Under load V8 grows its young generation
 * (to 2 x 16 MB on Node.js 20 and 22, 2 x 64 MB on 24) and the old generation's pages, and keeps
 * them: V8 shrinks them only during a garbage collection, and a server with nothing to do
 * allocates nothing, so no collection comes. An idle server that had served a burst kept 40 MB
 * (Node.js 20) to 130 MB (24) more than after start.
 *
 * So a server process looks every CHECK_MS: when its event loop has been idle for a whole interval
 * after it was busy (or after start-up), it runs a young-generation collection, and if the next
 * interval is idle too, one full collection that asks V8 to reduce memory (`flavor:
 * 'last-resort'`). Node.js 20's V8 does not know that option, but shrinks during any collection
 * when allocation since the previous one was low, which the first collection ensures (without it
 * the last requests' garbage counted as allocation over the idle time). This happens once per
 * load, only while nothing is being served, and costs nothing per request.
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** Longer than the 5 s over which V8 measures allocation throughput (a low one lets Node.js 20 shrink). */
const CHECK_MS = 6_000;
/** An event loop busy for less than this share of an interval counts as idle. */
const IDLE_UTILISATION = 0.02;
/** When the resident set has shrunk, after the collection. */
const REPORT_AFTER_MS = 1_000;

type Collect = (options: { type: 'minor' } | { type: 'major'; flavor: 'last-resort' }) => void;

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

export interface MemoryReturned {
  /** Committed heap and resident set before and after, in bytes. */
  heapBefore: number;
  heapAfter: number;
  rssBefore: number;
  rssAfter: number;
  /** How long the collection took. */
  ms: number;
}

/** Starts looking, for the life of the process (the timer does not keep it alive). */
export function returnMemoryWhenIdle(report: (returned: MemoryReturned) => void): void {
  let since = performance.eventLoopUtilization();
  /** Whether the server worked since the last collection (starting up leaves garbage too). */
  let loaded = true;
  /** Set by the first, young-generation collection: the heap and resident set before it. */
  let started: { heap: number; rss: number; ms: number } | null = null;
  const timer = setInterval(() => {
    const gc = collector();
    if (gc === null) {
      clearInterval(timer);
      return;
    }
    const busy = performance.eventLoopUtilization(since).utilization > IDLE_UTILISATION;
    if (busy) {
      loaded = true;
      started = null;
    } else if (loaded && started === null) {
      const began = performance.now();
      started = { heap: v8.getHeapStatistics().total_heap_size, rss: process.memoryUsage.rss(), ms: 0 };
      gc({ type: 'minor' });
      started.ms = performance.now() - began;
    } else if (started !== null) {
      const before = started;
      const began = performance.now();
      // Even when the young-generation collection emptied the heap, Node.js 22's V8 keeps the
      // pages it freed until a collection that reduces memory.
      gc({ type: 'major', flavor: 'last-resort' });
      const ms = before.ms + performance.now() - began;
      const heapAfter = v8.getHeapStatistics().total_heap_size;
      // V8 hands emptied pages back to the system from a background thread, soon after.
      setTimeout(
        () => report({ heapBefore: before.heap, heapAfter, rssBefore: before.rss, rssAfter: process.memoryUsage.rss(), ms }),
        REPORT_AFTER_MS,
      ).unref();
      started = null;
      loaded = false;
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
