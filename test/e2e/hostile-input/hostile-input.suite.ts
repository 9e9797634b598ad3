/**
 * The hostile-input black-box suite: several hundred generated hostile requests (hostile-cases.ts)
 * against one platform serving a database, run on SQLite, PostgreSQL and MariaDB by the
 * hostile-input.<dialect>.test.ts files. Every answer is below 500, errors are in the spec's
 * envelope, no driver or stack text leaks, and afterwards the sentinel rows, the tables and the
 * system database are exactly as before. Requests go through app.inject; what only Node's HTTP
 * parser sees (over-large headers, malformed request lines) goes to the same app on a real port.
 */
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiClient } from '../database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from '../database-api/database-targets.js';
import { hostileCases, type HostileCase } from './hostile-cases.js';

/** Text that must never reach a client: driver error names and phrases, stack frames, source paths. */
export const LEAKS: RegExp[] = [
  /SQLITE_/,
  /syntax error at/i,
  /\bER_[A-Z_]+/,
  /You have an error in your SQL syntax/,
  / at \//,
  /\.ts:\d/,
  /\.js:\d/,
  /node_modules/,
  /bind message/,
  /invalid byte sequence/,
  /Expression tree is too large/,
  /too many SQL variables/,
  /pattern too complex/,
  /bigint is too big/,
  /out of range for type/,
  /FST_ERR/,
  /\bat [A-Za-z.<>]+ \(/,
  /Cannot read propert/,
  /is not a function/,
  /undefined is not/,
];

const SENTINEL_FIELDS = [
  { name: 'id', type: 'id' },
  { name: 'name', type: 'string', length: 64, allow_null: true },
  { name: 'amount', type: 'integer', allow_null: true },
  { name: 'big', type: 'bigint', allow_null: true },
  { name: 'price', type: 'decimal', precision: 10, scale: 2, allow_null: true },
  { name: 'ratio', type: 'float', allow_null: true },
  { name: 'flag', type: 'boolean', allow_null: true },
  { name: 'born', type: 'date', allow_null: true },
  { name: 'stamp', type: 'datetime', allow_null: true },
  { name: 'note', type: 'text', allow_null: true },
];

const SENTINEL_ROWS = [
  {
    name: 'alpha',
    amount: 1,
    big: 9007199254740991,
    price: 12.5,
    ratio: 0.25,
    flag: true,
    born: '2000-01-02',
    stamp: '2020-03-04 05:06:07',
    note: "it's 'quoted' \\ and %_",
  },
  {
    name: 'beta',
    amount: -2147483648,
    big: -9007199254740991,
    price: 99999999.99,
    ratio: -1.5,
    flag: false,
    born: '1970-01-01',
    stamp: '1999-12-31 23:59:59',
    note: 'ünïcødé 💥',
  },
  { name: 'gamma', amount: 2147483647, big: 0, price: 0, ratio: 0, flag: null, born: null, stamp: null, note: null },
];

async function createTables(api: ApiClient): Promise<void> {
  const created = await api.call('POST', '_schema', {
    resource: [
      { name: 'sentinel', field: SENTINEL_FIELDS },
      { name: 'scratch', field: SENTINEL_FIELDS },
      {
        name: 'sentinel_child',
        field: [
          { name: 'id', type: 'id' },
          { name: 'sentinel_id', type: 'reference', ref_table: 'sentinel', ref_field: 'id', allow_null: true },
          { name: 'label', type: 'string', length: 32, allow_null: true },
        ],
      },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const loaded = await api.call('POST', '_table/sentinel', { resource: SENTINEL_ROWS });
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  const children = await api.call('POST', '_table/sentinel_child', {
    resource: [
      { sentinel_id: 1, label: 'one' },
      { sentinel_id: 2, label: 'two' },
    ],
  });
  expect(children.status, JSON.stringify(children.body)).toBe(200);
}

/** Everything that must survive: the sentinel tables as the database holds them, the table list, every system table. */
async function snapshot(target: DatabaseTarget, api: ApiClient): Promise<string> {
  const system = api.server.app.portico.db;
  const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(system)).rows.map(
    (r) => r.name,
  );
  const systemRows: Record<string, unknown[]> = {};
  // Use of apps, roles and users (/system/access_usage) is noted by design, hostile or not.
  for (const table of tables.filter((name) => name !== 'access_usage')) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(system)).rows;
    // A successful login stamps the administrator's last login; nothing else may change.
    systemRows[table] = rows
      .map(({ last_login_date: _stamp, ...rest }) => rest)
      .map((row) => JSON.stringify(row))
      .sort();
  }
  const data = {
    sentinel: await target.query('select * from sentinel order by id'),
    child: await target.query('select * from sentinel_child order by id'),
    tables: (await api.get('_table')).body,
    schema: (await api.get('_schema/sentinel')).body,
    systemRows,
  };
  return JSON.stringify(data, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
}

interface Answer {
  status: number;
  text: string;
}

/** Checks what every answer must satisfy; returns a description of what is wrong, or null. */
function judge(c: HostileCase, answer: Answer): string | null {
  if (answer.status >= 500 && !(c.expect ?? []).includes(answer.status)) return `status ${answer.status}`;
  if (c.expect !== undefined && !c.expect.includes(answer.status)) return `status ${answer.status}, expected ${c.expect.join('/')}`;
  const leak = LEAKS.find((pattern) => pattern.test(answer.text));
  if (leak !== undefined) return `leaks ${leak}`;
  if (answer.status >= 400) {
    let body: any;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return 'error body is not JSON';
    }
    const error = body?.error;
    if (
      error === null ||
      typeof error !== 'object' ||
      error.code !== answer.status ||
      typeof error.message !== 'string' ||
      error.message === ''
    ) {
      return 'error body is not {"error":{"code","message"}} with code = status';
    }
  }
  return null;
}

async function send(api: ApiClient, headers: Record<string, string>, c: HostileCase): Promise<Answer> {
  const sent: Record<string, string> = { ...(c.anonymous ? {} : headers), ...(c.headers ?? {}) };
  let payload: string | Buffer | undefined;
  if (c.raw !== undefined) payload = c.raw;
  else if (c.body !== undefined) payload = JSON.stringify(c.body);
  if (payload !== undefined) sent['content-type'] = c.contentType ?? 'application/json';
  const response = await api.server.app.inject({ method: c.method, url: c.url, headers: sent, payload });
  return { status: response.statusCode, text: response.body };
}

/** One raw HTTP/1.1 exchange on a socket: what Node's parser answers before Fastify sees anything. */
function rawExchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      const split = data.indexOf('\r\n\r\n');
      resolve({ status, text: split === -1 ? '' : data.slice(split + 4) });
    });
    socket.write(request);
    socket.setTimeout(5000, () => socket.destroy());
  });
}

export function defineHostileInputSuite(kind: TargetKind): void {
  let target: DatabaseTarget;
  let api: ApiClient;
  let headers: Record<string, string>;
  let before: string;
  const cases = hostileCases();
  const categories = [...new Set(cases.map((c) => c.category))];

  beforeAll(async () => {
    target = await openDatabaseTarget(kind);
    api = await startApi(target);
    headers = { 'x-service-api-key': api.server.apiKey, 'x-service-session-token': await api.server.adminToken() };
    await createTables(api);
    before = await snapshot(target, api);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  it(`has several hundred cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThan(500);
  });

  // One test per category; its failures list every case that went wrong, not only the first.
  describe.each(categories)('%s', (category) => {
    it('never answers 5xx, keeps the error envelope and leaks no driver or stack text', async () => {
      const failures: string[] = [];
      for (const c of cases.filter((x) => x.category === category)) {
        const answer = await send(api, headers, c);
        const wrong = judge(c, answer);
        if (wrong !== null) failures.push(`${c.name}: ${wrong}: ${answer.text.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });
  });

  describe('on a real socket (Node parses before Fastify)', () => {
    let port: number;
    beforeAll(async () => {
      await api.server.app.listen({ port: 0, host: '127.0.0.1' });
      port = (api.server.app.server.address() as net.AddressInfo).port;
    });

    it.each([
      ['headers beyond the limit', `GET /api/v2/db/_table/sentinel HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`, [431]],
      ['a URL beyond the header limit', `GET /api/v2/db/_table/sentinel?filter=${'a'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`, [431]],
      ['a malformed request line', 'GARBAGE\r\n\r\n', [400]],
      ['a bad header line', 'GET /api/v2 HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', [400]],
      ['a bad content-length', 'POST /api/v2/db/_table/scratch HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', [400]],
      ['bad percent-encoding', 'GET /api/v2/system/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [400]],
      ['a long path parameter', `GET /api/v2/${'s'.repeat(5000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, [414]],
      ['no Host header on HTTP/1.1', 'GET /api/v2/db/_table/sentinel HTTP/1.1\r\nConnection: close\r\n\r\n', [400]],
      [
        'an Expect other than 100-continue',
        'POST /api/v2/db/_table/scratch HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
        [417],
      ],
      ['a CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', [405]],
      ['a CONNECT to a path', 'CONNECT /api/v2/db/_table/sentinel HTTP/1.1\r\nHost: x\r\n\r\n', [405]],
    ] as Array<[string, string, number[]]>)('%s: answered in the error envelope', async (name, request, statuses) => {
      const answer = await rawExchange(port, request);
      expect(judge({ category: 'socket', name, method: 'GET', url: '', expect: statuses }, answer), answer.text.slice(0, 300)).toBeNull();
    });

    it('gives up on a request whose body never completes (Node answers 408, in the envelope)', () => {
      // Fastify's default is 0, no limit: a Content-Length larger than the body held the socket open for good.
      expect(api.server.app.server.requestTimeout).toBeGreaterThan(0);
    });

    it('serves an absolute-form request target (RFC 9112 3.2.2) as its origin form', async () => {
      const credentials = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const exchange = (target: string) =>
        rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n${credentials}Connection: close\r\n\r\n`);
      const origin = await exchange('/api/v2/db/_table/sentinel?fields=name&order=id');
      expect(origin.status).toBe(200);
      for (const target of [
        `http://x/api/v2/db/_table/sentinel?fields=name&order=id`,
        `https://x:1/api/v2/db/_table/sentinel?fields=name&order=id`,
      ]) {
        const absolute = await exchange(target);
        expect({ status: absolute.status, text: absolute.text }, target).toEqual({ status: 200, text: origin.text });
      }
    });
  });

  it('creates a record from {} with every column at its default (MySQL included)', async () => {
    const created = await api.call('POST', '_table/scratch?fields=*', { resource: [{}] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.resource[0]).toMatchObject({ name: null, amount: null, note: null });
    // A hostile case wrote id 2^53 + 1 into SQLite's 64-bit key: the keys after it are exact, as text.
    const { id } = created.body.resource[0];
    expect(typeof id === 'number' ? Number.isSafeInteger(id) : /^\d{16,19}$/.test(id), String(id)).toBe(true);
    expect((await api.get(`_table/scratch/${id}`, { fields: 'id' })).body).toEqual({ id });
  });

  it('validates the login duration: whole minutes up to a year', async () => {
    const login = (duration: unknown) =>
      api.server.app.inject({
        method: 'POST',
        url: '/api/v2/system/admin/session',
        headers: { 'x-service-api-key': api.server.apiKey },
        payload: { email: 'admin@test.local', password: 'admin-password-12345', duration },
      });
    const absurd = await login(1e20);
    expect(absurd.statusCode).toBe(400);
    expect(absurd.json()).toEqual({
      error: { code: 400, message: "Field 'duration' must be a whole number of minutes from 0 to 525600.", context: { field: 'duration' } },
    });
    const year = await login(525600);
    expect(year.statusCode).toBe(200);
    const days = (Date.parse(`${year.json().token_expiry_date.replace(' ', 'T')}Z`) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(365);
  });

  it('leaves the sentinel rows, the tables and the system database as they were', async () => {
    expect(JSON.parse(await snapshot(target, api))).toEqual(JSON.parse(before));
  });
}
