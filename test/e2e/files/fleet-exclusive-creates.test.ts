/**
 * Two servers over one storage (a fleet, as test/e2e/scale-out.test.ts runs one): the per-process
 * path lock sees one server only, so create-only writes, folder creations and copies to one path
 * from both at once rely on the storage's own exclusive create. Each server here is a server
 * instance of its own, with its own file service (and lock) over the same root: of two requests
 * at once one is 201, the other the spec's 400 "already exists", and the stored bytes are the
 * winner's. FTP has no exclusive create of a file (ftp-storage.ts): only its folders are raced.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileServer, type FileServer, requireFileServer } from '#test/helpers/file-servers.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const ROUNDS = 6;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-fleet-'));
let fleet: { server: TestServer; token: string }[] = [];

beforeAll(async () => {
  const servers = await Promise.all([startTestServer(), startTestServer()]);
  fleet = await Promise.all(servers.map(async (server) => ({ server, token: await server.adminToken() })));
});
afterAll(async () => {
  await Promise.all(fleet.map(({ server }) => server.close()));
  fs.rmSync(localRoot, { recursive: true, force: true });
});

/** A request to one server of the fleet. */
async function on(member: number, method: string, url: string, payload?: string | object, headers: Record<string, string> = {}) {
  const { server, token } = fleet[member];
  return server.app.inject({
    method: method as 'POST',
    url: `/api/v2${url}`,
    payload,
    headers: { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, ...headers },
  });
}

interface Backend {
  title: string;
  server: FileServer | null;
  config: (root: string) => { type: string; config: Record<string, unknown> };
  files: boolean;
}

const sftp = fileServer('sftp');
const ftp = fileServer('ftp');
const webdav = fileServer('webdav');
const login = (server: typeof sftp) => ({ host: server.host, port: server.port, username: server.username, password: server.password });
const backends: Backend[] = [
  {
    title: 'local_file',
    server: null,
    files: true,
    config: (root) => ({ type: 'local_file', config: { container: path.join(localRoot, root) } }),
  },
  {
    title: 'sftp_file (OpenSSH)',
    server: 'sftp',
    files: true,
    config: (root) => ({ type: 'sftp_file', config: { ...login(sftp), container: `${sftp.base}/${root}`, timeout: 10 } }),
  },
  {
    title: 'webdav_file (rclone)',
    server: 'webdav',
    files: true,
    config: (root) => ({
      type: 'webdav_file',
      config: {
        base_uri: webdav.origin,
        username: webdav.username,
        password: webdav.password,
        container: `${webdav.base}/${root}`,
        timeout: 10,
      },
    }),
  },
  {
    title: 'ftp_file (vsftpd): folders only',
    server: 'ftp',
    files: false,
    config: (root) => ({ type: 'ftp_file', config: { ...login(ftp), container: `${ftp.base}/${root}`, timeout: 10 } }),
  },
];

describe.each(backends)('two servers over one $title storage', async (backend) => {
  const reachable = backend.server === null || (await requireFileServer(backend.server));
  const name = `fleet_${randomBytes(3).toString('hex')}`;
  const root = `fleet-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    if (!reachable) return;
    const { type, config } = backend.config(root);
    // The same service on both servers: two handlers, two path locks, one storage.
    for (const member of [0, 1]) {
      const created = await on(member, 'POST', '/system/service', { resource: [{ name, label: name, type, config }] });
      expect(created.statusCode).toBe(201);
    }
    expect((await on(0, 'POST', `/${name}/race/`)).statusCode).toBe(201);
  });
  afterAll(async () => {
    if (reachable) await on(0, 'DELETE', `/${name}/?force=true`);
  });

  /** The two answers of a race: one 201 (its index returned), the other the 400 naming `shownPath`. */
  const oneCreated = (answers: { statusCode: number; json(): { error?: unknown } }[], shownPath: string, label: string) => {
    const winners = answers.flatMap((answer, member) => (answer.statusCode === 201 ? [member] : []));
    expect(winners).toHaveLength(1);
    expect(answers[1 - winners[0]].json().error).toEqual({ code: 400, message: `${label} '${shownPath}' already exists.` });
    return winners[0];
  };

  it.skipIf(!reachable || !backend.files)('lets one create-only write of a path succeed, the other is told it exists', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const file = `race/once-${round}.txt`;
      const bodies = [0, 1].map((member) => `${member}`.repeat(200_000));
      // Both looked, found nothing and wrote: both were 201, the later rename replacing the other's file.
      const answers = await Promise.all([0, 1].map((member) => on(member, 'PUT', `/${name}/${file}?check_exist=true`, bodies[member])));
      const winner = oneCreated(answers, file, 'File');
      expect((await on(0, 'GET', `/${name}/${file}`)).body).toBe(bodies[winner]);
    }
    // Nothing of the loser's upload remains.
    expect((await on(1, 'GET', `/${name}/race/`)).json().resource).toHaveLength(ROUNDS);
  });

  it.skipIf(!reachable)('lets one creation of a folder succeed, the other is told it exists', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const answers = await Promise.all([0, 1].map((member) => on(member, 'POST', `/${name}/race/folder-${round}/`)));
      oneCreated(answers, `race/folder-${round}/`, 'Folder');
    }
  });

  it.skipIf(!reachable || !backend.files)('lets one batch copy to a path succeed, the other is told it exists', async () => {
    const bodies = [0, 1].map((member) => `${member}`.repeat(200_000));
    for (const member of [0, 1])
      expect((await on(member, 'PUT', `/${name}/race/source-${member}.txt`, bodies[member])).statusCode).toBe(201);
    for (let round = 0; round < ROUNDS; round += 1) {
      const copy = (member: number) => ({
        resource: [{ type: 'file', source_path: `race/source-${member}.txt`, name: `copy-${round}.txt` }],
      });
      const answers = await Promise.all([0, 1].map((member) => on(member, 'POST', `/${name}/race/`, copy(member))));
      const items = answers.map((answer) => answer.json().resource[0]);
      const copied = items.flatMap((item, member) => (item.error === undefined ? [member] : []));
      expect(copied).toHaveLength(1);
      expect(items[1 - copied[0]].error).toEqual({ code: 400, message: `File 'race/copy-${round}.txt' already exists.` });
      expect((await on(0, 'GET', `/${name}/race/copy-${round}.txt`)).body).toBe(bodies[copied[0]]);
    }
  });
});
