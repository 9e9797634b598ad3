/**
 * The databases the data-API fuzz test and its regression tests run against: the same schema and
 * seed rows on SQLite, PostgreSQL and MariaDB behind one server each, raw requests to them, the
 * reset of the scratch table between write sequences, and what every answer must be (judge).
 */
import { expect } from 'vitest';
import { startApi, type ApiClient } from '../database-api/api-client.js';
import { openDatabaseTarget, type DatabaseTarget, type TargetKind } from '../database-api/database-targets.js';
import { LEAKS } from '../hostile-input/hostile-input.suite.js';
import { SHAPE_FIELDS, SHAPE_ROWS, VALUE_FIELDS, type QueryPairs } from './data-api-grammar.js';

export const KINDS: TargetKind[] = ['sqlite', 'postgres', 'mysql'];

/** The tables of SCHEMA: schema writes leave them alone (resetShape drops every other). */
const FUZZ_TABLES = new Set(['fz_parent', 'fz_item', 'fz_scratch']);

export const SCHEMA = [
  {
    name: 'fz_parent',
    field: [
      { name: 'id', type: 'id' },
      { name: 'name', type: 'string', length: 40 },
    ],
  },
  {
    name: 'fz_item',
    field: [
      { name: 'id', type: 'id' },
      { name: 'parent_id', type: 'reference', ref_table: 'fz_parent', ref_field: 'id', allow_null: true },
      ...VALUE_FIELDS,
    ],
  },
  {
    name: 'fz_scratch',
    field: [
      { name: 'id', type: 'id' },
      { name: 'parent_id', type: 'reference', ref_table: 'fz_parent', ref_field: 'id', allow_null: true },
      ...VALUE_FIELDS,
    ],
  },
];

const PARENTS = [
  { id: 1, name: 'first' },
  { id: 2, name: 'second' },
  { id: 3, name: 'third' },
];

const EMPTY = {
  label: null,
  note: null,
  qty: null,
  big: null,
  price: null,
  ratio: null,
  flag: null,
  day: null,
  clock: null,
  stamp: null,
  uid: null,
  doc: null,
  MixedCase: null,
};
const ITEMS = [
  {
    parent_id: 1,
    label: 'alpha',
    note: 'plain',
    qty: 1,
    big: 9007199254740991,
    price: 12.5,
    ratio: 0.25,
    flag: true,
    day: '2024-01-31',
    clock: '08:30:00',
    stamp: '2024-01-31 08:30:00',
    uid: '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60',
    doc: { a: 1 },
    MixedCase: 'Row0',
  },
  {
    parent_id: 1,
    label: 'Alpha',
    note: '',
    qty: 2,
    big: -5,
    price: -0.5,
    ratio: -1.5,
    flag: false,
    day: '1999-12-31',
    clock: '23:59:59',
    stamp: '1999-12-31 23:59:59',
    uid: 'F47AC10B-58CC-4372-A567-0E02B2C3D479',
    doc: [1, 2],
    MixedCase: 'row1',
  },
  {
    parent_id: 2,
    label: 'ALPHA',
    note: 'ünïcødé 💥 日本',
    qty: 10,
    big: 0,
    price: 0,
    ratio: 0,
    flag: true,
    day: '2000-02-29',
    clock: '00:00:00',
    stamp: '2000-02-29 00:00:00',
    uid: null,
    doc: 'text',
    MixedCase: null,
  },
  {
    ...EMPTY,
    parent_id: 2,
    label: '50% off_sale',
    note: "it's 'quoted' \\ back",
    qty: -3,
    big: 123456789012,
    price: 99999999.99,
    ratio: 3.5,
  },
  { ...EMPTY, parent_id: null, label: '' },
  {
    ...EMPTY,
    note: 'has null label',
    qty: 10,
    big: 10,
    price: 10,
    ratio: 10,
    flag: false,
    day: '2024-01-01',
    clock: '12:00:00',
    stamp: '2024-01-01 12:00:00',
  },
  {
    ...EMPTY,
    parent_id: 1,
    label: 'beta_1',
    note: 'underscore',
    qty: 7,
    big: 7,
    price: 7.07,
    ratio: 8,
    flag: true,
    day: '2024-06-15',
    clock: '13:45:30',
    stamp: '2024-06-15 13:45:30',
  },
  {
    ...EMPTY,
    parent_id: 3,
    label: 'beta%1',
    note: 'percent',
    qty: 8,
    big: 8,
    price: 8,
    ratio: 8,
    flag: false,
    day: '2024-06-16',
    clock: '01:02:03',
    stamp: '2024-06-16 01:02:03',
  },
];

/** Ids the databases generate start here after each reset, above every id a case writes itself. */
export const AUTO_START = 1000;

/** What fz_scratch holds before each write sequence. */
const SCRATCH = [
  { id: 1, parent_id: 1, label: 'one', qty: 1, price: 1.5, flag: true, day: '2024-01-01' },
  { id: 2, parent_id: 2, label: 'two', qty: 2, note: 'second', stamp: '2024-02-02 02:02:02' },
  { id: 3, parent_id: null, label: 'three', qty: null, uid: '0b6f3c1e-6a4f-4c8e-9a0e-1d2c3b4a5f60' },
  { id: 4, parent_id: 1, label: null, qty: 4, doc: { k: [1] } },
  // Keeps the largest id at AUTO_START - 1: PostgreSQL's sequence follows the largest id after explicit keys (afterExplicitKey).
  { id: AUTO_START - 1, label: 'sentinel' },
];

/** Statements that empty fz_scratch and the parents writes made, and restart generated ids at AUTO_START. */
const RESET: Record<TargetKind, string> = {
  sqlite: `delete from fz_scratch
;;
delete from fz_parent where id > 3
;;
delete from sqlite_sequence where name in ('fz_scratch', 'fz_parent')
;;
insert into sqlite_sequence (name, seq) values ('fz_scratch', ${AUTO_START - 1}), ('fz_parent', ${AUTO_START - 1})`,
  postgres: `delete from fz_scratch
;;
delete from fz_parent where id > 3
;;
select setval(pg_get_serial_sequence('fz_scratch', 'id'), ${AUTO_START - 1}), setval(pg_get_serial_sequence('fz_parent', 'id'), ${AUTO_START - 1})`,
  mysql: `delete from fz_scratch
;;
delete from fz_parent where id > 3
;;
alter table fz_scratch auto_increment = ${AUTO_START}
;;
alter table fz_parent auto_increment = ${AUTO_START}`,
};

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** encodeURIComponent, but a lone surrogate goes as its (invalid) UTF-8 bytes instead of throwing. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text]
      .map((ch) => {
        const code = ch.charCodeAt(0);
        if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
          return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('');
        }
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

export const url = (path: string, query: QueryPairs) =>
  `/api/v2/db/${path}${query.length === 0 ? '' : `?${query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`}`;

/** What every answer must be; a description of what is wrong, or null. */
export function judge(answer: Answer, sent: string): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status === 204 && answer.text === '') return null;
  if (!/^application\/json\b/.test(answer.contentType)) return `content-type ${answer.contentType}`;
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'body is not JSON';
  }
  const leak = LEAKS.find((pattern) => pattern.test(answer.text) && !pattern.test(sent));
  if (leak !== undefined) return `leaks ${leak}`;
  if (answer.status >= 400) {
    const error = body?.error;
    if (
      error === null ||
      typeof error !== 'object' ||
      error.code !== answer.status ||
      typeof error.message !== 'string' ||
      error.message.trim() === ''
    ) {
      return 'error not in the shape {"error":{"code","message"}} with code = status';
    }
    const unclear = /\bundefined\b|\[object Object\]|\bNaN\b/.exec(error.message);
    if (unclear !== null && !sent.includes(unclear[0])) return `unclear message (${unclear[0]})`;
  }
  return null;
}

/** Ids the databases generated (AUTO_START and up) numbered by rank, so that sequences that skipped compare alike. */
export function normaliseIds(text: string): unknown {
  if (text === '') return null;
  const autos = new Set<number>();
  JSON.parse(text, (key, value) => {
    if ((key === 'id' || key === 'parent_id') && typeof value === 'number' && value >= AUTO_START) autos.add(value);
    return value;
  });
  const rank = new Map([...autos].sort((a, b) => a - b).map((id, i) => [id, `auto${i + 1}`]));
  return JSON.parse(text, (key, value) => ((key === 'id' || key === 'parent_id') && rank.has(value) ? rank.get(value) : value));
}

/** One server per database, loaded with the fuzz schema and seed rows. */
export class FuzzServers {
  private readonly targets = new Map<TargetKind, DatabaseTarget>();
  private readonly apis = new Map<TargetKind, ApiClient>();
  private readonly headers = new Map<TargetKind, Record<string, string>>();

  static async open(): Promise<FuzzServers> {
    const servers = new FuzzServers();
    for (const kind of KINDS) {
      const target = await openDatabaseTarget(kind);
      servers.targets.set(kind, target);
      const api = await startApi(target);
      servers.apis.set(kind, api);
      servers.headers.set(kind, { 'x-service-api-key': api.server.apiKey, 'x-service-session-token': await api.server.adminToken() });
      const created = await api.call('POST', '_schema', { resource: SCHEMA });
      expect(created.status, `${kind}: ${JSON.stringify(created.body)}`).toBe(200);
      for (const [table, rows] of [
        ['fz_parent', PARENTS],
        ['fz_item', ITEMS],
      ] as const) {
        const loaded = await api.call('POST', `_table/${table}`, { resource: rows });
        expect(loaded.status, `${kind}: ${JSON.stringify(loaded.body)}`).toBe(200);
      }
    }
    return servers;
  }

  /** A request to /api/v2/db/{path} as the administrator; `body` is sent as it is. */
  async send(
    kind: TargetKind,
    method: string,
    path: string,
    query: QueryPairs = [],
    body?: string | Buffer,
    contentType = 'application/json',
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const sent = { ...this.headers.get(kind), ...(body === undefined ? {} : { 'content-type': contentType }), ...headers };
    const api = this.apis.get(kind) as ApiClient;
    const response = await api.server.app.inject({ method: method as 'GET', url: url(path, query), headers: sent, payload: body });
    return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text: response.body };
  }

  /** Runs SQL statements (separated by `;;` lines) on one database, then has its server read the schema again. */
  async exec(kind: TargetKind, statements: string): Promise<void> {
    await (this.targets.get(kind) as DatabaseTarget).exec(statements);
    const refreshed = await this.send(kind, 'GET', '_schema', [['refresh', 'true']]);
    if (refreshed.status !== 200) throw new Error(`refresh failed on ${kind}: ${refreshed.text}`);
  }

  /** fz_scratch and fz_parent back as SCRATCH and PARENTS (and the sentinels), generated ids restarting at AUTO_START. */
  async reset(): Promise<void> {
    for (const kind of KINDS) {
      await (this.targets.get(kind) as DatabaseTarget).exec(RESET[kind]);
      const parent = await this.send(
        kind,
        'POST',
        '_table/fz_parent',
        [],
        JSON.stringify({ resource: [{ id: AUTO_START - 1, name: 'sentinel' }] }),
      );
      const loaded = await this.send(kind, 'POST', '_table/fz_scratch', [], JSON.stringify({ resource: SCRATCH }));
      if (loaded.status !== 200 || parent.status !== 200) throw new Error(`reset failed on ${kind}: ${loaded.text} ${parent.text}`);
    }
  }

  /** fz_scratch and fz_parent as a database holds them, read through the API, generated ids by rank. */
  async state(kind: TargetKind): Promise<string> {
    const scratch = await this.send(kind, 'GET', '_table/fz_scratch', [['order', 'id']]);
    const parents = await this.send(kind, 'GET', '_table/fz_parent', [['order', 'id']]);
    if (scratch.status !== 200 || parents.status !== 200) throw new Error(`state read failed on ${kind}: ${scratch.text} ${parents.text}`);
    return JSON.stringify({ scratch: normaliseIds(scratch.text), parents: normaliseIds(parents.text) });
  }

  /** fz_shape (SHAPE_FIELDS, SHAPE_ROWS) made again, and the tables schema writes made dropped. */
  async resetShape(): Promise<void> {
    for (const kind of KINDS) {
      const listed = await this.send(kind, 'GET', '_schema');
      const names = (JSON.parse(listed.text).resource as Array<{ name: string }>).map((t) => t.name).filter((n) => !FUZZ_TABLES.has(n));
      if (names.length > 0) {
        const dropped = await this.send(kind, 'DELETE', '_schema', [['ids', names.join(',')]]);
        if (dropped.status !== 200) throw new Error(`shape reset failed on ${kind}: ${dropped.text}`);
      }
      const made = await this.send(kind, 'POST', '_schema', [], JSON.stringify({ resource: [{ name: 'fz_shape', field: SHAPE_FIELDS }] }));
      const loaded = await this.send(kind, 'POST', '_table/fz_shape', [], JSON.stringify({ resource: SHAPE_ROWS }));
      if (made.status !== 200 || loaded.status !== 200) throw new Error(`shape reset failed on ${kind}: ${made.text} ${loaded.text}`);
    }
  }

  /** The tables there are, fz_shape's definition and its rows. */
  async shapeState(kind: TargetKind): Promise<{ tables: string; definition: string; rows: string; ids: string }> {
    const tables = await this.send(kind, 'GET', '_schema');
    const definition = await this.send(kind, 'GET', '_schema/fz_shape');
    const rows = await this.send(kind, 'GET', '_table/fz_shape', [['order', 'id']]);
    if (tables.status !== 200 || definition.status !== 200 || rows.status !== 200)
      throw new Error(`shape read failed on ${kind}: ${tables.text} ${definition.text} ${rows.text}`);
    const ids = (JSON.parse(rows.text).resource as Array<{ id: unknown }>).map((r) => r.id);
    return { tables: tables.text, definition: definition.text, rows: rows.text, ids: JSON.stringify(ids) };
  }

  async close(): Promise<void> {
    for (const api of this.apis.values()) await api.close();
    for (const target of this.targets.values()) await target.close();
  }
}
