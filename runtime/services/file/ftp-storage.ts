/**
 * The `ftp_file` back-end: basic-ftp (FTP, or explicit FTPS with `ssl`). One control connection
 * per service, used by one operation at a time (FTP cannot interleave transfers on it); a
 * download holds it until the stream ends or is abandoned (then the connection is dropped).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path, { posix } from 'node:path';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { Client, FTPError } from 'basic-ftp';
import { BadRequestError } from '../../core/errors.js';
import { backendError, networkCode } from '../remote-errors.js';
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

export interface FtpOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  secure: boolean;
  verify: boolean;
  timeout: number;
  root: string;
}

const code = (error: unknown) => (error instanceof FTPError ? error.code : 0);

export class FtpStorage implements FileStorage {
  private client: Client | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private rootReady = false;
  /**
   * The root as an absolute path (the server's answer to PWD once in it): every path sent is
   * absolute, as a bare name is read by the server against the working folder, and `~` as the
   * user's home.
   */
  private absoluteRoot: string | null = null;

  constructor(
    private readonly service: string,
    private readonly options: FtpOptions,
  ) {}

  private fail(error: unknown): never {
    const text = String((error as Error)?.message ?? '');
    throw backendError('FTP', this.service, error, {
      login: code(error) === 530,
      // basic-ftp: "Client is closed", "Server sent FIN packet unexpectedly, closing connection."
      network: networkCode(error) ?? (/closed|closing connection|timeout|ECONN/i.test(text) ? 'connection lost' : null),
      // 550 is any refusal of a file action (vsftpd: "Delete operation failed", "Create directory
      // operation failed"), a missing file only when it says so: the rest were 404s for paths that exist.
      notFound: code(error) === 550 && /no such|not found|not exist/i.test(text),
      denied: /permission denied|access denied/i.test(text),
      // 452 and 552: insufficient storage, exceeded storage allocation (RFC 959).
      full: code(error) === 452 || code(error) === 552 || /quota|no space|disk full/i.test(text),
    });
  }

  private async connect(): Promise<Client> {
    if (this.client && !this.client.closed) return this.client;
    const client = new Client(this.options.timeout * 1000);
    try {
      await client.access({
        host: this.options.host,
        port: this.options.port,
        user: this.options.user || 'anonymous',
        password: this.options.password,
        secure: this.options.secure,
        secureOptions: { rejectUnauthorized: this.options.verify },
      });
    } catch (error) {
      client.close();
      this.fail(error);
    }
    // The root folder is created on first use, as local storage does.
    if (!this.rootReady) {
      try {
        await client.ensureDir(this.options.root);
        this.absoluteRoot = await client.pwd();
        this.rootReady = true;
      } catch (error) {
        client.close();
        this.fail(error);
      }
    }
    this.client = client;
    return client;
  }

  /** Runs work alone on the connection; a failure that closed it makes the next call reconnect. */
  private exclusive<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      const client = await this.connect();
      try {
        return await work(client);
      } catch (error) {
        if (client.closed) this.client = null;
        if (error instanceof TargetExists) throw error;
        this.fail(error);
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private abs(relative: string): string {
    return posix.join(this.absoluteRoot ?? this.options.root, relative);
  }

  /**
   * Creates a folder and its missing parents, naming each by its absolute path. basic-ftp's
   * ensureDir enters each by its bare name, and vsftpd reads `~` as the user's home: `POST
   * /files/~/x/` created `x` in the home folder, outside the root. Each folder that exists is
   * entered and checked to be inside the root before anything is made in it: with `out` a link
   * out of the root, `POST /{svc}/out/new/deeper/` made `new` where the link led (the look-up
   * before found no `out/new` to check).
   */
  private async ensureFolder(client: Client, folder: string): Promise<void> {
    const root = this.rootPath();
    let current = root;
    for (const name of posix
      .relative(root, folder)
      .split('/')
      .filter((part) => part !== '')) {
      current = posix.join(current, name);
      try {
        await client.cd(current);
      } catch (error) {
        if (code(error) !== 550) throw error;
        await client.send(`MKD ${current}`);
        await client.cd(current);
      }
      await this.insideRoot(client);
    }
  }

  /** The root, absolute, without a trailing slash. */
  private rootPath(): string {
    return (this.absoluteRoot ?? this.options.root).replace(/\/$/, '') || '/';
  }

  /**
   * Refuses the working folder when it is not the root or under it. The server's working folder
   * is the real one, links resolved: a link leading out of the root is caught here.
   */
  private async insideRoot(client: Client): Promise<void> {
    const here = await client.pwd();
    const root = this.rootPath();
    if (here !== root && !here.startsWith(`${root === '/' ? '' : root}/`)) throw new BadRequestError(ESCAPES_ROOT);
  }

  /**
   * Removes a folder and all it holds, naming each entry by its absolute path. basic-ftp's
   * removeDir enters sub-folders by their bare names: one named `~` took it to the user's home,
   * which it then emptied.
   */
  private async removeTree(client: Client, folder: string): Promise<void> {
    await client.cd(folder);
    const entries = (await client.list()).filter((info) => info.name !== '.' && info.name !== '..');
    for (const info of entries) {
      const target = posix.join(folder, info.name);
      if (info.isDirectory) await this.removeTree(client, target);
      else await client.remove(target);
    }
    await client.cd('/');
    await client.removeEmptyDir(folder);
  }

  private async listAbs(
    client: Client,
    folder: string,
  ): Promise<Array<{ name: string; type: 'file' | 'folder'; size: number; modified: Date | null }>> {
    await client.cd(folder);
    // A link higher up leading out of the root (`out` to /etc: GET /{svc}/out/passwd read
    // /etc/passwd) is refused here, as every operation on a path lists its folder (stat) first.
    await this.insideRoot(client);
    return (await client.list())
      .filter((info) => (info.isDirectory || info.isFile) && info.name !== '.' && info.name !== '..' && !isTempName(info.name))
      .map((info) => ({
        name: info.name,
        type: info.isDirectory ? 'folder' : 'file',
        size: info.isDirectory ? 0 : info.size,
        modified: info.modifiedAt ?? null,
      }));
  }

  async stat(relative: string): Promise<StoredEntry | null> {
    if (relative === '') return { path: '', type: 'folder', size: 0, modified: null };
    return this.exclusive(async (client) => {
      let entries: Awaited<ReturnType<FtpStorage['listAbs']>>;
      try {
        entries = await this.listAbs(client, this.abs(posix.dirname(relative)));
      } catch (error) {
        if (code(error) === 550) return null;
        throw error;
      }
      const found = entries.find((entry) => entry.name === posix.basename(relative));
      if (!found) return null;
      let modified = found.modified;
      if (!modified && found.type === 'file') modified = await client.lastMod(this.abs(relative)).catch(() => null);
      return { path: relative, type: found.type, size: found.size, modified };
    });
  }

  async list(folder: string): Promise<StoredEntry[]> {
    return this.exclusive(async (client) =>
      (await this.listAbs(client, this.abs(folder))).map((entry) => ({
        path: folder === '' ? entry.name : `${folder}/${entry.name}`,
        type: entry.type,
        size: entry.size,
        modified: entry.modified,
      })),
    );
  }

  async read(relative: string, range?: ByteRange): Promise<Readable> {
    const out = new PassThrough();
    let remaining = range ? range.end - range.start + 1 : Number.POSITIVE_INFINITY;
    let complete = false;
    // A range ending before the file does: the transfer is cut (and the connection dropped) once it is sent.
    const cut = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (remaining <= 0) {
          done();
          return;
        }
        const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
        remaining -= part.length;
        done(null, part);
        if (remaining <= 0 && Number.isFinite(remaining)) {
          complete = true;
          this.end();
        }
      },
    });
    cut.on('error', () => undefined);
    cut.pipe(out);
    void this.exclusive(async (client) => {
      out.on('close', () => {
        if (!complete && !out.writableFinished) client.close();
      });
      try {
        await client.downloadTo(cut, this.abs(relative), range?.start ?? 0);
        complete = true;
      } catch (error) {
        if (complete) {
          client.close();
          return;
        }
        throw error;
      }
    }).catch((error: unknown) => out.destroy(error as Error));
    return out;
  }

  /**
   * FTP has no exclusive create of a file: STOR and RNTO replace what is there (vsftpd renames with
   * rename(2)), STOU only makes a name of its own. A create-only write (`exclusive`) is therefore
   * create-only within this process alone (the engine's path lock); two servers over one FTP
   * storage may both create the file, the later replacing the earlier. Folders are exclusive (MKD).
   */
  async write(relative: string, content: Readable, _options?: CreateOptions): Promise<void> {
    const name = tempName(relative);
    await this.exclusive(async (client) => {
      const target = this.abs(relative);
      const temp = this.abs(name);
      try {
        await client.uploadFrom(content, temp);
        await client.rename(temp, target);
      } catch (error) {
        if (!client.closed) await client.remove(temp, true).catch(() => undefined);
        else await this.removeLater(temp);
        throw error;
      }
    });
  }

  /** Removes a temporary file after the connection was lost during its upload. */
  private async removeLater(temp: string): Promise<void> {
    this.client = null;
    try {
      const client = await this.connect();
      await client.remove(temp, true);
    } catch {
      // The server is gone; nothing more can be done.
    }
  }

  async mkdir(relative: string, options: CreateOptions = {}): Promise<void> {
    if (!options.exclusive) return this.exclusive((client) => this.ensureFolder(client, this.abs(relative)));
    await this.exclusive(async (client) => {
      const target = this.abs(relative);
      await this.ensureFolder(client, posix.dirname(target));
      try {
        // MKD fails (550) where a name is: of two servers over this storage one makes the folder.
        await client.send(`MKD ${target}`);
      } catch (error) {
        if (code(error) === 550 && (await client.list(posix.dirname(target))).some((entry) => entry.name === posix.basename(target)))
          throw new TargetExists(relative);
        throw error;
      }
    });
  }

  async removeFile(relative: string): Promise<void> {
    await this.exclusive((client) => client.remove(this.abs(relative)));
  }

  async removeFolder(relative: string, recursive: boolean): Promise<void> {
    await this.exclusive(async (client) => {
      if (recursive) await this.removeTree(client, this.abs(relative));
      else await client.removeEmptyDir(this.abs(relative));
    });
  }

  /** Create-only (`exclusive`) within this process alone, as write is. */
  async copyFile(from: string, to: string, _options?: CreateOptions): Promise<void> {
    // FTP has no copy: through a local temporary file.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portico-ftp-'));
    const local = path.join(dir, 'copy');
    try {
      await this.exclusive((client) => client.downloadTo(createWriteStream(local), this.abs(from)));
      await this.write(to, createReadStream(local));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    this.client?.close();
    this.client = null;
  }
}
