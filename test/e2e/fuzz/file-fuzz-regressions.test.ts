/**
 * The counterexamples file-api-fuzz.test.ts found, each as the smallest sequence that showed it,
 * on the local, FTP, SFTP and WebDAV services of file-fuzz-harness.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FileStep, zipBytes } from './file-grammar.js';
import { FILE_KINDS, FileFuzzServers, fileServersUp, judgeFile } from './file-fuzz-harness.js';

const step = (method: FileStep['method'], sent: string, extra: Partial<FileStep> = {}): FileStep => ({
  method,
  path: sent,
  query: [],
  headers: {},
  label: 'regression',
  ...extra,
});

describe.skipIf(!(await fileServersUp()))('file-service fuzz counterexamples', () => {
  let servers: FileFuzzServers;

  beforeAll(async () => {
    servers = await FileFuzzServers.open();
  }, 120_000);
  beforeEach(async () => {
    for (const kind of FILE_KINDS) await servers.empty(kind);
  });
  afterAll(async () => {
    await servers?.close();
  });

  it('a path under a folder that does not exist is a 404 on SFTP as on the others, not a refused escape', async () => {
    // SFTP answered 400 "path escapes the storage root": its client reads a missing path's real path as ''.
    for (const kind of FILE_KINDS) {
      for (const [method, sent, message] of [
        ['GET', 'none/deeper/a.txt', "The specified file 'none/deeper/a.txt' was not found in storage."],
        ['GET', 'none/deeper/', "Folder 'none/deeper/' does not exist in storage."],
        ['DELETE', 'none/deeper/a.txt', "File 'none/deeper/a.txt' was not found."],
        ['DELETE', 'none/deeper/', "Folder 'none/deeper/' does not exist."],
      ] as const) {
        const answer = await servers.send(kind, step(method, sent));
        expect(judgeFile(answer, '', method), `${kind} ${method} ${sent}`).toBeNull();
        expect(JSON.parse(answer.text), `${kind} ${method} ${sent}`).toEqual({ error: { code: 404, message } });
      }
      const created = await servers.send(kind, step('POST', 'none/deeper/'));
      expect([kind, created.status, created.text]).toEqual([kind, 201, JSON.stringify({ name: 'deeper', path: 'none/deeper/' })]);
      expect(await servers.state(kind), kind).toEqual(['none/', 'none/deeper/']);
    }
  });

  it('never makes folders through a link on the server out of the root, however deep the missing part', async () => {
    // rclone leaves links out of WebDAV altogether; OpenSSH and vsftpd follow them, local storage resolves them.
    for (const kind of ['local', 'ftp', 'sftp'] as const) {
      const root = path.join(servers.sandbox[kind], 'root');
      const outside = path.join(servers.sandbox[kind], 'outside');
      fs.mkdirSync(outside, { recursive: true });
      // Writable by the servers' account, as the root is: only the service's own checks keep it out.
      const owner = fs.statSync(root);
      try {
        fs.chownSync(outside, owner.uid, owner.gid);
      } catch {
        // Not root: the servers cannot write there at all, and the test shows less.
      }
      fs.symlinkSync(outside, path.join(root, 'out'));
      try {
        for (const [method, sent, extra] of [
          ['POST', 'out/new/', {}],
          ['POST', 'out/new/deeper/', {}],
          ['POST', 'out/new/deeper/deepest/', {}],
          ['POST', 'out/', { headers: { 'x-folder-name': 'new' } }],
          ['PUT', 'out/new/a.txt', { body: 'x' }],
          [
            'POST',
            '',
            { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resource: [{ name: 'out', type: 'folder' }] }) },
          ],
        ] as const) {
          const answer = await servers.send(kind, step(method, sent, extra as Partial<FileStep>));
          expect(fs.readdirSync(outside), `${kind} ${method} ${sent}`).toEqual([]);
          expect(judgeFile(answer, '', method), `${kind} ${method} ${sent}: ${answer.text}`).toBeNull();
          // A resource list answers 201 with the item's error.
          const refused = answer.status >= 400 || JSON.parse(answer.text).resource?.every((item: { error?: unknown }) => item.error);
          expect(refused, `${kind} ${method} ${sent}: ${answer.text}`).toBe(true);
          expect(fs.readdirSync(outside), `${kind} ${method} ${sent}`).toEqual([]);
        }
      } finally {
        fs.rmSync(path.join(root, 'out'));
        fs.rmSync(outside, { recursive: true, force: true });
      }
    }
  });

  it('a zip that names one path as a file and as a folder, or a folder where a file is, is a 400 that changes nothing', async () => {
    // Local storage answered 500 (EEXIST, EISDIR), the remote ones 502.
    const archives: Array<[string, Array<[string, string]>, string]> = [
      [
        'same name as file and folder',
        [
          ['f.txt', 'file'],
          ['f.txt/', ''],
        ],
        "Cannot extract zip entry 'f.txt/': 'docs/f.txt' is a file in the archive.",
      ],
      [
        'folder then file',
        [
          ['g/', ''],
          ['g', 'file'],
        ],
        "Cannot extract zip entry 'g': 'docs/g' is a folder in the archive.",
      ],
      [
        'a file below a file',
        [
          ['h.txt', 'h'],
          ['h.txt/in.txt', 'in'],
        ],
        "Cannot extract zip entry 'h.txt/in.txt': 'docs/h.txt' is a file in the archive.",
      ],
      [
        'a folder where a file is stored',
        [
          ['new.txt', 'n'],
          ['b.txt/', ''],
        ],
        "Cannot extract zip entry 'b.txt/': 'docs/b.txt' is a file.",
      ],
      ['a file below a stored file', [['b.txt/in.txt', 'in']], "Cannot extract zip entry 'b.txt/in.txt': 'docs/b.txt' is a file."],
      [
        'a file where a folder is stored',
        [
          ['new.txt', 'n'],
          ['sub', 'file'],
        ],
        "Cannot extract zip entry 'sub': 'docs/sub' is a folder.",
      ],
    ];
    for (const kind of FILE_KINDS) {
      await servers.send(kind, step('POST', 'docs/'));
      await servers.send(kind, step('POST', 'docs/sub/'));
      await servers.send(kind, step('PUT', 'docs/b.txt', { body: 'bee' }));
      const before = await servers.state(kind);
      for (const [what, entries, message] of archives) {
        // `clean` empties the folder first: only what the archive itself holds can clash then.
        const queries: Array<Array<[string, string]>> = message.endsWith('in the archive.') ? [[], [['clean', 'true']]] : [[]];
        for (const query of queries) {
          const answer = await servers.send(
            kind,
            step('POST', 'docs/', {
              query: [['extract', 'true'], ...query],
              headers: { 'x-file-name': 'z.zip', 'content-type': 'application/zip' },
              body: await zipBytes(entries),
            }),
          );
          expect(JSON.parse(answer.text), `${kind}: ${what} ${query}`).toEqual({ error: { code: 400, message } });
          expect(await servers.state(kind), `${kind}: ${what} ${query}`).toEqual(before);
        }
      }
    }
  });

  it('a folder below a file is a 400 on every back-end, and nothing is made', async () => {
    // Local storage answered 500 (ENOTDIR from mkdir); the message names the file in the way.
    for (const kind of FILE_KINDS) {
      await servers.send(kind, step('PUT', 'a.txt', { body: 'a' }));
      const before = await servers.state(kind);
      for (const [method, sent, extra] of [
        ['PUT', 'a.txt/Docs/A.TXT/', {}],
        ['POST', 'a.txt/sub/', {}],
        ['POST', 'a.txt/', { headers: { 'x-folder-name': 'sub' } }],
      ] as const) {
        const answer = await servers.send(kind, step(method, sent, extra as Partial<FileStep>));
        expect(JSON.parse(answer.text), `${kind} ${method} ${sent}`).toEqual({
          error: {
            code: 400,
            message:
              sent === 'a.txt/'
                ? "'a.txt' is a file, not a folder: request it without a trailing slash."
                : "'a.txt' is a file: a folder cannot be created below it.",
          },
        });
        expect(await servers.state(kind), `${kind} ${method} ${sent}`).toEqual(before);
      }
    }
  });

  it('a name in a body that is not a string, or not well-formed unicode, is a clear 400 on every back-end', async () => {
    // A name {} was refused as '[object Object]'; a lone surrogate was a 502 on WebDAV (its client could not encode it) and stored as U+FFFD elsewhere.
    for (const kind of FILE_KINDS) {
      const deleted = await servers.send(
        kind,
        step('DELETE', '', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resource: [{ name: {} }] }) }),
      );
      expect(JSON.parse(deleted.text), kind).toEqual({
        error: { code: 400, message: 'Invalid name: a file or folder name is expected.', context: { field: 'name' } },
      });
      const created = await servers.send(
        kind,
        step('POST', '', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ resource: [{ name: '\ud800', content: 'x' }] }),
        }),
      );
      expect(JSON.parse(created.text), kind).toEqual({
        resource: [{ name: '\ud800', type: 'file', error: { code: 400, message: "Invalid name: '\ufffd' is not a file or folder name." } }],
      });
      expect(await servers.state(kind), kind).toEqual([]);
    }
  });
});
