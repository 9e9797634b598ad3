/**
 * Benchmark: REST publish throughput to RabbitMQ and Mosquitto through Portico's `amqp` and `mqtt`
 * services next to a hand-written Fastify route publishing with the same client and the same
 * acknowledgement (broker-hand-server.ts), alternating rounds; and the latency of an MCP tool call
 * (list 10 records) next to the REST call it stands for. Servers run in their own processes; the
 * load is `connections` closed loops over keep-alive connections.
 *
 *   npx tsx bench/broker-bench.ts [--duration 5] [--rounds 3] [--connections 10] [--calls 300]
 *
 * Env: BENCH_AMQP_URL (amqp://guest:guest@127.0.0.1:5672), BENCH_MQTT_URL (mqtt://127.0.0.1:1883).
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import amqp from 'amqplib';
import { closedLoops, type Figures, median, percentile } from './closed-loops.js';
import { startScript } from './launch.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    calls: { type: 'string', default: '300' },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const MQTT_URL = process.env.BENCH_MQTT_URL ?? 'mqtt://127.0.0.1:1883';
const QUEUE = `portico_bench_${process.pid}`;
const JWT_SECRET = 'test-secret-test-secret-test-secret';

/** `connections` closed loops of POSTs of a small JSON body for `duration` seconds. */
async function publishLoops(url: string, headers: Record<string, string>): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const body = JSON.stringify({ sensor: 'bench', value: 21.5 });
  try {
    return await closedLoops(
      () =>
        new Promise<void>((resolve, reject) => {
          const request = http.request(
            url,
            {
              method: 'POST',
              agent,
              headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
            },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => {
                text += chunk.toString();
              });
              response.on('end', () =>
                response.statusCode === 200 ? resolve() : reject(new Error(`${url}: HTTP ${response.statusCode} ${text}`)),
              );
            },
          );
          request.on('error', reject);
          request.end(body);
        }),
      { connections, duration },
    );
  } finally {
    agent.destroy();
  }
}

const portico = await startScript('bench/broker-portico-server.ts', { AMQP_URL, MQTT_URL, QUEUE, PORT: '0' });
const [url, apiKey, token] = portico.line.split(' ');
const hand = await startScript('bench/broker-hand-server.ts', { AMQP_URL, MQTT_URL, API_KEY: apiKey, JWT_SECRET, PORT: '0' });
const credentials = { 'x-service-api-key': apiKey, 'x-service-session-token': token };
const targets = {
  amqp: { portico: `${url}/api/v2/amqp/pub/${QUEUE}`, hand: `${hand.line}/amqp/${QUEUE}` },
  mqtt: { portico: `${url}/api/v2/mqtt/pub/bench/portico`, hand: `${hand.line}/mqtt/bench/portico` },
};
const lines: string[] = [];
try {
  for (const [broker, target] of Object.entries(targets)) {
    await publishLoops(target.portico, credentials);
    await publishLoops(target.hand, credentials);
    const runs: Record<'portico' | 'hand', Figures[]> = { portico: [], hand: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['portico', 'hand'] as const) : (['hand', 'portico'] as const);
      for (const side of order) runs[side].push(await publishLoops(target[side], credentials));
    }
    const ratio = median(runs.portico.map((p, i) => p.rps / runs.hand[i].rps));
    const show = (name: string, f: Figures[]) =>
      `  ${name.padEnd(24)} ${median(f.map((x) => x.rps))
        .toFixed(0)
        .padStart(6)} req/s  p50 ${median(f.map((x) => x.p50)).toFixed(2)} ms  p99 ${median(f.map((x) => x.p99)).toFixed(2)} ms`;
    lines.push(
      `${broker} publish (${connections} connections, ${duration}s x ${rounds} rounds, medians):`,
      show('Portico REST', runs.portico),
      show('hand-written Fastify', runs.hand),
      `  ratio Portico / hand-written: ${ratio.toFixed(2)} (target >= 0.85)`,
    );
  }

  // MCP tool call next to the REST call it stands for, one at a time.
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/agent`), { requestInit: { headers: credentials } }));
  const tool = (await client.listTools()).tools.find((t) => /^db_get.*ItemRecords$/.test(t.name));
  if (!tool) throw new Error('no item list tool');
  const calls = Number(args.calls);
  const time = async (work: () => Promise<void>) => {
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await work();
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
  };
  const mcp = await time(async () => {
    const result = await client.callTool({ name: tool.name, arguments: { limit: 10 } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  });
  const rest = await time(async () => {
    const response = await fetch(`${url}/api/v2/db/_table/item?limit=10`, { headers: credentials });
    if (response.status !== 200) throw new Error(`REST ${response.status}`);
    await response.arrayBuffer();
  });
  await client.close();
  lines.push(
    `MCP tool call ${tool.name} (limit 10) vs REST GET /api/v2/db/_table/item?limit=10, ${calls} calls each, one at a time:`,
    `  MCP  p50 ${mcp.p50.toFixed(2)} ms  p99 ${mcp.p99.toFixed(2)} ms`,
    `  REST p50 ${rest.p50.toFixed(2)} ms  p99 ${rest.p99.toFixed(2)} ms`,
    `  MCP adds ${(mcp.p50 - rest.p50).toFixed(2)} ms at p50`,
  );
} finally {
  portico.child.kill('SIGTERM');
  hand.child.kill('SIGTERM');
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  await channel.deleteQueue(QUEUE).catch(() => undefined);
  await connection.close();
}
console.log(lines.join('\n'));
