/**
 * The data retrieval cache of database services (`cache_enabled`, `cache_ttl`, `cache_service`;
 * issue 16 item 3), on SQLite and PostgreSQL with the machine's Redis. A row changed behind
 * Portico's back proves an answer came from the cache: it keeps the old value until the TTL ends,
 * a write through the API or a cache clear. Two instances on one `cache_redis` service share
 * entries and clears; callers whose row filters differ never share one.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceModel } from '#runtime/model/platform-model.js';
import { apiClient, type Api, type ApiResponse } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { brokerUrl, requireBroker } from '#test/helpers/require-broker.js';
import { requireService } from '#test/helpers/require-service.js';
import { openDatabaseTarget, type DatabaseTarget } from './database-api/database-targets.js';

const redisUp = await requireBroker('redis');
const postgresUp = await requireService('postgres');
const PASSWORD = 'cache-password-123456';

const bodies = (response: ApiResponse) => (response.body.resource as Array<{ body: string }>).map((row) => row.body);
const ids = (response: ApiResponse) => (response.body.resource as Array<{ id: number }>).map((row) => row.id);

describe.each([
  ['sqlite', redisUp],
  ['postgres', redisUp && postgresUp],
] as const)('the data retrieval cache on %s', (kind, available) => {
  const prefix = `portico-test:${crypto.randomBytes(4).toString('hex')}:`;
  let target: DatabaseTarget;
  let one: TestServer;
  let two: TestServer;
  let onOne: Api;
  let onTwo: Api;
  let redis: Redis;

  /** Changes a note in the database itself, behind Portico's back. */
  const behind = (id: number, body: string) => target.exec(`update note set body = '${body}' where id = ${id}`);

  beforeAll(async () => {
    if (!available) return;
    target = await openDatabaseTarget(kind);
    await target.exec(`
      create table note (id integer primary key, owner_id integer not null, body varchar(100) not null)
      ;;
      insert into note (id, owner_id, body) values (1, 1, 'one'), (2, 1, 'two'), (3, 2, 'three')
    `);
    if (kind === 'postgres') {
      await target.exec(
        'create procedure rename_note(note_id integer, new_body text) language plpgsql as $$ begin update note set body = new_body where id = note_id; end $$',
      );
    }
    const url = new URL(brokerUrl('redis'));
    const service = (id: number, name: string, type: string, config: Record<string, unknown>): ServiceModel => ({
      id,
      name,
      label: name,
      type,
      description: '',
      is_active: true,
      origin: 'platform',
      kind: 'plain',
      config,
    });
    const model = minimalModel();
    const services = [
      ...model.services,
      service(20, 'cache', 'cache_redis', { host: url.hostname, port: Number(url.port), key_prefix: prefix, timeout_ms: 500 }),
      service(21, 'notes', target.type, { ...target.config, cache_enabled: true, cache_ttl: 60, cache_service: 'cache' }),
      service(22, 'local', target.type, { ...target.config, cache_enabled: true, cache_ttl: 60 }),
      service(23, 'brief', target.type, { ...target.config, cache_enabled: true, cache_ttl: 1 }),
      service(24, 'uncached', target.type, { ...target.config }),
    ];
    // Two instances, each with a system database of its own: the administrator is the same caller on both.
    one = await startTestServer({ ...model, services });
    two = await startTestServer({ ...model, services });
    const [tokenOne, tokenTwo] = [await one.adminToken(), await two.adminToken()];
    onOne = apiClient(one.app, () => ({ key: one.apiKey, token: tokenOne }));
    onTwo = apiClient(two.app, () => ({ key: two.apiKey, token: tokenTwo }));
    redis = new Redis(brokerUrl('redis'));
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
    await one?.close();
    await two?.close();
    await target?.close();
  });

  it.skipIf(!available)('serves a list and a record from the cache until a write through the API clears it', async () => {
    const first = await onOne('GET', '/notes/_table/note?order=id');
    expect(first.headers['x-cache']).toBe('MISS');
    expect(bodies(first)).toEqual(['one', 'two', 'three']);
    const record = await onOne('GET', '/notes/_table/note/2');
    expect(record.headers['x-cache']).toBe('MISS');
    await behind(1, 'one behind');
    await behind(2, 'two behind');

    const again = await onOne('GET', '/notes/_table/note?order=id');
    expect(again.headers['x-cache']).toBe('HIT');
    expect(bodies(again)).toEqual(['one', 'two', 'three']);
    const cachedRecord = await onOne('GET', '/notes/_table/note/2');
    expect(cachedRecord).toMatchObject({ status: 200, body: { body: 'two' }, headers: { 'x-cache': 'HIT', etag: record.headers.etag } });
    // Another question is another entry.
    expect(bodies(await onOne('GET', '/notes/_table/note?order=id&limit=1'))).toEqual(['one behind']);

    expect((await onOne('PATCH', '/notes/_table/note/3', { body: 'three patched' })).status).toBe(200);
    const after = await onOne('GET', '/notes/_table/note?order=id');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(bodies(after)).toEqual(['one behind', 'two behind', 'three patched']);
    expect((await onOne('GET', '/notes/_table/note/2')).body.body).toBe('two behind');
  });

  it.skipIf(!available)('keeps entries in the cache service for cache_ttl seconds, apart from its own keys', async () => {
    await onOne('GET', '/notes/_table/note/1');
    const stored = await redis.keys(`${prefix}~responses:notes:*`);
    expect(stored.length).toBeGreaterThan(0);
    for (const key of stored) expect(await redis.ttl(key)).toBeGreaterThan(50);
    expect((await onOne('GET', '/cache')).body).toEqual({ resource: [] });
  });

  it.skipIf(!available)('forgets an answer after cache_ttl', async () => {
    expect(bodies(await onOne('GET', '/brief/_table/note?order=id'))[0]).toBe('one behind');
    await behind(1, 'one expired');
    expect(bodies(await onOne('GET', '/brief/_table/note?order=id'))[0]).toBe('one behind');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = await onOne('GET', '/brief/_table/note?order=id');
    expect(fresh.headers['x-cache']).toBe('MISS');
    expect(bodies(fresh)[0]).toBe('one expired');
  });

  it.skipIf(!available)('is cleared by every kind of write: create, replace, delete, schema change, procedure call', async () => {
    let round = 0;
    /** Caches note 2, changes it behind Portico's back, makes the write, then expects the change to show. */
    const clearedBy = async (write: () => Promise<ApiResponse>) => {
      round += 1;
      await onOne('GET', '/notes/_table/note/2');
      await behind(2, `two round ${round}`);
      expect((await onOne('GET', '/notes/_table/note/2')).headers['x-cache']).toBe('HIT');
      const response = await write();
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      expect((await onOne('GET', '/notes/_table/note/2')).body.body).toBe(`two round ${round}`);
    };
    await clearedBy(() => onOne('POST', '/notes/_table/note', { resource: [{ id: 10, owner_id: 1, body: 'ten' }] }));
    await clearedBy(() => onOne('PUT', '/notes/_table/note/10', { owner_id: 1, body: 'ten again' }));
    await clearedBy(() => onOne('DELETE', '/notes/_table/note/10'));
    await clearedBy(() => onOne('POST', '/notes/_schema', { resource: [{ name: 'extra', field: [{ name: 'id', type: 'id' }] }] }));
    if (kind === 'postgres') {
      await clearedBy(() =>
        onOne('POST', '/notes/_proc/rename_note', {
          params: [
            { name: 'note_id', value: 3 },
            { name: 'new_body', value: 'three renamed' },
          ],
        }),
      );
    }
    // A write that fails clears too (a batch may have written part of its records).
    await clearedBy(async () => {
      const failed = await onOne('POST', '/notes/_table/note', { resource: [{ id: 1, owner_id: 1, body: 'duplicate' }] });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      return { ...failed, status: 200 };
    });
  });

  it.skipIf(!available)('keeps the answers of callers with different row filters apart', async () => {
    const roleWith = async (name: string, value: string) =>
      (
        await onOne('POST', '/system/role', {
          resource: [
            {
              name,
              role_service_access_by_role_id: [
                { service_id: 21, component: '_table/*', verb_mask: 1, filters: [{ name: 'owner_id', operator: '=', value }] },
              ],
            },
          ],
        })
      ).body.resource[0].id as number;
    const appFor = async (name: string, role: number) =>
      (await onOne('POST', '/system/app?fields=api_key', { resource: [{ name, role_id: role }] })).body.resource[0].api_key as string;
    const firstKey = await appFor('first-owner', await roleWith('first-owner', '1'));
    const secondKey = await appFor('second-owner', await roleWith('second-owner', '2'));
    const lookupKey = await appFor('by-lookup', await roleWith('by-lookup', '{owner}'));
    const tokens: string[] = [];
    for (const owner of ['1', '2']) {
      const email = `owner${owner}@cache.test`;
      await onOne('POST', '/system/user', {
        resource: [{ name: email, email, password: PASSWORD, lookup_by_user_id: [{ name: 'owner', value: owner }] }],
      });
      tokens.push((await onOne('POST', '/user/session', { email, password: PASSWORD }, { key: lookupKey })).body.session_token);
    }

    const list = '/notes/_table/note?order=id';
    // The administrator's entry holds every note; nobody else is served it.
    expect(ids(await onOne('GET', list))).toEqual([1, 2, 3]);
    expect((await onOne('GET', '/notes/_table/note/1')).status).toBe(200);
    for (const [credentials, want] of [
      [{ key: firstKey }, [1, 2]],
      [{ key: secondKey }, [3]],
      [{ key: lookupKey, token: tokens[0] }, [1, 2]],
      [{ key: lookupKey, token: tokens[1] }, [3]],
    ] as const) {
      const first = await onOne('GET', list, undefined, credentials);
      const second = await onOne('GET', list, undefined, credentials);
      expect([ids(first), first.headers['x-cache']]).toEqual([want, 'MISS']);
      expect([ids(second), second.headers['x-cache']]).toEqual([want, 'HIT']);
    }
    expect((await onOne('GET', '/notes/_table/note/1', undefined, { key: secondKey })).status).toBe(404);
    expect((await onOne('GET', '/notes/_table/note/1', undefined, { key: lookupKey, token: tokens[1] })).status).toBe(404);
  });

  it.skipIf(!available)('is shared by two instances on one cache service: entries, writes and clears', async () => {
    await onOne('GET', '/notes/_table/note/2');
    await behind(2, 'two shared');
    const fromTwo = await onTwo('GET', '/notes/_table/note/2');
    expect(fromTwo.headers['x-cache']).toBe('HIT');
    expect(fromTwo.body.body).not.toBe('two shared');

    expect((await onTwo('DELETE', '/system/cache/notes')).body).toEqual({ success: true });
    expect((await onOne('GET', '/notes/_table/note/2')).body.body).toBe('two shared');

    await behind(2, 'two after a write');
    expect((await onOne('GET', '/notes/_table/note/2')).headers['x-cache']).toBe('HIT');
    expect((await onTwo('PATCH', '/notes/_table/note/1', { body: 'one patched on two' })).status).toBe(200);
    const fresh = await onOne('GET', '/notes/_table/note/2');
    expect([fresh.headers['x-cache'], fresh.body.body]).toEqual(['MISS', 'two after a write']);
  });

  it.skipIf(!available)('DELETE /system/cache clears every database cache, shared and in process', async () => {
    await onOne('GET', '/notes/_table/note/2');
    await onOne('GET', '/local/_table/note/2');
    await behind(2, 'two everywhere');
    expect((await onOne('GET', '/local/_table/note/2')).headers['x-cache']).toBe('HIT');
    expect((await onOne('DELETE', '/system/cache')).body).toEqual({ success: true });
    expect((await onOne('GET', '/notes/_table/note/2')).body.body).toBe('two everywhere');
    expect((await onOne('GET', '/local/_table/note/2')).body.body).toBe('two everywhere');
    expect((await onTwo('GET', '/notes/_table/note/2')).body.body).toBe('two everywhere');
  });

  it.skipIf(!available)('is off unless enabled', async () => {
    const response = await onOne('GET', '/uncached/_table/note/2');
    expect(response.headers['x-cache']).toBeUndefined();
    await behind(2, 'two uncached');
    expect((await onOne('GET', '/uncached/_table/note/2')).body.body).toBe('two uncached');
  });
});
