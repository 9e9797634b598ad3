/** The `webdav_file` back-end: the `webdav` client (Basic or Digest auth) under a path prefix of the server. */
import { posix } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { AuthType, createClient, type FileStat, type WebDAVClient } from 'webdav';
import type { PorticoError } from '../../core/errors.js';
import { backendError, networkCode } from '../remote-errors.js';
import {
  type ByteRange,
  type CreateOptions,
  type FileStorage,
  isTempName,
  type StoredEntry,
  TargetExists,
  tempName,
} from './file-storage.js';

/** How often, and how far apart, an abandoned upload's temporary file is looked for again (about 2 s). */
const TEMP_LOOKS = 5;
const TEMP_LOOK_MS = 400;

export interface WebdavOptions {
  baseUri: string;
  username: string;
  password: string;
  authType: string;
  timeout: number;
  root: string;
}

/** How often, and how far apart, a move or copy to a target another request holds is tried (about 2 s). */
const LOCKED_TRIES = 20;
const LOCKED_WAIT_MS = 100;

/**
 * Moves or copies without replacing (`Overwrite: F`): the server answers 412 where the target is.
 * Of two requests at once, rclone locks the target for one while it looks and moves or copies, and
 * answers the other 423 Locked: tried again, it is the 412 (or, when the first failed, done). Neither
 * `If-None-Match: *` on a PUT nor MKCOL's 405 serve instead: rclone ignores the first and answers a
 * MKCOL of a folder that exists with 201, so folders too are made under a temporary name and moved.
 */
async function exclusively(relative: string, work: () => Promise<unknown>): Promise<void> {
  for (let tries = 1; ; tries += 1) {
    try {
      await work();
      return;
    } catch (error) {
      if (status(error) === 412) throw new TargetExists(relative);
      if (status(error) !== 423 || tries === LOCKED_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCKED_WAIT_MS));
    }
  }
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
    throw this.failure(error);
  }

  /** A failure of the server as the API answers it. */
  private failure(error: unknown): PorticoError {
    return backendError('WebDAV', this.service, error, {
      login: status(error) === 401,
      // Only this back-end's timeouts abort its requests.
      network: networkCode(error) ?? ((error as Error)?.name === 'AbortError' ? 'timeout' : null),
      notFound: status(error) === 404,
      denied: status(error) === 403,
      // 507 Insufficient Storage (RFC 4918).
      full: status(error) === 507,
    });
  }

  private rootReady: Promise<void> | null = null;

  /** The root folder is created on first use, as local storage does. */
  private ensureRoot(): Promise<void> {
    if (!this.rootReady) {
      this.rootReady = (async () => {
        // With the service's timeout like every other request: a server that accepted the
        // connection and never answered held every request of the service for ever.
        const signal = AbortSignal.timeout(this.options.timeout * 1000);
        if (this.root !== '/' && !(await this.client.exists(this.root, { signal })))
          await this.client.createDirectory(this.root, { recursive: true, signal });
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
      if (error instanceof TargetExists) throw error;
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

  /**
   * An abort signal that fires once nothing moved for the service's timeout: transfers may take
   * long, but one the server stopped answering (or never answered) held the request for ever.
   */
  private idle(): { signal: AbortSignal; touch(): void; stop(): void } {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearTimeout(timer);
    const touch = () => {
      stop();
      timer = setTimeout(
        () => controller.abort(Object.assign(new Error('timeout'), { name: 'TimeoutError' })),
        this.options.timeout * 1000,
      );
    };
    touch();
    return { signal: controller.signal, touch, stop };
  }

  /**
   * The stream through a watch that restarts at each piece of it. Its failure (the server answering
   * the GET with an error, closing or resetting the connection, the watch running out) is the
   * service's, as its other calls answer: before the first byte went out the caller gets it in the
   * error shape (it was a bare 500), after that the caller's connection is cut off.
   */
  private watched(source: Readable, watch: { signal: AbortSignal; touch(): void; stop(): void }): Readable {
    const out = new Transform({
      transform(chunk, _encoding, done) {
        watch.touch();
        done(null, chunk);
      },
      flush(done) {
        watch.stop();
        done();
      },
    });
    source.on('error', (error) => {
      watch.stop();
      out.destroy(this.failure(error));
    });
    out.on('close', watch.stop);
    // The client pipes the response into the stream it returned, and pipe passes no error on: a
    // download the watch aborted would otherwise just stop, the answer never ending.
    watch.signal.addEventListener('abort', () => out.destroy(this.failure(watch.signal.reason)), { once: true });
    return source.pipe(out);
  }

  async read(relative: string, range?: ByteRange): Promise<Readable> {
    const watch = this.idle();
    const source = this.client.createReadStream(this.abs(relative), {
      ...(range ? { range: { start: range.start, end: range.end } } : {}),
      signal: watch.signal,
    }) as Readable;
    return this.watched(source, watch);
  }

  async write(relative: string, content: Readable, options: CreateOptions = {}): Promise<void> {
    const temp = this.abs(tempName(relative));
    const watch = this.idle();
    try {
      await this.ensureRoot();
      // Once all is sent the wait for the server's answer is bounded too: the watch restarts, not stops.
      const sent = this.watched(content, { ...watch, stop: watch.touch });
      await this.client.putFileContents(temp, sent, { overwrite: true, signal: watch.signal });
      watch.touch();
      const move = () => this.client.moveFile(temp, this.abs(relative), { overwrite: !options.exclusive, signal: watch.signal });
      await exclusively(relative, move);
    } catch (error) {
      await this.removeTemp(temp);
      if (error instanceof TargetExists) throw error;
      // The server may still be storing the PUT we abandoned when our DELETE reaches it (rclone
      // writes the file after it): look again a few times, after the answer.
      void this.removeTempLater(temp);
      this.fail(watch.signal.aborted ? watch.signal.reason : error);
    } finally {
      watch.stop();
    }
  }

  private async removeTemp(temp: string): Promise<void> {
    await this.client.deleteFile(temp, { signal: AbortSignal.timeout(this.options.timeout * 1000) }).catch(() => undefined);
  }

  private async removeTempLater(temp: string): Promise<void> {
    for (let attempt = 0; attempt < TEMP_LOOKS; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, TEMP_LOOK_MS).unref());
      const left = await this.client.exists(temp, { signal: AbortSignal.timeout(this.options.timeout * 1000) }).catch(() => true);
      // Not there yet is no proof: the server may store it later still.
      if (left) await this.removeTemp(temp);
    }
  }

  async mkdir(relative: string, options: CreateOptions = {}): Promise<void> {
    if (!options.exclusive) {
      await this.run((signal) => this.client.createDirectory(this.abs(relative), { recursive: true, signal }));
      return;
    }
    const temp = this.abs(tempName(relative));
    await this.run(async (signal) => {
      await this.client.createDirectory(posix.dirname(temp), { recursive: true, signal });
      await this.client.createDirectory(temp, { signal });
      try {
        await exclusively(relative, () => this.client.moveFile(temp, this.abs(relative), { overwrite: false, signal }));
      } catch (error) {
        await this.removeTemp(temp);
        throw error;
      }
    });
  }

  async removeFile(relative: string): Promise<void> {
    await this.run((signal) => this.client.deleteFile(this.abs(relative), { signal }));
  }

  async removeFolder(relative: string): Promise<void> {
    // A WebDAV DELETE of a collection removes what it holds (the engine checked emptiness when asked to).
    await this.run((signal) => this.client.deleteFile(this.abs(relative), { signal }));
  }

  async copyFile(from: string, to: string, options: CreateOptions = {}): Promise<void> {
    await this.run((signal) =>
      exclusively(to, () => this.client.copyFile(this.abs(from), this.abs(to), { overwrite: !options.exclusive, signal })),
    );
  }

  async close(): Promise<void> {}
}
