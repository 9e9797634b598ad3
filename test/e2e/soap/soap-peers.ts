/**
 * Real SOAP peers for the tests: node-soap servers on 127.0.0.1 (port 0) built from WSDLs of the
 * corpus, with small fake implementations, and a plain HTTP peer for the WSDLs written for the
 * tests (test/e2e/soap/wsdl/) that answers with the envelopes a test gives it. Each records the
 * raw requests it receives (HTTP headers and the envelope text) so that tests can check what was
 * actually sent.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen, passwordDigest, type IServices } from 'soap';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import type { RuntimeContext } from '#runtime/services/service-kind.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';

export const CORPUS = WSDL_CORPUS_DIR;

export interface RecordedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Peer {
  /** The endpoint address. */
  url: string;
  /** The WSDL as the peer serves it (`?wsdl`). */
  wsdlUrl: string;
  /** Absolute path of the corpus WSDL. */
  wsdlFile: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface PeerOptions {
  /** Called with the WS-Security header; return false to refuse the request. */
  authenticate?: (security: WsseSecurity) => boolean;
}

export interface WsseSecurity {
  UsernameToken?: { Username?: string; Password?: { $value?: string }; Nonce?: { $value?: string }; Created?: string };
}

/** Starts a node-soap server for a corpus WSDL. */
export async function startPeer(wsdl: string, services: IServices, options: PeerOptions = {}): Promise<Peer> {
  const wsdlFile = path.join(CORPUS, wsdl);
  const xml = fs.readFileSync(wsdlFile, 'utf8');
  const server = http.createServer();
  const requests: RecordedRequest[] = [];
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const soapServer = listen(server, { path: '/soap', services, xml });
  if (options.authenticate) soapServer.authenticate = (security: unknown) => options.authenticate!(security as WsseSecurity);
  // node-soap takes over the server's request listeners; this hook sees every request first.
  soapServer.authorizeConnection = (request: http.IncomingMessage) => {
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }));
    }
    return true;
  };
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/soap`;
  return {
    url,
    wsdlUrl: `${url}?wsdl`,
    wsdlFile,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The WSDLs written for Portico's tests (test/e2e/soap/wsdl/), beyond the corpus. */
export const FIXTURES = fileURLToPath(new URL('./wsdl/', import.meta.url));

/** The address the fixture WSDLs give their ports; a fixture peer serves them with its own instead. */
const FIXTURE_HOST = 'http://peer.invalid';

export interface FixtureRequest extends RecordedRequest {
  /** The request path, e.g. `/rpclit`. */
  path: string;
}

export interface FixtureReply {
  status?: number;
  body: string | Buffer;
  contentType?: string;
}

export interface FixturePeer {
  /** `http://127.0.0.1:{port}`. */
  base: string;
  requests: FixtureRequest[];
  close(): Promise<void>;
}

/**
 * A SOAP peer for the fixture WSDLs: GET serves the files of test/e2e/soap/wsdl/ with
 * `http://peer.invalid` replaced by its own address (so a WSDL read by URL points at it), POST is
 * answered by `reply` (an envelope written by the test) and recorded.
 */
export async function startFixturePeer(reply: (request: FixtureRequest) => FixtureReply): Promise<FixturePeer> {
  const requests: FixtureRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const requestPath = new URL(request.url ?? '/', base).pathname;
      if (request.method === 'GET') {
        const file = path.join(FIXTURES, decodeURIComponent(requestPath));
        if (!file.startsWith(FIXTURES) || !fs.existsSync(file)) {
          response.writeHead(404).end();
          return;
        }
        // Byte for byte (as latin1), so that a file in another encoding stays as written.
        const text = fs.readFileSync(file).toString('latin1').replaceAll(FIXTURE_HOST, base);
        response.writeHead(200, { 'content-type': 'text/xml' }).end(Buffer.from(text, 'latin1'));
        return;
      }
      const recorded = { path: requestPath, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const answer = reply(recorded);
      response.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/xml; charset=utf-8' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The Calculator of the corpus (SOAP 1.1 and 1.2 ports); Divide by zero faults like the real one.
 * `soapHeaders` receives the SOAP headers of each Add call, as node-soap parses them.
 */
export function calculatorServices(soapHeaders: unknown[] = []): IServices {
  const calculator = {
    Add: (args: { intA: number; intB: number }, _callback: unknown, headers: unknown) => {
      soapHeaders.push(headers);
      return { AddResult: Number(args.intA) + Number(args.intB) };
    },
    Subtract: (args: { intA: number; intB: number }) => ({ SubtractResult: Number(args.intA) - Number(args.intB) }),
    Multiply: (args: { intA: number; intB: number }) => ({ MultiplyResult: Number(args.intA) * Number(args.intB) }),
    Divide: (args: { intA: number; intB: number }) => {
      if (Number(args.intB) === 0)
        throw { Fault: { faultcode: 'soap:Server', faultstring: 'Attempted to divide by zero.', statusCode: 500 } };
      return { DivideResult: Math.trunc(Number(args.intA) / Number(args.intB)) };
    },
  };
  return { Calculator: { CalculatorSoap: calculator, CalculatorSoap12: calculator } };
}

/** Whether a UsernameToken carries the PasswordDigest of `password`. */
export function digestMatches(security: WsseSecurity, username: string, password: string): boolean {
  const token = security.UsernameToken;
  if (token?.Username !== username || !token.Nonce?.$value || !token.Created) return false;
  return token.Password?.$value === passwordDigest(token.Nonce.$value, token.Created, password);
}

const introspection: RuntimeContext = { baseDir: '/', resolveEnv: (value) => value };

/** A SOAP service model as `gen build` makes it from `wsdlFile` (a path or URL), pointed at a peer by `options`. */
export async function soapModel(
  id: number,
  name: string,
  wsdlFile: string,
  config: Record<string, unknown> = {},
  options: Record<string, unknown> = {},
): Promise<ServiceModel> {
  const base: ServiceModel = {
    id,
    name,
    label: name,
    type: 'soap',
    description: '',
    is_active: true,
    origin: 'platform',
    kind: 'plain',
    config: { wsdl: wsdlFile, ...config, options: { connection_timeout: 5, ...options } },
  };
  return soapKind.introspect!(base, introspection);
}
