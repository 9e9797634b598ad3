/**
 * Clients that go away midway through a file upload (a closed laptop, a cancelled browser form) on
 * a real socket: a multipart form or a raw body left unfinished on local storage and on the SFTP,
 * FTP and WebDAV servers of .ci/setup-file-servers.sh. The abandoned upload leaves no temporary
 * file behind and no file handle open (it waited for the rest of the form for ever: a handle and a
 * `.portico-upload-*` file per cancelled upload), nothing half-written under the final name, and
 * the service takes the next upload.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { type FileServer, fileServer, requireFileServer } from '#test/helpers/file-servers.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;
let port: number;
let headers: Record<string, string>;
const local = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-disconnect-'));

beforeAll(async () => {
  server = await startTestServer();
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': token };
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await server.close();
  fs.rmSync(local, { recursive: true, force: true });
});

const openHandles = () => fs.readdirSync('/proc/self/fd').length;

const BOUNDARY = 'portico-disconnect-boundary';

/** Sends the start of an upload (`bytes` of `total`) and closes the connection without finishing it. */
function abandonedUpload(url: string, form: boolean, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/v2${url}`,
      headers: {
        ...headers,
        'content-type': form ? `multipart/form-data; boundary=${BOUNDARY}` : 'application/octet-stream',
        ...(form ? {} : { 'content-length': String(bytes * 4) }),
      },
    });
    request.on('error', () => resolve());
    request.on('response', () => resolve());
    if (form)
      request.write(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
    const piece = randomBytes(64 * 1024);
    let sent = 0;
    const more = () => {
      while (sent < bytes) {
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', more);
      }
      // Once the server has had some of it, the client goes away.
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 200);
    };
    more();
  });
}

/** The whole upload of `content` as a form: its status. */
async function formUpload(url: string, content: Buffer): Promise<number> {
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v2${url}`,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]),
  });
  return response.statusCode;
}

interface Backend {
  type: string;
  server: FileServer | null;
  config(root: string): Record<string, unknown>;
  /** The root's folder on this machine's disk. */
  disk(root: string): string;
}

const sftp = fileServer('sftp');
const ftp = fileServer('ftp');
const webdav = fileServer('webdav');
const remote = (address: typeof sftp, root: string) => ({
  host: '127.0.0.1',
  port: address.port,
  username: address.username,
  password: address.password,
  container: `${address.base}/${root}`,
  timeout: 3,
});
const backends: Backend[] = [
  { type: 'local_file', server: null, config: (root) => ({ container: path.join(local, root) }), disk: (root) => path.join(local, root) },
  { type: 'sftp_file', server: 'sftp', config: (root) => remote(sftp, root), disk: (root) => `${sftp.base}/${root}` },
  { type: 'ftp_file', server: 'ftp', config: (root) => remote(ftp, root), disk: (root) => `${ftp.base}/${root}` },
  {
    type: 'webdav_file',
    server: 'webdav',
    config: (root) => ({
      base_uri: webdav.origin,
      username: webdav.username,
      password: webdav.password,
      container: `${webdav.base}/${root}`,
      timeout: 3,
    }),
    disk: (root) => path.join('/srv/portico-files/dav', root),
  },
];

describe.each(backends)('$type', async (backend) => {
  const reachable = backend.server === null || (await requireFileServer(backend.server));

  it.skipIf(!reachable).each([
    ['a multipart form', true],
    ['a raw body', false],
  ])(
    '%s the client abandons midway leaves no temporary file or open handle, and the next upload is taken',
    { timeout: 60_000 },
    async (_name, form) => {
      const root = `t-disconnect-${randomBytes(4).toString('hex')}`;
      const name = `gone_${randomBytes(3).toString('hex')}`;
      const created = await api('POST', '/system/service', {
        resource: [{ name, label: 'Disconnect', type: backend.type, config: backend.config(root) }],
      });
      expect(created.status).toBe(201);
      expect((await api('POST', `/${name}/in/`)).status).toBe(201);
      const folder = path.join(backend.disk(root), 'in');
      const before = openHandles();
      await abandonedUpload(form ? `/${name}/in/` : `/${name}/in/big.bin`, form, 2 * 1024 * 1024);
      await vi.waitFor(
        () => {
          expect(fs.existsSync(folder) ? fs.readdirSync(folder) : []).toEqual([]);
          expect(openHandles()).toBeLessThanOrEqual(before);
        },
        { timeout: 15_000, interval: 100 },
      );
      const content = randomBytes(512 * 1024);
      expect(await formUpload(`/${name}/in/`, content)).toBe(201);
      const stored = await server.app.inject({ method: 'GET', url: `/api/v2/${name}/in/big.bin`, headers });
      expect(stored.rawPayload.equals(content)).toBe(true);
    },
  );
});
