/**
 * rpc/encoded requests as PHP SoapServers read them (PHP's SOAP extension is the reference
 * platform's SOAP stack; .ci/setup-php.sh installs it). One has no WSDL, so like old rpc/encoded
 * hosts it decodes each value by its xsi:type and each array by SOAP-ENC:arrayType: what it
 * records shows ints as ints, arrays of structs and of strings as lists, structs as objects;
 * Portico calls it through MantisConnect's WSDL. The other serves the SOAP 1.2 ns-rpcexample.wsdl.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { CORPUS, soapModel } from './soap-peers.js';
import { freePort } from '#test/helpers/free-port.js';

function phpSoapInstalled(): boolean {
  const found = spawnSync('php', ['-r', 'exit(class_exists("SoapServer") ? 0 : 1);']).status === 0;
  if (!found && process.env.CI === 'true') throw new Error('php-soap is missing: .ci/setup-php.sh installs it; CI needs it.');
  if (!found)
    process.stderr.write(
      '\n[skipped] PHP with its SOAP extension is not installed (run .ci/setup-php.sh as root): the PHP peer test is skipped.\n',
    );
  return found;
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() !== undefined));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the PHP peer did not listen on port ${port}`);
}

const PHP_DIR = fileURLToPath(new URL('./php/', import.meta.url));

const php: ChildProcess[] = [];
let log: string;
let server: TestServer;
let headers: Record<string, string>;

/** What the peers decoded for each call: [operation, arguments]. */
const decoded = () =>
  fs
    .readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as [string, unknown[]]);

/** Serves a script of php/ with PHP's built-in web server; its address. */
async function startPhp(script: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  php.push(spawn('php', ['-S', `127.0.0.1:${port}`, script], { cwd: PHP_DIR, env: { ...process.env, ...env }, stdio: 'ignore' }));
  await waitForPort(port);
  return `http://127.0.0.1:${port}/`;
}

describe.skipIf(!phpSoapInstalled())('PHP SoapServers decoding Portico’s rpc/encoded requests', () => {
  beforeAll(async () => {
    log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portico-php-peer-')), 'calls.jsonl');
    fs.writeFileSync(log, '');
    const encoded = await startPhp('encoded-server.php', { PHP_PEER_LOG: log });
    const rpcWsdl = path.join(CORPUS, 'ns-rpcexample.wsdl');
    const rpc = await startPhp('rpc-example-server.php', { PHP_PEER_LOG: log, PHP_PEER_WSDL: rpcWsdl });
    const model = minimalModel();
    const services = [
      await soapModel(30, 'mantis', path.join(CORPUS, 'mantis-connect.wsdl'), {}, { location: encoded }),
      await soapModel(31, 'rpc', rpcWsdl, {}, { location: rpc }),
    ];
    server = await startTestServer({ ...model, services: [...model.services, ...services] });
    headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
  });

  afterAll(async () => {
    await server?.close();
    for (const child of php) child.kill();
  });

  async function call(operation: string, payload: unknown) {
    const response = await server.app.inject({ method: 'POST', url: `/api/v2/${operation}`, headers, payload: payload as object });
    return { status: response.statusCode, body: response.json() as unknown };
  }

  it('reads scalar parts, a struct, arrays of structs and of strings with their types, and answers', async () => {
    const issue = {
      id: '12',
      summary: 'S',
      project: { id: 1 },
      sticky: 'true',
      notes: [{ text: 'n' }],
      tags: [{ id: 2, name: 't' }, { name: 'u' }],
    };
    expect(await call('mantis/mc_issue_add', { username: 'u', password: 'p', issue })).toEqual({ status: 200, body: { return: 7 } });
    const filter = { search: 'x', category: ['a', 'b'], project_id: [1, '2'] };
    expect(await call('mantis/mc_filter_search_issue_ids', { username: 'u', password: 'p', filter, page_number: 1, per_page: 10 })).toEqual(
      {
        status: 200,
        body: { return: [3, 4] },
      },
    );
    expect(decoded()).toEqual([
      [
        'mc_issue_add',
        [
          'u',
          'p',
          { id: 12, project: { id: 1 }, summary: 'S', notes: [{ text: 'n' }], sticky: true, tags: [{ id: 2, name: 't' }, { name: 'u' }] },
        ],
      ],
      ['mc_filter_search_issue_ids', ['u', 'p', { project_id: [1, 2], search: 'x', category: ['a', 'b'] }, 1, 10]],
    ]);
  });

  it("calls a SOAP 1.2 rpc/encoded service: encodingStyle on the body's element, not the Envelope; rpc:result is no data", async () => {
    fs.writeFileSync(log, '');
    expect(await call('rpc/getKey', { params: { module: 'm', key: 'k' } })).toEqual({
      status: 200,
      body: { base64EncodedVariantResult: 'm/k' },
    });
    expect(await call('rpc/listKeys', { params: { module: 'm', base: 'b' } })).toEqual({ status: 200, body: { result: ['b.a', 'b.b'] } });
    expect(decoded()).toEqual([
      ['getKey', [{ module: 'm', key: 'k' }]],
      ['listKeys', [{ module: 'm', base: 'b' }]],
    ]);
  });
});
