import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS, startLoad } from '../../../bench/load.js';

/** The bench's load generator; a machine without it cannot run the bench either. */
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

describe.skipIf(!hasWrk)('bench load generator', () => {
  const orders = new Set<string>();
  let server: http.Server;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-load-'));
    server = http.createServer((req, res) => {
      orders.add(Object.keys(req.headers).join(','));
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // wrk's own header table changed its order from one wrk process to the next, and with it the
  // hidden class of the server's headers objects: each run began by deoptimising the request path.
  it('sends the headers in one order, the same in every run (wrk is a new process each time)', async () => {
    const patch = SCENARIOS.find((scenario) => scenario.name === 'patch')!;
    const headers = { 'content-type': 'application/json', 'x-service-api-key': 'key', 'x-service-session-token': 'token' };
    for (let run = 0; run < 4; run++) await startLoad(url, patch, headers, { connections: 1, seconds: 1, dir }).done;
    expect([...orders]).toEqual(['host,content-type,x-service-api-key,x-service-session-token,content-length']);
  }, 30_000);
});
