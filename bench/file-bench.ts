/**
 * File-service throughput: download and upload of one file on local storage through Portico's
 * `files` service (credentials checked, the request streamed through the file engine) against a
 * hand-written Fastify route streaming the same file (no checks). Both servers run in this process
 * in turn; the client is Node's http module, 4 transfers at a time. Prints MB/s per round and the
 * ratio (median of the rounds' Portico / hand-written). `--big` also uploads 1 GB to Portico and
 * reports the process's resident memory above idle while it streams.
 *
 *   npx tsx bench/file-bench.ts [--size-mb 64] [--rounds 5] [--big]   (--rounds 0 --big: the 1 GB upload alone)
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { median } from './closed-loops.js';
import { servePortico } from './launch.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const SIZE = option('size-mb', 64) * 1024 * 1024;
const ROUNDS = option('rounds', 5);
const PARALLEL = 4;
const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });

function download(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`GET ${url}: ${response.statusCode}`))));
      })
      .on('error', reject);
  });
}

function upload(url: string, headers: Record<string, string>, body: Readable, length: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'PUT', agent, headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(length) } },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 201 || response.statusCode === 200 ? resolve() : reject(new Error(`PUT ${url}: ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    body.pipe(request);
  });
}

/** MB/s of PARALLEL transfers of SIZE bytes each. */
async function rate(run: (index: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: PARALLEL }, (_, i) => run(i)));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return (PARALLEL * SIZE) / 1024 / 1024 / seconds;
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portico-file-bench-'));
  const filesDir = path.join(dir, 'data', 'files');
  const handDir = path.join(dir, 'hand');
  await fs.mkdir(filesDir, { recursive: true });
  await fs.mkdir(handDir, { recursive: true });
  const block = Buffer.alloc(1024 * 1024, 7);
  await pipeline(
    Readable.from(
      (function* () {
        for (let i = 0; i < SIZE / block.length; i += 1) yield block;
      })(),
    ),
    createWriteStream(path.join(filesDir, 'big.bin')),
  );
  await fs.copyFile(path.join(filesDir, 'big.bin'), path.join(handDir, 'big.bin'));

  const portico = await servePortico(minimalModel(), dir);
  const porticoUrl = portico.url;
  const auth = { 'x-service-api-key': portico.apiKey, 'x-service-session-token': portico.token };

  const hand = Fastify({ bodyLimit: 2 * 1024 * 1024 * 1024 });
  hand.addContentTypeParser('*', (_request, _payload, done) => done(null));
  hand.get('/big.bin', async (_request, reply) =>
    reply.header('content-type', 'application/octet-stream').send(createReadStream(path.join(handDir, 'big.bin'))),
  );
  hand.put('/up/:name', async (request, reply) => {
    await pipeline(request.raw, createWriteStream(path.join(handDir, (request.params as { name: string }).name)));
    return reply.status(201).send({ ok: true });
  });
  const handUrl = await hand.listen({ port: 0, host: '127.0.0.1' });
  const source = () => createReadStream(path.join(dir, 'hand', 'big.bin'));

  const results = { download: [] as Array<[number, number]>, upload: [] as Array<[number, number]> };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? ['portico', 'hand'] : ['hand', 'portico'];
    const figures: Record<string, { download: number; upload: number }> = {};
    for (const who of order) {
      const download1 =
        who === 'portico'
          ? await rate(() => download(`${porticoUrl}/api/v2/files/big.bin`, auth))
          : await rate(() => download(`${handUrl}/big.bin`, {}));
      const upload1 =
        who === 'portico'
          ? await rate((i) => upload(`${porticoUrl}/api/v2/files/up-${i}.bin`, auth, source(), SIZE))
          : await rate((i) => upload(`${handUrl}/up/up-${i}.bin`, {}, source(), SIZE));
      figures[who] = { download: download1, upload: upload1 };
    }
    results.download.push([figures.portico.download, figures.hand.download]);
    results.upload.push([figures.portico.upload, figures.hand.upload]);
    console.log(
      `round ${round + 1}: download ${figures.portico.download.toFixed(0)} vs ${figures.hand.download.toFixed(0)} MB/s, upload ${figures.portico.upload.toFixed(0)} vs ${figures.hand.upload.toFixed(0)} MB/s (Portico vs hand-written)`,
    );
  }
  for (const kind of ROUNDS > 0 ? (['download', 'upload'] as const) : []) {
    const ratios = results[kind].map(([p, h]) => p / h);
    console.log(
      `${kind}: Portico ${median(results[kind].map(([p]) => p)).toFixed(0)} MB/s, hand-written ${median(results[kind].map(([, h]) => h)).toFixed(0)} MB/s, ratio ${median(ratios).toFixed(2)} (${PARALLEL} x ${SIZE / 1024 / 1024} MB, ${ROUNDS} rounds)`,
    );
  }

  if (args.includes('--big')) {
    const total = 1_000_000_000;
    global.gc?.();
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const chunk = Buffer.alloc(256 * 1024, 3);
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent >= total) {
          this.push(null);
          return;
        }
        const part = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
        sent += part.length;
        this.push(part);
      },
    });
    const start = Date.now();
    await upload(`${porticoUrl}/api/v2/files/one-gb.bin`, auth, body, total);
    clearInterval(sampler);
    const stored = (await fs.stat(path.join(filesDir, 'one-gb.bin'))).size;
    console.log(
      `1 GB upload: ${((Date.now() - start) / 1000).toFixed(1)} s, stored ${stored} bytes, resident memory at most ${((peak - idle) / 1024 / 1024).toFixed(0)} MB above idle (${(idle / 1024 / 1024).toFixed(0)} MB; server and client in one process)`,
    );
  }
  await portico.close();
  await hand.close();
  agent.destroy();
  await fs.rm(dir, { recursive: true, force: true });
}

await main();
