import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoapTransport } from '#runtime/services/soap/call/soap-transport.js';
import { loadWsdlDocuments } from '#runtime/services/soap/wsdl/wsdl-loader.js';
import { resolveWsdlLocation } from '#runtime/services/soap/wsdl/wsdl-source.js';
import { documentWsdl, tempFiles } from '../soap-test-helpers.js';
import { WSDL_CORPUS_DIR } from '#test/helpers/shared-dir.js';

const corpus = WSDL_CORPUS_DIR;
const transport = new SoapTransport({ basicAuth: null, ntlm: null, timeoutMs: 2000, tls: null, httpHeaders: {} });
const files = tempFiles({ 'wsdl/calc.wsdl': '<x/>', 'beside.wsdl': '<x/>', 'sub/deep.wsdl': '<x/>', 'broken.wsdl': '<wsdl:definitions' });
let server: http.Server;
let base: string;

beforeAll(async () => {
  // A WSDL served over HTTP that tries to import a local file.
  const wsdl = documentWsdl('<xs:include schemaLocation="file:///etc/passwd"/><xs:element name="R" type="xs:string"/>', [
    { name: 'Op', input: 'R' },
  ]);
  const megabyte = Buffer.alloc(1024 * 1024, ' ');
  server = http.createServer((request, response) => {
    if (request.url === '/svc?wsdl') response.end(wsdl);
    else if (request.url === '/endless?wsdl') {
      // Never ends: spaces as fast as they are read.
      const pump = () => {
        while (!response.destroyed && response.write(megabyte));
      };
      response.on('drain', pump);
      pump();
    } else response.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  files.cleanup();
});

describe('WSDL location', () => {
  it.each([
    ['http://example.com/svc?wsdl', 'platform', { kind: 'url', url: 'http://example.com/svc?wsdl' }],
    ['calc.wsdl', 'platform', { kind: 'file', path: 'wsdl/calc.wsdl' }],
    ['calc.wsdl', 'api', { kind: 'file', path: 'wsdl/calc.wsdl' }],
    ['beside.wsdl', 'platform', { kind: 'file', path: 'beside.wsdl' }],
    ['sub/deep.wsdl', 'platform', { kind: 'file', path: 'sub/deep.wsdl' }],
  ] as const)('%s (%s)', (declared, origin, expected) => {
    const location = resolveWsdlLocation(declared, files.dir, origin);
    expect(location.kind === 'file' ? { kind: 'file', path: path.relative(files.dir, location.path) } : location).toEqual(expected);
  });

  it.each([
    ['beside.wsdl', 'api', "WSDL file 'beside.wsdl' not found: looked for wsdl/beside.wsdl in the platform directory."],
    [
      'sub/deep.wsdl',
      'api',
      "'config.wsdl' of a service created through the API must be an http(s) URL or a bare file name of the platform's wsdl/ directory, not 'sub/deep.wsdl'.",
    ],
    ['file:///etc/passwd', 'platform', "'config.wsdl' must be an http(s) URL or a file name, not 'file:///etc/passwd'."],
    [
      'missing.wsdl',
      'platform',
      "WSDL file 'missing.wsdl' not found: looked for wsdl/missing.wsdl and missing.wsdl in the platform directory.",
    ],
    ['', 'platform', "A SOAP service needs 'config.wsdl': an http(s) URL or a WSDL file name."],
  ] as const)('refuses %j (%s)', (declared, origin, message) => {
    expect(() => resolveWsdlLocation(declared, files.dir, origin)).toThrow(message);
  });
});

describe('WSDL loading', () => {
  it('follows wsdl:import and xsd:import relative to the importing document', async () => {
    const documents = await loadWsdlDocuments({ kind: 'file', path: path.join(corpus, 'ns-typeref/order.wsdl') }, transport);
    expect(documents.map((document) => path.basename(document.uri)).slice(0, 3)).toEqual(['order.wsdl', 'ns1.xsd', 'ns2.xsd']);
  });

  it('uses the built-in standard schemas instead of fetching them', async () => {
    // w2p-acton.wsdl imports http://www.w3.org/2005/05/xmlmime: there is no network here.
    const documents = await loadWsdlDocuments({ kind: 'file', path: path.join(corpus, 'w2p-acton.wsdl') }, transport);
    expect(documents.map((document) => path.basename(document.uri))).toEqual([
      'w2p-acton.wsdl',
      'soap-encoding.xsd',
      'soap12-encoding.xsd',
      'xmlmime.xsd',
      'xml.xsd',
    ]);
  });

  it('reads a WSDL over HTTP and refuses its imports of local files', async () => {
    await expect(loadWsdlDocuments({ kind: 'url', url: `${base}/svc?wsdl` }, transport)).rejects.toThrow(
      `'${base}/svc?wsdl' imports 'file:///etc/passwd': a WSDL read from a URL may only import over http(s).`,
    );
  });

  it.each([
    [{ kind: 'url', url: 'http://127.0.0.1:9/none?wsdl' } as const, 503, 'The SOAP host http://127.0.0.1:9/none?wsdl cannot be reached'],
    [{ kind: 'file', path: path.join(files.dir, 'broken.wsdl') } as const, 500, "'broken.wsdl' is not well-formed XML"],
  ])('reports an unusable WSDL: %j', async (location, status, message) => {
    const error = await loadWsdlDocuments(location, transport).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status });
    expect((error as Error).message).toContain(message);
  });

  it('cuts off an answer beyond 100 MiB (an endless one) with a clear error', async () => {
    // Reading 100 MiB takes a fraction of a second alone but seconds on a loaded machine: give it the
    // production default timeout (60 s), so only the size limit, not the 2 s above, can end it.
    const patient = new SoapTransport({ basicAuth: null, ntlm: null, timeoutMs: 60_000, tls: null, httpHeaders: {} });
    try {
      const error = await loadWsdlDocuments({ kind: 'url', url: `${base}/endless?wsdl` }, patient).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 500, message: `The answer of ${base}/endless?wsdl exceeds 100 MiB.` });
    } finally {
      patient.close();
    }
  }, 90_000);

  it('reports an HTTP error of the WSDL URL', async () => {
    await expect(loadWsdlDocuments({ kind: 'url', url: `${base}/other?wsdl` }, transport)).rejects.toThrow(
      `Could not read the WSDL document ${base}/other?wsdl: HTTP 404.`,
    );
  });

  it('names a WSDL URL without the user, password or secret query values written in it', async () => {
    const secret = `http://ann:hunter2@${base.slice('http://'.length)}`;
    await expect(loadWsdlDocuments({ kind: 'url', url: `${secret}/other?wsdl&token=t0k` }, transport)).rejects.toThrow(
      `Could not read the WSDL document ${base}/other?wsdl=&token=***: HTTP 404.`,
    );
    await expect(loadWsdlDocuments({ kind: 'url', url: `${secret}/svc?wsdl` }, transport)).rejects.toThrow(
      `'${base}/svc?wsdl' imports 'file:///etc/passwd'`,
    );
  });
});
