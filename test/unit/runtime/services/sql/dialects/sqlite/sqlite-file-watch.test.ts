/**
 * A SQLite file's connection tells whether the file at its path is still the one it opened
 * (fileState): a write asks every time, through a descriptor of the opened file where there is
 * one, and must see a lost link at once; a move elsewhere, which keeps the link count, once the
 * file's watch has told of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openSqliteFile } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import type { SqlConnection } from '#runtime/services/sql/dialects/sql-dialect.js';
import { tempDir } from '../../sql-test-helpers.js';

const env = tempDir();
const open: SqlConnection[] = [];
afterAll(env.cleanup);
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

/** A fresh database file with one table, and a connection of the service's kind to it. */
async function connected(name: string): Promise<{ file: string; connection: SqlConnection }> {
  const file = path.join(env.dir, name);
  const raw = new Database(file);
  raw.exec('create table item (id integer primary key)');
  raw.close();
  const connection = await openSqliteFile(file, { wal: true });
  open.push(connection);
  return { file, connection };
}

describe("a SQLite file connection's fileState", () => {
  it('sees at once that the file was removed while a second link to it stays (its link count fell, not to 0)', async () => {
    const { file, connection } = await connected('linked.sqlite');
    fs.linkSync(file, `${file}.kept`);
    expect(connection.fileState?.(true)).toBe('same');
    // No turn of the event loop in between: the watch cannot have told of it yet.
    fs.rmSync(file);
    expect(connection.fileState?.(true)).toBe('missing');
    fs.renameSync(`${file}.kept`, file);
    expect(connection.fileState?.(true)).toBe('same');
    // Back with one link, and a removal still seen at once.
    fs.rmSync(file);
    expect(connection.fileState?.(true)).toBe('missing');
  });

  it('sees a link made and the path removed in between two writes (a move by link and unlink) once the watch told of it', async () => {
    const { file, connection } = await connected('relinked.sqlite');
    expect(connection.fileState?.(true)).toBe('same');
    fs.linkSync(file, `${file}.kept`);
    fs.rmSync(file);
    await vi.waitFor(() => expect(connection.fileState?.(true)).toBe('missing'), { timeout: 2_000 });
  });

  it('sees at once that another file was renamed over it', async () => {
    const { file, connection } = await connected('renamed-over.sqlite');
    expect(connection.fileState?.(true)).toBe('same');
    fs.writeFileSync(`${file}.new`, '');
    fs.renameSync(`${file}.new`, file);
    expect(connection.fileState?.(true)).toBe('replaced');
  });

  it('sees a file moved away (its link count unchanged) once the watch told of it, and the file moved back', async () => {
    const { file, connection } = await connected('moved.sqlite');
    expect(connection.fileState?.(true)).toBe('same');
    fs.renameSync(file, `${file}.moved`);
    await vi.waitFor(() => expect(connection.fileState?.(false)).toBe('missing'), { timeout: 2_000 });
    expect(connection.fileState?.(true)).toBe('missing');
    fs.renameSync(`${file}.moved`, file);
    expect(connection.fileState?.(true)).toBe('same');
    expect(connection.fileState?.(false)).toBe('same');
  });

  // POSIX locks belong to the process and the file: closing any descriptor of the file drops them all (fcntl(2)).
  it.skipIf(process.platform !== 'linux')(
    "leaves another connection's locks on the file when it closes (its descriptor of the file holds none)",
    async () => {
      const { file, connection } = await connected('locked.sqlite');
      const other = await openSqliteFile(file, { wal: true });
      open.push(other);
      // In write-ahead-log mode a connection that has read keeps a shared lock on the database file.
      await other.db.selectFrom('item').selectAll().execute();
      const inode = fs.statSync(file).ino;
      const locks = () =>
        fs
          .readFileSync('/proc/locks', 'utf8')
          .split('\n')
          .filter((line) => line.includes(` ${process.pid} `) && line.includes(`:${inode} `)).length;
      expect(locks()).toBeGreaterThan(0);
      await connection.close();
      open.splice(open.indexOf(connection), 1);
      expect(locks()).toBeGreaterThan(0);
    },
  );
});
