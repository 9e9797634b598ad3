/**
 * The requests file-api-fuzz.test.ts sends to a file service: folders and files created in every
 * form (raw body, X-File-Name / X-Folder-Name, JSON resource lists with text or base64 content,
 * multipart forms, zip extraction), listings with their flags, reads (ranges, properties, content,
 * downloads), deletes (files, folders, `force`, lists), copies and moves; with names and paths a
 * client may send to do harm or by mistake: dot segments as sent or encoded, encoded separators,
 * backslashes, absolute paths, NUL, names too long, unicode (NFC and NFD, emoji, RTL), spaces and
 * dots at the ends, names differing only in case, reserved names, bodies malformed or of the wrong
 * types, declared lengths far beyond the body.
 */
import fc from 'fast-check';
import yazl from 'yazl';

/** One request, the part after /api/v2/{service}/ already encoded as the client sends it. */
export interface FileStep {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Path under the service, as put on the wire (percent-encoded where the generator chose). */
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** What the step does, for reports. */
  label: string;
}

/** Names an ordinary client uses: a few, so that later steps meet what earlier ones made. */
const PLAIN = ['a.txt', 'b.txt', 'docs', 'Docs', 'A.TXT', 'sub dir', 'x.json', 'z.zip'];

/** Names a client may send by mistake or to do harm, as the name itself (encoded when sent). */
export const HOSTILE_NAMES = [
  '..',
  '.',
  '',
  '...',
  '%2e%2e',
  '..%2f',
  'a/b',
  '/etc',
  'a\\b',
  '\\',
  '..\\..\\x',
  'nul\u0000.txt',
  'tab\tx',
  'line\nx',
  'n'.repeat(255),
  'n'.repeat(256),
  'é'.repeat(127),
  'é'.repeat(128),
  'caf\u00e9',
  'cafe\u0301',
  '😀.txt',
  '\u202Etxt.exe',
  ' lead',
  'trail ',
  'trail.',
  'trail..',
  'CON',
  'nul.txt',
  'c:x',
  '~',
  '-rf',
  '.hidden',
  '#frag',
  '?q=1',
  'a;b',
  "it's",
  '"q"',
  '<>|*',
  '\uFFFD',
  '\uD800',
  '.portico-upload-0000000000-a.txt',
  '%',
  '%zz',
  '+plus',
];

/** Path segments sent as they are (not encoded): dot forms, encoded separators and bytes, odd encodings. */
const RAW_SEGMENTS = [
  '..',
  '.',
  '',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e',
  '..%2f..%2fetc',
  '%2f',
  'a%2fb',
  '%5c',
  '..%5c..%5cx',
  '%00',
  'a%00b',
  '%252e%252e',
  '%c0%ae%c0%ae',
  '%ff',
  '%',
  '%zz',
  'a;b',
  '%3f',
  '%23',
  '~',
  'caf%C3%A9',
  'cafe%CC%81',
];

export const name = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PLAIN) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NAMES) },
);

/** encodeURIComponent, but a lone surrogate goes as its (invalid) UTF-8 bytes instead of throwing. */
export function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text]
      .map((ch) => {
        const code = ch.charCodeAt(0);
        if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff)
          return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('');
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

/** One segment as sent: a name encoded, or a raw segment. */
const segment = fc.oneof({ weight: 4, arbitrary: name.map(encode) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) });

/** A folder path as sent (no leading or trailing slash; '' is the root), mostly shallow. */
const folderPath = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('', 'docs', 'Docs', 'docs/sub%20dir', 'docs/caf%C3%A9') },
  { weight: 3, arbitrary: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')) },
  // Deep paths: past the 3072 bytes a path may have, and just within.
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 10, max: 14 })
      .map((n) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i).repeat(250)).join('/')),
  },
  // Absolute and doubled slashes.
  { weight: 1, arbitrary: fc.constantFrom('/etc', '/docs', 'docs//sub', '/', '//', 'docs/./sub', 'docs/../..') },
);
const filePath = fc.tuple(folderPath, segment).map(([f, s]) => (f === '' ? s : `${f}/${s}`));

const content = fc.oneof(fc.constantFrom('', 'hello', 'hello world\n', '{"a":1}', 'x'.repeat(1001)), fc.string({ maxLength: 40 }));

/** A name in a body or header: a string mostly, or a value of the wrong type. */
const bodyName = fc.oneof(
  { weight: 6, arbitrary: name },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1, true, [], {}, ['a.txt']) },
);
/** A path in a body: from the root, with a leading slash, or hostile. */
const bodyPath = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('', 'docs/', 'Docs/', '/docs/', '/'), name).map(([f, n]) => `${f}${n}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      '../a.txt',
      'docs/../../a.txt',
      '/etc/passwd',
      'docs\\..\\a.txt',
      'docs//a.txt',
      '',
      '/',
      null,
      3,
      {},
    ),
  },
);

const bool = fc.constantFrom('true', 'false', '1', '0', 'yes', '', 'maybe');

/** Query pairs of listings: the flags, odd values, repeated, and paths where a value goes. */
const listQuery = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom('include_folders', 'include_files', 'full_tree', 'as_list', 'include_properties', 'zip'), bool),
    fc.tuple(
      fc.constantFrom('fields', 'id_field', 'search'),
      fc.constantFrom('path', 'name,type', '*', 'content_length', '__proto__', '', '../', '%'),
    ),
    fc.tuple(fc.constantFrom('path', 'file', '../x'), fc.constantFrom('../../etc', '/etc/passwd', 'a.txt')),
  ),
  { maxLength: 3 },
);

const RANGES = [
  'bytes=0-0',
  'bytes=1-',
  'bytes=-2',
  'bytes=0-999999999999',
  'bytes=5-1',
  'bytes=99-',
  'bytes=0-1,3-4',
  'bytes=-0',
  'bytes=x-y',
  'items=0-1',
  'bytes=00-01',
];

/**
 * A zip whose entries may be named to leave the folder: yazl refuses `..`, absolute and drive
 * names, so a stand-in of the same length is written and the name patched in afterwards.
 */
export async function zipBytes(entries: Array<[string, string]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const patches: Array<[Buffer, Buffer]> = [];
  entries.forEach(([entry, text], i) => {
    let written = entry;
    if (/(^|\/)\.\.(\/|$)|^\/|^[a-zA-Z]:|\\/.test(entry)) {
      written = `p${i}`.padEnd(entry.length, 'q');
      patches.push([Buffer.from(written), Buffer.from(entry)]);
    }
    if (written.endsWith('/')) zip.addEmptyDirectory(written);
    else zip.addBuffer(Buffer.from(text), written, { compress: false });
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  for (const [from, to] of patches) for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
  return bytes;
}

const ZIPS: Array<Array<[string, string]>> = [
  [
    ['in.txt', 'in'],
    ['d/', ''],
    ['d/deep.txt', 'deep'],
  ],
  [
    ['../evil.txt', 'evil'],
    ['ok.txt', 'ok'],
  ],
  [['/abs.txt', 'abs']],
  [['d/../../up.txt', 'up']],
  [['a\\..\\..\\w.txt', 'w']],
  [['.portico-upload-1234567890-x', 'hidden']],
  [
    ['dup.txt', 'one'],
    ['dup.txt', 'two'],
  ],
  [
    ['f.txt', 'file'],
    ['f.txt/', ''],
  ],
];

/** A multipart/form-data body; names as given (quotes and CR/LF left in: a hostile client sends them). */
function multipart(files: Array<{ name: string; content: string }>): { body: Buffer; type: string } {
  const boundary = '----porticofuzz';
  const parts = files.map(
    (f) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${f.name}"\r\nContent-Type: text/plain\r\n\r\n${f.content}\r\n`,
  );
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
}

const json = (value: unknown) => JSON.stringify(value);
const checkExist = fc.constantFrom<Array<[string, string]>>([], [], [['check_exist', 'true']], [['check_exist', 'false']]);

/** A header value that HTTP can carry (Latin-1 without CR/LF): names beyond it are sent percent-encoded, as a client would have to. */
const headerValue = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? value : encode(value));

export const fileStep: fc.Arbitrary<FileStep> = fc.oneof(
  // Folders.
  fc
    .tuple(fc.constantFrom<'POST' | 'PUT'>('POST', 'PUT'), folderPath)
    .map(([method, path]) => ({ method, path: `${path}/`, query: [], headers: {}, label: 'create folder' })),
  fc.tuple(folderPath, name).map(([path, n]) => ({
    method: 'POST' as const,
    path: `${path}/`,
    query: [],
    headers: { 'x-folder-name': headerValue(n) },
    label: 'create folder (X-Folder-Name)',
  })),
  // Files from a raw body, by URL or header.
  fc.tuple(fc.constantFrom<'POST' | 'PUT'>('POST', 'PUT'), filePath, content, checkExist).map(([method, path, body, query]) => ({
    method,
    path,
    query,
    headers: { 'content-type': 'text/plain' },
    body,
    label: 'write file (raw body)',
  })),
  fc.tuple(folderPath, name, content, checkExist).map(([path, n, body, query]) => ({
    method: 'POST' as const,
    path: `${path}/`,
    query,
    headers: { 'x-file-name': headerValue(n), 'content-type': 'application/octet-stream' },
    body,
    label: 'write file (X-File-Name)',
  })),
  // JSON resource lists: files with text or base64 content, folders, wrong types.
  fc
    .tuple(
      folderPath,
      fc.array(
        fc.record(
          {
            name: bodyName,
            type: fc.constantFrom<unknown>('file', 'folder', undefined, 'link', 1),
            content: fc.oneof(content, fc.constantFrom<unknown>('aGVsbG8=', '!!notbase64', null, 42, {})),
            is_base64: fc.constantFrom<unknown>(true, false, 'true', undefined, 'x'),
          },
          { requiredKeys: ['name'] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
      checkExist,
    )
    .map(([path, resource, query]) => ({
      method: 'POST' as const,
      path: `${path}/`,
      query,
      headers: { 'content-type': 'application/json' },
      body: json({ resource }),
      label: 'create (JSON resource)',
    })),
  // Multipart uploads into a folder, or to one file.
  fc.tuple(folderPath, fc.array(fc.record({ name, content }), { minLength: 1, maxLength: 3 })).map(([path, files]) => {
    const form = multipart(files);
    return {
      method: 'POST' as const,
      path: `${path}/`,
      query: [],
      headers: { 'content-type': form.type },
      body: form.body,
      label: 'upload (multipart into folder)',
    };
  }),
  fc.tuple(filePath, fc.array(fc.record({ name, content }), { minLength: 0, maxLength: 2 })).map(([path, files]) => {
    const form = multipart(files);
    return {
      method: 'PUT' as const,
      path,
      query: [],
      headers: { 'content-type': form.type },
      body: form.body,
      label: 'upload (multipart to file)',
    };
  }),
  // Zip extraction, the archive's names hostile at times.
  fc
    .tuple(folderPath, fc.constantFrom(...ZIPS.keys()), fc.constantFrom<Array<[string, string]>>([], [['clean', 'true']]))
    .map(([path, zip, query]) => ({
      method: 'POST' as const,
      path: `${path}/`,
      query: [['extract', 'true'], ...query] as Array<[string, string]>,
      headers: { 'x-file-name': 'z.zip', 'content-type': 'application/zip' },
      body: `zip:${zip}`,
      label: 'extract zip',
    })),
  // Listings and folder properties.
  fc
    .tuple(folderPath, listQuery)
    .map(([path, query]) => ({ method: 'GET' as const, path: `${path}/`, query, headers: {}, label: 'list folder' })),
  // Reads.
  fc
    .tuple(
      filePath,
      fc.option(fc.constantFrom(...RANGES), { nil: undefined }),
      fc.constantFrom<Array<[string, string]>>(
        [],
        [['download', 'true']],
        [['include_properties', 'true']],
        [
          ['include_properties', 'true'],
          ['content', 'true'],
        ],
        [
          ['include_properties', 'true'],
          ['content', 'true'],
          ['is_base64', 'false'],
        ],
      ),
    )
    .map(([path, range, query]) => ({
      method: 'GET' as const,
      path,
      query,
      headers: (range === undefined ? {} : { range }) as Record<string, string>,
      label: 'read file',
    })),
  // Deletes.
  filePath.map((path) => ({ method: 'DELETE' as const, path, query: [], headers: {}, label: 'delete file' })),
  fc
    .tuple(
      folderPath,
      fc.constantFrom<Array<[string, string]>>(
        [],
        [['force', 'true']],
        [
          ['force', 'true'],
          ['content_only', 'true'],
        ],
      ),
    )
    .map(([path, query]) => ({
      method: 'DELETE' as const,
      path: `${path}/`,
      query,
      headers: {},
      label: 'delete folder',
    })),
  fc
    .tuple(
      folderPath,
      fc.array(
        fc.oneof(fc.record({ path: bodyPath }), fc.record({ name: bodyName, type: fc.constantFrom<unknown>('file', 'folder', undefined) })),
        { minLength: 1, maxLength: 3 },
      ),
      fc.boolean(),
    )
    .map(([path, resource, force]) => ({
      method: 'DELETE' as const,
      path: `${path}/`,
      query: (force ? [['force', 'true']] : []) as Array<[string, string]>,
      headers: { 'content-type': 'application/json' },
      body: json({ resource }),
      label: 'delete list',
    })),
  // Copies and moves.
  fc
    .tuple(
      folderPath,
      bodyPath,
      fc.option(bodyName, { nil: undefined }),
      fc.constantFrom<unknown>('file', 'folder'),
      fc.constantFrom<unknown>(undefined, true),
    )
    .map(([path, source, n, type, move]) => ({
      method: 'POST' as const,
      path: `${path}/`,
      query: [],
      headers: { 'content-type': 'application/json' },
      body: json({
        resource: [
          { source_path: source, ...(n === undefined ? {} : { name: n }), type, ...(move === undefined ? {} : { delete_source: move }) },
        ],
      }),
      label: 'copy or move',
    })),
  // Malformed bodies and wrong verbs.
  fc
    .tuple(
      folderPath,
      fc.constantFrom(
        '{',
        'null',
        '[1]',
        '"text"',
        '{"resource":{}}',
        '{"resource":[null]}',
        '{"resource":[[]]}',
        '{"url":5}',
        '{"url":"file:///etc/passwd"}',
        '{"url":"http://127.0.0.1:1/x.txt"}',
        '{"resource":"a"}',
        '\u0000',
      ),
    )
    .map(([path, body]) => ({
      method: 'POST' as const,
      path: `${path}/`,
      query: [],
      headers: { 'content-type': 'application/json' },
      body,
      label: 'malformed JSON',
    })),
  fc.tuple(filePath, fc.constantFrom('999999999999', '9007199254740993')).map(([path, length]) => ({
    method: 'POST' as const,
    path,
    query: [],
    headers: { 'content-type': 'text/plain', 'x-declared-length': length },
    body: 'short',
    label: 'declared length beyond the body',
  })),
  fc
    .tuple(
      fc.constantFrom('PATCH' as const),
      fc.oneof(
        filePath,
        folderPath.map((p) => `${p}/`),
      ),
    )
    .map(([method, path]) => ({ method, path, query: [], headers: {}, label: 'patch' })),
);

export { ZIPS };

/**
 * One name through the whole API: made in one of the ways (a file or a folder), read, listed, its
 * properties, copied, moved and deleted; so that a name a back-end takes is also met by every
 * operation after (single random steps seldom name the same odd thing twice).
 */
export const roundTrip: fc.Arbitrary<FileStep[]> = fc
  .tuple(
    fc.constantFrom(...HOSTILE_NAMES, ...PLAIN),
    fc.constantFrom('', 'docs/'),
    fc.constantFrom('raw', 'header', 'json', 'multipart', 'folder'),
    fc.boolean(),
  )
  .map(([n, folder, how, move]) => {
    const sentFolder = folder.split('/').map(encode).join('/');
    const sent = `${sentFolder}${encode(n)}`;
    const made: FileStep =
      how === 'raw'
        ? {
            method: 'PUT',
            path: sent,
            query: [],
            headers: { 'content-type': 'text/plain' },
            body: 'round',
            label: 'round trip: write (raw)',
          }
        : how === 'header'
          ? {
              method: 'POST',
              path: sentFolder,
              query: [],
              headers: { 'x-file-name': headerValue(n) },
              body: 'round',
              label: 'round trip: write (X-File-Name)',
            }
          : how === 'json'
            ? {
                method: 'POST',
                path: sentFolder,
                query: [],
                headers: { 'content-type': 'application/json' },
                body: json({ resource: [{ name: n, type: 'file', content: 'round' }] }),
                label: 'round trip: write (JSON)',
              }
            : how === 'multipart'
              ? (() => {
                  const form = multipart([{ name: n, content: 'round' }]);
                  return {
                    method: 'POST',
                    path: sentFolder,
                    query: [],
                    headers: { 'content-type': form.type },
                    body: form.body,
                    label: 'round trip: upload',
                  } as FileStep;
                })()
              : { method: 'POST', path: `${sent}/`, query: [], headers: {}, label: 'round trip: create folder' };
    const isFolder = how === 'folder';
    const target = isFolder ? `${sent}/` : sent;
    const steps: FileStep[] = [
      made,
      { method: 'GET', path: target, query: [], headers: {}, label: 'round trip: read' },
      { method: 'GET', path: target, query: [['include_properties', 'true']], headers: {}, label: 'round trip: properties' },
      { method: 'GET', path: sentFolder, query: [['full_tree', 'true']], headers: {}, label: 'round trip: list' },
      { method: 'GET', path: '', query: [['zip', 'true']], headers: {}, label: 'round trip: zip' },
      {
        method: 'POST',
        path: 'docs/sub%20dir/',
        query: [],
        headers: { 'content-type': 'application/json' },
        body: json({
          resource: [
            {
              source_path: `${folder}${n}${isFolder ? '/' : ''}`,
              type: isFolder ? 'folder' : 'file',
              ...(move ? { delete_source: true } : {}),
            },
          ],
        }),
        label: move ? 'round trip: move' : 'round trip: copy',
      },
      { method: 'GET', path: 'docs/sub%20dir/', query: [['as_list', 'true']], headers: {}, label: 'round trip: list copy' },
      {
        method: 'DELETE',
        path: `docs/sub%20dir/${encode(n)}${isFolder ? '/' : ''}`,
        query: isFolder ? [['force', 'true']] : [],
        headers: {},
        label: 'round trip: delete copy',
      },
      { method: 'DELETE', path: target, query: [], headers: {}, label: 'round trip: delete' },
    ];
    return steps;
  });
