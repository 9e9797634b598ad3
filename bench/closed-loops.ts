/** The figures the request benches print, and the closed loops that measure them. */

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `connections` concurrent callers each running `call` again and again for `duration` seconds; latencies in ms. */
export async function closedLoops(
  call: () => Promise<void>,
  { connections, duration }: { connections: number; duration: number },
): Promise<Figures> {
  const latencies: number[] = [];
  const end = performance.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        await call();
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / duration, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}
