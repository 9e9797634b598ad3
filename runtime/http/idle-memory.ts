/**
 * Gives memory back to the system once a load is over. Under load V8 grows its young generation
 * (to 2 x 16 MB on Node.js 20 and 22, 2 x 64 MB on 24) and the old generation's pages, and keeps
 * them: V8 shrinks them only during a garbage collection, and a server with nothing to do
 * allocates nothing, so no collection comes. An idle server that had served a burst kept 40 MB
 * (Node.js 20) to 130 MB (24) more than after start.
 *
 * So a server process looks every second at whether it took requests, and once it has taken none
 * for IDLE_MS after work (or after start-up) it asks V8 for the collection it runs when told
 * memory is low (`Isolate::LowMemoryNotification`, through the in-process inspector's
 * `HeapProfiler.collectGarbage`): full collections that shrink the young generation to its first
 * size and give the emptied pages back, on Node.js 20 as on 22 and 24. Only after a long idle
 * time: a server whose traffic comes in bursts seconds apart would otherwise start every burst
 * from a shrunk young generation and grow it again under load (giving it back at the first idle
 * second cost about 10 % more CPU per request and up to twice the p99 in the bench, which
 * alternates 5 s runs of two servers). Where the inspector is missing (a Node.js built without
 * it) the server falls back to `gc()`, which Node.js 20's V8 lets shrink the young generation only
 * after 5 s of low allocation: a second collection SETTLE_MS later does it there. Any busy second
 * starts over. Nothing of this runs while requests are being served.
 *
 * A second is busy when the server took a request in it (RequestWatch), not when its event loop
 * worked (as it did until the seventeenth session, bench/README.md): housekeeping comes after a
 * load too (a PostgreSQL pool closing its connections 10 s after their last query, V8's own idle
 * collection, scheduled tasks), and on a loaded machine one such second passed the event loop's
 * 2 % threshold (20 ms) and put the collection off by 12 s.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the server looks at whether it took requests. */
const CHECK_MS = 1_000;
/**
 * How long a server stays idle before it gives memory back: longer than the gaps of a server
 * serving bursts seconds apart (the bench's longest is two 5 s runs of the other server, about 11
 * s), shorter than the 15 s after which the bench reads the resident set.
 */
export const IDLE_MS = 12_000;
/** Longer than the 5 s over which V8 measures allocation throughput (a low one lets Node.js 20 shrink). */
export const SETTLE_MS = 5_500;
/** When the resident set has shrunk, after the last collection. */
const REPORT_AFTER_MS = 1_000;
/**
 * Heap growth since the memory was last given back below which there is nothing to give back: a
 * request now and then (a health check every 30 s) would otherwise cost a full collection of an
 * unchanged heap each time.
 */
const NOTHING_TO_RETURN = 1024 * 1024;

/** Runs the collections; `reduces`: they shrink the young generation whatever the allocation rate was. */
type Collect = { run(): Promise<void>; reduces: boolean };

let collect: Collect | null | undefined;

/**
 * How the server collects, chosen once for the process: V8's low-memory collection through an
 * inspector session (connected for the call only), else V8's `gc()` (exposed once for the process;
 * the flag applies to contexts created after it), else null (a Node.js that refuses both): the
 * server then keeps its memory.
 */
export function collector(): Collect | null {
  if (collect === undefined) collect = inspectorCollector() ?? gcCollector();
  return collect;
}

function inspectorCollector(): Collect | null {
  try {
    // Loaded at the first collection, not at start (the module is not needed to serve).
    const { Session } = createRequire(import.meta.url)('node:inspector') as typeof import('node:inspector');
    // Throws where Node.js was built without the inspector.
    const probe = new Session();
    probe.connect();
    probe.disconnect();
    const run = () =>
      new Promise<void>((resolve, reject) => {
        const session = new Session();
        session.connect();
        // V8 runs the collection from a task of its own, then answers. The session is closed after
        // the answer, not in it: V8 holds a lock while it answers that closing the session takes (a deadlock).
        session.post('HeapProfiler.collectGarbage', (error) => {
          setImmediate(() => {
            session.disconnect();
            if (error) reject(error);
            else resolve();
          });
        });
      });
    return { run, reduces: true };
  } catch {
    return null;
  }
}

function gcCollector(): Collect | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('typeof gc === "function" ? gc : null');
    if (typeof gc !== 'function') return null;
    return {
      run: async () => (gc as (options: object) => void)({ type: 'major', flavor: 'last-resort' }),
      reduces: false,
    };
  } catch {
    return null;
  }
}

/** Requests one server has taken, counted by its one onRequest hook (create-server.ts): each server has its own. */
export interface RequestsTaken {
  count: number;
}

/** Whether a server took requests since the last look (the first look compares with when the watch began). */
export class RequestWatch {
  private last: number;

  constructor(private readonly taken: Readonly<RequestsTaken>) {
    this.last = taken.count;
  }

  busy(): boolean {
    const now = this.taken.count;
    const busy = now !== this.last;
    this.last = now;
    return busy;
  }
}

/** What a check does: collect now (`first` after IDLE_MS idle, or the `last` of the gc() fallback), or nothing. */
export type IdleStep = 'first' | 'last' | null;

/** When to collect, from whether each check's interval was busy (the clock and V8 apart). */
export class IdleSchedule {
  /** Whether the server worked since the memory was last given back (starting up leaves garbage too). */
  private loaded = true;
  /** When the idle time began (the start of the first idle check's interval). */
  private idleSince: number | null = null;
  /** When the first collection ran. */
  private firstAt: number | null = null;

  step(busy: boolean, now: number): IdleStep {
    if (busy) {
      this.loaded = true;
      this.idleSince = null;
      this.firstAt = null;
      return null;
    }
    if (!this.loaded) return null;
    this.idleSince ??= now - CHECK_MS;
    if (this.firstAt === null) {
      if (now - this.idleSince < IDLE_MS) return null;
      this.firstAt = now;
      return 'first';
    }
    if (now - this.firstAt < SETTLE_MS) return null;
    this.returned();
    return 'last';
  }

  /** The memory is back (after the last collection, or the first where it was enough): nothing more until the next work. */
  returned(): void {
    this.loaded = false;
    this.idleSince = null;
    this.firstAt = null;
  }
}

/** The young generation's committed size: what Node.js 20's gc() keeps after the first collection. */
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

/**
 * How many times larger V8 makes the young generation each time it grows it (V8's default is 2).
 * V8 shrinks the young generation to its first size (1 MB) at any collection that finds the
 * allocation rate of the last seconds below 1 MB/s (`Heap::ReduceNewSpaceSize`), as the first
 * collection after a pause of about 10 s between bursts does, then grows it one doubling at a time,
 * each only after as many bytes as it holds have survived since the last. Under the bench's get load
 * (PostgreSQL, 32 connections, 5 s runs 10 s apart) the server ran at 4-8 MB of its largest 32 MB
 * (Node.js 20) and made 10 young collections per 1,000 requests, each copying what the requests under
 * way hold; grown 16 times at once it reached 32 MB at its first growth, kept it through the pauses
 * (a pause of 10 s after filling 32 MB stays above the shrinking rate) and made 1.6. The largest size is
 * V8's own, which a loaded server reached before as well, only later; an idle server still gives it
 * back (returnMemoryWhenIdle).
 */
export const YOUNG_GROWTH_FACTOR = 16;

/** Makes V8 grow the young generation to its largest size in one or two steps (YOUNG_GROWTH_FACTOR); for a serving process, after start-up. */
export function growYoungGenerationAtOnce(): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH_FACTOR}`);
}

/**
 * Starts looking at whether the server that counts `taken` is idle, for the life of the process
 * (the timer does not keep it alive); a serving process runs one server (run-server.ts).
 */
export function returnMemoryWhenIdle(taken: Readonly<RequestsTaken>, report: (returned: MemoryReturned) => void): void {
  const watch = new RequestWatch(taken);
  const schedule = new IdleSchedule();
  /** The heap and resident set before the first collection, and the collections' time so far. */
  let before = { heap: 0, rss: 0, ms: 0 };
  /** The committed heap after the memory was last given back. */
  let heapReturned = Number.NEGATIVE_INFINITY;
  /** A collection under way (the inspector's answers come from a task): no check until it is done. */
  let collecting = false;
  const timer = setInterval(() => {
    if (collecting) return;
    const step = schedule.step(watch.busy(), performance.now());
    if (step === null) return;
    const gc = collector();
    if (gc === null) {
      clearInterval(timer);
      return;
    }
    if (step === 'first') {
      const heap = v8.getHeapStatistics().total_heap_size;
      if (heap < heapReturned + NOTHING_TO_RETURN) {
        schedule.returned();
        return;
      }
      before = { heap, rss: process.memoryUsage.rss(), ms: 0 };
    }
    const young = youngGeneration();
    const began = performance.now();
    collecting = true;
    gc.run()
      .then(() => {
        before.ms += performance.now() - began;
        // A collection that reduces memory, the last one, or a first that shrank the young generation.
        if (!(gc.reduces || step === 'last' || youngGeneration() < young)) return;
        schedule.returned();
        const { heap, rss, ms } = before;
        const heapAfter = v8.getHeapStatistics().total_heap_size;
        heapReturned = heapAfter;
        // V8 hands emptied pages back to the system from a background thread, soon after.
        setTimeout(
          () => report({ heapBefore: heap, heapAfter, rssBefore: rss, rssAfter: process.memoryUsage.rss(), ms }),
          REPORT_AFTER_MS,
        ).unref();
      })
      // A failed collection keeps the memory until the next load's; the server goes on.
      .catch(() => undefined)
      .finally(() => {
        collecting = false;
      });
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
