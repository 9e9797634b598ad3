/**
 * NTLM authentication to a SOAP endpoint (spec, SOAP client options `ntlm_username`,
 * `ntlm_password`): a host that speaks the NTLM handshake (401 with `WWW-Authenticate: NTLM`, a
 * Type 2 challenge to the client's Type 1, the SOAP answer to its Type 3) and records the account
 * each Type 3 message names. The Calculator WSDL of the corpus, pointed at that host.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { CORPUS, soapModel } from './soap-peers.js';

interface Authenticated {
  user: string;
  domain: string;
  workstation: string;
  /** Length of the NT response: above 24 bytes it is an NTLMv2 one. */
  ntResponseLength: number;
}

const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/** A Type 2 (challenge) message: target CORP, Unicode, NTLM, target information. */
function challengeMessage(): string {
  const target = utf16('CORP');
  const info = Buffer.concat([Buffer.from([2, 0, target.length, 0]), target, Buffer.from([0, 0, 0, 0])]);
  const header = Buffer.alloc(48);
  header.write('NTLMSSP\0', 0, 'ascii');
  header.writeUInt32LE(2, 8);
  header.writeUInt16LE(target.length, 12);
  header.writeUInt16LE(target.length, 14);
  header.writeUInt32LE(48, 16);
  header.writeUInt32LE(0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00010000 | 0x00080000 | 0x00800000, 20);
  Buffer.from('0123456789abcdef', 'hex').copy(header, 24);
  header.writeUInt16LE(info.length, 40);
  header.writeUInt16LE(info.length, 42);
  header.writeUInt32LE(48 + target.length, 44);
  return Buffer.concat([header, target, info]).toString('base64');
}

/** The account a Type 3 message names (its strings in UTF-16, as the Type 2 asked). */
function readAuthenticate(message: Buffer): Authenticated {
  const field = (at: number) => message.subarray(message.readUInt32LE(at + 4), message.readUInt32LE(at + 4) + message.readUInt16LE(at));
  return {
    domain: field(28).toString('utf16le'),
    user: field(36).toString('utf16le'),
    workstation: field(44).toString('utf16le'),
    ntResponseLength: message.readUInt16LE(20),
  };
}

const ANSWER =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
  '<soap:Body><AddResponse xmlns="http://tempuri.org/"><AddResult>5</AddResult></AddResponse></soap:Body></soap:Envelope>';

const authenticated: Authenticated[] = [];
let unauthenticated = 0;
let host: http.Server;
let server: TestServer;

beforeAll(async () => {
  host = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const [scheme, value] = (request.headers.authorization ?? '').split(' ');
      const message = scheme === 'NTLM' && value ? Buffer.from(value, 'base64') : null;
      const type = message && message.subarray(0, 8).toString('ascii') === 'NTLMSSP\0' ? message.readUInt32LE(8) : 0;
      if (type === 1) {
        response.writeHead(401, { 'www-authenticate': `NTLM ${challengeMessage()}` }).end();
      } else if (type === 3 && message) {
        authenticated.push(readAuthenticate(message));
        response.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(ANSWER);
      } else {
        unauthenticated++;
        response.writeHead(401, { 'www-authenticate': 'NTLM' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const location = `http://127.0.0.1:${(host.address() as AddressInfo).port}/soap`;
  const model = minimalModel();
  const calc = await soapModel(
    8,
    'ntlmcalc',
    `${CORPUS}/pm-calculator.wsdl`,
    {},
    {
      location,
      ntlm_username: 'alice',
      ntlm_password: 'alices-secret',
      ntlm_domain: 'CORP',
      ntlm_workstation: 'PORTICO',
    },
  );
  const plain = await soapModel(9, 'plaincalc', `${CORPUS}/pm-calculator.wsdl`, {}, { location });
  server = await startTestServer({ ...model, services: [...model.services, calc, plain] });
});

afterAll(async () => {
  await server?.close();
  host?.closeAllConnections();
  host?.close();
});

const call = async (service: string) => {
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v2/${service}/Add`,
    headers: { 'x-service-session-token': await server.adminToken(), 'content-type': 'application/json' },
    payload: { intA: 2, intB: 3 },
  });
  return { status: response.statusCode, body: response.json() };
};

it('authenticates with NTLM as the configured account and returns the answer', async () => {
  expect(await call('ntlmcalc')).toEqual({ status: 200, body: { AddResult: 5 } });
  expect(authenticated).toEqual([{ user: 'alice', domain: 'CORP', workstation: 'PORTICO', ntResponseLength: expect.any(Number) }]);
  expect(authenticated[0].ntResponseLength).toBeGreaterThan(24);
});

it("without NTLM options answers the host's refusal as a 500 naming it", async () => {
  const before = unauthenticated;
  // A 500, not the host's 401: a client reads 401 as its own session ending.
  expect(await call('plaincalc')).toEqual({
    status: 500,
    body: { error: { code: 500, message: 'The SOAP service answered HTTP 401 without a SOAP envelope.' } },
  });
  expect(unauthenticated).toBe(before + 1);
});
