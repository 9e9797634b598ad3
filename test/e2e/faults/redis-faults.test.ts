/**
 * The platform's Redis (PORTICO_REDIS_URL) and a cache_redis service lent as a database service's
 * cache going away while they hold cached reads: cut off (through a real TCP relay, the machine's
 * Redis keeping its data), or frozen (a private redis-server stopped with SIGSTOP, as a stalled
 * host; the shared one is never stopped, or its open connection frozen in the relay). A write made meanwhile is acknowledged, and once Redis
 * answers again no read is served the entries from before the write (they were served until
 * their TTL: the write's clear had been lost).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiClient } from '#test/helpers/api-client.js';
import { freePort } from '#test/helpers/free-port.js';
import { brokerUrl, requireBroker, tcpReachable } from '#test/helpers/require-broker.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';
import { type ApiClient, startApi } from '../database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from '../database-api/database-targets.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
cleanups.push(() => warn.mockRestore());

const redisAvailable = await requireBroker('redis');

/** A redis-server of this test's own on a free port (no persistence), killed after the file. */
async function privateRedis(): Promise<{ url: string; process: ChildProcess }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-redis-faults-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  cleanups.push(() => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await vi.waitFor(() => tcpReachable('127.0.0.1', port, 500), { timeout: 10_000, interval: 50 });
  return { url: `redis://127.0.0.1:${port}`, process: child };
}

/** A database service `db` over a fresh SQLite table, caching its reads for a minute in the platform's Redis at `redisUrl`. */
async function cachedDatabase(redisUrl: string): Promise<{ api: ApiClient; target: DatabaseTarget }> {
  const target = await openDatabaseTarget('sqlite');
  await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
  const api = await startApi(target, { cache_enabled: true, cache_ttl: 60 }, { env: { PORTICO_REDIS_URL: redisUrl } });
  cleanups.push(async () => {
    await api.close();
    await target.close();
  });
  return { api, target };
}

const listed = async (api: ApiClient) => {
  const answer = await api.get('_table/item');
  expect(answer.status).toBe(200);
  return (answer.body.resource as Array<{ id: number }>).map((record) => record.id);
};

/** The table listed by a raw request: the ids, and whether the answer came from the cache (X-Cache). */
async function listedWithCache(api: ApiClient): Promise<{ cache: unknown; ids: number[] }> {
  const answer = await api.server.app.inject({
    method: 'GET',
    url: '/api/v2/db/_table/item',
    headers: { 'x-service-api-key': api.server.apiKey, 'x-service-session-token': await api.server.adminToken() },
  });
  return { cache: answer.headers['x-cache'], ids: answer.json().resource.map((record: { id: number }) => record.id) };
}

/** A record written, then listed (and so cached in Redis): the state a fault finds. */
async function cachedList(api: ApiClient): Promise<void> {
  expect((await api.call('POST', '_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
  expect(await listed(api)).toEqual([1]);
  expect((await listedWithCache(api)).cache).toBe('HIT');
}

/** The platform's Redis reached through a relay (closed after the file), and a database service whose list is cached there. */
async function cachedThroughRelay(): Promise<{ api: ApiClient; relay: TcpRelay }> {
  const redis = new URL(brokerUrl('redis'));
  const relay = await startTcpRelay(Number(redis.port || 6379), redis.hostname);
  cleanups.push(() => relay.close());
  redis.port = String(relay.port);
  const { api } = await cachedDatabase(redis.href);
  await cachedList(api);
  return { api, relay };
}

describe.skipIf(!redisAvailable)("a database service's reads cached in the platform's Redis", () => {
  it('are not served from before a write made while Redis was cut off, once it is back', { timeout: 30_000 }, async () => {
    const { api, relay } = await cachedThroughRelay();
    await relay.cut();
    const link = api.server.app.portico.redis!;
    await vi.waitFor(() => expect(link.ready()).toBe(false));
    expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
    expect(await listed(api)).toEqual([1, 2]);
    await relay.restore();
    await vi.waitFor(() => expect(link.ready()).toBe(true), { timeout: 10_000 });
    expect(await listed(api)).toEqual([1, 2]);
    // Cached again, in Redis.
    expect(await listed(api)).toEqual([1, 2]);
  });

  it('go on without Redis once a command timed out on a connection that stopped answering, and are cached there again once it is back', {
    timeout: 30_000,
  }, async () => {
    const { api, relay } = await cachedThroughRelay();
    // The open connection stays open and carries nothing (a partitioned network, a stalled host).
    relay.freeze();
    const link = api.server.app.portico.redis!;
    // This read's cache lookup times out (a miss, read from the database) ...
    expect(await listed(api)).toEqual([1]);
    // ... and the connection is dropped: the next requests skip Redis instead of each waiting on it
    // (a cached read waited twice, a write once, for as long as the connection stayed open).
    await vi.waitFor(() => expect(link.ready()).toBe(false));
    expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
    expect(await listed(api)).toEqual([1, 2]);
    await relay.restore();
    // A new connection: the frozen one was never to answer again.
    await vi.waitFor(() => expect(link.ready()).toBe(true), { timeout: 10_000 });
    expect(await listed(api)).toEqual([1, 2]);
    expect(await listedWithCache(api)).toEqual({ cache: 'HIT', ids: [1, 2] });
  });

  it('are not served from before a write made while Redis was frozen, once it answers again', { timeout: 30_000 }, async () => {
    const redis = await privateRedis();
    const { api } = await cachedDatabase(redis.url);
    await cachedList(api);
    redis.process.kill('SIGSTOP');
    expect((await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
    redis.process.kill('SIGCONT');
    expect(await listed(api)).toEqual([1, 2]);
    expect(await listed(api)).toEqual([1, 2]);
  });
});

describe.skipIf(!redisAvailable)('a database service whose cache_service is a cache_redis service', () => {
  it('serves no read from before a write made while that Redis was cut off, once it is back', { timeout: 30_000 }, async () => {
    const redis = new URL(brokerUrl('redis'));
    const relay: TcpRelay = await startTcpRelay(Number(redis.port || 6379), redis.hostname);
    cleanups.push(() => relay.close());
    const target = await openDatabaseTarget('sqlite');
    await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
    const { api: plain } = await cachedDatabase(brokerUrl('redis'));
    const server = plain.server;
    const token = await server.adminToken();
    const call = apiClient(server.app, () => ({ key: server.apiKey, token }));
    const prefix = `portico-faults-${Math.random().toString(16).slice(2, 10)}:`;
    expect(
      (
        await call('POST', '/system/service', {
          resource: [
            {
              name: 'kv',
              label: 'Cache',
              type: 'cache_redis',
              config: { host: '127.0.0.1', port: relay.port, key_prefix: prefix, timeout_ms: 1000 },
            },
          ],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/system/service', {
          resource: [
            {
              name: 'lent',
              label: 'Lent',
              type: 'sqlite',
              config: { ...target.config, cache_enabled: true, cache_ttl: 60, cache_service: 'kv' },
            },
          ],
        })
      ).status,
    ).toBe(201);
    cleanups.push(() => target.close());
    const list = async () => {
      const answer = await call('GET', '/lent/_table/item');
      expect(answer.status).toBe(200);
      return (answer.body.resource as Array<{ id: number }>).map((record) => record.id);
    };
    expect((await call('POST', '/lent/_table/item', { resource: [{ id: 1, name: 'a' }] })).status).toBe(200);
    expect(await list()).toEqual([1]);
    expect(await list()).toEqual([1]);
    await relay.cut();
    expect((await call('POST', '/lent/_table/item', { resource: [{ id: 2, name: 'b' }] })).status).toBe(200);
    expect(await list()).toEqual([1, 2]);
    await relay.restore();
    expect(await list()).toEqual([1, 2]);
    expect(await list()).toEqual([1, 2]);
  });
});
