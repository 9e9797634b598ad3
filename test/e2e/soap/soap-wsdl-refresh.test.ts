/**
 * The parsed WSDL of a SOAP service is kept (spec, SOAP services): it is read again on
 * `GET /{service}?refresh=true` and after `DELETE /system/cache/{service}` or `/system/cache`, and
 * on every call with `cache_wsdl` none. A WSDL host here serves the corpus Calculator, then the same
 * WSDL with Multiply renamed Product, and counts how often it is read.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { CORPUS } from './soap-peers.js';

const CALCULATOR = fs.readFileSync(path.join(CORPUS, 'pm-calculator.wsdl'), 'utf8');
const RENAMED = CALCULATOR.replaceAll('Multiply', 'Product');
let served = CALCULATOR;
let reads = 0;
let host: http.Server;
let wsdlUrl: string;
let server: TestServer;
let api: Api;

beforeAll(async () => {
  host = http.createServer((_request, response) => {
    reads++;
    response.writeHead(200, { 'content-type': 'text/xml' }).end(served);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  wsdlUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/calc?wsdl`;
  server = await startTestServer(minimalModel());
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const created = await api('POST', '/system/service', {
    resource: [
      { name: 'kept', label: 'Kept', type: 'soap', config: { wsdl: wsdlUrl } },
      { name: 'unkept', label: 'Unkept', type: 'soap', config: { wsdl: wsdlUrl, options: { cache_wsdl: 'WSDL_CACHE_NONE' } } },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});

afterAll(async () => {
  await server?.close();
  host?.closeAllConnections();
  host?.close();
});

const operations = async (url: string) => (await api('GET', url)).body.resource.map((o: { name: string }) => o.name);
const documented = async (service: string) => Object.keys((await api('GET', `/api_docs/${service}`)).body.paths).sort();

it('keeps the WSDL it read until refresh=true, and documents what it read', async () => {
  served = CALCULATOR;
  const before = reads;
  expect(await operations('/kept')).toEqual(['Add', 'Divide', 'Multiply', 'Subtract']);
  served = RENAMED;
  expect(await operations('/kept')).toEqual(['Add', 'Divide', 'Multiply', 'Subtract']);
  expect(reads - before).toBe(1);
  expect(await operations('/kept?refresh=true')).toEqual(['Add', 'Divide', 'Product', 'Subtract']);
  expect(reads - before).toBe(2);
  expect(await documented('kept')).toEqual(['/', '/add', '/divide', '/product', '/subtract']);
  expect(await operations('/kept')).toEqual(['Add', 'Divide', 'Product', 'Subtract']);
  expect(reads - before).toBe(2);
});

it('reads the WSDL again after a cache clear of the service or of everything', async () => {
  served = CALCULATOR;
  expect(await api('DELETE', '/system/cache/kept')).toMatchObject({ status: 200, body: { success: true } });
  expect(await operations('/kept')).toEqual(['Add', 'Divide', 'Multiply', 'Subtract']);
  served = RENAMED;
  expect(await api('DELETE', '/system/cache')).toMatchObject({ status: 200, body: { success: true } });
  expect(await operations('/kept')).toEqual(['Add', 'Divide', 'Product', 'Subtract']);
});

it('reads the WSDL on every call with cache_wsdl none', async () => {
  served = CALCULATOR;
  const before = reads;
  expect(await operations('/unkept')).toEqual(['Add', 'Divide', 'Multiply', 'Subtract']);
  served = RENAMED;
  expect(await operations('/unkept')).toEqual(['Add', 'Divide', 'Product', 'Subtract']);
  expect(reads - before).toBe(2);
});
