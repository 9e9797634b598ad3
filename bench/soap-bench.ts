/**
 * Benchmark: Calculator Add through Portico's JSON endpoint (POST /api/v2/calc/Add) against the
 * same local node-soap peer called with a bare node-soap client, in one run, alternating rounds.
 * Prints req/s, p50 and p99 of both, the p50 Portico adds and the throughput ratio. The peer, the
 * Portico server and the load run in separate processes. Both paths are driven by the same closed
 * loops (`connections` concurrent callers) timed with performance.now(): autocannon reports whole
 * milliseconds, too coarse for a sub-millisecond difference, and the bare client needs a loop anyway.
 *
 *   npx tsx bench/soap-bench.ts [--duration 5] [--rounds 3] [--connections 10]
 */
import { parseArgs } from 'node:util';
import http from 'node:http';
import { createClientAsync } from 'soap';
import { closedLoops as loops, type Figures, median } from './closed-loops.js';
import { startScript } from './launch.js';
import { CALCULATOR_WSDL } from './shared-corpus.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);

/** `connections` closed loops of `call` for `duration` seconds. */
const closedLoops = (call: () => Promise<void>): Promise<Figures> => loops(call, { connections, duration });

/** Add with the bare node-soap client. */
function direct(client: { AddAsync(args: object): Promise<[{ AddResult: number }]> }): Promise<Figures> {
  return closedLoops(async () => {
    const [result] = await client.AddAsync({ intA: 2, intB: 3 });
    if (result.AddResult !== 5) throw new Error(`direct: unexpected ${JSON.stringify(result)}`);
  });
}

/** Add through Portico, over keep-alive connections. */
function portico(url: string, headers: Record<string, string>): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const body = JSON.stringify({ intA: 2, intB: 3 });
  return closedLoops(
    () =>
      new Promise<void>((resolve, reject) => {
        const request = http.request(
          `${url}/api/v2/calc/Add`,
          { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            response.on('end', () =>
              response.statusCode === 200 && text === '{"AddResult":5}'
                ? resolve()
                : reject(new Error(`portico: HTTP ${response.statusCode} ${text}`)),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      }),
  ).finally(() => agent.destroy());
}

const peer = await startScript('bench/soap-peer-server.ts', { PORT: '0' });
const server = await startScript('bench/soap-portico-server.ts', { PEER_URL: peer.line, PORT: '0' });
const [url, apiKey, token] = server.line.split(' ');
const headers = { 'content-type': 'application/json', 'x-service-api-key': apiKey, 'x-service-session-token': token };
const client = (await createClientAsync(CALCULATOR_WSDL, { endpoint: peer.line })) as unknown as Parameters<typeof direct>[0];

// Warm both paths (JIT, connections) before measuring.
await portico(url, headers);
await direct(client);

const runs: { portico: Figures[]; direct: Figures[] } = { portico: [], direct: [] };
for (let round = 0; round < rounds; round++) {
  runs.portico.push(await portico(url, headers));
  runs.direct.push(await direct(client));
}
server.child.kill('SIGTERM');
peer.child.kill('SIGTERM');

const summary = (figures: Figures[]): Figures => ({
  rps: median(figures.map((f) => f.rps)),
  p50: median(figures.map((f) => f.p50)),
  p99: median(figures.map((f) => f.p99)),
});
const p = summary(runs.portico);
const d = summary(runs.direct);
const table = [
  ['path', 'req/s', 'p50 ms', 'p99 ms'],
  ['Portico JSON endpoint', p.rps.toFixed(0), p.p50.toFixed(2), p.p99.toFixed(2)],
  ['bare node-soap client', d.rps.toFixed(0), d.p50.toFixed(2), d.p99.toFixed(2)],
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log(
  `Calculator Add against a local node-soap peer, ${connections} connections, ${duration}s x ${rounds} rounds alternating (medians)`,
);
for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
console.log(
  `added at p50: ${(p.p50 - d.p50).toFixed(2)} ms (target < 1 ms); throughput ratio Portico / direct: ${(p.rps / d.rps).toFixed(2)} (target >= 0.7)`,
);
