/**
 * ftp_file (plain and FTPS), sftp_file and webdav_file against the real servers of
 * .ci/setup-file-servers.sh (vsftpd, OpenSSH, rclone): the same API as local storage, through
 * each back-end; a refused login is 503 naming the back-end without credentials; a failed upload
 * leaves nothing behind.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { fileServer, type FileServer, requireFileServer } from '#test/helpers/file-servers.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { silentServer } from '#test/helpers/require-broker.js';
import { startTcpRelay } from '#test/helpers/tcp-relay.js';
import { multipart } from './multipart.js';

let server: TestServer;
let api: Api;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server.close());

async function raw(method: string, url: string, payload?: Buffer | string, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: method as 'POST',
    url: `/api/v2${url}`,
    payload,
    headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, ...headers },
  });
}

async function unzipNames(buffer: Buffer): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(buffer);
  const names: string[] = [];
  for await (const entry of zip.eachEntry()) names.push(entry.fileName);
  return names.sort();
}

interface Backend {
  title: string;
  server: FileServer;
  type: string;
  config: (root: string, password?: string) => Record<string, unknown>;
  /** Where the root is on this machine's disk, when the server is local. */
  disk: (root: string) => string;
}

const sftp = fileServer('sftp');
const ftp = fileServer('ftp');
const webdav = fileServer('webdav');
const backends: Backend[] = [
  {
    title: 'sftp_file (OpenSSH)',
    server: 'sftp',
    type: 'sftp_file',
    config: (root, password = sftp.password) => ({
      host: sftp.host,
      port: sftp.port,
      username: sftp.username,
      password,
      container: `${sftp.base}/${root}`,
      timeout: 10,
    }),
    disk: (root) => `${sftp.base}/${root}`,
  },
  {
    title: 'ftp_file (vsftpd)',
    server: 'ftp',
    type: 'ftp_file',
    config: (root, password = ftp.password) => ({
      host: ftp.host,
      port: ftp.port,
      username: ftp.username,
      password,
      container: `${ftp.base}/${root}`,
      timeout: 10,
    }),
    disk: (root) => `${ftp.base}/${root}`,
  },
  {
    title: 'ftp_file over explicit FTPS (vsftpd)',
    server: 'ftp',
    type: 'ftp_file',
    config: (root, password = ftp.password) => ({
      host: ftp.host,
      port: ftp.port,
      username: ftp.username,
      password,
      container: `${ftp.base}/${root}`,
      ssl: true,
      ssl_verify: false,
      timeout: 10,
    }),
    disk: (root) => `${ftp.base}/${root}`,
  },
  {
    title: 'webdav_file (rclone serve webdav)',
    server: 'webdav',
    type: 'webdav_file',
    config: (root, password = webdav.password) => ({
      base_uri: webdav.origin,
      username: webdav.username,
      password,
      container: `${webdav.base}/${root}`,
      timeout: 10,
    }),
    disk: (root) => path.join('/srv/portico-files/dav', root),
  },
];

describe.each(backends)('$title', async (backend) => {
  const reachable = await requireFileServer(backend.server);
  const root = `t-${backend.type}-${randomBytes(4).toString('hex')}`;
  const name = `remote_${randomBytes(3).toString('hex')}`;

  it.skipIf(!reachable)('serves folders and files through the back-end', async () => {
    const created = await api('POST', '/system/service', {
      resource: [{ name, label: backend.title, type: backend.type, config: backend.config(root) }],
    });
    expect(created.status).toBe(201);
    expect((await api('GET', `/${name}/`)).body).toEqual({ resource: [] });
    expect((await api('POST', `/${name}/docs/`)).status).toBe(201);
    expect((await api('POST', `/${name}/docs/`)).body.error.code).toBe(400);
    expect((await raw('POST', `/${name}/docs/`, 'hello world', { 'x-file-name': 'a.txt' })).json()).toEqual({
      name: 'a.txt',
      path: 'docs/a.txt',
      type: 'file',
    });
    expect((await raw('PUT', `/${name}/docs/sub dir/`)).statusCode).toBe(201);
    expect((await raw('PUT', `/${name}/docs/sub%20dir/b.txt`, 'bee')).statusCode).toBe(201);
    const form = multipart([
      { name: 'one.txt', content: 'first' },
      { name: 'two.txt', content: 'second' },
    ]);
    expect((await raw('POST', `/${name}/docs/`, form.body, { 'content-type': form.type })).json().resource).toHaveLength(2);
    expect(
      (
        await api('POST', `/${name}/docs/`, {
          resource: [{ name: 'c.bin', type: 'file', content: Buffer.from([0, 255]).toString('base64'), is_base64: true }],
        })
      ).status,
    ).toBe(201);

    const listing = (await api('GET', `/${name}/docs/`)).body.resource;
    expect(listing.map((e: { path: string }) => e.path)).toEqual([
      'docs/a.txt',
      'docs/c.bin',
      'docs/one.txt',
      'docs/sub dir/',
      'docs/two.txt',
    ]);
    expect(listing[0]).toMatchObject({ name: 'a.txt', type: 'file', content_length: 11, content_type: 'text/plain; charset=utf-8' });
    expect((await api('GET', `/${name}/?full_tree=true&as_list=true`)).body.resource).toEqual([
      'docs/',
      'docs/a.txt',
      'docs/c.bin',
      'docs/one.txt',
      'docs/sub dir/',
      'docs/sub dir/b.txt',
      'docs/two.txt',
    ]);

    const file = await raw('GET', `/${name}/docs/a.txt`);
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('hello world');
    expect(file.headers['content-length']).toBe('11');
    expect((await raw('GET', `/${name}/docs/a.txt`, undefined, { range: 'bytes=6-' })).body).toBe('world');
    const head = await raw('GET', `/${name}/docs/a.txt`, undefined, { range: 'bytes=0-4' });
    expect([head.statusCode, head.body]).toEqual([206, 'hello']);
    expect((await raw('GET', `/${name}/docs/a.txt`)).body).toBe('hello world');
    expect((await api('GET', `/${name}/docs/c.bin?include_properties=true&content=true`)).body).toMatchObject({
      path: 'docs/c.bin',
      content_length: 2,
      content: Buffer.from([0, 255]).toString('base64'),
    });
    const zip = await raw('GET', `/${name}/docs/?zip=true`);
    expect(await unzipNames(zip.rawPayload)).toEqual([
      'docs/a.txt',
      'docs/c.bin',
      'docs/one.txt',
      'docs/sub dir/',
      'docs/sub dir/b.txt',
      'docs/two.txt',
    ]);

    const copied = await api('POST', `/${name}/docs/sub dir/`, {
      resource: [{ type: 'file', source_path: 'docs/one.txt', name: 'copy.txt' }],
    });
    expect(copied.body.resource).toEqual([{ name: 'copy.txt', path: 'docs/sub dir/copy.txt', type: 'file' }]);
    expect((await raw('GET', `/${name}/docs/sub%20dir/copy.txt`)).body).toBe('first');

    expect((await api('GET', `/${name}/docs/missing.txt`)).status).toBe(404);
    expect((await api('GET', `/${name}/docs/a.txt/`)).status).toBe(400);
    expect((await api('GET', `/${name}/docs/..%2F..%2Fetc/`)).status).toBe(400);
    expect((await api('DELETE', `/${name}/docs/a.txt`)).body).toEqual({ name: 'a.txt', path: 'docs/a.txt' });
    expect((await api('DELETE', `/${name}/docs/a.txt`)).status).toBe(404);
    expect((await api('DELETE', `/${name}/docs/`)).status).toBe(400);
    expect((await api('DELETE', `/${name}/docs/?force=true`)).status).toBe(200);
    expect((await api('GET', `/${name}/`)).body).toEqual({ resource: [] });
  });

  it.skipIf(!reachable)('takes `~` as a plain name: it never leads to the home folder, nor does deleting it empty that', async () => {
    const tilde = `${name}_tilde`;
    await api('POST', '/system/service', {
      resource: [{ name: tilde, label: 'Tilde', type: backend.type, config: backend.config(`${root}-tilde`) }],
    });
    const disk = backend.disk(`${root}-tilde`);
    // vsftpd reads a path starting with `~` as the user's home: this folder was made there, outside the root.
    expect((await api('POST', `/${tilde}/~/x/`)).status).toBe(201);
    expect((await raw('POST', `/${tilde}/keep.txt`, 'keep')).statusCode).toBe(201);
    expect((await api('POST', `/${tilde}/d/~/`)).status).toBe(201);
    expect((await raw('POST', `/${tilde}/d/~/in.txt`, 'in')).statusCode).toBe(201);
    expect((await api('GET', `/${tilde}/?as_list=true&full_tree=true`)).body.resource).toEqual([
      'd/',
      'd/~/',
      'd/~/in.txt',
      'keep.txt',
      '~/',
      '~/x/',
    ]);
    if (fs.existsSync(disk)) expect(fs.existsSync(path.join(disk, '~', 'x'))).toBe(true);
    // Deleting `d/` entered `d/~` by its bare name, that is the home folder, and emptied it.
    expect((await api('DELETE', `/${tilde}/d/?force=true`)).status).toBe(200);
    expect((await api('GET', `/${tilde}/?as_list=true&full_tree=true`)).body.resource).toEqual(['keep.txt', '~/', '~/x/']);
    expect((await api('DELETE', `/${tilde}/~/?force=true`)).status).toBe(200);
    expect((await api('GET', `/${tilde}/?as_list=true&full_tree=true`)).body.resource).toEqual(['keep.txt']);
  });

  // rclone leaves links out of WebDAV altogether; OpenSSH and vsftpd follow them.
  it.skipIf(!reachable || backend.server === 'webdav')('never follows a link on the server out of the root', async () => {
    const linked = `${name}_links`;
    await api('POST', '/system/service', {
      resource: [{ name: linked, label: 'Links', type: backend.type, config: backend.config(`${root}-links`) }],
    });
    expect((await api('POST', `/${linked}/in/`)).status).toBe(201);
    const disk = backend.disk(`${root}-links`);
    const outside = backend.disk(`${root}-outside`);
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
    fs.symlinkSync(outside, path.join(disk, 'out'));
    fs.symlinkSync(outside, path.join(disk, 'in', 'deep'));
    // A link as the last name was never followed; one higher up was: these read SECRET.
    for (const url of [
      `/${linked}/out/secret.txt`,
      `/${linked}/in/deep/secret.txt`,
      `/${linked}/out/secret.txt?include_properties=true&content=true`,
    ]) {
      const refused = await raw('GET', url);
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().error.message).toBe('File operation refused: path escapes the storage root.');
    }
    const copied = await api('POST', `/${linked}/`, { resource: [{ source_path: 'in/deep/secret.txt', name: 'stolen.txt' }] });
    expect(copied.body.resource[0].error.code).toBe(400);
    // The link itself is no folder of the service.
    expect((await api('GET', `/${linked}/in/deep/?as_list=true`)).status).toBe(404);
    expect((await api('GET', `/${linked}/?full_tree=true&as_list=true`)).body.resource).toEqual(['in/']);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  // The SFTP and FTP servers run as the files' owner (this test as root): a file without permissions cannot be read.
  it.skipIf(!reachable || backend.server === 'webdav')('cuts a zip download off, at once, when a file in it cannot be read', async () => {
    const locked = `${name}_locked`;
    await api('POST', '/system/service', {
      resource: [{ name: locked, label: 'Locked', type: backend.type, config: backend.config(`${root}-locked`) }],
    });
    await api('POST', `/${locked}/d/`);
    await raw('POST', `/${locked}/d/a.txt`, 'aaa');
    await raw('POST', `/${locked}/d/b.txt`, 'bbb');
    const file = path.join(backend.disk(`${root}-locked`), 'd', 'b.txt');
    fs.chmodSync(file, 0);
    try {
      // The answer has begun (200): the stream is cut. It hung, or the error ended the process.
      const started = Date.now();
      await expect(raw('GET', `/${locked}/d/?zip=true`)).rejects.toThrow(/destroyed|aborted|closed/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await api('GET', `/${locked}/d/?as_list=true`)).body.resource).toEqual(['d/a.txt', 'd/b.txt']);
    } finally {
      fs.chmodSync(file, 0o644);
    }
  });

  // A copy writes a temporary name and renames it into place: a failed one leaves no partial new
  // file behind (SFTP wrote the target directly, and an empty `new.txt` stayed).
  it.skipIf(!reachable || backend.server === 'webdav')('leaves nothing at the target when a copy fails', async () => {
    const copying = `${name}_copying`;
    await api('POST', '/system/service', {
      resource: [{ name: copying, label: 'Copying', type: backend.type, config: backend.config(`${root}-copying`) }],
    });
    await raw('POST', `/${copying}/source.txt`, 'source');
    const disk = backend.disk(`${root}-copying`);
    const source = path.join(disk, 'source.txt');
    fs.chmodSync(source, 0);
    try {
      const copied = await api('POST', `/${copying}/`, { resource: [{ type: 'file', source_path: 'source.txt', name: 'new.txt' }] });
      expect(copied.status, JSON.stringify(copied.body)).toBe(backend.server === 'sftp' ? 403 : 502);
      expect(copied.body.error.message).toMatch(/'source\.txt'/);
    } finally {
      fs.chmodSync(source, 0o644);
    }
    expect(fs.readdirSync(disk)).toEqual(['source.txt']);
    expect((await api('GET', `/${copying}/?as_list=true`)).body.resource).toEqual(['source.txt']);
    // A file the server will not read, refused once the download has begun (FTP, SFTP): the error in
    // our shape naming the file. FTP's was Fastify's own 500 (its JSON under the file's text/plain)
    // and, as content, "The FTP server of service 'x' failed.".
    fs.chmodSync(source, 0);
    try {
      const server = `The ${backend.server === 'sftp' ? 'SFTP' : 'FTP'} server of service '${copying}'`;
      const refusal =
        backend.server === 'sftp' ? `${server} denied permission to read 'source.txt'.` : `${server} failed to read 'source.txt'.`;
      for (const url of [`/${copying}/source.txt`, `/${copying}/source.txt?include_properties=true&content=true`]) {
        const refused = await raw('GET', url);
        expect(refused.headers['content-type'], url).toMatch(/^application\/json/);
        expect(refused.statusCode, url).toBe(backend.server === 'sftp' ? 403 : 502);
        expect(refused.json(), url).toEqual({ error: { code: refused.statusCode, message: refusal } });
      }
    } finally {
      fs.chmodSync(source, 0o644);
    }
    const copied = await api('POST', `/${copying}/`, { resource: [{ type: 'file', source_path: 'source.txt', name: 'new.txt' }] });
    expect(copied.body.resource).toEqual([{ name: 'new.txt', path: 'new.txt', type: 'file' }]);
    expect((await raw('GET', `/${copying}/new.txt`)).body).toBe('source');
  });

  // The servers run as the files' owner (this test as root): a read-only folder and a file in place
  // of a folder make real refusals. They were 500s quoting the server ("Invalid response: 405 ...",
  // "553 Could not create file.", "Permission denied").
  it.skipIf(!reachable)("answers the server's refusals as 403 or 502, in our words, naming what was attempted", async () => {
    const refusing = `${name}_refusing`;
    await api('POST', '/system/service', {
      resource: [{ name: refusing, label: 'Refusing', type: backend.type, config: backend.config(`${root}-refusing`) }],
    });
    expect((await api('POST', `/${refusing}/ro/`)).status).toBe(201);
    expect((await raw('POST', `/${refusing}/ro/kept.txt`, 'kept')).statusCode).toBe(201);
    const folder = path.join(backend.disk(`${root}-refusing`), 'ro');
    fs.chmodSync(folder, 0o555);
    const answers: Array<[string, { status: number; body: unknown }]> = [];
    try {
      answers.push(['write', await api('POST', `/${refusing}/ro/new.txt`, undefined)]);
      answers.push(['delete', await api('DELETE', `/${refusing}/ro/kept.txt`)]);
      answers.push(['mkdir', await api('POST', `/${refusing}/ro/sub/`)]);
      answers.push(['rmdir', await api('DELETE', `/${refusing}/ro/?force=true`)]);
      // Nothing was lost, nor left half-written.
      expect(fs.readdirSync(folder)).toEqual(['kept.txt']);
    } finally {
      fs.chmodSync(folder, 0o755);
    }
    // OpenSSH says "permission denied" (403); vsftpd (550/553) and rclone (500) only that they failed (502).
    const status = backend.server === 'sftp' ? 403 : 502;
    const server = `The ${{ sftp: 'SFTP', ftp: 'FTP', webdav: 'WebDAV' }[backend.server]} server of service '${refusing}'`;
    const did = status === 403 ? 'denied permission to' : 'failed to';
    expect(answers.map(([, answer]) => answer.body)).toEqual(
      [`write 'ro/new.txt'`, `delete 'ro/kept.txt'`, `create the folder 'ro/sub/'`, `delete the folder 'ro/'`].map((attempt) => ({
        error: { code: status, message: `${server} ${did} ${attempt}.` },
      })),
    );
    expect(answers.map(([, answer]) => answer.status)).toEqual([status, status, status, status]);
    if (backend.server === 'webdav') {
      // rclone refuses to delete a folder holding a link (405): 'Invalid response: 405 Method Not Allowed' was a 500.
      expect((await api('POST', `/${refusing}/linked/`)).status).toBe(201);
      fs.symlinkSync('loop', path.join(backend.disk(`${root}-refusing`), 'linked', 'loop'));
      expect(await api('DELETE', `/${refusing}/linked/?force=true`)).toMatchObject({
        status: 502,
        body: { error: { code: 502, message: `${server} failed to delete the folder 'linked/'.` } },
      });
    }
  });

  // A folder deleted while other requests write into it: the back-end's "no such file" and "not
  // empty" (OpenSSH's bare "Failure", vsftpd's 550) were 502s, the server's fault, for a race between callers.
  it.skipIf(!reachable)('answers a delete of a folder that writes race with a 4xx, never a 502', async () => {
    const racing = `${name}_racing`;
    await api('POST', '/system/service', {
      resource: [{ name: racing, label: 'Racing', type: backend.type, config: backend.config(`${root}-racing`) }],
    });
    const refusals = new Set<string>();
    for (let round = 0; round < 6; round += 1) {
      expect((await api('POST', `/${racing}/busy/`)).status).toBe(201);
      for (let i = 0; i < 6; i += 1) await raw('PUT', `/${racing}/busy/old${i}.txt`, 'old');
      const [deleted, ...writes] = await Promise.all([
        api('DELETE', `/${racing}/busy/?force=true`),
        ...Array.from({ length: 6 }, (_, i) => raw('PUT', `/${racing}/busy/new${i}.txt`, 'new')),
      ]);
      const answers = [
        { status: deleted.status, body: deleted.body },
        ...writes.map((write) => ({ status: write.statusCode, body: write.json() })),
      ];
      for (const answer of answers) {
        expect([200, 201, 409], JSON.stringify(answer.body)).toContain(answer.status);
        if (answer.status === 409) refusals.add(answer.body.error.message.replace(/new\d/, 'newN'));
      }
      await api('DELETE', `/${racing}/busy/?force=true`);
    }
    // Every refusal says which change got in the way.
    for (const message of refusals)
      expect([
        "Folder 'busy/' was written into while it was deleted: it holds what was written since.",
        "Folder 'busy/' was deleted while 'busy/newN.txt' was written into it.",
      ]).toContain(message);
  });

  it.skipIf(!reachable)('leaves nothing behind when an upload fails, and reports a refused login as 503', async () => {
    const limited = `${name}_small`;
    await api('POST', '/system/service', {
      resource: [{ name: limited, label: 'Small', type: backend.type, config: { ...backend.config(`${root}-small`), max_file_size: 100 } }],
    });
    expect((await raw('POST', `/${limited}/ok.txt`, 'x'.repeat(100))).statusCode).toBe(201);
    const big = await raw('POST', `/${limited}/big.txt`, Buffer.alloc(300_000, 1));
    expect(big.statusCode).toBe(413);
    expect((await api('GET', `/${limited}/?as_list=true`)).body.resource).toEqual(['ok.txt']);
    const disk = backend.disk(`${root}-small`);
    if (fs.existsSync(disk)) expect(fs.readdirSync(disk)).toEqual(['ok.txt']);

    const refused = `${name}_refused`;
    await api('POST', '/system/service', {
      resource: [{ name: refused, label: 'Refused', type: backend.type, config: backend.config(`${root}-x`, 'not-the-password-42') }],
    });
    const answer = await api('GET', `/${refused}/`);
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toMatch(/^The (FTP|SFTP|WebDAV) server of service '.*' refused the login\.$/);
    expect(JSON.stringify(answer.body)).not.toContain('not-the-password-42');
  });
});

describe('webdav_file against a server that stops answering', () => {
  it('answers 503 after the timeout instead of holding the request for ever', async () => {
    const silent = await silentServer();
    // A WebDAV server of its own: it answers PROPFIND, then never answers a PUT, and stops a GET midway.
    const stat = (href: string, collection: boolean) =>
      `<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>${href}</d:href><d:propstat><d:prop>${
        collection ? '<d:resourcetype><d:collection/></d:resourcetype>' : '<d:resourcetype/><d:getcontentlength>10</d:getcontentlength>'
      }<d:getlastmodified>Mon, 01 Jan 2024 00:00:00 GMT</d:getlastmodified></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`;
    const stalling = http.createServer((request, response) => {
      request.resume();
      if (request.method === 'PROPFIND' && (request.url === '/root' || request.url === '/root/' || request.url === '/root/a.txt')) {
        response.writeHead(207, { 'content-type': 'application/xml' });
        response.end(stat(request.url, request.url !== '/root/a.txt'));
      } else if (request.method === 'GET' && request.url === '/root/a.txt') {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '10' });
        response.write('hello');
      } else if (request.method === 'PUT') {
        // Reads the upload, and never answers.
      } else {
        response.writeHead(request.method === 'DELETE' ? 204 : 404);
        response.end();
      }
    });
    const port = await new Promise<number>((resolve) =>
      stalling.listen(0, '127.0.0.1', () => resolve((stalling.address() as AddressInfo).port)),
    );
    try {
      await api('POST', '/system/service', {
        resource: [
          {
            name: 'dav_silent',
            label: 'Silent',
            type: 'webdav_file',
            config: { base_uri: `http://127.0.0.1:${silent.port}`, container: '/root', timeout: 1 },
          },
          {
            name: 'dav_stalling',
            label: 'Stalling',
            type: 'webdav_file',
            config: { base_uri: `http://127.0.0.1:${port}`, container: '/root', timeout: 1 },
          },
        ],
      });
      const timedOut = (service: string) => ({ code: 503, message: `The WebDAV server of service '${service}' is unreachable (timeout).` });
      for (const [method, url, service] of [
        ['GET', '/dav_silent/', 'dav_silent'],
        ['POST', '/dav_silent/x.txt', 'dav_silent'],
        ['POST', '/dav_stalling/b.txt', 'dav_stalling'],
      ]) {
        const started = Date.now();
        const answer = await raw(method, url, method === 'POST' ? 'content' : undefined);
        expect(answer.json().error, `${method} ${url}`).toEqual(timedOut(service));
        expect(Date.now() - started).toBeLessThan(5000);
      }
      // The download has begun (200): it is cut once the server sent nothing for the timeout.
      const started = Date.now();
      await expect(raw('GET', '/dav_stalling/a.txt')).rejects.toThrow(/destroyed|aborted|closed|timeout/i);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      stalling.closeAllConnections();
      stalling.close();
      await silent.close();
    }
  }, 20_000);
});

describe.skipIf(!(await requireFileServer('sftp')))('sftp_file when its server stops answering on the open connection', () => {
  it('answers 503 after about the timeout, and serves again once the server is back', async () => {
    const relay = await startTcpRelay(sftp.port, sftp.host);
    try {
      await api('POST', '/system/service', {
        resource: [
          {
            name: 'sftp_frozen',
            label: 'Frozen',
            type: 'sftp_file',
            config: {
              host: '127.0.0.1',
              port: relay.port,
              username: sftp.username,
              password: sftp.password,
              container: `${sftp.base}/t-frozen-${randomBytes(4).toString('hex')}`,
              timeout: 2,
            },
          },
        ],
      });
      expect((await api('GET', '/sftp_frozen/')).status).toBe(200);
      // The connection stays open and passes nothing: every request of the service waited for ever.
      relay.freeze();
      const started = Date.now();
      expect((await api('GET', '/sftp_frozen/')).body.error).toEqual({
        code: 503,
        message: "The SFTP server of service 'sftp_frozen' is unreachable (timeout).",
      });
      expect(Date.now() - started).toBeLessThan(8000);
      await relay.restore();
      expect((await api('GET', '/sftp_frozen/')).status).toBe(200);
    } finally {
      await relay.close();
    }
  }, 30_000);
});
