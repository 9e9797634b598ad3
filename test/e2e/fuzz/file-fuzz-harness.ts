/**
 * The file services file-api-fuzz.test.ts and its regression tests run against: one server with a
 * local_file, ftp_file, sftp_file and webdav_file service, each rooted in a sandbox folder of its
 * own (on this machine's disk: the servers of .ci/setup-file-servers.sh are local), raw requests
 * to them, what each holds (through the API), the emptying of each between sequences, and the
 * check that nothing was written beside the root.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileServer, requireFileServer } from '#test/helpers/file-servers.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import type { FileStep } from './file-grammar.js';
import { encode, ZIPS, zipBytes } from './file-grammar.js';
import { judge } from './fuzz-harness.js';

export type FileKind = 'local' | 'ftp' | 'sftp' | 'webdav';
export const FILE_KINDS: FileKind[] = ['local', 'ftp', 'sftp', 'webdav'];

export interface FileAnswer {
  status: number;
  contentType: string;
  text: string;
  /** A file's content (or a zip) as stored, not an answer of the API: it has a Content-Disposition. */
  content?: boolean;
}

/** Whether every remote server answers (the fuzz test needs all four back-ends). */
export async function fileServersUp(): Promise<boolean> {
  return (await requireFileServer('ftp')) && (await requireFileServer('sftp')) && (await requireFileServer('webdav'));
}

/** What every answer of a file service must be; a description of what is wrong, or null. */
export function judgeFile(answer: FileAnswer, sent: string, method: string): string | null {
  // A file's own content is whatever was stored (a file x.json holds anything); only the API's answers are judged.
  if (answer.status < 400 && (answer.content || !/^application\/json\b/.test(answer.contentType))) return null;
  // PATCH (property updates) is 501 on every back-end, as the reference (service-types.md 1.11).
  if (answer.status === 501 && method === 'PATCH')
    return judge({ ...answer, status: 499, text: answer.text.replace('"code":501', '"code":499') }, sent);
  return judge(answer, sent);
}

const sftp = fileServer('sftp');
const ftp = fileServer('ftp');
const webdav = fileServer('webdav');
/** Where rclone serves WebDAV from (.ci/setup-file-servers.sh). */
const WEBDAV_DISK = '/srv/portico-files/dav';

/** The files each sequence starts with (paths as sent), beside the folders docs/, docs/sub dir/ and docs/café/. */
const SEED_FILES: Array<[string, string]> = [
  ['a.txt', 'hello world'],
  ['docs/b.txt', 'bee'],
  ['docs/sub%20dir/c.txt', 'sea'],
  ['docs/caf%C3%A9/x.json', '{"a":1}'],
];

/** The largest file the fuzz services take, in bytes (file-grammar.ts makes a content just beyond: a zip must fit). */
export const MAX_FILE_SIZE = 1000;

/** A server with one file service per back-end, each in a sandbox folder of its own. */
export class FileFuzzServers {
  readonly service: Record<FileKind, string>;
  /** On this machine's disk: the sandbox (holds only the root) and the root. */
  readonly sandbox: Record<FileKind, string>;
  private readonly token: string;
  /** The server's port: steps go over HTTP, as sent (app.inject would normalise `..` and `\\` away). */
  private port = 0;
  /** The shared folders (the FTP/SFTP account's home, the WebDAV root) as they were, for escapes. */
  private readonly homes: Map<string, Set<string>>;

  private constructor(
    readonly server: TestServer,
    token: string,
    tag: string,
  ) {
    this.token = token;
    this.service = { local: `fz_local_${tag}`, ftp: `fz_ftp_${tag}`, sftp: `fz_sftp_${tag}`, webdav: `fz_dav_${tag}` };
    this.sandbox = {
      local: path.join(server.dir, `fz-${tag}`),
      ftp: `${ftp.base}/fz-ftp-${tag}`,
      sftp: `${sftp.base}/fz-sftp-${tag}`,
      webdav: path.join(WEBDAV_DISK, `fz-${tag}`),
    };
    this.homes = new Map([server.dir, ftp.base, WEBDAV_DISK].map((dir) => [dir, new Set(fs.readdirSync(dir))]));
  }

  static async open(): Promise<FileFuzzServers> {
    const server = await startTestServer();
    const servers = new FileFuzzServers(server, await server.adminToken(), randomBytes(3).toString('hex'));
    servers.port = Number(new URL(await server.app.listen({ port: 0, host: '127.0.0.1' })).port);
    const configs: Record<FileKind, { type: string; config: Record<string, unknown> }> = {
      local: { type: 'local_file', config: { container: `${servers.sandbox.local}/root` } },
      ftp: {
        type: 'ftp_file',
        config: {
          host: ftp.host,
          port: ftp.port,
          username: ftp.username,
          password: ftp.password,
          container: `${servers.sandbox.ftp}/root`,
          timeout: 20,
        },
      },
      sftp: {
        type: 'sftp_file',
        config: {
          host: sftp.host,
          port: sftp.port,
          username: sftp.username,
          password: sftp.password,
          container: `${servers.sandbox.sftp}/root`,
          timeout: 20,
        },
      },
      webdav: {
        type: 'webdav_file',
        config: {
          base_uri: webdav.origin,
          username: webdav.username,
          password: webdav.password,
          container: `${webdav.base}/${path.basename(servers.sandbox.webdav)}/root`,
          timeout: 20,
        },
      },
    };
    for (const kind of FILE_KINDS) {
      // Small, so that uploads past it (413) come up, and with them the undoing of what a refused request wrote.
      configs[kind].config.max_file_size = MAX_FILE_SIZE;
      const created = await servers.request(
        kind,
        'POST',
        '',
        [],
        JSON.stringify({ resource: [{ name: servers.service[kind], label: kind, ...configs[kind] }] }),
        {
          'content-type': 'application/json',
        },
        '/system/service',
      );
      if (created.status !== 201) throw new Error(`${kind}: ${created.text}`);
      // The root is made on first use.
      const listed = await servers.send(kind, { method: 'GET', path: '', query: [], headers: {}, label: 'list' });
      if (listed.status !== 200) throw new Error(`${kind}: ${listed.text}`);
    }
    return servers;
  }

  private async request(
    kind: FileKind,
    method: string,
    sentPath: string,
    query: Array<[string, string]>,
    body: Buffer | string | undefined,
    headers: Record<string, string>,
    prefix = `/${this.service[kind]}/`,
  ): Promise<FileAnswer> {
    const search = query.length === 0 ? '' : `?${query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
    const response = await this.server.app.inject({
      method: method as 'GET',
      url: `/api/v2${prefix}${sentPath}${search}`,
      headers: { 'x-service-api-key': this.server.apiKey, 'x-service-session-token': this.token, ...headers },
      payload: body,
    });
    return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text: response.body };
  }

  /** Sends one step to one back-end's service over HTTP, its path exactly as the step has it. */
  async send(kind: FileKind, step: FileStep): Promise<FileAnswer> {
    const headers: Record<string, string> = {
      'x-service-api-key': this.server.apiKey,
      'x-service-session-token': this.token,
      ...step.headers,
    };
    let body = step.body;
    if (typeof body === 'string' && body.startsWith('zip:')) body = await zipBytes(ZIPS[Number(body.slice(4))]);
    const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
    const declared = headers['x-declared-length'];
    delete headers['x-declared-length'];
    // A body shorter than its declared length: the answer must come without the rest.
    headers['content-length'] = declared ?? String(bytes.length);
    const search = step.query.length === 0 ? '' : `?${step.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: step.method,
          path: `/api/v2/${this.service[kind]}/${step.path}${search}`,
          headers,
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            request.destroy();
            resolve({
              status: response.statusCode ?? 0,
              contentType: String(response.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
              content: response.headers['content-disposition'] !== undefined,
            });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.setTimeout(60_000, () => request.destroy(new Error(`no answer in 60 s to ${step.method} ${step.path}`)));
      if (declared === undefined) request.end(bytes);
      else request.write(bytes);
    });
  }

  /** What a service holds: every folder and file from the root, files with their size. */
  async state(kind: FileKind): Promise<string[]> {
    const answer = await this.request(kind, 'GET', '', [['full_tree', 'true']], undefined, {});
    if (answer.status !== 200) throw new Error(`state of ${kind}: ${answer.status} ${answer.text}`);
    return (JSON.parse(answer.text).resource as Array<{ path: string; type: string; content_length?: number }>).map((e) =>
      e.type === 'file' ? `${e.path} (${e.content_length})` : e.path,
    );
  }

  /** Empties a service through its API (deletes each entry of its root). */
  async empty(kind: FileKind): Promise<void> {
    const answer = await this.request(kind, 'GET', '', [], undefined, {});
    for (const entry of JSON.parse(answer.text).resource as Array<{ path: string; type: string }>) {
      const sent = entry.path.replace(/\/$/, '').split('/').map(encode).join('/');
      const removed = await this.request(
        kind,
        'DELETE',
        entry.type === 'folder' ? `${sent}/` : sent,
        entry.type === 'folder' ? [['force', 'true']] : [],
        undefined,
        {},
      );
      if (removed.status !== 200) throw new Error(`emptying ${kind}: ${entry.path}: ${removed.status} ${removed.text}`);
    }
  }

  /** Empties a service, then makes what each sequence starts from: a few folders and files. */
  async reset(kind: FileKind): Promise<void> {
    await this.empty(kind);
    for (const folder of ['docs/', 'docs/sub%20dir/', 'docs/caf%C3%A9/']) {
      const made = await this.request(kind, 'POST', folder, [], undefined, {});
      if (made.status !== 201) throw new Error(`reset of ${kind}: ${folder}: ${made.text}`);
    }
    for (const [file, text] of SEED_FILES) {
      const made = await this.request(kind, 'PUT', file, [], text, { 'content-type': 'text/plain' });
      if (made.status !== 201) throw new Error(`reset of ${kind}: ${file}: ${made.text}`);
    }
  }

  /**
   * What was written beside a service's root, or in the shared folders above it: names that were
   * not there before (other than other tests' sandboxes and roots), and the sandbox's own extras.
   */
  outside(kind: FileKind): string[] {
    const found = fs
      .readdirSync(this.sandbox[kind])
      .filter((entry) => entry !== 'root')
      .map((entry) => path.join(this.sandbox[kind], entry));
    for (const [dir, before] of this.homes) {
      for (const entry of fs.readdirSync(dir)) {
        // Other tests (and other engineers' runs) make their own roots here meanwhile.
        if (!before.has(entry) && !/^(fz-|t-|portico-test-|remote_|root$|data$)/.test(entry)) found.push(path.join(dir, entry));
      }
    }
    return found;
  }

  async close(): Promise<void> {
    await this.server.close();
    for (const dir of [this.sandbox.ftp, this.sandbox.sftp, this.sandbox.webdav]) fs.rmSync(dir, { recursive: true, force: true });
  }
}
