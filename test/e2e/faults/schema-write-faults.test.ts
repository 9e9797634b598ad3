/**
 * `_schema` writes whose connection to the database is lost as their DDL is sent (a relay cut
 * just as the statement passes, test/helpers/tcp-relay.ts). PostgreSQL runs a create of several
 * tables in one transaction: nothing of it is stored. MySQL's DDL is not transactional: the tables
 * made before the cut stay (dropping them again needs the lost database). Either way the answer is
 * the spec's 503 in the error shape (MySQL's says the change may have been made: read it back),
 * the service reads its catalog again before serving once the database is back (the table made
 * is served), and trying again makes what was asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ExternalDatabase } from '#test/helpers/require-service.js';
import { requireService } from '#test/helpers/require-service.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';
import { type ApiClient, startApi } from '../database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from '../database-api/database-targets.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PORTS: Record<ExternalDatabase, number> = { postgres: 5432, mysql: 3306 };
const UNAVAILABLE = { error: { code: 503, message: 'The database is unavailable; try again later.' } };
const OUTCOME_UNKNOWN = {
  error: {
    code: 503,
    message:
      'The connection to the database was lost while it stored the change: it may or may not have been stored. Read it back before trying again.',
  },
};
/** PostgreSQL's DDL ran in a transaction the lost connection rolled back; MySQL's may have been made. */
const lostDdl = (kind: ExternalDatabase) => ({ status: 503, body: kind === 'postgres' ? UNAVAILABLE : OUTCOME_UNKNOWN });

/** A database service `db` over a fresh database with one table, reached through a relay. */
async function relayedDatabase(kind: ExternalDatabase): Promise<{ api: ApiClient; relay: TcpRelay; target: DatabaseTarget }> {
  const target = await openDatabaseTarget(kind);
  await target.exec('create table item (id integer primary key, name varchar(40) not null unique)');
  const relay = await startTcpRelay(PORTS[kind]);
  const api = await startApi(target, { host: '127.0.0.1', port: relay.port, connection_timeout: 2 });
  cleanups.push(async () => {
    await api.close();
    await relay.close();
    await target.close();
  });
  return { api, relay, target };
}

async function storedTables(target: DatabaseTarget): Promise<string[]> {
  const rows = await target.query(
    target.kind === 'postgres'
      ? "select table_name as name from information_schema.tables where table_schema = 'public' order by 1"
      : 'select table_name as name from information_schema.tables where table_schema = database() order by 1',
  );
  return rows.map((row) => String(row.name));
}

async function storedFields(target: DatabaseTarget): Promise<string[]> {
  const schema = target.kind === 'postgres' ? "'public'" : 'database()';
  const rows = await target.query(
    `select column_name as name from information_schema.columns where table_name = 'item' and table_schema = ${schema} order by 1`,
  );
  return rows.map((row) => String(row.name));
}

/** `plain` is made first; `child` (referencing item) second. */
const TWO_TABLES = {
  resource: [
    {
      name: 'plain',
      field: [
        { name: 'id', type: 'id' },
        { name: 'label', type: 'string' },
      ],
    },
    {
      name: 'child',
      field: [
        { name: 'id', type: 'id' },
        { name: 'item_id', type: 'integer', ref_table: 'item', ref_field: 'id' },
      ],
    },
  ],
};

for (const kind of ['postgres', 'mysql'] as ExternalDatabase[]) {
  describe.skipIf(!(await requireService(kind)))(`a ${kind} _schema write whose connection is lost as its DDL is sent`, () => {
    it('creating two tables, lost at the second: 503, the catalog read again once the database is back, and trying again makes both', {
      timeout: 30_000,
    }, async () => {
      const { api, relay, target } = await relayedDatabase(kind);
      expect((await api.get('_schema')).status).toBe(200);
      const cut = relay.cutOn(/create table\s+[`"]?child/i);
      expect(await api.call('POST', '_schema', TWO_TABLES)).toEqual(lostDdl(kind));
      await cut;
      await relay.restore();
      // PostgreSQL rolled the whole create back; MySQL had made `plain`, and the service serves it once it has read its catalog again.
      const madeFirst = kind === 'mysql';
      expect(await storedTables(target)).toEqual(madeFirst ? ['item', 'plain'] : ['item']);
      expect((await api.get('_table/plain')).status).toBe(madeFirst ? 200 : 404);
      expect(await api.call('POST', '_schema', TWO_TABLES)).toEqual({
        status: 200,
        body: { resource: [{ name: 'plain' }, { name: 'child' }] },
      });
      expect(await storedTables(target)).toEqual(['child', 'item', 'plain']);
      for (const table of ['plain', 'child']) expect(await api.get(`_table/${table}`)).toEqual({ status: 200, body: { resource: [] } });
    });

    it('adding a field, lost as the ALTER is sent: 503, nothing added, and trying again adds it', { timeout: 30_000 }, async () => {
      const { api, relay, target } = await relayedDatabase(kind);
      const cut = relay.cutOn(/alter table/i);
      const field = [{ name: 'extra', type: 'string' }];
      expect(await api.call('POST', '_schema/item/_field', field)).toEqual(lostDdl(kind));
      await cut;
      await relay.restore();
      expect(await storedFields(target)).toEqual(['id', 'name']);
      expect(await api.call('POST', '_schema/item/_field', field)).toEqual({ status: 200, body: { resource: [{ name: 'extra' }] } });
      expect(await storedFields(target)).toEqual(['extra', 'id', 'name']);
    });
  });
}
