/**
 * A SQLite service switches its file to write-ahead logging when it first opens it; while another
 * connection holds a lock on the file, that switch waits without blocking the server (the other
 * connection here is in the same process: were the event loop blocked, it could never let go),
 * and past the busy wait the call answers 503 "busy" and the next call opens the service.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiClient, startApi } from './database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from './database-api/database-targets.js';

let target: DatabaseTarget;
let api: ApiClient | undefined;

async function lockedFile(): Promise<DatabaseTarget> {
  target = await openDatabaseTarget('sqlite');
  await target.exec('create table item (id integer primary key, name text)');
  await target.exec("insert into item values (1, 'one')");
  // Another program is writing: its lock keeps the file from changing its journal mode.
  await target.exec('begin immediate');
  await target.exec("insert into item values (2, 'two')");
  return target;
}

/** The file's journal mode as a new connection finds it. */
function journalMode(): unknown {
  const fresh = new Database(target.config.database as string, { readonly: true });
  try {
    return fresh.pragma('journal_mode', { simple: true });
  } finally {
    fresh.close();
  }
}

afterEach(async () => {
  await api?.close();
  api = undefined;
  await target?.close();
});

describe('a SQLite service opening a file another connection has locked', () => {
  it('waits for the lock without blocking the server, then serves the file in WAL mode', async () => {
    await lockedFile();
    api = await startApi(target);
    const started = Date.now();
    let committedAfter = -1;
    setTimeout(() => {
      void target.exec('commit').then(() => {
        committedAfter = Date.now() - started;
      });
    }, 1_500);
    const answer = await api.get('_table/item', { fields: 'id' });
    expect(answer).toEqual({ status: 200, body: { resource: [{ id: 1 }, { id: 2 }] } });
    // The other connection ran when it meant to: the server's wait did not hold the event loop.
    // (Before, the open failed at once: 503 busy although the lock was let go a moment later.)
    expect(committedAfter).toBeGreaterThanOrEqual(0);
    expect(committedAfter).toBeLessThan(3_000);
    expect(journalMode()).toBe('wal');
  });

  it('answers 503 busy when the lock outlasts the wait, and opens on the next call once it is free', { timeout: 20_000 }, async () => {
    await lockedFile();
    api = await startApi(target);
    const asked = Date.now();
    const busy = await api.get('_table/item', { fields: 'id' });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(4_500);
    expect(busy).toEqual({ status: 503, body: { error: { code: 503, message: 'The database is busy; try again.' } } });
    await target.exec('commit');
    expect(await api.get('_table/item', { fields: 'id' })).toEqual({ status: 200, body: { resource: [{ id: 1 }, { id: 2 }] } });
    expect(journalMode()).toBe('wal');
  });
});
