/**
 * The local_file service (reference service-types.md §1) on the built-in `files` service and on
 * services created through /system/service: listings, downloads (ranges, zip), uploads (raw,
 * multipart, base64 JSON, URL, zip extraction), folders, deletes, bad input, path escapes, grants.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { multipart } from './multipart.js';

let server: TestServer;
let api: Api;
let root: string;
let adminToken: string;

/** A request with a raw body (Buffer) and headers of its own. */
async function raw(
  method: string,
  url: string,
  payload: Buffer | string | undefined,
  headers: Record<string, string> = {},
  credentials = true,
) {
  const token = credentials ? adminToken : undefined;
  const response = await server.app.inject({
    method: method as 'POST',
    url: `/api/v2${url}`,
    payload,
    headers: { ...(credentials ? { 'x-service-api-key': server.apiKey, 'x-service-session-token': token } : {}), ...headers },
  });
  return response;
}

async function zipOf(entries: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function unzip(buffer: Buffer): Promise<Record<string, string>> {
  const zip = await yauzl.fromBufferPromise(buffer);
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) {
      out[entry.fileName] = '';
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out[entry.fileName] = Buffer.concat(chunks).toString();
  }
  return out;
}

beforeAll(async () => {
  server = await startTestServer();
  const token = await server.adminToken();
  adminToken = token;
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  root = path.join(server.dir, 'data', 'files');
});
afterAll(async () => server.close());

describe('local_file: folders and files', () => {
  it('creates folders, writes files in every form and lists them as the reference does', async () => {
    expect((await api('GET', '/files/')).body).toEqual({ resource: [] });
    expect((await api('POST', '/files/docs/')).status).toBe(201);
    expect((await api('POST', '/files/docs/')).body.error).toEqual({ code: 400, message: "Folder 'docs/' already exists." });
    const sub = await raw('POST', '/files/docs/', undefined, { 'x-folder-name': 'sub' });
    expect(sub.statusCode).toBe(201);
    expect(sub.json()).toEqual({ name: 'sub', path: 'docs/sub' });

    const byHeader = await raw('POST', '/files/docs/', 'hello world', { 'x-file-name': 'a.txt', 'content-type': 'text/plain' });
    expect(byHeader.statusCode).toBe(201);
    expect(byHeader.json()).toEqual({ name: 'a.txt', path: 'docs/a.txt', type: 'file' });
    expect(fs.readFileSync(path.join(root, 'docs/a.txt'), 'utf8')).toBe('hello world');

    const put = await raw('PUT', '/files/docs/sub/b.json', '{"b":1}', { 'content-type': 'application/json' });
    expect(put.statusCode).toBe(201);
    expect(fs.readFileSync(path.join(root, 'docs/sub/b.json'), 'utf8')).toBe('{"b":1}');

    const json = await api('POST', '/files/docs/', {
      resource: [
        { name: 'c.bin', type: 'file', content: Buffer.from([0, 1, 2, 255]).toString('base64'), is_base64: true },
        { name: 'd.txt', type: 'file', content: 'plain text' },
        { name: 'e', type: 'folder' },
        { name: 'e', type: 'folder' },
      ],
    });
    expect(json.status).toBe(201);
    expect(json.body.resource).toEqual([
      { name: 'c.bin', path: 'docs/c.bin', type: 'file' },
      { name: 'd.txt', path: 'docs/d.txt', type: 'file' },
      { name: 'e', path: 'docs/e/', type: 'folder' },
      { name: 'e', type: 'folder', error: { code: 400, message: "Folder 'docs/e/' already exists." } },
    ]);
    expect([...fs.readFileSync(path.join(root, 'docs/c.bin'))]).toEqual([0, 1, 2, 255]);

    const form = multipart([
      { name: 'one.txt', content: 'first' },
      { name: 'two.csv', content: 'a,b\n1,2\n' },
    ]);
    const uploaded = await raw('POST', '/files/docs/', form.body, { 'content-type': form.type });
    expect(uploaded.statusCode).toBe(201);
    expect(uploaded.json().resource).toEqual([
      { name: 'one.txt', path: 'docs/one.txt', type: 'file' },
      { name: 'two.csv', path: 'docs/two.csv', type: 'file' },
    ]);

    const listing = await api('GET', '/files/docs/');
    expect(listing.body.resource.map((e: { path: string }) => e.path)).toEqual([
      'docs/a.txt',
      'docs/c.bin',
      'docs/d.txt',
      'docs/e/',
      'docs/one.txt',
      'docs/sub/',
      'docs/two.csv',
    ]);
    expect(listing.body.resource[0]).toEqual({
      path: 'docs/a.txt',
      content_type: 'text/plain; charset=utf-8',
      last_modified: expect.stringMatching(/GMT$/),
      content_length: 11,
      name: 'a.txt',
      type: 'file',
    });
    expect(listing.body.resource[3]).toEqual({ path: 'docs/e/', last_modified: expect.stringMatching(/GMT$/), name: 'e', type: 'folder' });
    expect((await api('GET', '/files/docs/?include_files=false')).body.resource.map((e: { name: string }) => e.name)).toEqual(['e', 'sub']);
    expect((await api('GET', '/files/docs/?include_folders=false&as_list=true')).body.resource).toEqual([
      'docs/a.txt',
      'docs/c.bin',
      'docs/d.txt',
      'docs/one.txt',
      'docs/two.csv',
    ]);
    expect((await api('GET', '/files/?full_tree=true&as_list=true')).body.resource).toEqual([
      'docs/',
      'docs/a.txt',
      'docs/c.bin',
      'docs/d.txt',
      'docs/e/',
      'docs/one.txt',
      'docs/sub/',
      'docs/sub/b.json',
      'docs/two.csv',
    ]);
    expect((await api('GET', '/files/docs/?full_tree=true&search=B.&fields=name,type')).body.resource).toEqual([
      { name: 'sub/b.json', type: 'file' },
    ]);
    expect((await api('GET', '/files/docs/sub/?include_properties=true')).body).toEqual({
      name: 'sub',
      path: 'docs/sub/',
      last_modified: expect.stringMatching(/GMT$/),
    });
  });

  it('streams files with their type, as download, by range and as properties', async () => {
    const file = await raw('GET', '/files/docs/a.txt', undefined);
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('hello world');
    expect(file.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-length': '11',
      'content-disposition': 'inline',
      'accept-ranges': 'bytes',
    });
    expect(file.headers['last-modified']).toMatch(/GMT$/);
    expect((await raw('GET', '/files/docs/a.txt?download=true', undefined)).headers['content-disposition']).toBe(
      'attachment; filename="a.txt"',
    );
    const part = await raw('GET', '/files/docs/a.txt', undefined, { range: 'bytes=6-' });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('world');
    expect(part.headers['content-range']).toBe('bytes 6-10/11');
    expect((await raw('GET', '/files/docs/a.txt', undefined, { range: 'bytes=-5' })).body).toBe('world');
    expect((await raw('GET', '/files/docs/a.txt', undefined, { range: 'bytes=0-4' })).body).toBe('hello');
    const outside = await raw('GET', '/files/docs/a.txt', undefined, { range: 'bytes=50-60' });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */11');
    const modified = file.headers['last-modified'] as string;
    expect((await raw('GET', '/files/docs/a.txt', undefined, { 'if-modified-since': modified })).statusCode).toBe(304);

    expect((await api('GET', '/files/docs/a.txt?include_properties=true')).body).toEqual({
      path: 'docs/a.txt',
      name: 'a.txt',
      content_type: 'text/plain; charset=utf-8',
      last_modified: modified,
      content_length: 11,
    });
    expect((await api('GET', '/files/docs/c.bin?include_properties=true&content=true')).body.content).toBe(
      Buffer.from([0, 1, 2, 255]).toString('base64'),
    );
    expect((await api('GET', '/files/docs/a.txt?include_properties=true&content=true&is_base64=false')).body.content).toBe('hello world');
  });

  it("answers a POST tunnelled as HEAD on a file with the file's headers, Content-Length 0 and no body", async () => {
    // The file's stream is read to its end and let go (head-override.ts); the length said is the empty answer's.
    const head = await raw('POST', '/files/docs/a.txt', undefined, { 'x-http-method': 'HEAD' });
    expect([head.statusCode, head.body]).toEqual([200, '']);
    expect(head.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'content-length': '0', 'accept-ranges': 'bytes' });
    const missing = await raw('POST', '/files/docs/none.txt', undefined, { 'x-http-method': 'HEAD' });
    expect([missing.statusCode, missing.headers['content-length'], missing.body]).toEqual([404, '0', '']);
  });

  it('downloads a folder as a zip and unpacks an uploaded zip', async () => {
    const zipped = await raw('GET', '/files/docs/sub/?zip=true', undefined);
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-type']).toBe('application/zip');
    expect(zipped.headers['content-disposition']).toBe('attachment; filename="sub.zip"');
    expect(await unzip(zipped.rawPayload)).toEqual({ 'docs/sub/b.json': '{"b":1}' });
    // A name that reads as a Windows drive (`c:`) at the root: yazl threw on it, the download was a 500.
    await api('POST', '/system/service', {
      resource: [{ name: 'drives', label: 'Drives', type: 'local_file', config: { container: 'drives' } }],
    });
    expect((await raw('POST', '/drives/c:notes.txt', 'c')).statusCode).toBe(201);
    expect((await api('POST', '/drives/d:/')).status).toBe(201);
    expect((await raw('POST', '/drives/d:/e:f.txt', 'e')).statusCode).toBe(201);
    const drives = await raw('GET', '/drives/?zip=true', undefined);
    expect(drives.statusCode).toBe(200);
    expect(await unzip(drives.rawPayload)).toEqual({ './c:notes.txt': 'c', './d:/': '', './d:/e:f.txt': 'e' });

    await api('POST', '/files/unpacked/');
    const archive = await zipOf({ 'top.txt': 'top', 'inner/deep.txt': 'deep' });
    const extracted = await raw('POST', '/files/unpacked/?extract=true', archive, {
      'x-file-name': 'bundle.zip',
      'content-type': 'application/zip',
    });
    expect(extracted.statusCode).toBe(201);
    expect(extracted.json()).toEqual({ name: 'unpacked', path: 'unpacked/', type: 'folder' });
    expect(fs.readFileSync(path.join(root, 'unpacked/inner/deep.txt'), 'utf8')).toBe('deep');
    expect(fs.existsSync(path.join(root, 'unpacked/bundle.zip'))).toBe(false);

    const form = multipart([{ name: 'more.zip', type: 'application/zip', content: await zipOf({ 'm.txt': 'm' }) }]);
    expect((await raw('POST', '/files/unpacked/?extract=true&clean=true', form.body, { 'content-type': form.type })).statusCode).toBe(201);
    expect(fs.readdirSync(path.join(root, 'unpacked'))).toEqual(['m.txt']);

    // An entry that would leave the folder refuses the whole archive: nothing is written.
    // yazl refuses to write such a name: the bytes of a harmless one of the same length are replaced.
    const evil = Buffer.from(
      (await zipOf({ 'ok.txt': 'ok', 'zz/zz/escaped.txt': 'no' })).toString('latin1').replaceAll('zz/zz/escaped.txt', '../../escaped.txt'),
      'latin1',
    );
    const refused = await raw('POST', '/files/unpacked/?extract=true', evil, { 'x-file-name': 'evil.zip' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/traversal/);
    expect(fs.readdirSync(path.join(root, 'unpacked'))).toEqual(['m.txt']);
    // With clean=true too: the folder was emptied before the archive was read, and the refusal lost it.
    const cleaned = await raw('POST', '/files/unpacked/?extract=true&clean=true', evil, { 'x-file-name': 'evil.zip' });
    expect(cleaned.statusCode).toBe(400);
    const notZip = await raw('POST', '/files/unpacked/?extract=true&clean=true', 'not a zip', { 'x-file-name': 'bad.zip' });
    expect(notZip.statusCode).toBe(400);
    expect(fs.readdirSync(path.join(root, 'unpacked'))).toEqual(['m.txt']);
    expect(fs.existsSync(path.join(server.dir, 'data', 'escaped.txt'))).toBe(false);
  });

  it('imports a file from a URL', async () => {
    const remote = http.createServer((request, response) => {
      if (request.url === '/report.csv') response.end('x,y\n1,2\n');
      else {
        response.statusCode = 404;
        response.end('no');
      }
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    try {
      const imported = await api('POST', `/files/docs/?url=${encodeURIComponent(`${base}/report.csv`)}`);
      expect(imported.status).toBe(201);
      expect(imported.body).toEqual({ name: 'report.csv', path: 'docs/report.csv', type: 'file' });
      expect(fs.readFileSync(path.join(root, 'docs/report.csv'), 'utf8')).toBe('x,y\n1,2\n');
      expect((await api('POST', '/files/docs/', { url: `${base}/report.csv`, filename: 'copy.csv' })).body.path).toBe('docs/copy.csv');
      expect((await api('POST', `/files/docs/?url=${encodeURIComponent(`${base}/missing.csv`)}`)).body.error).toEqual({
        code: 404,
        message: 'Invalid URL entered. File not found.',
      });
      expect((await api('POST', '/files/docs/?url=file:///etc/passwd')).status).toBe(400);
      const odd = await api('POST', `/files/docs/?url=${encodeURIComponent(`${base}/a%zz.csv`)}`);
      expect(odd.body.error).toEqual({ code: 404, message: 'Invalid URL entered. File not found.' });
      expect(fs.existsSync(path.join(root, 'docs/a%zz.csv'))).toBe(false);
    } finally {
      remote.close();
    }
  });

  it('copies and moves with source_path, and deletes files and folders', async () => {
    const copied = await api('POST', '/files/docs/e/', {
      resource: [
        { type: 'file', source_path: 'docs/a.txt' },
        { type: 'file', source_path: 'docs/d.txt', name: 'moved.txt', delete_source: true },
        { type: 'folder', source_path: 'docs/sub/', name: 'subcopy' },
        { type: 'file', source_path: 'docs/none.txt' },
      ],
    });
    expect(copied.status).toBe(201);
    expect(copied.body.resource).toEqual([
      { name: 'a.txt', path: 'docs/e/a.txt', type: 'file' },
      { name: 'moved.txt', path: 'docs/e/moved.txt', type: 'file' },
      { name: 'subcopy', path: 'docs/e/subcopy/', type: 'folder' },
      { name: null, type: 'file', error: { code: 404, message: "File 'docs/none.txt' does not exist." } },
    ]);
    expect(fs.existsSync(path.join(root, 'docs/d.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'docs/e/subcopy/b.json'), 'utf8')).toBe('{"b":1}');

    expect((await api('DELETE', '/files/docs/e/a.txt')).body).toEqual({ name: 'a.txt', path: 'docs/e/a.txt' });
    expect((await api('DELETE', '/files/docs/e/a.txt')).body.error).toEqual({ code: 404, message: "File 'docs/e/a.txt' was not found." });
    expect((await api('DELETE', '/files/docs/e/')).body.error).toEqual({
      code: 400,
      message: 'Directory not empty, can not delete without force option.',
    });
    expect((await api('DELETE', '/files/docs/e/?content_only=true&force=true')).status).toBe(200);
    expect(fs.readdirSync(path.join(root, 'docs/e'))).toEqual([]);
    expect((await api('DELETE', '/files/docs/e/')).body).toEqual({ name: 'e', path: 'docs/e/' });
    expect((await api('DELETE', '/files/')).body.error).toEqual({ code: 400, message: 'No resources given for delete.' });
    const batch = await api('DELETE', '/files/?force=true', {
      resource: [
        { path: 'docs/one.txt', type: 'file' },
        { name: 'unpacked', type: 'folder' },
        { path: 'nope.txt', type: 'file' },
      ],
    });
    expect(batch.body.resource).toEqual([
      { name: 'one.txt', path: 'docs/one.txt', type: 'file' },
      { name: 'unpacked', path: null, type: 'folder' },
      { name: 'nope.txt', path: 'nope.txt', type: 'file', error: { code: 404, message: "File 'nope.txt' was not found." } },
    ]);
    expect(fs.existsSync(path.join(root, 'unpacked'))).toBe(false);
  });

  it('answers bad input with the error envelope', async () => {
    expect((await api('GET', '/files/docs/missing.txt')).body.error).toEqual({
      code: 404,
      message: "The specified file 'docs/missing.txt' was not found in storage.",
    });
    expect((await api('GET', '/files/nowhere/')).body.error).toEqual({
      code: 404,
      message: "Folder 'nowhere/' does not exist in storage.",
    });
    expect((await api('GET', '/files/docs/a.txt/')).status).toBe(400);
    expect((await api('GET', '/files/docs')).status).toBe(400);
    expect((await raw('POST', '/files/nowhere/x.txt', 'x', {})).json().error).toEqual({
      code: 404,
      message: "Folder 'nowhere/' does not exist.",
    });
    expect((await raw('POST', '/files/docs/a.txt?check_exist=true', 'x', {})).json().error).toEqual({
      code: 400,
      message: "File 'docs/a.txt' already exists.",
    });
    expect(fs.readFileSync(path.join(root, 'docs/a.txt'), 'utf8')).toBe('hello world');
    expect((await raw('POST', '/files/docs/sub', 'x', {})).statusCode).toBe(400);
    expect((await api('POST', '/files/')).body.error).toEqual({ code: 400, message: 'Invalid empty path.' });
    // `null` is a JSON body too (reading its `resource` was a 500).
    expect((await raw('POST', '/files/docs/', 'null', { 'content-type': 'application/json' })).json().error).toEqual({
      code: 400,
      message: "Folder 'docs/' already exists.",
    });
    expect((await api('PATCH', '/files/docs/a.txt', {})).status).toBe(501);
    const two = multipart([
      { name: 'x', content: '1' },
      { name: 'y', content: '2' },
    ]);
    expect((await raw('POST', '/files/docs/single.txt', two.body, { 'content-type': two.type })).statusCode).toBe(400);
    // A form that ends inside a file part: its stream failed before anyone read it, an uncaught
    // error that ended the server's process (vitest reports it as an unhandled error).
    const truncated = await raw(
      'POST',
      '/files/docs/',
      '--x\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\nno closing boundary',
      { 'content-type': 'multipart/form-data; boundary=x' },
    );
    expect(truncated.json().error).toEqual({ code: 400, message: 'Invalid multipart request: Unexpected end of form.' });
    expect(fs.existsSync(path.join(root, 'docs/cut.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'docs/single.txt'))).toBe(false);
    expect((await raw('POST', '/files/docs/', 'x', { 'x-file-name': '../up.txt' })).statusCode).toBe(400);
    expect((await api('POST', '/files/docs/', { resource: [{ name: 'a/b', type: 'folder' }] })).body.resource[0].error.code).toBe(400);
    // Text that is not base64 was decoded leniently (the bad characters skipped) and stored as other bytes.
    const notBase64 = await api('POST', '/files/docs/', {
      resource: [
        { name: 'bad64.bin', type: 'file', content: '!!!not*base64', is_base64: true },
        { name: 'cut64.bin', type: 'file', content: 'aGVsbG8', is_base64: true },
      ],
    });
    expect(notBase64.status).toBe(201);
    expect(notBase64.body.resource.map((item: { error?: unknown }) => item.error)).toEqual([
      { code: 400, message: "The content of 'bad64.bin' is not valid base64." },
      { code: 400, message: "The content of 'cut64.bin' is not valid base64." },
    ]);
    expect(fs.existsSync(path.join(root, 'docs/bad64.bin'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'docs/cut64.bin'))).toBe(false);
  });
});

describe('local_file: requests at once on one path', () => {
  it('lets one create-only write and one folder creation of a name succeed, the others are told it exists', async () => {
    await raw('POST', '/files/race/', undefined);
    const bodies = Array.from({ length: 8 }, (_, i) => String(i).repeat(100_000));
    // Each looked, found nothing, and wrote: all were 201, and the last rename won over the others.
    const writes = await Promise.all(bodies.map((body) => raw('PUT', '/files/race/once.txt?check_exist=true', body)));
    const created = writes.flatMap((answer, i) => (answer.statusCode === 201 ? [i] : []));
    expect(created).toHaveLength(1);
    for (const answer of writes.filter((a) => a.statusCode !== 201))
      expect(answer.json().error).toEqual({ code: 400, message: "File 'race/once.txt' already exists." });
    expect(fs.readFileSync(path.join(root, 'race/once.txt'), 'utf8')).toBe(bodies[created[0]]);
    const folders = await Promise.all(bodies.map(() => raw('POST', '/files/race/sub/', undefined)));
    expect(folders.map((answer) => answer.statusCode).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
  });

  it('lets one batch copy to a name succeed, the others are told it exists', async () => {
    await raw('POST', '/files/race-copy/', undefined);
    const sources = Array.from({ length: 8 }, (_, i) => `race-copy/src${i}.txt`);
    for (const [i, source] of sources.entries()) fs.writeFileSync(path.join(root, source), String(i).repeat(100_000));
    // Each copy looked for the target, found nothing and copied over the others: all were told it was copied.
    const copies = await Promise.all(
      sources.map((source) => api('POST', '/files/race-copy/', { resource: [{ type: 'file', source_path: source, name: 'one.txt' }] })),
    );
    const items = copies.map((answer) => answer.body.resource[0]);
    const copied = items.flatMap((item, i) => (item.error === undefined ? [i] : []));
    expect(copied).toHaveLength(1);
    for (const item of items.filter((it) => it.error !== undefined))
      expect(item.error).toEqual({ code: 400, message: "File 'race-copy/one.txt' already exists." });
    expect(fs.readFileSync(path.join(root, 'race-copy/one.txt'), 'utf8')).toBe(String(copied[0]).repeat(100_000));
  });
});

describe('local_file: a folder deleted while a file is written into it', () => {
  it('answers the 409 the remote back-ends answer, not the file system ENOENT', async () => {
    // A server of its own, over a real socket: an injected request reads its whole body first.
    const own = await startTestServer();
    try {
      const address = await own.app.listen({ port: 0, host: '127.0.0.1' });
      const headers = { 'x-service-api-key': own.apiKey, 'x-service-session-token': await own.adminToken() };
      expect((await fetch(`${address}/api/v2/files/doomed/`, { method: 'POST', headers })).status).toBe(201);
      const request = http.request(`${address}/api/v2/files/doomed/late.txt`, { method: 'PUT', headers });
      const answer = new Promise<string>((resolve) =>
        request.on('response', async (response) => resolve(Buffer.concat(await response.toArray()).toString())),
      );
      request.write('first part ');
      const folder = path.join(own.dir, 'data', 'files', 'doomed');
      // Another process (here: the test) deletes the folder once the upload's temporary file is in it.
      await vi.waitFor(() => expect(fs.readdirSync(folder).some((entry) => entry.startsWith('.portico-upload-'))).toBe(true));
      fs.rmSync(folder, { recursive: true });
      request.end('last part');
      expect(JSON.parse(await answer)).toEqual({
        error: { code: 409, message: "Folder 'doomed/' was deleted while 'doomed/late.txt' was written into it." },
      });
    } finally {
      await own.close();
    }
  });
});

describe('local_file: names a file system or a header cannot take', () => {
  it('downloads names beyond ASCII, takes names of 255 bytes, refuses longer ones, control characters and reserved names', async () => {
    await api('POST', '/files/names/');
    const japanese = encodeURIComponent('日本 "q".txt');
    expect((await raw('POST', `/files/names/${japanese}`, 'x', {})).statusCode).toBe(201);
    const download = await raw('GET', `/files/names/${japanese}?download=true`, undefined);
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe('x');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="__ _q_.txt"; filename*=UTF-8''${japanese}`);
    expect((await api('POST', `/files/names/${encodeURIComponent('日本')}/`)).status).toBe(201);
    const zipped = await raw('GET', `/files/names/${encodeURIComponent('日本')}/?zip=true`, undefined);
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-disposition']).toBe(`attachment; filename="__.zip"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.zip`);

    // 255 bytes is the longest name a file system takes; the upload's temporary name must fit too.
    expect((await raw('POST', `/files/names/${'n'.repeat(255)}`, 'long', {})).statusCode).toBe(201);
    expect(fs.readFileSync(path.join(root, 'names', 'n'.repeat(255)), 'utf8')).toBe('long');
    const tooLong = [
      ['POST', `/files/names/${'é'.repeat(128)}`],
      ['POST', `/files/names/${'é'.repeat(128)}/`],
      ['POST', `/files/names/${encodeURIComponent('a"b\r\nX-Evil: 1')}/`],
      ['POST', `/files/names/${encodeURIComponent('tab\there.txt')}`],
      ['POST', '/files/names/.portico-upload-0123456789-x.txt'],
    ];
    for (const [method, url] of tooLong) {
      const response = await raw(method, url, url.endsWith('/') ? undefined : 'x', {});
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code).toBe(400);
    }
    expect((await raw('POST', '/files/names/', 'x', { 'x-file-name': 'é'.repeat(128) })).statusCode).toBe(400);
    expect(fs.readdirSync(path.join(root, 'names')).sort()).toEqual(['n'.repeat(255), '日本', '日本 "q".txt'].sort());
    // Only an entry's own fields are named by id_field.
    expect((await api('GET', '/files/names/?as_list=true&id_field=__proto__')).body.resource).toEqual([null, null, null]);
  });

  it('refuses a path longer than a file system takes, however it is put together', async () => {
    // Each name is valid; together they pass Linux's 4096 bytes: every form was a 500 (ENAMETOOLONG).
    const names = Array.from({ length: 18 }, (_, i) => String.fromCharCode(97 + i).repeat(250));
    let folder = 'deep';
    expect((await api('POST', `/files/${folder}/`)).status).toBe(201);
    for (const name of names.slice(0, 12)) {
      folder = `${folder}/${name}`;
      expect((await api('POST', `/files/${folder}/`)).status).toBe(201);
    }
    const tooLong = { code: 400, message: 'Invalid path: longer than 3072 bytes.' };
    const deeper = `${folder}/${names.slice(12).join('/')}`;
    for (const [method, url] of [
      ['POST', `/files/${deeper}/`],
      ['GET', `/files/${deeper}/`],
      ['GET', `/files/${deeper}/x.txt`],
      ['DELETE', `/files/${deeper}/`],
    ]) {
      expect((await api(method, url)).body.error, `${method} ${url.length}`).toEqual(tooLong);
    }
    expect((await raw('POST', `/files/${folder}/${names[12]}`, 'x')).json().error).toEqual(tooLong);
    expect((await raw('POST', `/files/${folder}/`, 'x', { 'x-folder-name': names[12] })).json().error).toEqual(tooLong);
    expect((await raw('POST', `/files/${folder}/`, 'x', { 'x-file-name': names[12] })).json().error).toEqual(tooLong);
    const form = multipart([{ name: names[12], content: 'x' }]);
    expect((await raw('POST', `/files/${folder}/`, form.body, { 'content-type': form.type })).json().error).toEqual(tooLong);
    const listed = await api('POST', `/files/${folder}/`, { resource: [{ name: names[12], type: 'folder' }] });
    expect(listed.body.resource[0].error).toEqual(tooLong);
    expect((await api('DELETE', '/files/deep/?force=true')).status).toBe(200);
    expect(fs.existsSync(path.join(root, 'deep'))).toBe(false);
  });
});

describe('local_file: the root is never left', () => {
  it('refuses dot segments, encoded separators and links out of the root, touching nothing outside', async () => {
    const outside = path.join(server.dir, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    // Stands alone (vitest -t): the root and docs/ may not have been made by earlier tests.
    fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(root, 'link-out'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'file-link-out'));
    const before = fs.readdirSync(outside);
    const attempts: Array<[string, string, string | undefined]> = [
      ['GET', '/files/docs/../../outside/secret.txt', undefined],
      ['GET', '/files/docs/%2e%2e/%2e%2e/outside/secret.txt', undefined],
      ['GET', '/files/..%2F..%2Foutside%2Fsecret.txt', undefined],
      ['GET', '/files/docs%5C..%5C..%5Coutside', undefined],
      ['GET', '/files/link-out/secret.txt', undefined],
      ['GET', '/files/file-link-out', undefined],
      ['GET', '/files/link-out/', undefined],
      ['POST', '/files/link-out/new.txt', 'x'],
      ['POST', '/files/docs/%2e%2e%2f%2e%2e%2fescaped.txt', 'x'],
      ['PUT', '/files/./docs/../../escaped.txt', 'x'],
      ['DELETE', '/files/link-out/secret.txt', undefined],
      ['DELETE', '/files/..%2Foutside/?force=true', undefined],
    ];
    for (const [method, url, body] of attempts) {
      const response = await raw(method, url, body, body ? { 'content-type': 'text/plain' } : {});
      expect([400, 404], `${method} ${url}`).toContain(response.statusCode);
      expect(response.body).not.toContain('secret');
      expect(response.json().error.code).toBe(response.statusCode);
    }
    const json = await api('POST', '/files/docs/', {
      resource: [
        { type: 'file', source_path: '../outside/secret.txt' },
        { type: 'file', source_path: 'link-out/secret.txt' },
      ],
    });
    expect(json.body.resource?.every((item: { error?: unknown }) => item.error) ?? json.status === 400).toBe(true);
    expect((await api('DELETE', '/files/', { resource: [{ path: '../outside/secret.txt', type: 'file' }] })).status).toBe(400);
    expect(fs.readdirSync(outside)).toEqual(before);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(fs.existsSync(path.join(server.dir, 'data', 'escaped.txt'))).toBe(false);
    expect(fs.existsSync(path.join(server.dir, 'escaped.txt'))).toBe(false);
    // Listings and zips do not follow links out of the root.
    expect((await api('GET', '/files/?as_list=true')).body.resource).not.toContain('link-out/');
    fs.unlinkSync(path.join(root, 'link-out'));
    fs.unlinkSync(path.join(root, 'file-link-out'));
  });
});

describe('local_file: services created at run time, limits, grants', () => {
  it('serves a new service at once, with its size limit, its OpenAPI document and the logs service', async () => {
    const created = await api('POST', '/system/service', {
      resource: [{ name: 'uploads', label: 'Uploads', type: 'local_file', config: { container: 'up', max_file_size: 100 } }],
    });
    expect(created.status).toBe(201);
    expect((await raw('POST', '/uploads/small.txt', 'x'.repeat(100), {})).statusCode).toBe(201);
    const big = await raw('POST', '/uploads/big.txt', 'x'.repeat(1000), {});
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe(413);
    const form = multipart([
      { name: 'ok.txt', content: 'ok' },
      { name: 'big.txt', content: 'y'.repeat(500) },
    ]);
    expect((await raw('POST', '/uploads/', form.body, { 'content-type': form.type })).statusCode).toBe(413);
    expect(fs.readdirSync(path.join(server.dir, 'up'))).toEqual(['small.txt']);
    // A form whose later part is refused (413, a bad name, a second file for one resource) leaves
    // the files its earlier parts replaced as they were: they were overwritten for good.
    for (const [url, second] of [
      ['/uploads/', { name: 'big.txt', content: 'y'.repeat(500) }],
      ['/uploads/', { name: '.', content: 'z' }],
      ['/uploads/small.txt', { name: 'other.txt', content: 'z' }],
    ] as const) {
      const refused = multipart([{ name: 'small.txt', content: 'replaced' }, second]);
      const answer = await raw('POST', url, refused.body, { 'content-type': refused.type });
      expect(answer.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(answer.json().error.code).toBe(answer.statusCode);
      expect(fs.readFileSync(path.join(server.dir, 'up', 'small.txt'), 'utf8')).toBe('x'.repeat(100));
      expect(fs.readdirSync(path.join(server.dir, 'up'))).toEqual(['small.txt']);
    }
    const both = multipart([
      { name: 'small.txt', content: 'replaced' },
      { name: 'new.txt', content: 'new' },
    ]);
    expect((await raw('POST', '/uploads/', both.body, { 'content-type': both.type })).statusCode).toBe(201);
    expect(fs.readFileSync(path.join(server.dir, 'up', 'small.txt'), 'utf8')).toBe('replaced');
    expect(fs.readdirSync(path.join(server.dir, 'up')).sort()).toEqual(['new.txt', 'small.txt']);
    expect((await api('DELETE', '/uploads/new.txt')).status).toBe(200);

    const spec = await api('GET', '/uploads/_spec');
    expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(['/', '/{folder_path}/', '/{file_path}']));
    expect((await api('GET', '/api/v2?fields=name,type')).body.services).toContainEqual(
      expect.objectContaining({ name: 'uploads', type: 'local_file' }),
    );
    expect((await api('GET', '/logs/')).body).toEqual({ resource: [] });
    fs.writeFileSync(path.join(server.dir, 'data', 'logs', 'server.log'), 'started\n');
    expect((await raw('GET', '/logs/server.log', undefined)).body).toBe('started\n');
    expect((await api('GET', '/files?as_access_list=true')).body.resource).toEqual(
      expect.arrayContaining(['', '*', 'docs/', 'docs/*', 'docs/sub/', 'docs/sub/*']),
    );
  });

  it('answers an endless upload with 413 and closes the connection, in every form', async () => {
    // Over a real socket: a chunked body that never ends. The multipart one without a boundary had
    // no answer at all; after the others' 413 the connection stayed open, Node.js reading for ever.
    // The rest of a refused body is read a while (5 s), then the connection is cut.
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const send = (url: string, contentType: string) =>
      new Promise<{ head: string; ms: number }>((resolve) => {
        const started = Date.now();
        let head = '';
        const socket = net.connect(Number(new URL(address).port), '127.0.0.1', () => {
          socket.write(
            `POST /api/v2${url} HTTP/1.1\r\nHost: x\r\nX-Service-Api-Key: ${server.apiKey}\r\nX-Service-Session-Token: ${adminToken}\r\n` +
              `Content-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\n`,
          );
          const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
          const pump = () => {
            if (socket.writable) socket.write(chunk, () => setImmediate(pump));
          };
          pump();
        });
        socket.on('data', (data) => {
          head += data.toString();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ head, ms: Date.now() - started }));
        setTimeout(() => socket.destroy(), 20_000);
      });
    for (const [url, type] of [
      ['/uploads/endless.bin', 'application/octet-stream'],
      ['/uploads/', 'multipart/form-data; boundary=x'],
      ['/uploads/', 'application/json'],
    ]) {
      const { head, ms } = await send(url, type);
      expect(head, `${url} ${type}`).toMatch(/^HTTP\/1\.1 413 /);
      expect(ms, `${url} ${type}`).toBeLessThan(9_000);
    }
    expect(fs.readdirSync(path.join(server.dir, 'up'))).toEqual(['small.txt']);
  });

  it('refuses a zip bomb before writing: an entry or a total beyond what the service accepts', async () => {
    await api('POST', '/system/service', {
      resource: [{ name: 'unzips', label: 'Unzips', type: 'local_file', config: { container: 'unzips', max_file_size: 5000 } }],
    });
    await api('POST', '/unzips/z/');
    const zeros = (size: number) => '\0'.repeat(size);
    // One entry of 1 MB in an archive of about 1 kB; then 11 entries of 5000 bytes, 55,000 in all (10 × 5000 at most).
    const huge = await zipOf({ 'huge.bin': zeros(1_000_000) });
    const many = await zipOf(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}.bin`, zeros(5000)])));
    expect(huge.length).toBeLessThan(5000);
    expect(many.length).toBeLessThan(5000);
    for (const archive of [huge, many]) {
      const refused = await raw('POST', '/unzips/z/?extract=true', archive, { 'x-file-name': 'bomb.zip' });
      expect(refused.statusCode).toBe(413);
      expect(refused.json().error.code).toBe(413);
      expect(fs.readdirSync(path.join(server.dir, 'unzips', 'z'))).toEqual([]);
    }
    const fine = await zipOf({ 'a.bin': zeros(5000), 'b.bin': zeros(5000) });
    expect((await raw('POST', '/unzips/z/?extract=true', fine, { 'x-file-name': 'fine.zip' })).statusCode).toBe(201);
    expect(fs.readdirSync(path.join(server.dir, 'unzips', 'z')).sort()).toEqual(['a.bin', 'b.bin']);
  });

  it('checks grants on the URL path and on every path named in headers and bodies', async () => {
    fs.mkdirSync(path.join(root, 'secret'), { recursive: true });
    fs.writeFileSync(path.join(root, 'secret/plan.txt'), 'plan');
    const service = (await api('GET', '/system/service?filter=name=files&fields=id')).body.resource[0].id;
    const role = (
      await api('POST', '/system/role', {
        resource: [
          {
            name: 'docs-only',
            role_service_access_by_role_id: [
              { service_id: service, component: '', verb_mask: 3 },
              { service_id: service, component: 'docs/*', verb_mask: 31 },
            ],
          },
        ],
      })
    ).body.resource[0].id;
    const key = (await api('POST', '/system/app?fields=api_key', { resource: [{ name: 'docs-app', role_id: role }] })).body.resource[0]
      .api_key;
    const as = { key };
    expect((await api('GET', '/files/docs/a.txt', undefined, as)).status).toBe(200);
    expect((await api('GET', '/files/docs/', undefined, as)).status).toBe(200);
    expect((await api('GET', '/files/', undefined, as)).status).toBe(200);
    for (const url of ['/files/secret/plan.txt', '/files/secret/', '/files/SECRET/plan.txt', '/files/docs/../secret/plan.txt']) {
      expect([401, 403, 400], url).toContain((await api('GET', url, undefined, as)).status);
    }
    // Paths in bodies and headers: the URL (the root or docs/) is granted, the path named is not.
    expect((await api('POST', '/files/', { resource: [{ name: 'secret', type: 'folder' }] }, as)).status).toBe(403);
    expect((await api('POST', '/files/docs/', { resource: [{ type: 'file', source_path: 'secret/plan.txt' }] }, as)).status).toBe(403);
    expect((await api('DELETE', '/files/docs/', { resource: [{ path: 'secret/plan.txt', type: 'file' }] }, as)).status).toBe(403);
    const headerWrite = await server.app.inject({
      method: 'POST',
      url: '/api/v2/files/',
      payload: 'x',
      headers: { 'x-service-api-key': key, 'x-file-name': 'top.txt' },
    });
    expect(headerWrite.statusCode).toBe(403);
    expect(fs.readFileSync(path.join(root, 'secret/plan.txt'), 'utf8')).toBe('plan');
    expect(fs.existsSync(path.join(root, 'top.txt'))).toBe(false);
  });
});

// Root ignores permission bits: an immutable folder (chattr +i) and a 64 KiB tmpfs make the refusals real.
const asRoot = process.getuid?.() === 0;
if (!asRoot) process.stderr.write('\n[skipped] local_file refusals: needs root (chattr, mount).\n');

describe.skipIf(!asRoot)('local_file: what the file system refuses', () => {
  it('is a 403 when permission is denied and a 503 when the disk is full, naming what was attempted', async () => {
    const run = promisify(execFile);
    const created = await api('POST', '/system/service', {
      resource: [{ name: 'tight', label: 'Tight', type: 'local_file', config: { container: 'tight' } }],
    });
    expect(created.status).toBe(201);
    const disk = path.join(server.dir, 'tight');
    expect((await api('POST', '/tight/frozen/')).status).toBe(201);
    expect((await raw('POST', '/tight/frozen/kept.txt', 'kept')).statusCode).toBe(201);
    await run('chattr', ['+i', path.join(disk, 'frozen')]);
    try {
      expect((await raw('POST', '/tight/frozen/new.txt', 'new')).json()).toEqual({
        error: { code: 403, message: "The file system of service 'tight' denied permission to write 'frozen/new.txt'." },
      });
      expect((await api('DELETE', '/tight/frozen/kept.txt')).body).toEqual({
        error: { code: 403, message: "The file system of service 'tight' denied permission to delete 'frozen/kept.txt'." },
      });
      expect(fs.readdirSync(path.join(disk, 'frozen'))).toEqual(['kept.txt']);
    } finally {
      await run('chattr', ['-i', path.join(disk, 'frozen')]);
    }
    fs.mkdirSync(path.join(disk, 'small'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', path.join(disk, 'small')]);
    try {
      const full = await raw('POST', '/tight/small/big.bin', Buffer.alloc(200_000, 1));
      expect(full.json()).toEqual({
        error: {
          code: 503,
          message: "The file system of service 'tight' is out of space or over its quota: could not write 'small/big.bin'.",
        },
      });
      // Nothing half-written is left.
      expect(fs.readdirSync(path.join(disk, 'small'))).toEqual([]);
    } finally {
      await run('umount', [path.join(disk, 'small')]);
    }
  });
});
