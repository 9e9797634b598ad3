/** Compiled filters run against the machine's PostgreSQL server (live-filter-suite.ts). */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';
import { ddlFor } from './filter-fixtures.js';
import { liveFilterTests } from './live-filter-suite.js';

let database: TestDatabase;
let db: Kysely<any>;

describe.skipIf(!(await requireService('postgres')))('compiled filters on PostgreSQL', () => {
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }) });
    for (const statement of ddlFor('postgres')) await sql.raw(statement).execute(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  liveFilterTests('postgres', () => db);
});
