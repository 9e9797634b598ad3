/**
 * A SOAP service keeping its GET results in a `cache_redis` service (`cache_service`): two
 * instances on one Redis share them, a cache clear or refresh=true forgets them, and a cache
 * service that cannot be reached only means no caching.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, closedPort, requireBroker } from '#test/helpers/require-broker.js';
import { calculatorServices, startPeer, type Peer } from './soap-peers.js';

describe.skipIf(!(await requireBroker('redis')))('SOAP response cache in a cache_redis service', () => {
  const prefix = `portico-test:${crypto.randomBytes(4).toString('hex')}:`;
  const url = new URL(brokerUrl('redis'));
  let peer: Peer;
  let one: TestServer;
  let two: TestServer;
  let redis: Redis;

  const get = async (server: TestServer, path: string) => {
    const token = await server.adminToken();
    const response = await server.app.inject({
      method: 'GET',
      url: `/api/v2/${path}`,
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
    });
    return { status: response.statusCode, body: response.json() as unknown };
  };

  beforeAll(async () => {
    peer = await startPeer('pm-calculator.wsdl', calculatorServices());
    const ctx = { baseDir: '/', resolveEnv: <T>(value: T) => value };
    const soap = (id: number, name: string, cacheService: string) =>
      soapKind.introspect!(
        {
          id,
          name,
          label: name,
          type: 'soap',
          description: '',
          is_active: true,
          origin: 'platform',
          kind: 'plain',
          config: { wsdl: peer.wsdlFile, cache_enabled: true, cache_ttl: 60, cache_service: cacheService, options: { location: peer.url } },
        } satisfies ServiceModel,
        ctx,
      );
    const cache = (id: number, name: string, port: number): ServiceModel => ({
      id,
      name,
      label: name,
      type: 'cache_redis',
      description: '',
      is_active: true,
      origin: 'platform',
      kind: 'plain',
      config: { host: url.hostname, port, key_prefix: prefix, timeout_ms: 500 },
    });
    const model = minimalModel();
    const services = [
      ...model.services,
      cache(20, 'cache', Number(url.port)),
      cache(21, 'nocache', await closedPort()),
      await soap(22, 'calc', 'cache'),
      await soap(23, 'calcdown', 'nocache'),
    ];
    one = await startTestServer({ ...model, services });
    two = await startTestServer({ ...model, services });
    redis = new Redis(brokerUrl('redis'));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await one?.close();
    await two?.close();
    await peer?.close();
  });

  it('shares cached GET results between instances', async () => {
    const before = peer.requests.length;
    expect((await get(one, 'calc/Add?intA=2&intB=3')).body).toEqual({ AddResult: 5 });
    expect((await get(two, 'calc/Add?intA=2&intB=3')).body).toEqual({ AddResult: 5 });
    expect((await get(one, 'calc/Add?intA=2&intB=3')).body).toEqual({ AddResult: 5 });
    expect(peer.requests.length).toBe(before + 1);
    const stored = await redis.keys(`${prefix}~responses:calc:*`);
    expect(stored).toHaveLength(1);
    // The service's cache_ttl (60 s), with room for a slow machine between storing and reading it.
    const ttl = await redis.ttl(stored[0]);
    expect(ttl).toBeGreaterThan(30);
    expect(ttl).toBeLessThanOrEqual(60);
    // Lent entries are not the cache service's own keys.
    expect((await get(one, 'cache')).body).toEqual({ resource: [] });
  });

  it('forgets them on refresh=true and on a cache clear', async () => {
    const before = peer.requests.length;
    await get(two, 'calc/Add?intA=2&intB=3&refresh=true');
    expect(peer.requests.length).toBe(before + 1);
    const token = await one.adminToken();
    await one.app.inject({
      method: 'DELETE',
      url: '/api/v2/system/cache/calc',
      headers: { 'x-service-api-key': one.apiKey, 'x-service-session-token': token },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await redis.keys(`${prefix}~responses:calc:*`)).toEqual([]);
    await get(two, 'calc/Add?intA=2&intB=3');
    expect(peer.requests.length).toBe(before + 2);
  });

  it('calls the service every time when the cache service cannot be reached', async () => {
    const before = peer.requests.length;
    expect((await get(one, 'calcdown/Add?intA=1&intB=1')).body).toEqual({ AddResult: 2 });
    expect((await get(one, 'calcdown/Add?intA=1&intB=1')).body).toEqual({ AddResult: 2 });
    expect(peer.requests.length).toBe(before + 2);
  });
});
