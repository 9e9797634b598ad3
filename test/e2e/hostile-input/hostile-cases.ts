/**
 * The hostile requests of the hostile-input suite, generated from lists of hostile values and the
 * places they can go (query parameters, paths, bodies, headers). Every case only states what it
 * sends and, where the answer is decided, which statuses are right; the suite checks every answer
 * for what must hold always: no 5xx, the spec's error envelope, no driver or stack text.
 *
 * Reads go to `sentinel` (whose rows must survive everything); writes go to `scratch`, a table of
 * the same shape, so a write that is wrongly accepted cannot hide a lost sentinel row.
 */

export interface HostileCase {
  category: string;
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** From /api/v2 on (or any path for path tricks). */
  url: string;
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent as is, with `contentType` (default application/json). */
  raw?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** Without the administrator's API key and session token. */
  anonymous?: boolean;
  /** The statuses that are right; absent: any status below 500. */
  expect?: number[];
}

const DB = '/api/v2/db';
const BAD = [400];
const BAD_OR_MISSING = [400, 404];

/** SQL and template injection attempts, odd identifiers and characters with meaning somewhere. */
export const INJECTIONS: string[] = [
  "' or '1'='1",
  '1 or 1=1',
  "x' or 'x'='x",
  '1; drop table sentinel',
  '1); drop table sentinel; --',
  "name = 'x'; delete from sentinel",
  "name = 'x' union select * from sentinel_child",
  "name = 'x' --",
  "name = 'x' /* c */",
  'id = (select 1)',
  'id = 1 or sleep(1)',
  'id = 1 and pg_sleep(1) is null',
  "name = 'a' || 'b'",
  'id in (select id from sentinel)',
  '"name" = \'a\'',
  "`name` = 'a'",
  "[name] = 'a'",
  'name = $$x$$',
  "name = E'\\x27'",
  "name = 'x\\' or 1=1 --'",
  'sqlite_version()',
  'version()',
  '*, sqlite_version()',
  'name, (select 1)',
  'name desc; drop table sentinel',
  'name collate nocase',
  '1',
  '-1',
  '0x41',
  'name`',
  'name"',
  "name'",
  'name;',
  'name)',
  '(name',
  'sentinel.name',
  'sentinel_child.label',
  '../name',
  '%',
  '_',
  '\\',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'name\u0000',
  '\u0000',
  'na\u0000me = 1',
  "name = 'a\u0000b'",
  '\ud800',
  "name = '\ud83d'",
  '💥',
  "name = '💥'",
  "' ; shutdown; --",
  'char(65)',
  "name like '%' escape '!'",
  'name in ()',
  'name between',
  'amount = 1e999',
  'amount = -1e999',
  'constructor',
  '__proto__',
  'hasOwnProperty = 1',
  'name = :p',
  'name = :__proto__',
];

/** Percent-encoding that also carries lone surrogates, as the invalid UTF-8 bytes a careless client sends. */
export function encode(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    out +=
      ch.length === 1 && code >= 0xd800 && code <= 0xdfff
        ? `%ED%${(0xa0 + ((code >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 + (code & 0x3f)).toString(16).toUpperCase()}`
        : encodeURIComponent(ch);
  }
  return out;
}

/** Where a hostile value can go in a read of `sentinel`, as a URL. */
const READ_POSITIONS: Array<[string, (value: string) => string]> = [
  ['filter', (v) => `${DB}/_table/sentinel?filter=${encode(v)}`],
  ['order', (v) => `${DB}/_table/sentinel?order=${encode(v)}`],
  ['fields', (v) => `${DB}/_table/sentinel?fields=${encode(v)}`],
  ['group', (v) => `${DB}/_table/sentinel?group=${encode(v)}`],
  ['having', (v) => `${DB}/_table/sentinel?group=name&having=${encode(v)}`],
  ['ids', (v) => `${DB}/_table/sentinel?ids=${encode(v)}`],
  ['id_field', (v) => `${DB}/_table/sentinel?ids=1&id_field=${encode(v)}`],
  ['related', (v) => `${DB}/_table/sentinel?related=${encode(v)}`],
  ['path id', (v) => `${DB}/_table/sentinel/${encode(v)}`],
  ['path table', (v) => `${DB}/_table/${encode(v)}`],
  ['schema path', (v) => `${DB}/_schema/${encode(v)}`],
  ['system filter', (v) => `/api/v2/system/role?filter=${encode(v)}`],
  ['system order', (v) => `/api/v2/system/user?order=${encode(v)}`],
];

function injectionCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const [position, url] of READ_POSITIONS) {
    for (const value of INJECTIONS) {
      cases.push({ category: `injection in ${position}`, name: JSON.stringify(value), method: 'GET', url: url(value) });
    }
  }
  // The same through a write's filter and ids: aimed at scratch, so a wrong acceptance loses no sentinel row.
  for (const value of INJECTIONS.slice(0, 20)) {
    cases.push({
      category: 'injection in a write',
      name: `PATCH filter ${JSON.stringify(value)}`,
      method: 'PATCH',
      url: `${DB}/_table/scratch?filter=${encode(value)}`,
      body: { note: 'patched' },
    });
    cases.push({
      category: 'injection in a write',
      name: `DELETE ids ${JSON.stringify(value)}`,
      method: 'DELETE',
      url: `${DB}/_table/scratch?ids=${encode(value)}`,
    });
  }
  return cases;
}

/** `n` terms joined by `joiner`. */
function terms(n: number, term: (i: number) => string, joiner: string): string {
  return Array.from({ length: n }, (_, i) => term(i)).join(joiner);
}

/** A read whose options travel in the body (GET tunnelled through POST), as clients do with long filters. */
function tunnelledRead(category: string, name: string, options: Record<string, unknown>, expect?: number[]): HostileCase {
  return { category, name, method: 'POST', url: `${DB}/_table/sentinel`, headers: { 'x-http-method': 'GET' }, body: options, expect };
}

function driverLimitCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const limit = 'driver limit';
  for (const n of [1001, 2000, 5000, 20000]) {
    cases.push(tunnelledRead(limit, `${n} terms joined by or`, { filter: terms(n, (i) => `id = ${i}`, ' or ') }, BAD));
    cases.push(tunnelledRead(limit, `${n} terms joined by and`, { filter: terms(n, (i) => `amount != ${i}`, ' and ') }, BAD));
  }
  cases.push(
    tunnelledRead(limit, '600 terms, each a parenthesised or', { filter: terms(600, (i) => `(id = ${i} or name = 'n${i}')`, ' or ') }, BAD),
  );
  // 33,000 passes SQLite's 32,766 variables; 70,000 PostgreSQL's 65,535 parameters.
  for (const n of [1000, 33000, 70000]) {
    cases.push(
      tunnelledRead(limit, `in list of ${n} integers`, { filter: `id in (${terms(n, (i) => String(i), ',')})` }, n > 1000 ? BAD : [200]),
    );
    cases.push(
      tunnelledRead(
        limit,
        `in list of ${n} strings`,
        { filter: `name not in (${terms(n, (i) => `'s${i}'`, ',')})` },
        n > 1000 ? BAD : [200],
      ),
    );
    cases.push(tunnelledRead(limit, `ids list of ${n}`, { ids: terms(n, (i) => String(i + 1), ',') }, n > 1000 ? BAD : [200, 400, 404]));
  }
  cases.push(
    tunnelledRead(
      limit,
      'in list of 70000 values from params',
      { filter: 'id in (:list)', params: { list: Array.from({ length: 70000 }, (_, i) => i) } },
      BAD,
    ),
  );
  cases.push(
    tunnelledRead(limit, 'read 70000 records by key', { resource: Array.from({ length: 70000 }, (_, i) => ({ id: i + 1 })) }, BAD),
  );
  cases.push({
    category: limit,
    name: 'delete 20000 records by key',
    method: 'DELETE',
    url: `${DB}/_table/scratch`,
    body: { resource: Array.from({ length: 20000 }, (_, i) => ({ id: i + 200000 })) },
  });
  cases.push({
    category: limit,
    name: 'delete by 70000 ids',
    method: 'DELETE',
    url: `${DB}/_table/scratch`,
    body: { ids: terms(70000, (i) => String(i + 100000), ',') },
    expect: BAD,
  });
  cases.push({
    category: limit,
    name: 'patch 70000 records by id',
    method: 'PATCH',
    url: `${DB}/_table/scratch`,
    body: { resource: Array.from({ length: 70000 }, (_, i) => ({ id: i + 100000, note: 'x' })) },
    expect: BAD,
  });
  for (const length of [50001, 100000, 500000]) {
    cases.push(tunnelledRead(limit, `like pattern of ${length} characters`, { filter: `name like '${'%a'.repeat(length / 2)}'` }, BAD));
    cases.push(tunnelledRead(limit, `contains value of ${length} characters`, { filter: `name contains '${'a'.repeat(length)}'` }, BAD));
    cases.push(tunnelledRead(limit, `equality value of ${length} characters`, { filter: `name = '${'b'.repeat(length)}'` }, [200, 400]));
  }
  cases.push(tunnelledRead(limit, 'filter of 2 MB of spaces', { filter: `${' '.repeat(2_000_000)}name = 'x'` }, [200, 400]));
  cases.push(tunnelledRead(limit, '10000 nested parentheses', { filter: `${'('.repeat(10000)}id = 1${')'.repeat(10000)}` }, BAD));
  cases.push(tunnelledRead(limit, '10000 nots', { filter: `${'not '.repeat(10000)}id = 1` }, BAD));
  cases.push(tunnelledRead(limit, '20000 fields', { fields: terms(20000, () => 'name', ',') }, [200, 400]));
  cases.push(tunnelledRead(limit, '20000 order terms', { order: terms(20000, () => 'name', ',') }, [200, 400]));
  cases.push(tunnelledRead(limit, '20000 group terms', { group: terms(20000, () => 'name', ',') }, [200, 400]));
  cases.push(tunnelledRead(limit, '5000 related', { related: terms(5000, () => 'sentinel_child_by_sentinel_id', ',') }, [200, 400]));
  return cases;
}

const HUGE = [
  '99999999999999999999',
  '-99999999999999999999',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  `1${'0'.repeat(400)}`,
];

function hugeNumberCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const huge = 'huge number';
  for (const n of HUGE) {
    // Beyond 64 bits (ids, integer fields) and beyond 2^53 (paging) every database answers the same 400.
    cases.push({ category: huge, name: `path id ${n.slice(0, 24)}`, method: 'GET', url: `${DB}/_table/sentinel/${n}`, expect: BAD });
    cases.push({ category: huge, name: `ids ${n.slice(0, 24)}`, method: 'GET', url: `${DB}/_table/sentinel?ids=${n}`, expect: BAD });
    cases.push({ category: huge, name: `limit ${n.slice(0, 24)}`, method: 'GET', url: `${DB}/_table/sentinel?limit=${n}`, expect: BAD });
    cases.push({ category: huge, name: `offset ${n.slice(0, 24)}`, method: 'GET', url: `${DB}/_table/sentinel?offset=${n}`, expect: BAD });
    for (const field of ['id', 'amount', 'big', 'price', 'ratio']) {
      const expect = ['price', 'ratio'].includes(field) ? [200, 400] : BAD;
      cases.push({
        category: huge,
        name: `filter ${field} = ${n.slice(0, 24)}`,
        method: 'GET',
        url: `${DB}/_table/sentinel?filter=${encodeURIComponent(`${field} = ${n}`)}`,
        expect,
      });
      cases.push({
        category: huge,
        name: `filter ${field} in (${n.slice(0, 24)})`,
        method: 'GET',
        url: `${DB}/_table/sentinel?filter=${encodeURIComponent(`${field} in (1, ${n})`)}`,
        expect,
      });
    }
    // A path id no system record can have is a record not found, as on the reference (its system MCP server sends names there).
    cases.push({ category: huge, name: `system role id ${n.slice(0, 24)}`, method: 'GET', url: `/api/v2/system/role/${n}`, expect: [404] });
    cases.push({
      category: huge,
      name: `system user ids ${n.slice(0, 24)}`,
      method: 'GET',
      url: `/api/v2/system/user?ids=${n}`,
      expect: BAD,
    });
    cases.push({
      category: huge,
      name: `system service offset ${n.slice(0, 24)}`,
      method: 'GET',
      url: `/api/v2/system/service?offset=${n}`,
      expect: BAD,
    });
    // A scheduled task's minutes and service id, and a report's id: numbers the system columns cannot hold.
    for (const field of ['frequency', 'service_id', 'verb_mask']) {
      cases.push({
        category: huge,
        name: `system scheduler ${field} ${n.slice(0, 24)}`,
        method: 'POST',
        url: '/api/v2/system/scheduler',
        raw: `{"resource":[{"name":"huge","service_id":1,"component":"environment","${field}":${n}}]}`,
        expect: BAD,
      });
    }
    cases.push({
      category: huge,
      name: `system service_report id ${n.slice(0, 24)}`,
      method: 'GET',
      url: `/api/v2/system/service_report/${n}`,
      expect: [404],
    });
  }
  // Within 64 bits but beyond a 32-bit column: a comparison with an answer (PostgreSQL refused the value).
  for (const filter of ['amount >= 9223372036854775807', 'amount in (1, 3000000000)', 'amount between -3000000000 and 3000000000']) {
    cases.push({
      category: huge,
      name: `filter ${filter}`,
      method: 'GET',
      url: `${DB}/_table/sentinel?filter=${encodeURIComponent(filter)}`,
      expect: [200],
    });
  }
  for (const n of ['1e999', '-1e999', '1e-999', '1.5', '0x10', '1e3', '١٢', '+1', ' 1 ', '1_000']) {
    cases.push({
      category: huge,
      name: `odd number ${n} as path id`,
      method: 'GET',
      url: `${DB}/_table/sentinel/${encodeURIComponent(n)}`,
      expect: [200, 400, 404],
    });
    cases.push({
      category: huge,
      name: `odd number ${n} as limit`,
      method: 'GET',
      url: `${DB}/_table/sentinel?limit=${encodeURIComponent(n)}`,
      expect: [200, 400],
    });
    cases.push({
      category: huge,
      name: `odd number ${n} in a filter`,
      method: 'GET',
      url: `${DB}/_table/sentinel?filter=${encodeURIComponent(`amount > ${n}`)}`,
      expect: [200, 400],
    });
  }
  // Values beyond the columns' ranges in writes (JSON numbers are doubles; strings keep every digit).
  const values: unknown[] = [1e20, -1e20, 1e308, Number.MAX_SAFE_INTEGER + 2, ...HUGE];
  for (const value of values) {
    // Integer columns: a 400 wherever the value is beyond 64 bits (2^53 + 2 is within); exact and float columns may round or refuse.
    const beyond64 = typeof value === 'string' || Math.abs(value as number) >= 2 ** 63;
    for (const field of ['amount', 'big', 'price', 'ratio']) {
      const expect = beyond64 && ['amount', 'big'].includes(field) ? BAD : undefined;
      cases.push({
        category: huge,
        name: `write ${field} = ${String(value).slice(0, 24)}`,
        method: 'POST',
        url: `${DB}/_table/scratch`,
        body: { resource: [{ name: 'huge', [field]: value }] },
        expect,
      });
    }
    cases.push({
      category: huge,
      name: `write id = ${String(value).slice(0, 24)}`,
      method: 'POST',
      url: `${DB}/_table/scratch`,
      body: { resource: [{ id: value, name: 'huge id' }] },
      expect: beyond64 ? BAD : undefined,
    });
    cases.push({
      category: huge,
      name: `patch by id ${String(value).slice(0, 24)}`,
      method: 'PATCH',
      url: `${DB}/_table/scratch`,
      body: { resource: [{ id: value, note: 'x' }] },
      expect: [200, 400, 404],
    });
  }
  cases.push({
    category: huge,
    name: 'raw JSON number 1e400 (Infinity)',
    method: 'POST',
    url: `${DB}/_table/scratch`,
    raw: '{"resource":[{"name":"inf","amount":1e400}]}',
  });
  cases.push({
    category: huge,
    name: 'raw JSON number with 400 digits',
    method: 'POST',
    url: `${DB}/_table/scratch`,
    raw: `{"resource":[{"name":"long","big":${'9'.repeat(400)}}]}`,
  });
  return cases;
}

function nulCases(): HostileCase[] {
  const nul = 'NUL byte';
  // Refused at the edge (body parser, URL guard) with a 400, alike on every database and service.
  const cases: HostileCase[] = [
    { category: nul, name: 'in a record value', method: 'POST', url: `${DB}/_table/scratch`, body: { resource: [{ name: 'a\u0000b' }] } },
    {
      category: nul,
      name: 'in a text value',
      method: 'POST',
      url: `${DB}/_table/scratch`,
      body: { resource: [{ name: 'ok', note: '\u0000'.repeat(50) }] },
    },
    {
      category: nul,
      name: 'in a record key',
      method: 'POST',
      url: `${DB}/_table/scratch`,
      body: { resource: [{ name: 'ok', 'no\u0000te': 'x' }] },
    },
    {
      category: nul,
      name: 'in a patched value',
      method: 'PATCH',
      url: `${DB}/_table/scratch?filter=${encodeURIComponent("name = 'nobody'")}`,
      body: { note: 'x\u0000' },
    },
    {
      category: nul,
      name: 'in a filter parameter',
      method: 'POST',
      url: `${DB}/_table/sentinel`,
      headers: { 'x-http-method': 'GET' },
      body: { filter: 'name = :p', params: { p: 'a\u0000' } },
    },
    {
      category: nul,
      name: 'in an in-list parameter',
      method: 'POST',
      url: `${DB}/_table/sentinel`,
      headers: { 'x-http-method': 'GET' },
      body: { filter: 'name in (:p)', params: { p: ['a', '\u0000'] } },
    },
    {
      category: nul,
      name: 'in a date filter',
      method: 'GET',
      url: `${DB}/_table/sentinel?filter=${encodeURIComponent("born = '2020-01-01\u0000'")}`,
    },
    {
      category: nul,
      name: 'in a like pattern',
      method: 'GET',
      url: `${DB}/_table/sentinel?filter=${encodeURIComponent("name like '%\u0000%'")}`,
    },
    { category: nul, name: 'in a path id', method: 'GET', url: `${DB}/_table/sentinel/1%00`, expect: BAD_OR_MISSING },
    { category: nul, name: 'in a table name', method: 'GET', url: `${DB}/_table/sentinel%00`, expect: BAD_OR_MISSING },
    { category: nul, name: 'in a schema table name', method: 'GET', url: `${DB}/_schema/sentinel%00`, expect: BAD_OR_MISSING },
    { category: nul, name: 'in a field path', method: 'GET', url: `${DB}/_schema/sentinel/_field/na%00me`, expect: BAD_OR_MISSING },
    {
      category: nul,
      name: 'in a created table name',
      method: 'POST',
      url: `${DB}/_schema`,
      body: { resource: [{ name: 'bad\u0000table', field: [{ name: 'id', type: 'id' }] }] },
      expect: BAD,
    },
    {
      category: nul,
      name: 'in a created field name',
      method: 'POST',
      url: `${DB}/_schema`,
      body: {
        resource: [
          {
            name: 'badfield',
            field: [
              { name: 'id', type: 'id' },
              { name: 'f\u0000', type: 'string' },
            ],
          },
        ],
      },
      expect: BAD,
    },
    {
      category: nul,
      name: 'in a created field type',
      method: 'POST',
      url: `${DB}/_schema`,
      body: { resource: [{ name: 'badtype', field: [{ name: 'id', type: 'id\u0000' }] }] },
      expect: BAD,
    },
    {
      category: nul,
      name: 'in a field added to sentinel',
      method: 'POST',
      url: `${DB}/_schema/sentinel/_field`,
      body: { resource: [{ name: 'x\u0000y', type: 'string' }] },
      expect: BAD,
    },
    { category: nul, name: 'in a procedure name', method: 'GET', url: `${DB}/_proc/p%00`, expect: [400, 404, 501] },
    {
      category: nul,
      name: 'in a login email',
      method: 'POST',
      url: '/api/v2/system/admin/session',
      body: { email: 'admin@test.local\u0000', password: 'x' },
      expect: [400, 401],
    },
    {
      category: nul,
      name: 'in a system record',
      method: 'POST',
      url: '/api/v2/system/role',
      body: { resource: [{ name: 'nul\u0000role' }] },
      expect: BAD,
    },
    {
      category: nul,
      name: 'in a system filter',
      method: 'GET',
      url: `/api/v2/system/role?filter=${encodeURIComponent("name = '\u0000'")}`,
    },
    { category: nul, name: 'in a service name', method: 'GET', url: '/api/v2/d%00b/_table', expect: BAD_OR_MISSING },
  ];
  return cases.map((c) => ({ ...c, expect: BAD }));
}

/** Bodies that are not JSON, or JSON of the wrong shape. */
const BAD_BODIES: Array<[string, string | Buffer]> = [
  ['an open brace', '{'],
  ['an open bracket', '['],
  ['a cut resource', '{"resource":['],
  ['a misspelt null', 'nul'],
  ['a trailing comma', '{"resource":[{"name":"x"},]}'],
  ['single quotes', "{'resource':[]}"],
  ['trailing text', '{"resource":[]} x'],
  ['NaN', '{"resource":[{"amount":NaN}]}'],
  ['a comment', '{"resource":[] /* c */}'],
  ['a bare string', '"resource"'],
  ['a number', '123'],
  ['true', 'true'],
  ['null', 'null'],
  ['an empty object', '{}'],
  ['an empty array', '[]'],
  ['a string resource', '{"resource":"x"}'],
  ['an object resource', '{"resource":{}}'],
  ['a number list', '{"resource":[1,2]}'],
  ['a null record', '{"resource":[null]}'],
  ['a nested list', '{"resource":[[]]}'],
  ['a list of lists', '[[1],[2]]'],
  ['__proto__', '{"__proto__":{"is_sys_admin":true},"resource":[{"name":"p"}]}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"x":1}},"resource":[{"name":"c"}]}'],
  ['deep arrays', '['.repeat(100000)],
  ['deep objects', '{"a":'.repeat(50000)],
  ['valid deep arrays', `${'['.repeat(100000)}${']'.repeat(100000)}`],
  ['a deep value in a record', `{"resource":[{"name":"deep","note":${'['.repeat(50000)}${']'.repeat(50000)}}]}`],
  ['a deep object in params', `{"filter":"name = :p","params":{"p":${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}}}`],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ['a BOM', '\ufeff{"resource":[]}'],
  ['UTF-16', Buffer.from('{"resource":[]}', 'utf16le')],
  ['an escaped NUL key', '{"resource":[{"\\u0000":1}]}'],
];

const BODY_TARGETS: Array<[string, HostileCase['method'], string]> = [
  ['table create', 'POST', `${DB}/_table/scratch`],
  ['table update', 'PATCH', `${DB}/_table/scratch`],
  ['table replace', 'PUT', `${DB}/_table/scratch`],
  ['table delete', 'DELETE', `${DB}/_table/scratch`],
  ['schema create', 'POST', `${DB}/_schema`],
  ['admin login', 'POST', '/api/v2/system/admin/session'],
  ['system role create', 'POST', '/api/v2/system/role'],
  ['scheduled task create', 'POST', '/api/v2/system/scheduler'],
  ['user login', 'POST', '/api/v2/user/session'],
];

function badJsonCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const [target, method, url] of BODY_TARGETS) {
    for (const [name, raw] of BAD_BODIES) cases.push({ category: 'bad JSON', name: `${name} to ${target}`, method, url, raw });
    // Valid JSON, but no text: no database stores a lone surrogate faithfully.
    cases.push({
      category: 'bad JSON',
      name: `a lone surrogate escape to ${target}`,
      method,
      url,
      raw: '{"resource":[{"name":"\\ud800"}],"email":"\\udc00"}',
      expect: BAD,
    });
  }
  return cases;
}

/** Values of the wrong type for each scratch column. */
const WRONG_VALUES: unknown[] = [
  {},
  [],
  { a: [1] },
  'abc',
  true,
  '',
  ' ',
  '2020-13-45',
  '12:99',
  'NaN',
  'Infinity',
  '1e5',
  '0x1F',
  '💥'.repeat(3),
  'x'.repeat(70000),
  -0.5,
];

function wrongTypeCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const field of ['id', 'name', 'amount', 'big', 'price', 'ratio', 'flag', 'born', 'stamp', 'note']) {
    for (const value of WRONG_VALUES) {
      const shown = JSON.stringify(value).slice(0, 20);
      cases.push({
        category: 'wrong type',
        name: `${field} = ${shown}`,
        method: 'POST',
        url: `${DB}/_table/scratch`,
        body: { resource: [{ name: 'typed', [field]: value }] },
      });
    }
  }
  for (const [name, query] of [
    ['limit=abc', 'limit=abc'],
    ['offset=-1', 'offset=-1'],
    ['limit=-5', 'limit=-5'],
    ['limit twice', 'limit=1&limit=x'],
    ['limit as array', 'limit[]=1'],
    ['filter as object', 'filter[a]=b'],
    ['include_count=maybe', 'include_count=maybe'],
    ['empty filter', 'filter='],
    ['filter of spaces', 'filter=%20%20'],
    ['order direction', 'order=name%20sideways'],
    ['continue and rollback', 'continue=true&rollback=true'],
    ['fields of commas', 'fields=,,,'],
    ['bad percent in query', 'filter=%zz'],
    ['percent ff in query', 'filter=%ff'],
    ['key without value', 'filter'],
    ['parameter name with NUL', '%00=1'],
  ] as const) {
    cases.push({ category: 'wrong type', name: `query ${name}`, method: 'GET', url: `${DB}/_table/sentinel?${query}`, expect: [200, 400] });
  }
  cases.push({
    category: 'wrong type',
    name: 'empty record',
    method: 'POST',
    url: `${DB}/_table/scratch`,
    body: { resource: [{}] },
    expect: [200, 400],
  });
  cases.push({
    category: 'wrong type',
    name: 'empty record with rollback',
    method: 'POST',
    url: `${DB}/_table/scratch?rollback=true`,
    body: { resource: [{}, {}] },
    expect: [200, 400],
  });
  cases.push({
    category: 'wrong type',
    name: 'record of unknown fields only',
    method: 'POST',
    url: `${DB}/_table/scratch`,
    body: { resource: [{ nosuch: 1 }] },
    expect: [200, 400],
  });
  cases.push({
    category: 'wrong type',
    name: 'empty patch',
    method: 'PATCH',
    url: `${DB}/_table/scratch/1`,
    body: {},
    expect: [200, 400, 404],
  });
  cases.push({
    category: 'wrong type',
    name: 'params not an object',
    method: 'POST',
    url: `${DB}/_table/sentinel`,
    headers: { 'x-http-method': 'GET' },
    body: { filter: 'name = :p', params: 'x' },
    expect: BAD,
  });
  cases.push({
    category: 'wrong type',
    name: 'params with an object value',
    method: 'POST',
    url: `${DB}/_table/sentinel`,
    headers: { 'x-http-method': 'GET' },
    body: { filter: 'name = :p', params: { p: { a: 1 } } },
    expect: BAD,
  });
  return cases;
}

function pathCases(): HostileCase[] {
  const path = 'path trick';
  const long = 'a'.repeat(100000);
  const urls: Array<[string, string, number[] | undefined]> = [
    ['bad percent-encoding after system', '/api/v2/system/%ff', BAD],
    ['bad percent-encoding as table', `${DB}/_table/%ff`, BAD],
    ['bad percent-encoding as id', `${DB}/_table/sentinel/%ff`, BAD],
    ['a lone percent', `${DB}/_table/sentinel/%`, BAD],
    ['a cut UTF-8 sequence', `${DB}/_table/%E0%A4%A`, BAD],
    ['an over-long UTF-8 slash', `${DB}/_table/%c0%af`, BAD],
    ['a long table name', `${DB}/_table/${long}`, undefined],
    ['a long id', `${DB}/_table/sentinel/${'9'.repeat(5000)}`, undefined],
    ['a long service name', `/api/v2/${long}`, [414]],
    ['a long schema field', `${DB}/_schema/sentinel/_field/${long}`, undefined],
    ['encoded dot-dot to system', `${DB}/_table/..%2f..%2fsystem%2fadmin`, BAD_OR_MISSING],
    ['encoded slash in a table', `${DB}/_table/sentinel%2f1`, BAD_OR_MISSING],
    ['dot-dot out of the api', '/api/v2/../../etc/passwd', BAD_OR_MISSING],
    ['encoded dot-dot service', '/api/v2/%2e%2e/%2e%2e/db/_table/sentinel', undefined],
    ['extra segments', `${DB}/_table/sentinel/1/extra/more`, BAD_OR_MISSING],
    ['doubled slashes', '/api/v2//db//_table//sentinel', undefined],
    ['upper-case prefix', '/API/V2/db/_table/sentinel', undefined],
    ['backslashes', '/api/v2/db\\_table\\sentinel', undefined],
    // 501: SQLite has no stored routines (the spec's answer for an unsupported feature).
    ['a proc with a semicolon', `${DB}/_proc/x;drop`, [400, 404, 501]],
    ['a func with a quote', `${DB}/_func/x'y`, [400, 404, 501]],
    ['an unknown resource', `${DB}/_nothing/here`, BAD_OR_MISSING],
    ['system resource bad id', '/api/v2/system/role/1e999', BAD_OR_MISSING],
    ['system resource negative id', '/api/v2/system/service/-1', BAD_OR_MISSING],
    // (inject resolves %2e%2e as a URL parser does: this reaches /api/v2)
    ['system unknown resource', '/api/v2/system/%2e%2e', undefined],
    ['bad percent in the api docs', '/api/v2/api_docs/%ff', BAD],
    ['spec of a bad name', '/api/v2/%ff/_spec', BAD],
  ];
  const cases: HostileCase[] = urls.map(([name, url, expect]) => ({ category: path, name, method: 'GET', url, expect }));
  for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
    cases.push({
      category: path,
      name: `${method} with bad percent-encoding`,
      method,
      url: `${DB}/_table/scratch/%ff`,
      body: { resource: [{ name: 'x' }] },
      expect: BAD,
    });
  }
  return cases;
}

function headerCases(): HostileCase[] {
  const header = 'header trick';
  const create = { resource: [{ name: 'via header test' }] };
  const cases: HostileCase[] = [];
  for (const contentType of [
    'application/xml',
    'text/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/octet-stream',
    ';;;',
    'application/json, text/plain',
    'application/json; charset="',
    'x'.repeat(5000),
  ]) {
    cases.push({
      category: header,
      name: `content-type ${contentType.slice(0, 30)}`,
      method: 'POST',
      url: `${DB}/_table/scratch?rollback=true`,
      raw: JSON.stringify(create),
      contentType,
    });
  }
  cases.push({
    category: header,
    name: 'body too large',
    method: 'POST',
    url: `${DB}/_table/scratch`,
    raw: `{"resource":[{"note":"${'x'.repeat(11 * 1024 * 1024)}"}]}`,
    expect: [413],
  });
  cases.push({
    category: header,
    name: 'gzip claimed, plain sent',
    method: 'POST',
    url: `${DB}/_table/scratch?rollback=true`,
    raw: JSON.stringify(create),
    headers: { 'content-encoding': 'gzip' },
    expect: [400],
  });
  for (const verb of ['TRACE', 'CONNECT', 'OPTIONS', 'HEAD', 'x'.repeat(1000), 'GET\u0000', '']) {
    cases.push({
      category: header,
      name: `method override ${JSON.stringify(verb.slice(0, 20))}`,
      method: 'POST',
      url: `${DB}/_table/sentinel?method=${encodeURIComponent(verb)}`,
      body: {},
    });
  }
  // A read tunnelled as the reference's framework takes it: as a create, record 1 would be a 409 (and a write to sentinel).
  for (const [name, headers, query] of [
    ['X-HTTP-Method-Override', { 'x-http-method-override': 'GET' }, ''],
    ['_method in the query', {}, '?_method=GET'],
  ] as Array<[string, Record<string, string>, string]>) {
    cases.push({
      category: header,
      name: `read tunnelled through ${name}`,
      method: 'POST',
      url: `${DB}/_table/sentinel${query}`,
      headers,
      body: { resource: [{ id: 1 }] },
      expect: [200],
    });
  }
  const auth = 'credentials trick';
  for (const [name, headers] of [
    ['garbage token', { 'x-dreamfactory-session-token': 'a.b.c' }],
    [
      'alg none token',
      {
        'x-dreamfactory-session-token': `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"user_id":1,"exp":99999999999}').toString('base64url')}.`,
      },
    ],
    ['huge token', { 'x-dreamfactory-session-token': 'a'.repeat(100000) }],
    ['bearer garbage', { authorization: 'Bearer !!!' }],
    ['basic garbage', { authorization: 'Basic !!!' }],
    ['basic of NUL', { authorization: `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}` }],
    ['basic of an injection', { authorization: `Basic ${Buffer.from("' or '1'='1:' or '1'='1").toString('base64')}` }],
    ['basic of a huge email', { authorization: `Basic ${Buffer.from(`${'a'.repeat(20000)}:x`).toString('base64')}` }],
    ['basic of four-byte characters', { authorization: `Basic ${Buffer.from('\u{1F600}@x.io:\u{1F600}').toString('base64')}` }],
    ['basic of invalid UTF-8', { authorization: `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc3]).toString('base64')}` }],
    ['basic of a wrong password', { authorization: `Basic ${Buffer.from('admin@test.local:wrong').toString('base64')}` }],
    ['huge api key', { 'x-dreamfactory-api-key': 'k'.repeat(100000) }],
    ['api key of quotes', { 'x-dreamfactory-api-key': "' or '1'='1" }],
    ['api key in the query with injection', {}],
  ] as Array<[string, Record<string, string>]>) {
    cases.push({
      category: auth,
      name,
      method: 'GET',
      url: `${DB}/_table/sentinel${name.includes('query') ? `?api_key=${encodeURIComponent("' or 1=1 --")}` : ''}`,
      headers,
      anonymous: true,
      expect: [400, 401, 403],
    });
  }
  return cases;
}

function durationCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const login = (duration: unknown) => ({ email: 'admin@test.local', password: 'admin-password-12345', duration });
  for (const duration of [
    -1,
    -1e20,
    1e20,
    1e308,
    1.5,
    'abc',
    '1e20',
    true,
    false,
    [],
    {},
    [60],
    ' ',
    '0x10',
    'NaN',
    'Infinity',
    '-0',
    2 ** 53,
    99999999,
    525601,
    '60; drop',
  ]) {
    cases.push({
      category: 'bad duration',
      name: `admin login duration ${JSON.stringify(duration)}`,
      method: 'POST',
      url: '/api/v2/system/admin/session',
      body: login(duration),
      expect: BAD,
    });
    cases.push({
      category: 'bad duration',
      name: `user login duration ${JSON.stringify(duration)}`,
      method: 'POST',
      url: '/api/v2/user/session',
      body: { ...login(duration), email: 'nobody@test.local' },
      expect: BAD,
    });
  }
  cases.push({
    category: 'bad duration',
    name: 'raw 1e400',
    method: 'POST',
    url: '/api/v2/system/admin/session',
    raw: '{"email":"admin@test.local","password":"admin-password-12345","duration":1e400}',
    expect: BAD,
  });
  for (const duration of [0, 525600, '120']) {
    cases.push({
      category: 'good duration',
      name: `admin login duration ${JSON.stringify(duration)}`,
      method: 'POST',
      url: '/api/v2/system/admin/session',
      body: login(duration),
      expect: [200],
    });
  }
  return cases;
}

/** Aggregates, orderings and calendar values each database took differently (or answered 500). */
function aggregateAndCalendarCases(): HostileCase[] {
  const category = 'aggregates, orderings and dates';
  const read = (name: string, query: string, expect: number[]): HostileCase => ({
    category,
    name,
    method: 'GET',
    url: `${DB}/_table/sentinel?${query}`,
    expect,
  });
  const write = (name: string, record: Record<string, unknown>, expect: number[]): HostileCase => ({
    category,
    name,
    method: 'POST',
    url: `${DB}/_table/scratch`,
    body: { resource: [record] },
    expect,
  });
  return [
    read('aggregates without group', 'fields=count(*),max(id)', [200]),
    read('aggregates without group, counted', 'fields=count(*)&include_count=true&count_only=true', [200]),
    read('sum of text', `group=flag&fields=${encodeURIComponent('flag,sum(name)')}`, BAD),
    read('avg of a date', `fields=${encodeURIComponent('avg(born)')}`, BAD),
    read('max of a boolean', `fields=${encodeURIComponent('max(flag)')}`, [200, 400]),
    read('nulls last', `order=${encodeURIComponent('born desc nulls last')}`, [200]),
    read('nulls sideways', `order=${encodeURIComponent('born nulls sideways')}`, BAD),
    read('a date that does not exist', `filter=${encodeURIComponent("born = '2023-02-29'")}`, BAD),
    read('an ISO timestamp with zone', `filter=${encodeURIComponent("stamp < '2020-03-04T05:06:07.000Z'")}`, [200]),
    write('born on 30 February', { name: 'cal', born: '2024-02-30' }, BAD),
    write('stamped at hour 25', { name: 'cal', stamp: '2024-01-01 25:00:00' }, BAD),
    write('stamped with toISOString()', { name: 'cal', stamp: '2024-01-01T10:00:00.000Z' }, [200]),
    // MariaDB read these as 2012-00-00 and 2017-00-00 00:00 and stored them.
    write('born at a clock time', { name: 'cal', born: '12:00:00' }, BAD),
    write('stamped with epoch seconds as text', { name: 'cal', stamp: '1700000000' }, BAD),
    write('price beyond its precision', { name: 'cal', price: '123456789012' }, BAD),
    write('price beyond its precision once rounded to its scale', { name: 'cal', price: '99999999.995' }, BAD),
  ];
}

/** `file=`: an answer as a download whose name (a response header) comes from the client. */
function downloadCases(): HostileCase[] {
  const category = 'download names (file=)';
  const read = (name: string, file: string, expect: number[]): HostileCase => ({
    category,
    name,
    method: 'GET',
    url: `${DB}/_table/sentinel?file=${encodeURIComponent(file)}`,
    expect,
  });
  return [
    read('CR LF in the name', 'list\r\nset-cookie: x=1.csv', [200]),
    read('quotes and a backslash', 'a"b\\c.csv', [200]),
    read('a name beyond ASCII', '\u65e5\u672c.xml', [200]),
    read('a path', '../../etc/passwd.csv', [200]),
    read('a long name', `${'n'.repeat(4000)}.csv`, [200]),
    read('NUL in the name', 'a\u0000b.xml', [200, 400]),
    { category, name: 'on an error', method: 'GET', url: `${DB}/_table/nosuch?file=list.csv`, expect: [400, 404] },
  ];
}

/** Every case of the suite. */
export function hostileCases(): HostileCase[] {
  return [
    ...injectionCases(),
    ...driverLimitCases(),
    ...hugeNumberCases(),
    ...nulCases(),
    ...badJsonCases(),
    ...wrongTypeCases(),
    ...pathCases(),
    ...headerCases(),
    ...durationCases(),
    ...aggregateAndCalendarCases(),
    ...downloadCases(),
  ];
}
