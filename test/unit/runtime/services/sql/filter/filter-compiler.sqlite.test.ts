/** Compiled filters run against a real in-memory SQLite database (live-filter-suite.ts). */
import Database from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { ddlFor } from './filter-fixtures.js';
import { liveFilterTests } from './live-filter-suite.js';

let db: Kysely<any>;

beforeAll(async () => {
  db = new Kysely({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  for (const statement of ddlFor('sqlite')) await sql.raw(statement).execute(db);
});

afterAll(async () => {
  await db.destroy();
});

liveFilterTests('sqlite', () => db);
