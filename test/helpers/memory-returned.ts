/**
 * Loads a running server for at least 4 s and 2,000 requests (on a busy machine 4 s alone left
 * too little garbage to measure), then waits for the line it logs at debug level once it has given
 * memory back (runtime/http/idle-memory.ts), and checks that line's figures: the resident set lower
 * after than before, the heap not higher.
 */
import { expect } from 'vitest';

const LINE = /idle: returned memory to the system \(heap ([\d.]+) -> ([\d.]+) MB, RSS ([\d.]+) -> ([\d.]+) MB, \d+ ms\)/;
const MIN_MS = 4_000;
const MIN_REQUESTS = 2_000;
/** However slow the machine. */
const MAX_MS = 60_000;

/** 32 clients reading `path` (see above), then up to 30 s of idle for the server's line. */
export async function expectMemoryReturnedAfterLoad(
  url: string,
  path: string,
  headers: Record<string, string>,
  printed: () => string,
): Promise<void> {
  const started = Date.now();
  let requests = 0;
  const loading = () => {
    const ms = Date.now() - started;
    return ms < MAX_MS && (ms < MIN_MS || requests < MIN_REQUESTS);
  };
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (loading()) {
        const answer = await fetch(url + path, { headers });
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
        requests += 1;
      }
    }),
  );
  const already = printed().length;
  // The server checks every second: a collection at the first idle check, and on Node.js 20 a
  // second one once idle for 5.5 s more.
  let found: RegExpExecArray | null = null;
  for (let waited = 0; waited < 30_000 && found === null; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    found = LINE.exec(printed().slice(already));
  }
  expect(found, printed().slice(-2_000)).not.toBeNull();
  const [heapBefore, heapAfter, rssBefore, rssAfter] = found!.slice(1).map(Number);
  // A light load may leave the heap's figure where it was; the pages given back are the point.
  expect(heapAfter).toBeLessThanOrEqual(heapBefore);
  expect(rssAfter).toBeLessThan(rssBefore);
}
