/** Opens the system database and brings its schema up to date. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from 'kysely';
import { InternalServerError } from '../../core/errors.js';
import { systemMigrations } from './system-migrations.js';
import type { SystemTables } from './system-tables.js';

export type SystemDb = Kysely<SystemTables>;

const provider: MigrationProvider = { getMigrations: async () => systemMigrations };

/** Opens (creating when missing) a SQLite system database; `:memory:` keeps it in memory. */
export async function openSystemDb(file: string): Promise<SystemDb> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<SystemTables>({ dialect: new SqliteDialect({ database: sqlite }) });
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new InternalServerError(`System database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
  return db;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's date format. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
