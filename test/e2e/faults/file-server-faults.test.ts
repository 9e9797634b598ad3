/**
 * Remote file services (ftp_file, sftp_file, webdav_file against the servers of
 * .ci/setup-file-servers.sh) whose server goes down, hangs, or whose connection is cut in the
 * middle of an upload (through a real TCP relay): a clear 503 in the spec's shape within the
 * timeout, no partial file under the final name, and the service serves again once the server is back.
 * A scripted WebDAV server fails a download it has listed: its failure in the error shape.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { fileServer, type FileServer, requireFileServer } from '#test/helpers/file-servers.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { startTcpRelay, type TcpRelay } from '#test/helpers/tcp-relay.js';

let server: TestServer;
let api: Api;
let token: string;
const relays: TcpRelay[] = [];

beforeAll(async () => {
  server = await startTestServer();
  token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => {
  await server.close();
  for (const relay of relays) await relay.close();
});

async function upload(url: string, content: Buffer) {
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v2${url}`,
    payload: content,
    headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, 'content-type': 'application/octet-stream' },
  });
  return { status: response.statusCode, body: response.json() };
}

interface Backend {
  server: FileServer;
  type: string;
  label: string;
  config(port: number, root: string): Record<string, unknown>;
  /** The root's folder on this machine's disk. */
  disk(root: string): string;
  /** FTP sends a file on a data connection of its own, beside the relayed control connection: its cut is timed by the file on disk. */
  dataBesideControl?: boolean;
}

/** Resolves once an unfinished upload's temporary file in `folder` holds at least `bytes`. */
async function partialUpload(folder: string, bytes: number): Promise<void> {
  for (;;) {
    const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    for (const name of names)
      if (name.startsWith('.portico-upload-') && (fs.statSync(path.join(folder, name), { throwIfNoEntry: false })?.size ?? 0) >= bytes)
        return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sftp = fileServer('sftp');
const ftp = fileServer('ftp');
const webdav = fileServer('webdav');
const backends: Backend[] = [
  {
    server: 'sftp',
    type: 'sftp_file',
    label: 'SFTP',
    config: (port, root) => ({
      host: '127.0.0.1',
      port,
      username: sftp.username,
      password: sftp.password,
      container: `${sftp.base}/${root}`,
      timeout: 3,
    }),
    disk: (root) => `${sftp.base}/${root}`,
  },
  {
    server: 'ftp',
    type: 'ftp_file',
    label: 'FTP',
    config: (port, root) => ({
      host: '127.0.0.1',
      port,
      username: ftp.username,
      password: ftp.password,
      container: `${ftp.base}/${root}`,
      timeout: 3,
    }),
    disk: (root) => `${ftp.base}/${root}`,
    dataBesideControl: true,
  },
  {
    server: 'webdav',
    type: 'webdav_file',
    label: 'WebDAV',
    config: (port, root) => ({
      base_uri: `http://127.0.0.1:${port}`,
      username: webdav.username,
      password: webdav.password,
      container: `${webdav.base}/${root}`,
      timeout: 3,
    }),
    disk: (root) => path.join('/srv/portico-files/dav', root),
  },
];

describe.each(backends)('$type', async (backend) => {
  const reachable = await requireFileServer(backend.server);

  /** A service of this back-end through a relay to its server. */
  async function relayedService() {
    const address = fileServer(backend.server);
    const relay = await startTcpRelay(address.port, address.host);
    relays.push(relay);
    const root = `t-faults-${randomBytes(4).toString('hex')}`;
    const name = `faults_${backend.server}_${randomBytes(3).toString('hex')}`;
    const created = await api('POST', '/system/service', {
      resource: [{ name, label: 'Faults', type: backend.type, config: backend.config(relay.port, root) }],
    });
    expect(created.status).toBe(201);
    return { relay, name, root };
  }

  it.skipIf(!reachable)('answers 503 while its server is down, and serves again once it is back', { timeout: 60_000 }, async () => {
    const { relay, name } = await relayedService();
    expect((await api('GET', `/${name}/`)).status).toBe(200);
    await relay.cut();
    for (const answer of [await api('GET', `/${name}/`), await upload(`/${name}/a.txt`, Buffer.from('a'))]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.body.error.code).toBe(503);
      expect(answer.body.error.message).toMatch(new RegExp(`^The ${backend.label} server of service '${name}' `));
    }
    await relay.restore();
    await vi.waitFor(async () => expect((await api('GET', `/${name}/`)).status).toBe(200), { timeout: 15_000 });
    expect((await upload(`/${name}/a.txt`, Buffer.from('a'))).status).toBe(201);
  });

  it.skipIf(!reachable)('answers 503 within the timeout while its server accepts and never answers', { timeout: 60_000 }, async () => {
    const { relay, name } = await relayedService();
    relay.silence();
    const started = Date.now();
    const answer = await api('GET', `/${name}/`);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe(503);
    expect(Date.now() - started).toBeLessThan(30_000);
    await relay.restore();
    await vi.waitFor(async () => expect((await api('GET', `/${name}/`)).status).toBe(200), { timeout: 15_000 });
  });

  it.skipIf(!reachable)(
    'leaves no partial file under the final name when the connection is cut halfway through an upload',
    { timeout: 60_000 },
    async () => {
      const { relay, name, root } = await relayedService();
      const small = Buffer.from('the whole first version');
      expect((await upload(`/${name}/big.bin`, small)).status).toBe(201);
      const content = randomBytes(16 * 1024 * 1024);
      // After 2 MiB of the upload (and the requests before it) the connection is cut.
      const cut = backend.dataBesideControl
        ? partialUpload(backend.disk(root), 2 * 1024 * 1024).then(() => relay.reset())
        : relay.resetAfter(2 * 1024 * 1024);
      const answering = upload(`/${name}/big.bin`, content);
      const answer = await answering;
      await cut;
      expect(answer, JSON.stringify(answer.body)).toMatchObject({
        status: 503,
        body: {
          error: {
            code: 503,
            message: expect.stringMatching(new RegExp(`^The ${backend.label} server of service '${name}' is unreachable`)),
          },
        },
      });
      // The file under its name is the whole first version, never a part of the second.
      await vi.waitFor(async () => expect((await api('GET', `/${name}/`)).status).toBe(200), { timeout: 15_000 });
      const stored = await server.app.inject({
        method: 'GET',
        url: `/api/v2/${name}/big.bin`,
        headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
      });
      expect(stored.rawPayload.equals(small)).toBe(true);
      expect((await api('GET', `/${name}/?as_list=true`)).body.resource).toEqual(['big.bin']);
      const disk = backend.disk(root);
      if (fs.existsSync(disk)) expect(fs.readFileSync(path.join(disk, 'big.bin')).equals(small)).toBe(true);
    },
  );

  it.skipIf(!reachable || backend.dataBesideControl === true)(
    'ends a download cut midway (the client sees a short body, not a hang), and serves the file again',
    { timeout: 60_000 },
    async () => {
      const { relay, name } = await relayedService();
      const content = randomBytes(16 * 1024 * 1024);
      expect((await upload(`/${name}/big.bin`, content)).status).toBe(201);
      const cut = relay.resetAfter(2 * 1024 * 1024, 'down');
      const started = Date.now();
      const download = await server.app
        .inject({
          method: 'GET',
          url: `/api/v2/${name}/big.bin`,
          headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
        })
        .then(
          (response) => ({ status: response.statusCode, length: response.rawPayload.length }),
          () => ({ status: 0, length: 0 }),
        );
      await cut;
      // The answer began before the cut (200, a short body) or failed in the error shape: never the whole file, never a hang.
      expect(download.length).toBeLessThan(content.length);
      expect(Date.now() - started).toBeLessThan(30_000);
      await vi.waitFor(
        async () => {
          const again = await server.app.inject({
            method: 'GET',
            url: `/api/v2/${name}/big.bin`,
            headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
          });
          expect(again.rawPayload.equals(content)).toBe(true);
        },
        { timeout: 20_000 },
      );
    },
  );
});

describe('webdav_file against a scripted server that lists a file and then fails its download', () => {
  /** A PROPFIND answer: the file exists, 100 bytes. */
  const propfind = (href: string) => `<?xml version="1.0" encoding="utf-8"?>
<d:multistatus xmlns:d="DAV:"><d:response><d:href>${href}</d:href><d:propstat><d:prop>
<d:getcontentlength>100</d:getcontentlength><d:getlastmodified>Mon, 01 Jan 2024 00:00:00 GMT</d:getlastmodified>
<d:resourcetype/><d:getcontenttype>text/plain</d:getcontenttype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
</d:response></d:multistatus>`;
  /** What the server does with the GET of each file. */
  const GETS: Record<string, (response: http.ServerResponse) => void> = {
    // Removed by another client between the listing and the download.
    'gone.txt': (response) => response.writeHead(404).end('not here'),
    'broken.txt': (response) => response.writeHead(500).end('broken'),
    // Its status and headers, then nothing.
    'stalled.txt': (response) => response.writeHead(200, { 'content-length': '100' }).flushHeaders(),
  };
  let dav: http.Server;
  let name: string;

  beforeAll(async () => {
    dav = http.createServer((request, response) => {
      if (request.method === 'PROPFIND')
        return void response.writeHead(207, { 'content-type': 'application/xml' }).end(propfind(request.url ?? ''));
      const get = GETS[decodeURIComponent((request.url ?? '').split('/').pop() ?? '')];
      if (request.method === 'GET' && get) get(response);
      else response.writeHead(201).end();
    });
    await new Promise<void>((resolve) => dav.listen(0, '127.0.0.1', resolve));
    name = `faults_dav_${randomBytes(3).toString('hex')}`;
    const base_uri = `http://127.0.0.1:${(dav.address() as AddressInfo).port}`;
    const created = await api('POST', '/system/service', {
      resource: [{ name, label: 'Scripted', type: 'webdav_file', config: { base_uri, container: '/', timeout: 2 } }],
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    dav.closeAllConnections();
    await new Promise((resolve) => dav.close(resolve));
  });

  it.each([
    ['gone.txt', 404, 'Not found on the WebDAV server of service'],
    ['broken.txt', 502, 'The WebDAV server of service'],
    ['stalled.txt', 503, 'The WebDAV server of service'],
  ])('%s: %i in the error shape naming the service, not a bare 500', { timeout: 30_000 }, async (file, status, message) => {
    const answer = await server.app.inject({
      method: 'GET',
      url: `/api/v2/${name}/${file}`,
      headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token },
    });
    expect(answer.statusCode, answer.body).toBe(status);
    const body = answer.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe(status);
    expect(body.error.message).toContain(`${message} '${name}'`);
  });
});
