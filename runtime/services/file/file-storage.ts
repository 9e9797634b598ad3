/**
 * The one storage interface the file-service engine (./file-handler.ts) drives. A driver per
 * back-end (local directory, FTP/FTPS, SFTP, WebDAV) implements it; the engine owns everything
 * else: the REST API, path checks, grants, listings, zips, uploads.
 *
 * Paths handed to a driver are already checked (./file-paths.ts): relative to the service's root,
 * `/`-separated, no empty, `.` or `..` segments, no leading or trailing slash; `''` is the root.
 * Drivers resolve them under their root and never reach outside it.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';

export interface StoredEntry {
  /** Relative path, without trailing slash. */
  path: string;
  type: 'file' | 'folder';
  /** Bytes (files). */
  size: number;
  modified: Date | null;
}

/** Inclusive byte range of a ranged read. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A create-only write, folder creation or copy: made with the storage's own exclusive create
 * (O_EXCL, link(), SFTP's rename, WebDAV's `Overwrite: F`), so that of two servers over one
 * storage only one creates the path; the per-process lock (./path-locks.ts) sees one server only.
 */
export interface CreateOptions {
  exclusive?: boolean;
}

/** An exclusive create found its target there: another request, maybe of another process, made it first. */
export class TargetExists extends Error {
  constructor(readonly path: string) {
    super(`'${path}' exists already.`);
  }
}

export interface FileStorage {
  /** What is at the path, or null when nothing is (the root is always a folder). */
  stat(path: string): Promise<StoredEntry | null>;
  /** The entries of a folder, one level, in any order (the engine sorts). */
  list(folder: string): Promise<StoredEntry[]>;
  /** The content of a file, whole or a byte range. */
  read(path: string, range?: ByteRange): Promise<Readable>;
  /**
   * Writes a file from a stream: to a temporary name next to it, renamed over the target once
   * the stream ended; when the stream or the back-end fails nothing new remains at the path.
   * `exclusive`: put into place only where nothing is, else TargetExists (and nothing new remains).
   */
  write(path: string, content: Readable, options?: CreateOptions): Promise<void>;
  /** Creates a folder and any missing parents; `exclusive`: TargetExists when the folder itself is there. */
  mkdir(path: string, options?: CreateOptions): Promise<void>;
  /** Removes a file. */
  removeFile(path: string): Promise<void>;
  /** Removes an empty folder, or with `recursive` a folder and all it holds. */
  removeFolder(path: string, recursive: boolean): Promise<void>;
  /** Copies a file within the storage; `exclusive`: TargetExists when `to` is there. */
  copyFile(from: string, to: string, options?: CreateOptions): Promise<void>;
  close(): Promise<void>;
}

/**
 * The content with its failures replaced by `rename(error)`: a download the server refuses after
 * it has begun fails there, past the code that names and classifies an operation's failures.
 */
export function renamingFailures(content: Readable, rename: (error: unknown) => unknown): Readable {
  const out = new PassThrough();
  content.on('error', (error) => out.destroy(rename(error) as Error));
  // A reader that gives up (a client gone) ends the transfer.
  out.on('close', () => content.destroy());
  return content.pipe(out);
}

/** The refusal of a path that leaves the root, through `..` or through a symbolic link (every back-end). */
export const ESCAPES_ROOT = 'File operation refused: path escapes the storage root.';

/** Name prefix of the temporary files of unfinished writes; listings hide them. */
export const TEMP_PREFIX = '.portico-upload-';

export function tempName(target: string): string {
  const slash = target.lastIndexOf('/');
  const random = randomBytes(5).toString('hex');
  // The name is cut so that the temporary name stays within the 255 bytes a name may have.
  const name = Buffer.from(target.slice(slash + 1))
    .subarray(0, 200)
    .toString()
    .replace(/\uFFFD+$/, '');
  return `${target.slice(0, slash + 1)}${TEMP_PREFIX}${random}-${name}`;
}

export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}
