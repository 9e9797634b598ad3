/** Compiled filters run against the machine's MariaDB/MySQL server (live-filter-suite.ts). */
import { Kysely, MysqlDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase, requireService, type TestDatabase } from '#test/helpers/require-service.js';
import { ddlFor } from './filter-fixtures.js';
import { liveFilterTests } from './live-filter-suite.js';

let database: TestDatabase;
let db: Kysely<any>;

describe.skipIf(!(await requireService('mysql')))('compiled filters on MariaDB/MySQL', () => {
  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    db = new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: database.url, connectionLimit: 2 }) }) });
    for (const statement of ddlFor('mysql')) await sql.raw(statement).execute(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  liveFilterTests('mysql', () => db);
});
