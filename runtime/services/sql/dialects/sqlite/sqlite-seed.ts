/** Creates and fills a SQLite database file from a seed (schema.json + data.json). */
import fs from 'node:fs';
import path from 'node:path';
import { seedTables, type SeedData } from '../../schema/seed-tables.js';
import { openSqliteDatabase, sqliteDialect } from './sqlite-dialect.js';

/**
 * Seeds `dbFile` (creating it and its directory). When the file did not exist before and seeding
 * fails, the partial file is removed so that the next start tries again.
 */
export async function seedDatabase(dbFile: string, seed: SeedData): Promise<void> {
  const inMemory = dbFile === ':memory:';
  const existed = inMemory || fs.existsSync(dbFile);
  if (!inMemory) fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const connection = openSqliteDatabase(dbFile);
  try {
    await seedTables(connection.db, sqliteDialect, seed);
  } catch (error) {
    await connection.close();
    if (!existed) fs.rmSync(dbFile, { force: true });
    throw error;
  }
  await connection.close();
}
