/** The `webdav_file` back-end: the `webdav` client (Basic or Digest auth) under a path prefix of the server. */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { AuthType, createClient, type FileStat, type WebDAVClient } from 'webdav';
import { backendError, networkCode } from '../remote-errors.js';
import { type ByteRange, type FileStorage, isTempName, type StoredEntry, tempName } from './file-storage.js';

export interface WebdavOptions {
  baseUri: string;
  username: string;
  password: string;
  authType: string;
  timeout: number;
  root: string;
}

const status = (error: unknown) =>
  (error as { status?: number; response?: { status?: number } })?.status ??
  (error as { response?: { status?: number } })?.response?.status ??
  0;

export class WebdavStorage implements FileStorage {
  private readonly client: WebDAVClient;
  private readonly root: string;

  constructor(
    private readonly service: string,
    private readonly options: WebdavOptions,
  ) {
    const authType = options.authType === 'none' ? AuthType.None : options.authType === 'digest' ? AuthType.Digest : AuthType.Password;
    this.client = createClient(
      options.baseUri,
      authType === AuthType.None ? { authType } : { authType, username: options.username, password: options.password },
    );
    this.root = posix.join('/', options.root || '/');
  }

  private fail(error: unknown): never {
    throw backendError('WebDAV', this.service, error, {
      login: status(error) === 401,
      network: networkCode(error),
      notFound: status(error) === 404,
    });
  }

  private rootReady: Promise<void> | null = null;

  /** The root folder is created on first use, as local storage does. */
  private ensureRoot(): Promise<void> {
    if (!this.rootReady) {
      this.rootReady = (async () => {
        if (this.root !== '/' && !(await this.client.exists(this.root))) await this.client.createDirectory(this.root, { recursive: true });
      })();
      this.rootReady.catch(() => {
        this.rootReady = null;
      });
    }
    return this.rootReady;
  }

  private async run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      await this.ensureRoot();
      return await work(AbortSignal.timeout(this.options.timeout * 1000));
    } catch (error) {
      this.fail(error);
    }
  }

  private abs(relative: string): string {
    return posix.join(this.root, relative);
  }

  private entry(relative: string, stat: FileStat): StoredEntry {
    const modified = stat.lastmod ? new Date(stat.lastmod) : null;
    return {
      path: relative,
      type: stat.type === 'directory' ? 'folder' : 'file',
      size: stat.type === 'directory' ? 0 : stat.size,
      modified: modified && !Number.isNaN(modified.getTime()) ? modified : null,
    };
  }

  async stat(relative: string): Promise<StoredEntry | null> {
    return this.run(async (signal) => {
      try {
        return this.entry(relative, (await this.client.stat(this.abs(relative), { signal })) as FileStat);
      } catch (error) {
        if (status(error) === 404) return null;
        throw error;
      }
    });
  }

  async list(folder: string): Promise<StoredEntry[]> {
    return this.run(async (signal) => {
      const entries = (await this.client.getDirectoryContents(this.abs(folder), { signal })) as FileStat[];
      return entries
        .filter((stat) => !isTempName(stat.basename))
        .map((stat) => this.entry(folder === '' ? stat.basename : `${folder}/${stat.basename}`, stat));
    });
  }

  async read(relative: string, range?: ByteRange): Promise<Readable> {
    return this.client.createReadStream(this.abs(relative), range ? { range: { start: range.start, end: range.end } } : {}) as Readable;
  }

  async write(relative: string, content: Readable): Promise<void> {
    const temp = this.abs(tempName(relative));
    try {
      await this.ensureRoot();
      await this.client.putFileContents(temp, content, { overwrite: true });
      await this.client.moveFile(temp, this.abs(relative), { overwrite: true });
    } catch (error) {
      await this.client.deleteFile(temp).catch(() => undefined);
      this.fail(error);
    }
  }

  async mkdir(relative: string): Promise<void> {
    await this.run((signal) => this.client.createDirectory(this.abs(relative), { recursive: true, signal }));
  }

  async removeFile(relative: string): Promise<void> {
    await this.run((signal) => this.client.deleteFile(this.abs(relative), { signal }));
  }

  async removeFolder(relative: string): Promise<void> {
    // A WebDAV DELETE of a collection removes what it holds (the engine checked emptiness when asked to).
    await this.run((signal) => this.client.deleteFile(this.abs(relative), { signal }));
  }

  async copyFile(from: string, to: string): Promise<void> {
    await this.run((signal) => this.client.copyFile(this.abs(from), this.abs(to), { signal }));
  }

  async close(): Promise<void> {}
}
