/**
 * rws (remote HTTP) services whose remote misbehaves on a real socket: resets the connection,
 * closes it before answering, answers something that is not HTTP, sends its headers and then
 * nothing, or goes down and comes back (through a real TCP relay). Each call answers in the
 * spec's error shape (503) within the service's timeout, or is cut off there once the remote's
 * status went out; never a hang, and the service serves again once the remote is back.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';

const BEHAVIOURS: Record<string, (socket: net.Socket) => void> = {
  reset: (socket) => socket.resetAndDestroy(),
  closed: (socket) => socket.end(),
  garbage: (socket) => socket.end('\u0000\u0001 SSH-2.0-not-http\r\n\r\n'),
  headersonly: (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":'),
  // Its status and headers, then the connection closed or reset before any of the body, or a chunk that is not one.
  headersclosed: (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'),
  headersreset: (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n');
    setTimeout(() => socket.resetAndDestroy(), 50);
  },
  badchunk: (socket) => socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'),
  // A chunked body closed after its first chunk, without the last one.
  truncated: (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n');
    setTimeout(() => socket.end(), 100);
  },
  // A body that never ends, sent as fast as it is taken.
  endless: (socket) => {
    endless.add(socket);
    socket.on('close', () => endless.delete(socket));
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
    const piece = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
    const more = () => {
      while (!socket.destroyed && socket.write(piece));
    };
    socket.on('drain', more);
    more();
  },
};
const endless = new Set<net.Socket>();

let server: TestServer;
let api: Api;
let remote: net.Server;
let good: http.Server;
let relay: TcpRelay;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  remote = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let request = '';
    socket.on('data', (data) => {
      if (request.includes('\r\n\r\n')) return;
      request += data.toString('latin1');
      if (!request.includes('\r\n\r\n')) return;
      const name = (request.split(' ')[1] ?? '/').split('/')[1] ?? '';
      (BEHAVIOURS[name] ?? BEHAVIOURS.closed)(socket);
    });
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  good = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => good.listen(0, '127.0.0.1', resolve));
  relay = await startTcpRelay((good.address() as net.AddressInfo).port);
  server = await startTestServer();
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const base = `http://127.0.0.1:${(remote.address() as net.AddressInfo).port}`;
  const resource = Object.keys(BEHAVIOURS).map((name) => ({
    name: `rws_${name}`,
    label: name,
    type: 'rws',
    config: { base_url: `${base}/${name}`, timeout: 3 },
  }));
  resource.push({
    name: 'rws_relayed',
    label: 'relayed',
    type: 'rws',
    config: { base_url: `http://127.0.0.1:${relay.port}/v1`, timeout: 3 },
  });
  expect((await api('POST', '/system/service', { resource })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await server.close();
  await relay.close();
  for (const socket of sockets) socket.destroy();
  good.closeAllConnections();
  await Promise.all([remote, good].map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('an rws service whose remote misbehaves', () => {
  it.each([
    ['reset', 503, /is unreachable/],
    ['closed', 503, /is unreachable/],
    // Not HTTP: the remote is there but broken (said so, with the parser's code where the runtime gives one).
    ['garbage', 503, /answered something that is not HTTP( \(HPE_[A-Z_]+\))?\.$/],
    ['headersonly', 503, /did not answer within 3 s|is unreachable/],
    // The body failed before its first byte went out: the error shape, not a bare 500.
    ['headersclosed', 503, /is unreachable \(UND_ERR_SOCKET\)\.$/],
    ['headersreset', 503, /is unreachable \(ECONNRESET\)\.$/],
    ['badchunk', 503, /answered something that is not HTTP \(HPE_INVALID_CHUNK_SIZE\)\.$/],
    ['truncated', 200, null],
  ] as const)(
    '%s: %i in the error shape (or cut off once the status went out), within the timeout',
    { timeout: 60_000 },
    async (name, status, message) => {
      const started = Date.now();
      const answer = await server.app
        .inject({
          method: 'GET',
          url: `/api/v2/rws_${name}/thing`,
          headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() },
        })
        .then(
          (response) => ({ status: response.statusCode, body: response.body }),
          (error: Error) => ({ status: 0, body: error.message }),
        );
      expect(Date.now() - started).toBeLessThan(30_000);
      // The remote's status went out before its body stalled or broke: the caller's answer is cut off (as rws-service.test.ts's stall).
      if (name === 'headersonly' && answer.status === 0) return expect(answer.body).toBe('response destroyed before completion');
      if (message === null) return expect(answer).toEqual({ status: 0, body: 'response destroyed before completion' });
      expect(answer.status, answer.body).toBe(status);
      const body = JSON.parse(answer.body);
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error.code).toBe(status);
      expect(body.error.message).toMatch(new RegExp(`^The remote server of service 'rws_${name}' `));
      expect(body.error.message).toMatch(message);
    },
  );

  it('lets the remote go when the caller leaves midway through a streamed answer, and serves the next call', {
    timeout: 60_000,
  }, async () => {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as net.AddressInfo;
    const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
    const received = await new Promise<number>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/api/v2/rws_endless/file', headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes >= 1024 * 1024) {
            request.destroy();
            resolve(bytes);
          }
        });
      });
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    });
    expect(received).toBeGreaterThanOrEqual(1024 * 1024);
    // The remote's connection ends with the caller's: nothing keeps reading for a caller that is gone.
    await vi.waitFor(() => expect(endless.size).toBe(0), { timeout: 10_000 });
    expect((await api('GET', '/rws_relayed/a')).status).toBe(200);
  });

  it('answers 503 while the remote is down or hangs, and serves again once it is back', { timeout: 60_000 }, async () => {
    expect((await api('GET', '/rws_relayed/a')).status).toBe(200);
    await relay.cut();
    expect((await api('GET', '/rws_relayed/a')).body.error.code).toBe(503);
    await relay.restore();
    relay.silence();
    expect((await api('GET', '/rws_relayed/a')).body.error.code).toBe(503);
    await relay.restore();
    await vi.waitFor(async () => expect((await api('GET', '/rws_relayed/a')).status).toBe(200), { timeout: 15_000 });
  });
});
