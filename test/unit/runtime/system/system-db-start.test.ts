/**
 * Opening a SQLite system database at start (runtime/system/store/system-db.ts): with every
 * migration run, the start reads Kysely's migration table and leaves the migrator alone (it reads
 * every table's columns first); a migration that has not run still runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSystemDb } from '#runtime/system/store/system-db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A system database created and migrated by a first start, closed again. */
async function created(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-system-db-'));
  dirs.push(dir);
  const file = path.join(dir, 'system.sqlite');
  await (await openSystemDb(file)).destroy();
  return file;
}

const tables = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{ name: string }>).map((row) => row.name);
  } finally {
    db.close();
  }
};

describe('openSystemDb', () => {
  it('leaves the migrator alone once every migration has run (it would set up its lock table again)', async () => {
    const file = await created();
    const sqlite = new Database(file);
    sqlite.exec('drop table kysely_migration_lock');
    sqlite.close();
    await (await openSystemDb(file)).destroy();
    expect(tables(file)).not.toContain('kysely_migration_lock');
    expect(tables(file)).toContain('kysely_migration');
  });

  it('runs a migration that has not run', async () => {
    const file = await created();
    const sqlite = new Database(file);
    sqlite.exec(`drop table access_usage; delete from kysely_migration where name = '0008_access_usage'`);
    sqlite.close();
    await (await openSystemDb(file)).destroy();
    expect(tables(file)).toContain('access_usage');
  });
});
