/**
 * A sqlite service whose file lies on a disk that fills up: a tmpfs of 256 KiB of this test's own
 * (mounting one needs root, as .ci/run runs; otherwise the tests are skipped, said on stderr).
 * A write that finds no room answers the spec's 503 saying so, alone or as a rollback batch, and
 * stores nothing of it; reads go on; once room is made, writes go on without a restart. A file on
 * a read-only mount is served for reads, its writes answered 503 (read-only).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { type ApiClient, startApi } from '../database-api/api-client.js';
import type { DatabaseTarget } from '../database-api/database-targets.js';

const root = process.getuid?.() === 0;
if (!root)
  process.stderr.write('\n[skipped] sqlite-disk-faults: mounting a small tmpfs needs root (as .ci/run runs); its tests are skipped.\n');

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const FULL = {
  status: 503,
  body: { error: { code: 503, message: 'The database has no room left to store the change; try again later.' } },
};

/** A target for startApi: the service's config only (the tests read the file themselves). */
const served = (file: string) => ({ kind: 'sqlite', type: 'sqlite', config: { database: file } }) as unknown as DatabaseTarget;

/** A fresh tmpfs of `size`, unmounted after the file. */
function tmpfs(size: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  cleanups.push(() => {
    execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** A service over a file on a fresh 256 KiB tmpfs, beside a 64 KiB filler file to remove to make room. */
async function smallDisk(): Promise<{ api: ApiClient; file: string; filler: string }> {
  const dir = tmpfs('256k');
  const file = path.join(dir, 'api.sqlite');
  const filler = path.join(dir, 'filler');
  fs.writeFileSync(filler, Buffer.alloc(64 * 1024, 1));
  const setup = new Database(file);
  setup.exec('create table item (id integer primary key, name text not null)');
  setup.close();
  const api = await startApi(served(file));
  cleanups.push(() => api.close());
  return { api, file, filler };
}

const storedIds = (file: string) => {
  const reader = new Database(file, { readonly: true });
  try {
    return (reader.prepare('select id from item order by id').all() as Array<{ id: number }>).map((row) => row.id);
  } finally {
    reader.close();
  }
};

describe.skipIf(!root)('a sqlite database service whose disk is full', () => {
  it('answers 503 (no room) to a write and to a rollback batch, storing nothing of them, reads on, and writes once there is room', {
    timeout: 30_000,
  }, async () => {
    const { api, file, filler } = await smallDisk();
    const big = 'x'.repeat(20_000);
    // Records of 20 KB until the disk takes no more (256 KiB hold a dozen at most).
    let full: { status: number; body: unknown } | null = null;
    let id = 1;
    for (; id <= 50 && full === null; id++) {
      const answer = await api.call('POST', '_table/item', { resource: [{ id, name: big }] });
      if (answer.status !== 200) full = answer;
    }
    expect(full).toEqual(FULL);
    const stored = storedIds(file);
    expect(stored).toEqual(Array.from({ length: id - 2 }, (_, i) => i + 1));
    // SQLite ends the transaction itself on a full disk: the answer is still the full disk, not a 500 from the rollback after it.
    const batch = await api.call('POST', '_table/item?rollback=true', {
      resource: [
        { id: 100, name: 'small' },
        { id: 101, name: big },
        { id: 102, name: big },
      ],
    });
    expect(batch).toEqual(FULL);
    expect(storedIds(file)).toEqual(stored);
    const read = await api.get('_table/item', { fields: 'id' });
    expect(read.status).toBe(200);
    expect((read.body.resource as Array<{ id: number }>).map((record) => record.id)).toEqual(stored);
    fs.rmSync(filler);
    expect(
      (
        await api.call('POST', '_table/item?rollback=true', {
          resource: [
            { id: 100, name: 'small' },
            { id: 101, name: 'b' },
          ],
        })
      ).status,
    ).toBe(200);
    expect(storedIds(file)).toEqual([...stored, 100, 101]);
  });
});

describe.skipIf(!root)('a sqlite database service whose file is on a read-only mount', () => {
  it('serves reads and answers writes 503 (read-only), storing nothing', { timeout: 30_000 }, async () => {
    const dir = tmpfs('1m');
    const file = path.join(dir, 'api.sqlite');
    const setup = new Database(file);
    setup.exec("create table item (id integer primary key, name text not null); insert into item values (1, 'a')");
    setup.close();
    // The same files, seen through a read-only bind mount.
    const readOnly = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-read-only-'));
    execFileSync('mount', ['--bind', dir, readOnly]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', readOnly]);
      fs.rmSync(readOnly, { recursive: true, force: true });
    });
    execFileSync('mount', ['-o', 'remount,bind,ro', readOnly]);
    const api = await startApi(served(path.join(readOnly, 'api.sqlite')));
    cleanups.push(() => api.close());
    // Opening switched the file to write-ahead logging, which needs writes: the open failed, and so did every read.
    expect(await api.get('_table/item')).toEqual({ status: 200, body: { resource: [{ id: 1, name: 'a' }] } });
    const READ_ONLY = {
      status: 503,
      body: {
        error: {
          code: 503,
          message: 'The database takes no changes now (it is read-only: a standby, or in maintenance); try again later.',
        },
      },
    };
    expect(await api.call('POST', '_table/item', { resource: [{ id: 2, name: 'b' }] })).toEqual(READ_ONLY);
    expect(await api.call('PATCH', '_table/item/1', { name: 'changed' })).toEqual(READ_ONLY);
    expect(storedIds(file)).toEqual([1]);
    expect((await api.get('_table/item/1')).body).toEqual({ id: 1, name: 'a' });
  });
});
