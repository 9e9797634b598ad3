/** The `sftp_file` back-end: ssh2-sftp-client over one SSH connection per service (SFTP multiplexes requests). */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { SFTPWrapper } from 'ssh2';
import { pipeline } from 'node:stream/promises';
import SftpClient from 'ssh2-sftp-client';
import { BadRequestError } from '../../core/errors.js';
import { backendError, networkCode } from '../remote-errors.js';
import {
  type ByteRange,
  type CreateOptions,
  ESCAPES_ROOT,
  type FileStorage,
  isTempName,
  renamingFailures,
  type StoredEntry,
  TargetExists,
  tempName,
} from './file-storage.js';

export interface SftpOptions {
  host: string;
  port: number;
  username: string;
  password: string;
  privateKey: string;
  /** `SHA256:<base64>` or hex of the host key's SHA-256; empty accepts any key. */
  fingerprint: string;
  timeout: number;
  root: string;
}

function fingerprintMatches(expected: string, key: Buffer): boolean {
  const digest = createHash('sha256').update(key).digest();
  const given = expected.trim().replace(/^SHA256:/i, '');
  return (
    given.replace(/=+$/, '') === digest.toString('base64').replace(/=+$/, '') ||
    given.replace(/:/g, '').toLowerCase() === digest.toString('hex')
  );
}

export class SftpStorage implements FileStorage {
  private connection: Promise<SftpClient> | null = null;
  /** The root with its links resolved, as the server sees it. */
  private realRoot: string | null = null;

  constructor(
    private readonly service: string,
    private readonly options: SftpOptions,
  ) {}

  private fail(error: unknown): never {
    throw this.failure(error);
  }

  /** A failure of the server as the API answers it. */
  private failure(error: unknown): unknown {
    const text = String((error as Error)?.message ?? '');
    return backendError('SFTP', this.service, error, {
      login:
        /authentication|auth methods|permission denied \(/i.test(text) || (error as { level?: string }).level === 'client-authentication',
      network:
        networkCode(error) ??
        (/connect|handshake|host key|fingerprint/i.test(text) && !/no such file/i.test(text)
          ? 'connection failed'
          : // The connection ended under a request (the server gone, the network cut): ssh2-sftp-client's words.
            /unexpected (end|close) event|no sftp connection|not connected|no response from server/i.test(text)
            ? 'connection lost'
            : null),
      notFound: /no such file/i.test(text),
      // SSH_FX_PERMISSION_DENIED (the login's own refusal reads `Permission denied (publickey,...)`).
      denied: /permission denied(?! \()/i.test(text),
      full: /quota|no space|disk full/i.test(text),
    });
  }

  private client(): Promise<SftpClient> {
    if (!this.connection) {
      const client = new SftpClient(`portico-${this.service}`);
      const { options } = this;
      const reset = () => {
        this.connection = null;
      };
      this.connection = client
        .connect({
          host: options.host,
          port: options.port,
          username: options.username,
          readyTimeout: options.timeout * 1000,
          // A server (or network) that stops answering on the open connection: without keepalives
          // nothing noticed, and every request of the service waited for ever. Three unanswered
          // ones within the timeout end the connection; the next request makes a new one.
          keepaliveInterval: Math.max(250, Math.floor((options.timeout * 1000) / 3)),
          keepaliveCountMax: 3,
          retries: 0,
          ...(options.password ? { password: options.password } : {}),
          ...(options.privateKey ? { privateKey: options.privateKey } : {}),
          ...(options.fingerprint ? { hostVerifier: (key: Buffer) => fingerprintMatches(options.fingerprint, key) } : {}),
        })
        .then(
          async () => {
            // The root folder is created on first use, as local storage does.
            if ((await client.exists(options.root)) === false) await client.mkdir(options.root, true);
            client.on('end', reset);
            client.on('close', reset);
            client.on('error', reset);
            return client;
          },
          (error: unknown) => {
            reset();
            client.end().catch(() => undefined);
            this.fail(error);
          },
        );
    }
    return this.connection;
  }

  private abs(relative: string): string {
    return posix.join(this.options.root, relative);
  }

  private async run<T>(work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof TargetExists) throw error;
      this.fail(error);
    }
  }

  /**
   * `work`, an exclusive create (SSH_FXP_RENAME, SSH_FXP_MKDIR: both fail where a name is, with
   * OpenSSH's bare "Failure"): its failure with something at `relative` now is TargetExists.
   */
  private async creating(client: SftpClient, relative: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if ((await client.exists(this.abs(relative)).catch(() => false)) !== false) throw new TargetExists(relative);
      throw error;
    }
  }

  /**
   * Refuses a folder that is, or lies under, a link leading out of the root. A link as the last
   * name is never followed (stat and list leave it out), but one higher up was: with `out` a link
   * to /etc on the server, GET /{svc}/out/passwd read /etc/passwd. Every operation on a path
   * stats it or lists its folder first, so checking there covers them all. A folder that does not
   * exist is judged by the deepest one above it that does: the client reads a missing path's real
   * path as '', which was refused as an escape (400 for what is a 404), and passing it instead
   * would let `mkdir` make folders through a link higher up.
   */
  private async contain(client: SftpClient, folder: string): Promise<void> {
    this.realRoot ??= await client.realPath(this.options.root);
    const root = this.realRoot.replace(/\/$/, '');
    for (let current = folder; ; current = posix.dirname(current) === '.' ? '' : posix.dirname(current)) {
      const real = await client.realPath(this.abs(current)).catch(() => '');
      if (real !== '') {
        if (real !== this.realRoot && !real.startsWith(`${root}/`)) throw new BadRequestError(ESCAPES_ROOT);
        return;
      }
      if (current === '') return; // Nothing there to follow: the operation finds nothing.
    }
  }

  async stat(relative: string): Promise<StoredEntry | null> {
    return this.run(async (client) => {
      if (relative !== '') await this.contain(client, posix.dirname(relative));
      const kind = await client.exists(this.abs(relative));
      if (kind === false || kind === 'l') return relative === '' ? { path: '', type: 'folder', size: 0, modified: null } : null;
      const stats = await client.stat(this.abs(relative));
      return {
        path: relative,
        type: stats.isDirectory ? 'folder' : 'file',
        size: stats.isDirectory ? 0 : stats.size,
        modified: new Date(stats.modifyTime),
      };
    });
  }

  async list(folder: string): Promise<StoredEntry[]> {
    return this.run(async (client) => {
      await this.contain(client, folder);
      return (
        (await client.list(this.abs(folder)))
          // Links are not followed: they could name anything on the server.
          .filter((entry) => (entry.type === 'd' || entry.type === '-') && !isTempName(entry.name))
          .map((entry) => ({
            path: folder === '' ? entry.name : `${folder}/${entry.name}`,
            type: entry.type === 'd' ? 'folder' : 'file',
            size: entry.type === 'd' ? 0 : entry.size,
            modified: new Date(entry.modifyTime),
          }))
      );
    });
  }

  async read(relative: string, range?: ByteRange): Promise<Readable> {
    const content = await this.run(
      async (client) => client.createReadStream(this.abs(relative), range ? { start: range.start, end: range.end } : {}) as Readable,
    );
    // The file is opened once the stream starts: a refusal to open it comes from the stream.
    return renamingFailures(content, (error) => this.failure(error));
  }

  async write(relative: string, content: Readable, options: CreateOptions = {}): Promise<void> {
    const target = this.abs(relative);
    const temp = this.abs(tempName(relative));
    await this.run(async (client) => {
      try {
        await pipeline(content, endsWithConnection(client, client.createWriteStream(temp)));
        // The protocol's own rename refuses a target that exists (OpenSSH links, then unlinks):
        // of two servers over this storage only one creates the file. posix-rename replaces it.
        if (options.exclusive) await this.creating(client, relative, () => client.rename(temp, target));
        else await client.posixRename(temp, target);
      } catch (error) {
        await client.delete(temp, true).catch(() => undefined);
        throw error;
      }
    });
  }

  async mkdir(relative: string, options: CreateOptions = {}): Promise<void> {
    await this.run(async (client) => {
      // The folder itself may be a link (stat leaves links out): made through, it would be outside.
      await this.contain(client, relative);
      if (!options.exclusive) {
        await client.mkdir(this.abs(relative), true);
        return;
      }
      const parent = posix.dirname(this.abs(relative));
      if ((await client.exists(parent)) === false) await client.mkdir(parent, true);
      // The client's mkdir answers "already exists" as done: the protocol's MKDIR, which fails then.
      const sftp = (client as unknown as { sftp: SFTPWrapper }).sftp;
      await this.creating(
        client,
        relative,
        () => new Promise<void>((done, fail) => sftp.mkdir(this.abs(relative), (e) => (e ? fail(e) : done()))),
      );
    });
  }

  async removeFile(relative: string): Promise<void> {
    await this.run((client) => client.delete(this.abs(relative)));
  }

  async removeFolder(relative: string, recursive: boolean): Promise<void> {
    await this.run((client) => client.rmdir(this.abs(relative), recursive));
  }

  /** As an upload: to a temporary name renamed into place, so a failed copy leaves no partial file. */
  async copyFile(from: string, to: string, options: CreateOptions = {}): Promise<void> {
    await this.write(to, await this.read(from), options);
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (connection)
      await connection
        .then(
          (client) => client.end(),
          () => undefined,
        )
        .catch(() => undefined);
  }
}

/**
 * An upload stream that fails when its connection ends (the server gone, the network cut): an
 * SFTP write stream itself never learns of it, and an upload cut midway waited for ever.
 */
function endsWithConnection(client: SftpClient, stream: Writable): Writable {
  const lost = () => stream.destroy(Object.assign(new Error('The connection ended during the transfer.'), { code: 'ECONNRESET' }));
  client.on('end', lost);
  client.on('close', lost);
  stream.once('close', () => {
    client.removeListener('end', lost);
    client.removeListener('close', lost);
  });
  return stream;
}
