import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verb } from '#runtime/model/platform-model.js';
import type { ServiceHandler } from '#runtime/services/service-kind.js';
import { type caller, openAddressBook, tempDir } from './sql-test-helpers.js';

const env = tempDir();
let handler: ServiceHandler;
let call: ReturnType<typeof caller>;

beforeAll(async () => {
  ({ handler, call } = await openAddressBook(env.dir));
});
afterAll(async () => {
  await handler.close();
  env.cleanup();
});

describe('SQL service routing', () => {
  it('lists its resources at the service root', async () => {
    expect(await call('GET', '')).toEqual({ status: 200, body: { resource: [{ name: '_schema' }, { name: '_table' }] } });
    expect((await call('GET', '', { as_list: 'true' })).body).toEqual({ resource: ['_schema', '_table'] });
  });

  it.each([
    ['POST', '', 400, "POST requests without a resource are not currently supported by the 'db' service."],
    ['DELETE', '_table', 400, "DELETE requests for resource '_table' are not currently supported by the 'db' service."],
    ['PATCH', '_schema/contact', 400, 'No data in schema update request.'],
    ['PATCH', '_schema/contact/bogus', 400, 'Invalid schema path in update request.'],
    ['GET', '_proc/x', 501, 'Stored procedures are not supported by this database type (sqlite).'],
    ['GET', '_func', 501, 'Stored functions are not supported by this database type (sqlite).'],
    ['GET', 'whatever', 404, "Resource 'whatever' not found for service 'db'."],
  ] as Array<[Verb, string, number, string]>)('%s %s -> %i', async (verb, resource, status, message) => {
    expect(await call(verb, resource)).toEqual({ status, body: { error: { code: status, message } } });
  });

  it('re-reads the catalog on refresh=true', async () => {
    const raw = new Database(path.join(env.dir, 'addressbook.sqlite'));
    raw.exec('create table added (id integer primary key, label text)');
    raw.close();
    expect((await call('GET', '_table/added')).status).toBe(404);
    expect((await call('GET', '_table/added', { refresh: 'true' })).body).toEqual({ resource: [] });
    expect(((await call('GET', '_table')).body as { resource: unknown[] }).resource).toContainEqual({ name: 'added' });
  });

  it('builds its OpenAPI fragment from the current schema', () => {
    const fragment = handler.openapi();
    expect(fragment).toHaveProperty('paths');
    expect(fragment).toHaveProperty('components');
  });
});
