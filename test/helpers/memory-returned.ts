/**
 * Loads a running server for a few seconds, then waits for the line it logs at debug level once
 * it has given memory back (runtime/http/idle-memory.ts), and reads that line's figures.
 */
import { expect } from 'vitest';

export interface MemoryReturnedLine {
  heapBefore: number;
  heapAfter: number;
  rssBefore: number;
  rssAfter: number;
}

const LINE = /idle: returned memory to the system \(heap (\d+) -> (\d+) MB, RSS (\d+) -> (\d+) MB, \d+ ms\)/;

/** 32 clients reading `path` for `seconds`, then up to 30 s of idle for the server's line (null when none came). */
export async function loadThenAwaitMemoryReturned(
  url: string,
  path: string,
  headers: Record<string, string>,
  printed: () => string,
  seconds = 4,
): Promise<MemoryReturnedLine | null> {
  const until = Date.now() + seconds * 1000;
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
  for (let waited = 0; waited < 30_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = LINE.exec(printed().slice(already));
    if (found) {
      const [heapBefore, heapAfter, rssBefore, rssAfter] = found.slice(1).map(Number);
      return { heapBefore, heapAfter, rssBefore, rssAfter };
    }
  }
  return null;
}
