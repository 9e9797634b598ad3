/**
 * The `local_file` back-end: a directory of the server. Every path is resolved under the root's
 * real path, and refused when it or, through a symbolic link, its target leaves the root.
 */
import { constants, createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestError, InternalServerError } from '../../core/errors.js';
import {
  type ByteRange,
  type CreateOptions,
  ESCAPES_ROOT,
  type FileStorage,
  isTempName,
  type StoredEntry,
  TargetExists,
  tempName,
} from './file-storage.js';

export { ESCAPES_ROOT };

/** Roots a service may not serve (the reference's list, and the kernel's pseudo file systems). */
const FORBIDDEN_ROOTS = ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32', '/dev', '/etc', '/proc', '/sys', '/boot'];

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** `work`, with the file system's "exists" (O_EXCL, link(), mkdir) as TargetExists. */
async function creating(relative: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    throw code(error) === 'EEXIST' ? new TargetExists(relative) : error;
  }
}

export class LocalStorage implements FileStorage {
  private constructor(private readonly root: string) {}

  /** Opens (creating it when missing) the root folder; refuses system folders. */
  static async open(root: string, serviceName: string): Promise<LocalStorage> {
    const absolute = path.resolve(root);
    if (absolute === '/' || FORBIDDEN_ROOTS.some((dir) => `${absolute}/`.startsWith(`${dir}/`))) {
      throw new InternalServerError(`Invalid root directory: ${absolute} is not allowed (file service '${serviceName}').`);
    }
    try {
      await fs.mkdir(absolute, { recursive: true, mode: 0o775 });
      const real = await fs.realpath(absolute);
      if (!(await fs.stat(real)).isDirectory()) throw new Error('not a directory');
      return new LocalStorage(real);
    } catch {
      throw new InternalServerError(
        `Local file service folder mis-configured. Please check configuration for file service - ${serviceName}.`,
      );
    }
  }

  private inside(real: string): boolean {
    return real === this.root || real.startsWith(`${this.root}${path.sep}`);
  }

  /** The absolute path of a relative one, after checking that neither it nor what its links name leaves the root. */
  private async resolve(relative: string): Promise<string> {
    const full = path.join(this.root, relative);
    if (!this.inside(full)) throw new BadRequestError(ESCAPES_ROOT);
    // The real path of the deepest part that exists must stay inside too (symbolic links).
    const rest: string[] = [];
    let existing = full;
    for (;;) {
      try {
        const real = await fs.realpath(existing);
        if (!this.inside(path.join(real, ...rest))) throw new BadRequestError(ESCAPES_ROOT);
        return full;
      } catch (error) {
        if (error instanceof BadRequestError) throw error;
        if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw error;
        if (existing === this.root) return full;
        rest.unshift(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
  }

  private entry(relative: string, stats: import('node:fs').Stats): StoredEntry {
    return {
      path: relative,
      type: stats.isDirectory() ? 'folder' : 'file',
      size: stats.isDirectory() ? 0 : stats.size,
      modified: stats.mtime,
    };
  }

  async stat(relative: string): Promise<StoredEntry | null> {
    const full = await this.resolve(relative);
    try {
      return this.entry(relative, await fs.stat(full));
    } catch (error) {
      if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return null;
      throw error;
    }
  }

  async list(folder: string): Promise<StoredEntry[]> {
    const full = await this.resolve(folder);
    const entries: StoredEntry[] = [];
    for (const dirent of await fs.readdir(full, { withFileTypes: true })) {
      if (isTempName(dirent.name)) continue;
      const relative = folder === '' ? dirent.name : `${folder}/${dirent.name}`;
      const target = path.join(full, dirent.name);
      try {
        // A link is listed for what it names, and only when that stays inside the root.
        if (dirent.isSymbolicLink() && !this.inside(await fs.realpath(target))) continue;
        entries.push(this.entry(relative, await fs.stat(target)));
      } catch {
        // Dangling links and entries removed meanwhile are not listed.
      }
    }
    return entries;
  }

  async read(relative: string, range?: ByteRange): Promise<Readable> {
    const full = await this.resolve(relative);
    const handle = await fs.open(full, 'r');
    return createReadStream('', {
      fd: handle,
      autoClose: true,
      ...(range ? { start: range.start, end: range.end } : {}),
      highWaterMark: 256 * 1024,
    });
  }

  async write(relative: string, content: Readable, options: CreateOptions = {}): Promise<void> {
    const full = await this.resolve(relative);
    const temp = path.join(this.root, tempName(relative));
    // Opened before the stream: a write stream opens its file lazily, and an upload refused at
    // once (413) had its temporary file removed before it was created, left behind for good.
    const handle = await fs.open(temp, 'wx');
    try {
      await pipeline(content, createWriteStream('', { fd: handle, highWaterMark: 256 * 1024 }));
      // A create-only write is linked into place: link() fails where a name is (rename() replaces
      // it), so of two servers over this folder only one creates the file, whole.
      if (options.exclusive) await creating(relative, () => fs.link(temp, full));
      else await fs.rename(temp, full);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.rm(temp, { force: true });
      throw error;
    }
    if (options.exclusive) await fs.rm(temp, { force: true });
  }

  async mkdir(relative: string, options: CreateOptions = {}): Promise<void> {
    const full = await this.resolve(relative);
    if (options.exclusive) {
      await fs.mkdir(path.dirname(full), { recursive: true, mode: 0o775 });
      await creating(relative, () => fs.mkdir(full, { mode: 0o775 }));
    } else await fs.mkdir(full, { recursive: true, mode: 0o775 });
  }

  async removeFile(relative: string): Promise<void> {
    await fs.unlink(await this.resolve(relative));
  }

  async removeFolder(relative: string, recursive: boolean): Promise<void> {
    const full = await this.resolve(relative);
    // A link to a folder is removed as the link, never followed.
    if ((await fs.lstat(full)).isSymbolicLink()) await fs.unlink(full);
    else if (recursive) await fs.rm(full, { recursive: true });
    else await fs.rmdir(full);
  }

  async copyFile(from: string, to: string, options: CreateOptions = {}): Promise<void> {
    const source = await this.resolve(from);
    const target = await this.resolve(to);
    await creating(to, () => fs.copyFile(source, target, options.exclusive ? constants.COPYFILE_EXCL : 0));
  }

  async close(): Promise<void> {}
}
