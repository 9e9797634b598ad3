/**
 * Loads a running server for 4 s, then waits for the line it logs at debug level once it has
 * given memory back (runtime/http/idle-memory.ts), and checks that line's figures: heap and
 * resident set lower after than before.
 */
import { expect } from 'vitest';

const LINE = /idle: returned memory to the system \(heap (\d+) -> (\d+) MB, RSS (\d+) -> (\d+) MB, \d+ ms\)/;

/** 32 clients reading `path` for 4 s, then up to 30 s of idle for the server's line. */
export async function expectMemoryReturnedAfterLoad(
  url: string,
  path: string,
  headers: Record<string, string>,
  printed: () => string,
): Promise<void> {
  const until = Date.now() + 4_000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (Date.now() < until) {
        const answer = await fetch(url + path, { headers });
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
      }
    }),
  );
  const already = printed().length;
  // The server checks every 6 s: a young-generation collection at the first idle check, the
  // full one at the next.
  let found: RegExpExecArray | null = null;
  for (let waited = 0; waited < 30_000 && found === null; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    found = LINE.exec(printed().slice(already));
  }
  expect(found, printed().slice(-2_000)).not.toBeNull();
  const [heapBefore, heapAfter, rssBefore, rssAfter] = found!.slice(1).map(Number);
  // Whole megabytes: a light load (a busy machine) may leave the heap's figure where it was; the pages given back are the point.
  expect(heapAfter).toBeLessThanOrEqual(heapBefore);
  expect(rssAfter).toBeLessThan(rssBefore);
}
