/**
 * The SOAP response cache across instances (issue 14) when the service names no cache service
 * (soap-shared-cache.test.ts covers `cache_service`): two platform instances on one system
 * database, a real node-soap peer. With Redis (PORTICO_REDIS_URL) a result fetched through one
 * instance is served by the other, and DELETE /system/cache clears it for both; while Redis is
 * away each instance caches in process, without errors. Without Redis each instance caches on
 * its own, and a clear made through one reaches the other through the system database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import type { RuntimeContext } from '#runtime/services/service-kind.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { startPeer, type Peer } from './soap-peers.js';

const REDIS_URL = brokerUrl('redis');

let peer: Peer;
let country: ServiceModel;

beforeAll(async () => {
  const services = {
    CapitalCity: (args: { sCountryISOCode: string }) => ({ CapitalCityResult: args.sCountryISOCode === 'NL' ? 'Amsterdam' : 'Unknown' }),
  };
  peer = await startPeer('pm-countryinfo.wsdl', {
    CountryInfoService: { CountryInfoServiceSoap: services, CountryInfoServiceSoap12: services },
  });
  const ctx: RuntimeContext = { baseDir: '/', resolveEnv: (value) => value };
  country = await soapKind.introspect!(
    {
      id: 10,
      name: 'country',
      label: 'country',
      type: 'soap',
      description: '',
      is_active: true,
      origin: 'platform',
      kind: 'plain',
      config: { wsdl: peer.wsdlFile, cache_enabled: true, cache_ttl: 600, options: { connection_timeout: 5, location: peer.url } },
    },
    ctx,
  );
});
afterAll(async () => peer?.close());

/** Two instances on one SQLite system database, with the given environment. */
function twoInstances(env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-soap-cache-'));
  const state = {} as { a: TestServer; b: TestServer; onA: Api; onB: Api };
  beforeAll(async () => {
    const model = minimalModel();
    const withCountry = { ...model, services: [...model.services, country] };
    const options = { systemDatabase: path.join(dir, 'system.sqlite'), env };
    state.a = await startTestServer(withCountry, options);
    state.b = await startTestServer(withCountry, options);
    const [tokenA, tokenB] = [await state.a.adminToken(), await state.b.adminToken()];
    state.onA = apiClient(state.a.app, () => ({ key: state.a.apiKey, token: tokenA }));
    state.onB = apiClient(state.b.app, () => ({ key: state.b.apiKey, token: tokenB }));
  });
  afterAll(async () => {
    await state.a?.close();
    await state.b?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return state;
}

const sent = () => peer.requests.length;
const capital = async (api: Api, code = 'NL') => {
  const response = await api('GET', `/country/CapitalCity?sCountryISOCode=${code}`);
  expect(response.status).toBe(200);
  return response.body.CapitalCityResult;
};

describe.skipIf(!(await requireBroker('redis')))('the SOAP response cache in Redis', () => {
  const s = twoInstances({ PORTICO_REDIS_URL: REDIS_URL });
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  afterAll(() => warn.mockRestore());

  it('serves a result fetched through one instance from the other, and a clear through either clears it for both', async () => {
    const before = sent();
    expect(await capital(s.onA)).toBe('Amsterdam');
    expect(await capital(s.onB)).toBe('Amsterdam');
    expect(await capital(s.onA)).toBe('Amsterdam');
    expect(sent()).toBe(before + 1);

    expect((await s.onB('DELETE', '/system/cache/country')).body).toEqual({ success: true });
    expect(await capital(s.onA)).toBe('Amsterdam');
    expect(await capital(s.onB)).toBe('Amsterdam');
    expect(sent()).toBe(before + 2);

    // Clearing every cache clears the shared entries too.
    expect(await capital(s.onB, 'BE')).toBe('Unknown');
    expect(sent()).toBe(before + 3);
    expect((await s.onA('DELETE', '/system/cache')).body).toEqual({ success: true });
    expect(await capital(s.onB, 'BE')).toBe('Unknown');
    expect(await capital(s.onA)).toBe('Amsterdam');
    expect(sent()).toBe(before + 5);
  });

  it('caches in process while Redis is away, without errors, and shares again when it is back', async () => {
    const link = s.a.app.portico.redis!;
    link.client.disconnect();
    await vi.waitFor(() => expect(link.ready()).toBe(false));
    const before = sent();
    expect(await capital(s.onA, 'DE')).toBe('Unknown');
    expect(await capital(s.onA, 'DE')).toBe('Unknown');
    expect(sent()).toBe(before + 1);
    // B still shares through Redis: A's result is not there.
    expect(await capital(s.onB, 'DE')).toBe('Unknown');
    expect(sent()).toBe(before + 2);

    await link.client.connect();
    await vi.waitFor(() => expect(link.ready()).toBe(true));
    // Back on the shared entries: B's result serves A.
    expect(await capital(s.onA, 'DE')).toBe('Unknown');
    expect(sent()).toBe(before + 2);
  });
});

describe('the SOAP response cache without Redis', () => {
  const s = twoInstances({});

  it('is kept by each instance, and a clear made through one reaches the other through the system database', async () => {
    const before = sent();
    expect(await capital(s.onA, 'FR')).toBe('Unknown');
    expect(await capital(s.onA, 'FR')).toBe('Unknown');
    expect(await capital(s.onB, 'FR')).toBe('Unknown');
    expect(await capital(s.onB, 'FR')).toBe('Unknown');
    expect(sent()).toBe(before + 2);

    expect((await s.onA('DELETE', '/system/cache/country')).body).toEqual({ success: true });
    expect(await capital(s.onA, 'FR')).toBe('Unknown');
    expect(sent()).toBe(before + 3);
    // B reads the clear on its next look at the change token (every two seconds): until then it
    // answers from its cache, then calls the service once.
    await vi.waitFor(
      async () => {
        expect(await capital(s.onB, 'FR')).toBe('Unknown');
        expect(sent()).toBe(before + 4);
      },
      { timeout: 5000, interval: 200 },
    );
    expect(await capital(s.onB, 'FR')).toBe('Unknown');
    expect(sent()).toBe(before + 4);
  });
});
