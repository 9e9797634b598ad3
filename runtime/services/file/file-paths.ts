/**
 * Paths of file services: the request path (trailing `/` = folder), names and paths from headers
 * and bodies. Every form is checked the same way: segments that are empty, `.` or `..` (as sent
 * or percent-encoded), or that hold a separator (`/` or `\` sent encoded), are refused with 400
 * before a back-end sees them.
 */
import { BadRequestError } from '../../core/errors.js';
import { RemoteFailure } from '../remote-errors.js';
import type { ServiceCall } from '../service-kind.js';
import { type FileStorage, isTempName, renamingFailures } from './file-storage.js';

export interface TargetPath {
  /** Relative path without leading or trailing slash; '' is the service root. */
  path: string;
  folder: boolean;
}

const INVALID_PATH =
  'Invalid path: segments may not be empty, `.` or `..`, longer than 255 bytes, or hold `/`, `\\` or control characters, or be reserved.';

/**
 * Whether one path segment (decoded) is acceptable as a file or folder name: at most 255 bytes
 * in UTF-8 (file systems count bytes: `é` × 200 was a 500), no control characters (CR/LF end an
 * FTP command and cannot go in a header), no lone surrogate (JSON can carry one: it was stored
 * as U+FFFD, and WebDAV's client could not encode it, a 502), and not the prefix of unfinished
 * uploads (listings hide those).
 */
export function validName(name: string): boolean {
  return (
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !/[/\\]|\p{Cc}|\p{Cs}/u.test(name) &&
    Buffer.byteLength(name) <= 255 &&
    !isTempName(name)
  );
}

export function checkName(name: unknown, field: string): string {
  // Not a string ({} read as '[object Object]'): said so.
  if (typeof name !== 'string') throw new BadRequestError(`Invalid ${field}: a file or folder name is expected.`, { field });
  if (!validName(name))
    throw new BadRequestError(`Invalid ${field}: '${name.replace(/\p{Cs}/gu, '\uFFFD')}' is not a file or folder name.`, { field });
  return name;
}

/** The path of the request URL. */
export function requestPath(call: ServiceCall): TargetPath {
  // Dot segments the router dropped are seen in the raw path; encoded ones, once decoded, in the resource.
  const raw = (call.rawPath ?? '').split('/');
  if (raw.some((segment) => segment === '.' || segment === '..')) throw new BadRequestError(INVALID_PATH);
  if (!call.resource.every(validName)) throw new BadRequestError(INVALID_PATH);
  return { path: call.resource.join('/'), folder: call.resource.length === 0 || call.trailingSlash };
}

/** A path from a body or header (`docs/a.txt`, `docs/sub/`), relative to the service root. */
export function bodyPath(value: unknown, field: string): TargetPath {
  if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: a path is expected.`, { field });
  const folder = value.endsWith('/');
  const trimmed = value.replace(/^\/+/, '').replace(/\/+$/, '');
  const segments = trimmed === '' ? [] : trimmed.split('/');
  if (!segments.every(validName)) throw new BadRequestError(`Invalid ${field}: '${value}' is not a valid path.`, { field });
  return { path: segments.join('/'), folder: folder || segments.length === 0 };
}

export const join = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);
export const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));
export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
/** The path as responses show it: folders with a trailing slash. */
export const shown = (path: string, folder: boolean) => (folder && path !== '' ? `${path}/` : path);

/**
 * Longest path a request may reach, in bytes from the service root. File systems take at most
 * 4096 with the root (Linux), remote servers often less: a deeper one was a 500 (ENAMETOOLONG).
 */
export const MAX_PATH_BYTES = 3072;

export const PATH_TOO_LONG = `Invalid path: longer than ${MAX_PATH_BYTES} bytes.`;

function checkLength(path: string): void {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new BadRequestError(PATH_TOO_LONG);
}

/** The local file system's refusals, by error code: as a remote server's (remote-errors.ts). */
const LOCAL_REFUSALS: Readonly<Record<string, 'denied' | 'full'>> = {
  EACCES: 'denied',
  EPERM: 'denied',
  EROFS: 'denied',
  ENOSPC: 'full',
  EDQUOT: 'full',
};

/**
 * Names the operation and path in a back-end's refusal, which the driver raised without them (a
 * remote server's, remote-errors.ts; the local file system's permission and space errors, which
 * were 500s).
 */
async function attempting<T>(service: string, attempt: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw namedFailure(service, attempt, error);
  }
}

/** A back-end's failure with what was attempted named in it. */
function namedFailure(service: string, attempt: string, error: unknown): unknown {
  if (error instanceof RemoteFailure) return error.during(attempt);
  const refusal = LOCAL_REFUSALS[(error as NodeJS.ErrnoException)?.code ?? ''];
  if (refusal) return new RemoteFailure('file system', service, refusal, attempt, error);
  return error;
}

/**
 * The storage with every path it is handed checked against MAX_PATH_BYTES: the URL's, and those
 * a request puts together from a folder and a header, body or upload name; a back-end's refusal
 * names what was attempted on which path.
 */
export function boundedPaths(storage: FileStorage, service: string): FileStorage {
  const named = <T>(attempt: string, work: () => Promise<T>) => attempting(service, attempt, work);
  return {
    async stat(path) {
      checkLength(path);
      return named(`look up '${path}'`, () => storage.stat(path));
    },
    async list(folder) {
      checkLength(folder);
      return named(`list the folder '${shown(folder, true) || '/'}'`, () => storage.list(folder));
    },
    async read(path, range) {
      checkLength(path);
      const attempt = `read '${path}'`;
      // FTP and SFTP refuse a file they cannot open once the download has begun: named as well
      // ("The FTP server of service 'x' failed." said not what).
      const content = await named(attempt, () => storage.read(path, range));
      return renamingFailures(content, (error) => namedFailure(service, attempt, error));
    },
    async write(path, content, options) {
      checkLength(path);
      return named(`write '${path}'`, () => storage.write(path, content, options));
    },
    async mkdir(path, options) {
      checkLength(path);
      return named(`create the folder '${shown(path, true)}'`, () => storage.mkdir(path, options));
    },
    async removeFile(path) {
      checkLength(path);
      return named(`delete '${path}'`, () => storage.removeFile(path));
    },
    async removeFolder(path, recursive) {
      checkLength(path);
      return named(`delete the folder '${shown(path, true)}'`, () => storage.removeFolder(path, recursive));
    },
    async copyFile(from, to, options) {
      checkLength(from);
      checkLength(to);
      return named(`copy '${from}' to '${to}'`, () => storage.copyFile(from, to, options));
    },
    close: () => storage.close(),
  };
}
