/**
 * SOAP hosts that misbehave at the transport level, on real sockets: one that is down, one that
 * accepts and never answers, one that sends its headers and then nothing, garbage or truncated
 * XML, an HTML error page, a 500 without a fault, a huge answer, a connection closed midway
 * through the body. Each call answers in the spec's error shape, within the service's
 * connection_timeout (never a hang), and a real fault stays a 500 with its text.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { FIXTURES, soapModel } from '../soap/soap-peers.js';

const CALCULATOR = path.join(FIXTURES, 'calculator.wsdl');
const ADD_RESPONSE =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AddResponse xmlns="http://tempuri.org/"><AddResult>3</AddResult></AddResponse></soap:Body></soap:Envelope>';

/** What the misbehaving host does, by request path. */
const BEHAVIOURS: Record<string, (socket: net.Socket) => void> = {
  '/ok': (socket) => socket.end(reply(200, 'text/xml; charset=utf-8', ADD_RESPONSE)),
  '/silent': () => undefined,
  '/headers-only': (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<soap:Envelope'),
  '/garbage': (socket) => socket.end(reply(200, 'text/xml', '\u0000\u0001 this is not XML at all <<<>>>')),
  '/truncated': (socket) => socket.end(reply(200, 'text/xml', ADD_RESPONSE.slice(0, 150))),
  '/html': (socket) =>
    socket.end(reply(502, 'text/html', '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>')),
  '/html-200': (socket) => socket.end(reply(200, 'text/html', '<!DOCTYPE html><html><body><p>Maintenance</p></body></html>')),
  '/500-empty': (socket) => socket.end(reply(500, 'text/plain', '')),
  '/500-text': (socket) => socket.end(reply(500, 'text/plain', 'Internal Server Error')),
  '/mid-body': (socket) => {
    socket.write(
      `HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: ${ADD_RESPONSE.length}\r\n\r\n${ADD_RESPONSE.slice(0, 120)}`,
    );
    setTimeout(() => socket.destroy(), 50);
  },
  '/mid-chunk': (socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n78\r\n${ADD_RESPONSE.slice(0, 120)}\r\n`);
    setTimeout(() => socket.destroy(), 50);
  },
  '/reset': (socket) => socket.resetAndDestroy(),
  '/huge': (socket) => {
    // An answer without end: chunks of XML comment for as long as the client reads.
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = `<!--${'x'.repeat(1024 * 1024 - 7)}-->`;
    const frame = `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`;
    const pump = () => {
      while (!socket.destroyed && socket.write(frame));
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
  },
};

function reply(status: number, type: string, body: string): string {
  return `HTTP/1.1 ${status} X\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

let host: net.Server;
let server: TestServer;
let headers: Record<string, string>;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  host = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let request = '';
    socket.on('data', (data) => {
      if (request.includes('\r\n\r\n')) return;
      request += data.toString('latin1');
      if (!request.includes('\r\n\r\n')) return;
      const target = request.split(' ')[1] ?? '/';
      (BEHAVIOURS[target] ?? BEHAVIOURS['/ok'])(socket);
    });
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(host.address() as net.AddressInfo).port}`;
  // A port nothing listens on: the host is down.
  const down = net.createServer();
  await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
  const downPort = (down.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => down.close(() => resolve()));
  const services = [];
  let id = 20;
  for (const name of [...Object.keys(BEHAVIOURS), '/down']) {
    const location = name === '/down' ? `http://127.0.0.1:${downPort}/soap` : `${base}${name}`;
    // 100 MiB took over 3 s to arrive on a machine at load 20: the huge answer must hit the size limit, not the timeout.
    const connection_timeout = name === '/huge' ? 25 : 3;
    services.push(await soapModel(id++, name.slice(1).replace(/-/g, ''), CALCULATOR, {}, { location, connection_timeout }));
  }
  const model = minimalModel();
  server = await startTestServer({ ...model, services: [...model.services, ...services] });
  headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': await server.adminToken() };
}, 60_000);

afterAll(async () => {
  await server?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => host.close(() => resolve()));
});

async function add(service: string) {
  const started = Date.now();
  const response = await server.app.inject({ method: 'POST', url: `/api/v2/${service}/Add`, headers, payload: { intA: 1, intB: 2 } });
  return { status: response.statusCode, body: response.json(), ms: Date.now() - started };
}

describe('a SOAP host that misbehaves', () => {
  it('answers a well-formed reply (the host works)', async () => {
    expect(await add('ok')).toMatchObject({ status: 200, body: { AddResult: 3 } });
  });

  it.each([
    ['down', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/soap cannot be reached: .*ECONNREFUSED/],
    ['silent', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/silent did not answer within 3 s\.$/],
    ['headersonly', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/headers-only did not answer within 3 s\.$/],
    ['reset', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/reset cannot be reached: /],
    ['midbody', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/mid-body closed the connection before its answer was complete \(.+\)\.$/],
    ['midchunk', 503, /^The SOAP host http:\/\/127\.0\.0\.1:\d+\/mid-chunk closed the connection before its answer was complete \(.+\)\.$/],
    ['garbage', 500, /^The SOAP service answered with malformed XML: /],
    ['truncated', 500, /^The SOAP service answered with malformed XML: /],
    ['html', 503, /^The SOAP service answered HTTP 502 without a SOAP envelope\.$/],
    ['html200', 500, /^The SOAP service answered with <html>, not a SOAP envelope\.$/],
    ['500empty', 500, /^The SOAP service answered HTTP 500 without a SOAP envelope\.$/],
    ['500text', 500, /^The SOAP service answered HTTP 500 without a SOAP envelope\.$/],
    ['huge', 500, /^The answer of http:\/\/127\.0\.0\.1:\d+\/huge exceeds 100 MiB\.$/],
  ] as const)('%s: %i in the error shape, within the connection timeout', { timeout: 60_000 }, async (service, status, message) => {
    const answer = await add(service);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error.code).toBe(status);
    expect(answer.body.error.message).toMatch(message);
    expect(answer.ms).toBeLessThan(30_000);
    // The service goes on: the same host's good port answers.
    expect((await add('ok')).status).toBe(200);
  });
});
