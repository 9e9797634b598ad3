import { describe, expect, it } from 'vitest';
import { adminContext, type AuthContext } from '#runtime/auth/auth-context.js';
import type { RawQuery } from '#runtime/core/query-params.js';
import type { Verb } from '#runtime/model/platform-model.js';
import { ResponseCache } from '#runtime/services/response-cache.js';
import type { ServiceCall, ServiceResult } from '#runtime/services/service-kind.js';
import { sqlCacheSettings } from '#runtime/services/sql/sql-config.js';
import { SqlResponseCache } from '#runtime/services/sql/sql-response-cache.js';

const role = (user: number | null, filters: AuthContext['rowFilters'] = null): AuthContext => ({
  app: { id: 3, name: 'app' },
  user: user === null ? null : { id: user, email: `u${user}@x.io`, name: 'u', isSysAdmin: false },
  isAdmin: false,
  role: { id: 4, name: 'reader' },
  rowFilters: filters,
  grants: [],
});

function call(verb: Verb, path: string, query: RawQuery = {}, auth: AuthContext = adminContext(), body?: unknown): ServiceCall {
  return { verb, resource: path.split('/'), trailingSlash: false, query, body, headers: {}, auth };
}

/** A cache in process and a back-end that counts its calls. */
function setup() {
  const cache = new SqlResponseCache(Promise.resolve(new ResponseCache(60_000)));
  let calls = 0;
  const run =
    (result: ServiceResult = { body: null }) =>
    async (): Promise<ServiceResult> => {
      calls += 1;
      return { ...result, body: { n: calls } };
    };
  return { cache, run, calls: () => calls };
}

describe('sqlCacheSettings', () => {
  it.each([
    ['off by default', {}, null],
    ['on with a positive TTL', { cache_enabled: true, cache_ttl: 30 }, { ttlSeconds: 30, service: null }],
    ['TTL 0 caches nothing', { cache_enabled: true, cache_ttl: 0 }, null],
    ['a TTL that is not a whole number caches nothing', { cache_enabled: true, cache_ttl: 1.5 }, null],
    ['names the cache service', { cache_enabled: true, cache_ttl: 5, cache_service: 'cache' }, { ttlSeconds: 5, service: 'cache' }],
    ['a TTL without cache_enabled', { cache_ttl: 5 }, null],
  ])('%s', (_name, config, want) => {
    expect(sqlCacheSettings(config)).toEqual(want);
  });
});

describe('SqlResponseCache', () => {
  it('answers the same question from the cache, whatever the order of the query and the credentials', async () => {
    const { cache, run, calls } = setup();
    const first = await cache.through(call('GET', '_table/t', { a: '1', b: ['2', '3'], api_key: 'k' }), run());
    const second = await cache.through(call('GET', '_table/t', { b: ['2', '3'], a: '1', session_token: 's', refresh: 'false' }), run());
    expect([first.headers?.['x-cache'], second.headers?.['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(second.body).toEqual(first.body);
    expect(calls()).toBe(1);
    await cache.through(call('GET', '_table/t', { a: '1', b: ['3', '2'] }), run());
    expect(calls()).toBe(2);
  });

  it('never serves one caller what another was answered', async () => {
    const { cache, run, calls } = setup();
    const callers = [
      adminContext(),
      role(null),
      role(1),
      role(2),
      role(2, { filters: [{ name: 'owner', operator: '=', value: '1' }], op: 'and' }),
      role(2, { filters: [{ name: 'owner', operator: '=', value: '2' }], op: 'and' }),
      { ...role(2), grants: [{ service: null, component: '*', verbMask: 1, requestorMask: 1, filters: [], filterOp: 'and' as const }] },
      { ...role(2), app: { id: 9, name: 'other' } },
    ];
    for (const auth of callers) await cache.through(call('GET', '_table/t/1', {}, auth), run());
    expect(calls()).toBe(callers.length);
    for (const auth of callers) await cache.through(call('GET', '_table/t/1', {}, auth), run());
    expect(calls()).toBe(callers.length);
  });

  it('keeps only successful record reads without a body', async () => {
    const { cache, run, calls } = setup();
    for (const request of [
      call('GET', '_table/t', {}, adminContext(), { resource: [{ id: 1 }] }),
      call('GET', '_schema/t'),
      call('GET', '_table'),
      call('GET', '_table/t/1/x'),
    ]) {
      await cache.through(request, run());
      await cache.through(request, run());
    }
    expect(calls()).toBe(8);
    await cache.through(call('GET', '_table/t/404'), run({ status: 404, body: null }));
    await cache.through(call('GET', '_table/t/404'), run({ status: 404, body: null }));
    expect(calls()).toBe(10);
  });

  it('forgets everything after a write, a routine call or a failed write', async () => {
    const { cache, run } = setup();
    const read = call('GET', '_table/t');
    const failing = async (): Promise<ServiceResult> => {
      throw new Error('failed');
    };
    const writes: Array<[ServiceCall, () => Promise<ServiceResult>]> = [
      [call('PATCH', '_table/u/1'), run()],
      [call('POST', '_schema'), run()],
      [call('GET', '_proc/p'), run()],
      [call('GET', '_func/f'), run()],
      [call('DELETE', '_table/t/1'), failing],
    ];
    for (const [write, perform] of writes) {
      await cache.through(read, run());
      expect((await cache.through(read, run())).headers?.['x-cache']).toBe('HIT');
      await cache.through(write, perform).catch(() => undefined);
      expect((await cache.through(read, run())).headers?.['x-cache']).toBe('MISS');
    }
  });

  it('does not keep what a read fetched while a write ran', async () => {
    const { cache, run, calls } = setup();
    let release!: () => void;
    const slow = async (): Promise<ServiceResult> => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { body: 'read before the write' };
    };
    const reading = cache.through(call('GET', '_table/t'), slow);
    await new Promise((resolve) => setImmediate(resolve));
    await cache.through(call('POST', '_table/t'), run());
    release();
    expect((await reading).body).toBe('read before the write');
    const after = await cache.through(call('GET', '_table/t'), run());
    expect(after.headers?.['x-cache']).toBe('MISS');
    expect(calls()).toBe(2);
  });

  it('serves every read from the back-end when its cache service cannot be had', async () => {
    const cache = new SqlResponseCache(Promise.resolve(null));
    let calls = 0;
    const run = async () => ({ body: ++calls });
    await cache.through(call('GET', '_table/t'), run);
    const second = await cache.through(call('GET', '_table/t'), run);
    expect(second).toEqual({ body: 2 });
  });
});
