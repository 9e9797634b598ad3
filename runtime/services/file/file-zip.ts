/**
 * Zip archives of file services: a folder downloaded as one zip (streamed, entries read from the
 * back-end one at a time), and an uploaded zip unpacked into a folder. Entry names are checked
 * before anything is written: one that would leave the folder refuses the whole archive.
 */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { BadRequestError, PayloadTooLargeError } from '../../core/errors.js';
import type { FileStorage } from './file-storage.js';
import { join, validName } from './file-paths.js';
import { capped, tooLarge } from './file-streams.js';

/** What one archive may unpack to: entries, and bytes in all as a multiple of the service's largest file. */
const MAX_ENTRIES = 100_000;
const MAX_UNPACKED_FACTOR = 10;

export interface TreeEntry {
  path: string;
  type: 'file' | 'folder';
}

/**
 * The name of an entry in a zip: yazl throws on one that reads as a Windows drive (`c:notes.txt`
 * at the root, a valid file name: the whole download was a 500); `./` keeps it a relative name,
 * which unpackers drop.
 */
const zipName = (path: string) => (/^[a-zA-Z]:/.test(path) ? `./${path}` : path);

/**
 * A zip of the entries (paths from the service root, as the reference names them), streamed. A
 * file that cannot be read once the answer has begun (no permission, gone, the back-end lost) cuts
 * the download off: yazl reports it as an 'error' of the zip, and its source streams' errors are
 * not forwarded by pipe; without listeners the download hung, or the error ended the process.
 */
export function zipStream(storage: FileStorage, entries: readonly TreeEntry[]): Readable {
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as Readable;
  const fail = (error: Error) => output.destroy(error);
  zip.on('error', fail);
  for (const entry of entries) {
    if (entry.type === 'folder') zip.addEmptyDirectory(zipName(entry.path));
    else {
      zip.addReadStreamLazy(zipName(entry.path), (callback) => {
        storage.read(entry.path).then(
          (stream) => {
            stream.on('error', fail);
            callback(null, stream);
          },
          (error: Error) => callback(error, undefined as unknown as Readable),
        );
      });
    }
  }
  zip.end();
  return output;
}

/** Saves a stream to a temporary file (an upload to unpack), at most `max` bytes; the caller removes it. */
export async function saveTemp(content: Readable, max: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portico-zip-'));
  const file = path.join(dir, 'upload.zip');
  try {
    await pipeline(capped(content, max), createWriteStream(file));
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
  return file;
}

export async function removeTemp(file: string): Promise<void> {
  await fs.rm(path.dirname(file), { recursive: true, force: true });
}

/** A path an archive makes: as what, and the first entry that makes it. */
interface Claim {
  type: 'file' | 'folder';
  entry: string;
}

/**
 * Records the paths an entry makes; refuses one that makes a path a file and a folder both
 * (`f` and `f/`, `h.txt` and `h.txt/in.txt`): unpacked, the second failed as a 500 (EEXIST,
 * EISDIR) or a 502 with the first already written.
 */
function claim(paths: Map<string, Claim>, folder: string, fileName: string): void {
  const names = fileName.replace(/\/+$/, '').split('/');
  names.forEach((_, i) => {
    const path = join(folder, names.slice(0, i + 1).join('/'));
    const type = i < names.length - 1 || fileName.endsWith('/') ? 'folder' : 'file';
    const claimed = paths.get(path);
    if (claimed !== undefined && claimed.type !== type)
      throw new BadRequestError(`Cannot extract zip entry '${fileName}': '${path}' is a ${claimed.type} in the archive.`);
    if (claimed === undefined) paths.set(path, { type, entry: fileName });
  });
}

/**
 * Refuses, before anything is written, an archive that puts a folder where a file is stored or a
 * file where a folder is (the request then changes nothing). A folder not stored has nothing
 * stored below it: those paths are not looked up.
 */
async function checkAgainst(storage: FileStorage, paths: Map<string, Claim>): Promise<void> {
  const missing = new Set<string>();
  for (const [path, { type, entry }] of paths) {
    const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    if (missing.has(parent)) {
      missing.add(path);
      continue;
    }
    const found = await storage.stat(path);
    if (found === null) missing.add(path);
    else if (found.type !== type) throw new BadRequestError(`Cannot extract zip entry '${entry}': '${path}' is a ${found.type}.`);
  }
}

/**
 * Unpacks the zip file into `folder` (which exists), creating sub-folders. All entry names are
 * checked first, and only then `prepare` runs (`clean=true` empties the folder: an archive
 * refused after that lost its content); a failure while writing removes what this call created.
 */
export async function extractZip(
  storage: FileStorage,
  zipFile: string,
  folder: string,
  maxFileSize: number,
  prepare: () => Promise<void> = async () => undefined,
): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(zipFile, { decodeStrings: true, strictFileNames: true });
  } catch (error) {
    throw new BadRequestError(`The upload is not a valid zip archive: ${(error as Error).message}.`);
  }
  const entries: yauzl.Entry[] = [];
  /** Every path the archive makes, as a file or a folder (parents included), parents first. */
  const paths = new Map<string, Claim>();
  let unpacked = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.replace(/\/+$/, '');
      if (name === '') continue;
      if (!name.split('/').every(validName) || /%2e|%2f|%5c/i.test(name)) {
        throw new BadRequestError(`Refusing to extract zip entry with traversal in name: ${entry.fileName}`);
      }
      // Sizes as the archive declares them (yauzl fails an entry whose content differs): a zip bomb
      // is refused before anything is written.
      unpacked += entry.uncompressedSize;
      if (entry.uncompressedSize > maxFileSize) throw tooLarge(maxFileSize);
      if (unpacked > maxFileSize * MAX_UNPACKED_FACTOR || entries.length >= MAX_ENTRIES) {
        throw new PayloadTooLargeError(
          `The archive unpacks to more than this service accepts (${MAX_ENTRIES} entries, ${maxFileSize * MAX_UNPACKED_FACTOR} bytes in all).`,
        );
      }
      entries.push(entry);
      claim(paths, folder, entry.fileName);
    }
  } catch (error) {
    zip.close();
    if (error instanceof BadRequestError || error instanceof PayloadTooLargeError) throw error;
    const message = (error as Error).message;
    // yauzl refuses such names itself.
    if (/relative path|absolute path|invalid characters/.test(message))
      throw new BadRequestError(`Refusing to extract zip entry with traversal in name: ${message.replace(/^.*?: /, '')}`);
    throw new BadRequestError(`The upload is not a valid zip archive: ${message}.`);
  }
  await prepare();
  await checkAgainst(storage, paths);
  const zipAgain = await yauzl.openPromise(zipFile, { decodeStrings: true, autoClose: false });
  const created: Array<{ path: string; folder: boolean }> = [];
  const ensureFolder = async (relative: string) => {
    if (relative === folder || (await storage.stat(relative))?.type === 'folder') return;
    const parent = relative.slice(0, Math.max(0, relative.lastIndexOf('/')));
    await ensureFolder(parent);
    await storage.mkdir(relative);
    created.push({ path: relative, folder: true });
  };
  try {
    for (const entry of entries) {
      const name = entry.fileName.replace(/\/+$/, '');
      const target = join(folder, name);
      if (entry.fileName.endsWith('/')) {
        await ensureFolder(target);
        continue;
      }
      await ensureFolder(target.slice(0, Math.max(0, target.lastIndexOf('/'))));
      const existed = (await storage.stat(target)) !== null;
      const stream = await zipAgain.openReadStreamPromise(entry);
      await storage.write(target, capped(stream, maxFileSize));
      if (!existed) created.push({ path: target, folder: false });
    }
  } catch (error) {
    for (const item of created.reverse()) {
      await (item.folder ? storage.removeFolder(item.path, true) : storage.removeFile(item.path)).catch(() => undefined);
    }
    throw error;
  } finally {
    zipAgain.close();
  }
}
