/**
 * A WSDL read that is redirected: followed on its own host with the service's credentials and
 * configured headers, to another origin (host, port or scheme) without them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoapTransport } from '#runtime/services/soap/call/soap-transport.js';

const seen: Array<{ server: 'wsdl' | 'other'; url: string; headers: http.IncomingHttpHeaders }> = [];
let wsdlHost: http.Server;
let otherHost: http.Server;
let wsdlBase: string;
let otherBase: string;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  wsdlHost = http.createServer((request, response) => {
    seen.push({ server: 'wsdl', url: request.url ?? '', headers: request.headers });
    if (request.url === '/moved?wsdl') response.writeHead(301, { location: '/svc?wsdl' }).end();
    else if (request.url === '/away?wsdl') response.writeHead(302, { location: `${otherBase}/svc?wsdl` }).end();
    else response.end('<definitions/>');
  });
  otherHost = http.createServer((request, response) => {
    seen.push({ server: 'other', url: request.url ?? '', headers: request.headers });
    response.end('<definitions/>');
  });
  [wsdlBase, otherBase] = await Promise.all([listen(wsdlHost), listen(otherHost)]);
});
afterAll(() => {
  for (const server of [wsdlHost, otherHost]) {
    server.closeAllConnections();
    server.close();
  }
});

describe('SoapTransport redirects', () => {
  const transport = new SoapTransport({
    basicAuth: { username: 'soap-user', password: 'soap-secret' },
    ntlm: null,
    timeoutMs: 2000,
    tls: null,
    httpHeaders: { 'X-Api-Key': 'configured-secret' },
  });
  afterAll(() => transport.close());

  it('keeps the credentials and configured headers on the same host', async () => {
    seen.length = 0;
    expect((await transport.exchange(`${wsdlBase}/moved?wsdl`, null)).body).toBe('<definitions/>');
    expect(seen.map((s) => [s.server, s.url])).toEqual([
      ['wsdl', '/moved?wsdl'],
      ['wsdl', '/svc?wsdl'],
    ]);
    for (const { headers } of seen) {
      expect(headers.authorization).toBe(`Basic ${Buffer.from('soap-user:soap-secret').toString('base64')}`);
      expect(headers['x-api-key']).toBe('configured-secret');
    }
  });

  it('sends neither to another origin it is redirected to', async () => {
    seen.length = 0;
    expect((await transport.exchange(`${wsdlBase}/away?wsdl`, null)).body).toBe('<definitions/>');
    expect(seen.map((s) => [s.server, s.url])).toEqual([
      ['wsdl', '/away?wsdl'],
      ['other', '/svc?wsdl'],
    ]);
    expect(seen[0].headers.authorization).toBeDefined();
    expect(seen[1].headers.authorization).toBeUndefined();
    expect(seen[1].headers['x-api-key']).toBeUndefined();
  });
});
