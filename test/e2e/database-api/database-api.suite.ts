/**
 * The database API black-box suite: one definition, run against SQLite, PostgreSQL and
 * MariaDB/MySQL by the database-api.<dialect>.test.ts files. Each run has a database of its own,
 * where the address book is created through `_schema` and loaded through `_table` first.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { addressBookTests, loadAddressBook } from './address-book.suite.js';
import { conformanceTests } from './conformance.suite.js';
import { startApi, type ApiClient } from './api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from './database-targets.js';
import { recordTests } from './records.suite.js';
import { groupTests, nestedWriteTests } from './related-writes.suite.js';
import { routineTests } from './routines.suite.js';
import { schemaTests } from './schema.suite.js';

export function defineDatabaseApiSuite(kind: TargetKind): void {
  let target: DatabaseTarget;
  let client: ApiClient;
  const api = () => client;
  const db = () => target;

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    client = await startApi(target);
    await loadAddressBook(client);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  describe('the address book created through _schema and loaded through _table', () => addressBookTests(api));
  describe('records', () => recordTests(api, db));
  describe('grouped reads', () => groupTests(api));
  describe('nested writes of related records', () => nestedWriteTests(api, db));
  describe('spec conformance', () => conformanceTests(api));
  describe('_schema', () => schemaTests(api, db));
  describe('_proc and _func', () => routineTests(api, db));
}
