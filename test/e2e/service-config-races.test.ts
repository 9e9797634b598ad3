/**
 * A database service's config changed while its tables are read, by several writes at once: no
 * read fails, and once the writes have answered the service serves the database its stored config
 * names (two changes at once applied in the other order than they committed: the service went on
 * serving the config the database no longer had).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

describe('a service config changed by writes at once, under reads', () => {
  let server: TestServer;
  let admin: Api;
  let id: number;
  beforeAll(async () => {
    server = await startTestServer(minimalModel());
    const token = await server.adminToken();
    admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
    for (const file of ['a.sqlite', 'b.sqlite']) {
      const db = new Database(path.join(server.dir, file));
      db.exec(`create table t (id integer primary key, name text); insert into t (name) values ('${file}')`);
      db.close();
    }
    const created = await admin('POST', '/system/service', {
      resource: [{ name: 'data', label: 'Data', type: 'sqlite', config: { database: 'a.sqlite' } }],
    });
    id = created.body.resource[0].id;
  });
  afterAll(async () => server?.close());

  it('every read answers, and the service then serves the database its stored config names', async () => {
    for (let round = 0; round < 3; round++) {
      const reads: Array<Promise<{ status: number }>> = [];
      const writes: Array<Promise<{ status: number }>> = [];
      for (let i = 0; i < 60; i++) {
        reads.push(admin('GET', '/data/_table/t'));
        if (i % 6 === 0) writes.push(admin('PATCH', `/system/service/${id}`, { config: { database: i % 12 ? 'b.sqlite' : 'a.sqlite' } }));
      }
      expect((await Promise.all(reads)).map((r) => r.status)).toEqual(Array(60).fill(200));
      expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(10).fill(200));
      const stored = (await admin('GET', `/system/service/${id}?fields=config`)).body.config.database;
      expect((await admin('GET', '/data/_table/t')).body.resource).toEqual([{ id: 1, name: stored }]);
    }
  });
});
