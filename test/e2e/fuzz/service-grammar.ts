/**
 * Hostile requests to the services beside databases, for services-fuzz.test.ts: email sends
 * (addresses of every form, line breaks in headers, templates, attachments, bodies of every JSON
 * type and Content-Type), rws calls (paths that try to leave the base URL, odd verbs, headers and
 * query parameters, bodies, remotes that misbehave), cache keys and TTLs, MQTT and AMQP topics,
 * routing keys and messages, and MCP JSON-RPC messages. Each case is a raw request to one server.
 */
import fc from 'fast-check';

/** A request as the test sends it (the credentials are added by the test). */
export interface RawRequest {
  method: string;
  /** Path under /api/v2 (or /mcp), already encoded, with its query. */
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Where a case's mail may only come from: a line break that made a header of its own would show these. */
export const INJECTED_ADDRESS = 'injected@evil.test';
export const INJECTED_HEADER = 'X-Injected';

const CRLF_PAYLOADS = [
  `\r\nBcc: ${INJECTED_ADDRESS}`,
  `\r\n${INJECTED_HEADER}: yes`,
  `\n${INJECTED_HEADER}: yes`,
  `\r${INJECTED_HEADER}: yes`,
  `\r\n\r\n${INJECTED_HEADER}: body`,
  `\u2028${INJECTED_HEADER}: yes`,
  `\u0085${INJECTED_HEADER}: yes`,
];

/** Pieces of text that mean something somewhere: separators, wildcards, escapes, control and odd Unicode characters. */
const PIECES = [
  '',
  ' ',
  '.',
  '..',
  '/',
  '//',
  '\\',
  '#',
  '+',
  '*',
  '>',
  '?',
  '&',
  '=',
  ';',
  '@',
  ':',
  ',',
  '%',
  '%zz',
  '%00',
  '%2e%2e',
  '%2F',
  "'",
  '"',
  '<',
  '`',
  '$SYS',
  '{',
  '}',
  '{first_name}',
  '{constructor}',
  '{__proto__}',
  '{user.email}',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\uffff',
  '\ufffe',
  '\ud800',
  '\udfff',
  'é',
  '日本',
  '💥',
  'ﬀ',
  'İ',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  '~responses:',
  ...CRLF_PAYLOADS,
];

export const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(300), 'ü'.repeat(200), 'x'.repeat(70_000)) },
);

/** Text made of one to three hostile pieces around plain words. */
export const hostileText = fc
  .array(fc.oneof({ weight: 3, arbitrary: piece }, { weight: 1, arbitrary: fc.constantFrom('a', 'key', 'topic', 'b1') }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((parts) => parts.join(''));

/** encodeURIComponent, but a lone surrogate goes as its (invalid) UTF-8 bytes instead of throwing. */
export function encode(text: string): string {
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

export type QueryPairs = Array<[string, string]>;

export const queryString = (query: QueryPairs) =>
  query.length === 0 ? '' : `?${query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;

/** A path segment: encoded hostile text, or one of the raw forms a URL parser reads specially. */
const segment = fc.oneof(
  { weight: 4, arbitrary: hostileText.map(encode) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E.',
      '.%2e',
      '..%2f..%2fadmin',
      '..%5c..%5cadmin',
      '%252e%252e',
      '..;',
      '..;x',
      '',
      '@evil.test',
      'evil.test:80@127.0.0.1',
      'http:',
      'https:%2F%2Fevil.test',
      '%2F%2Fevil.test',
      '%5C%5Cevil.test',
      '%00',
      '%zz',
      '~',
      '%E2%80%AE',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom('a', 'b', 'c.json', 'x-y') },
);

export const pathOf = (min: number) => fc.array(segment, { minLength: min, maxLength: 4 }).map((segments) => segments.join('/'));

const queryPairs = (names: string[]) =>
  fc.array(
    fc.tuple(
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileText }),
      fc.oneof({ weight: 3, arbitrary: hostileText }, { weight: 1, arbitrary: fc.constantFrom('1', '0', 'true', '-1', '', '1.5') }),
    ),
    { maxLength: 4 },
  );

/** A JSON value of every type, odd numbers and strings included. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, 2 ** 63, -0, 0.1, '', [], {}, [[[]]], { '': '' }, { __proto__: 1 }),
  },
);

/** A body as sent: JSON of a value, broken JSON, or nothing. */
function bodyText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', '{', '{"a":', 'not json', '[1,]', '\u0000', '{"a":1}{"b":2}', 'null', '"') },
  );
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data',
      'multipart/form-data; boundary=zzz',
      'application/json; charset=latin1',
      'application/vnd.api+json',
      'application/octet-stream',
      '',
    ),
  },
);

function withBody(method: string, url: string, body: string | undefined, type: string, headers: Record<string, string> = {}): RawRequest {
  if (body === undefined) return { method, url, headers };
  return { method, url, headers: type === '' ? headers : { ...headers, 'content-type': type }, payload: body };
}

// ---------------------------------------------------------------------------------------------
// email

const goodAddress = fc.constantFrom('ann@example.com', 'Bob Lee <bob@example.com>', '"Lee, Carl" <carl@example.com>', 'dora@example.com');
const badAddress = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'not an address',
    'a@',
    '@b.io',
    'a@b',
    'a@@b.io',
    'ü@例え.jp',
    'ann@example.com,',
    ', ,',
    'Ann <>',
    '<ann@example.com',
    'a b@example.com',
    `${'l'.repeat(400)}@example.com`,
    `ann@${'d'.repeat(300)}.com`,
    'ann@example.com\u0000',
    '"\r\n" <ann@example.com>',
  ),
  fc.constantFrom(...CRLF_PAYLOADS).map((payload) => `ann@example.com${payload}`),
  fc.constantFrom(...CRLF_PAYLOADS).map((payload) => `Ann${payload} <ann@example.com>`),
  hostileText.map((text) => `${text}@example.com`),
);
const addressObject = fc.record(
  { email: fc.oneof(goodAddress, badAddress, jsonValue), name: fc.oneof(hostileText, jsonValue) },
  { requiredKeys: [] },
);
const oneRecipient: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: goodAddress },
  { weight: 3, arbitrary: badAddress },
  { weight: 2, arbitrary: addressObject },
  { weight: 1, arbitrary: jsonValue },
);
const recipients: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: oneRecipient },
  { weight: 3, arbitrary: fc.array(oneRecipient, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(goodAddress, { minLength: 2, maxLength: 4 }).map((list) => list.join(', ')) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 300 }, (_, i) => `r${i}@example.com`)) },
);
const mailText = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.constantFrom(...CRLF_PAYLOADS).map((payload) => `Hello${payload}`) },
  { weight: 1, arbitrary: fc.constantFrom('Hi {first_name} {missing} {user.email} {constructor} {{first_name}} {first_name') },
  { weight: 1, arbitrary: jsonValue },
);
const attachmentRef = (peer: () => string) =>
  fc.oneof(
    fc.constantFrom(
      { service: 'files', path: 'none.txt' },
      { service: 'files', path: '../../etc/passwd' },
      { service: 'files' },
      { service: 'mail', path: 'a.txt' },
      { service: 'system', path: 'admin' },
      { file_path: 'x', service: 'files' },
      'file:///etc/passwd',
      'http://[bad',
      'ftp://127.0.0.1/x',
      'http://127.0.0.1:9/none',
      ',,,',
      12,
      null,
    ),
    fc.record({ service: hostileText, path: hostileText }),
    fc
      .constantFrom('v1/echo', 'v1/status/404', 'v1/status/500', 'v1/close', 'v1/redirect/other', 'v1/badgzip')
      .map((p) => `${peer()}/${p}`),
  );

/** A send to the `mail` service. */
export const emailCase = (peer: () => string, templates: string[]): fc.Arbitrary<RawRequest> => {
  const fields = fc.record({
    to: recipients,
    cc: recipients,
    bcc: recipients,
    subject: mailText,
    body_text: mailText,
    body_html: mailText,
    from_name: mailText,
    from_email: fc.oneof(goodAddress, badAddress, jsonValue),
    reply_to_name: mailText,
    reply_to_email: fc.oneof(goodAddress, badAddress),
    first_name: fc.oneof(
      mailText,
      fc.constantFrom(...CRLF_PAYLOADS).map((payload) => `Ann${payload}`),
    ),
    template: fc.oneof(fc.constantFrom(...templates, 'nosuch', ''), jsonValue),
    template_id: fc.oneof(fc.constantFrom('1', '2', '9999', 'abc', '-1', '1.5', '1e3', '99999999999999999999'), jsonValue),
    attachment: fc.oneof(attachmentRef(peer), fc.array(attachmentRef(peer), { maxLength: 3 })),
    import_url: attachmentRef(peer),
    headers: fc.constant({ [INJECTED_HEADER]: 'yes', Bcc: INJECTED_ADDRESS }),
  });
  const keys = [
    'to',
    'cc',
    'bcc',
    'subject',
    'body_text',
    'body_html',
    'from_name',
    'from_email',
    'reply_to_name',
    'reply_to_email',
    'first_name',
    'template',
    'template_id',
    'attachment',
    'import_url',
    'headers',
  ] as const;
  // A sendable message with one to three fields made hostile, so that most cases get as far as sending.
  const likely = fc
    .tuple(fields, fc.uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 3 }), goodAddress)
    .map(([all, chosen, to]) => ({
      to,
      subject: 'fuzz {first_name}',
      body_text: 'hello {first_name}',
      ...Object.fromEntries(chosen.map((key) => [key, all[key]])),
    }));
  const body = fc.oneof(
    { weight: 6, arbitrary: likely.map((m) => JSON.stringify(m)) },
    {
      weight: 2,
      arbitrary: bodyText(
        fc.oneof(
          likely.map((m) => [m]),
          jsonValue,
        ),
      ),
    },
  );
  const multipartBody = fc.constantFrom(
    // Fields and a file, well formed.
    '--zzz\r\nContent-Disposition: form-data; name="to"\r\n\r\nann@example.com\r\n--zzz\r\nContent-Disposition: form-data; name="subject"\r\n\r\nparts\r\n--zzz\r\nContent-Disposition: form-data; name="file"; filename="a\r\n.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--zzz--\r\n',
    // A file with no name, a header injection in the field.
    '--zzz\r\nContent-Disposition: form-data; name="to"\r\n\r\nann@example.com\r\nBcc: injected@evil.test\r\n--zzz\r\nContent-Disposition: form-data; name="attachment"; filename=""\r\n\r\nx\r\n--zzz--\r\n',
    // Truncated, no closing boundary.
    '--zzz\r\nContent-Disposition: form-data; name="to"\r\n\r\nann@example.com\r\n--zzz\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\n\r\npartial',
    // Not multipart at all.
    '{"to":"ann@example.com","subject":"json as multipart"}',
    // Another boundary than declared.
    '--other\r\nContent-Disposition: form-data; name="to"\r\n\r\nann@example.com\r\n--other--\r\n',
    // The same field twice, one of them an object-looking string.
    '--zzz\r\nContent-Disposition: form-data; name="to"\r\n\r\nann@example.com\r\n--zzz\r\nContent-Disposition: form-data; name="to"\r\n\r\n{"email":"x@y.io"}\r\n--zzz\r\nContent-Disposition: form-data; name="subject"\r\n\r\ntwice\r\n--zzz--\r\n',
  );
  const query = queryPairs(['to', 'subject', 'body_text', 'template', 'template_id', 'first_name']);
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(body, contentType).map(([b, type]) => withBody('POST', '/api/v2/mail', b, type)) },
    {
      weight: 1,
      arbitrary: multipartBody.map((b) => withBody('POST', '/api/v2/mail', b, 'multipart/form-data; boundary=zzz')),
    },
    { weight: 1, arbitrary: query.map((q) => ({ method: 'POST', url: `/api/v2/mail${queryString(q)}`, headers: {} })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'POST'), pathOf(1), body)
        .map(([method, path, b]) => withBody(method, `/api/v2/mail/${path}`, b, 'application/json')),
    },
  );
};

// ---------------------------------------------------------------------------------------------
// rws

/** How the remote is asked to answer: a path under the peer's /v1. */
const scenario = fc.oneof(
  { weight: 10, arbitrary: fc.constant('echo') },
  { weight: 3, arbitrary: fc.constantFrom(400, 401, 404, 409, 418, 429, 500, 502, 503, 504, 599).map((s) => `status/${s}`) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('other', 'outside', 'inside', 'scheme', 'localhost', 'userinfo'), fc.constantFrom(302, 307))
      .map(([to, status]) => `redirect/${to}/${status}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('garbage', 'close', 'badgzip', 'badgzip/error') },
  { weight: 1, arbitrary: fc.constant('slow') },
);

const HEADER_POOL: Array<[string, string]> = [
  ['x-forwarded-host', 'evil.test'],
  ['x-forwarded-for', '10.0.0.1'],
  ['forwarded', 'host=evil.test'],
  ['connection', 'close, x-hop'],
  ['x-hop', 'hop-by-hop'],
  ['authorization', 'Basic YWRtaW46YWRtaW4='],
  ['cookie', 'session=stolen'],
  ['expect', '100-continue'],
  ['te', 'trailers'],
  ['x-http-method-override', 'DELETE'],
  ['x-http-method', 'PUT'],
  ['accept-encoding', 'gzip, br'],
  ['accept', 'text/event-stream'],
  ['range', 'bytes=0-1'],
  ['x-api-secret', 'caller-chosen'],
  ['x-odd', 'é\u00ff'],
  ['x-long', 'v'.repeat(8000)],
  ['content-type', 'multipart/form-data; boundary=zzz'],
  ['transfer-encoding', 'chunked'],
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'SEARCH', 'PROPFIND', 'TRACE', 'MKCOL', 'PURGE'];

export interface RwsCase extends RawRequest {
  /** The scenario the path asks the remote for (undefined: the path is hostile from its start). */
  scenario?: string;
  /** The query pairs sent (what the remote should receive, credentials aside). */
  query: QueryPairs;
}

export const rwsCase = (big: Buffer): fc.Arbitrary<RwsCase> =>
  fc
    .record({
      service: fc.constantFrom('remote', 'remote', 'remote_cached'),
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      scenario: fc.option(scenario, { freq: 4, nil: undefined }),
      path: pathOf(0),
      query: queryPairs(['a', 'api_key', 'session_token', 'method', 'token', 'a[b]', 'url', 'redirect', 'callback']),
      headers: fc.uniqueArray(fc.constantFrom(...HEADER_POOL), { maxLength: 3, selector: ([name]) => name }),
      body: fc.oneof(
        { weight: 6, arbitrary: bodyText(jsonValue) },
        { weight: 1, arbitrary: fc.constant(big) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      type: contentType,
    })
    .map((c) => {
      // The service's base is the peer's /v1: `{scenario}/...` reaches it as /v1/{scenario}/....
      const under = c.scenario === undefined ? c.path : `${c.scenario}${c.path === '' ? '' : `/${c.path}`}`;
      const base = {
        method: c.method,
        url: `/api/v2/${c.service}${under === '' ? '' : `/${under}`}${queryString(c.query)}`,
        headers: Object.fromEntries(c.headers),
        scenario: c.scenario,
        query: c.query,
      };
      if (c.body === undefined || c.method === 'GET' || c.method === 'HEAD') return base;
      return { ...base, headers: c.type === '' ? base.headers : { ...base.headers, 'content-type': c.type }, payload: c.body };
    });

// ---------------------------------------------------------------------------------------------
// cache

export interface CacheCase extends RawRequest {
  /** For a single-key write: the key's path and the value sent, to read back. */
  key?: string;
  value?: string;
}

export const cacheCase: fc.Arbitrary<CacheCase> = fc
  .record({
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
      { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
    ),
    key: fc.oneof({ weight: 5, arbitrary: pathOf(1) }, { weight: 1, arbitrary: fc.constant('') }),
    query: fc.array(
      fc.oneof(
        fc.tuple(
          fc.constant('ttl'),
          fc.constantFrom('1', '0', '-1', '1.5', '1e3', '99999999999999999999', 'abc', '', ' 5', '0x10', 'Infinity', '2147483648', '60'),
        ),
        fc.tuple(fc.constantFrom('forever', 'clear', 'pull'), fc.constantFrom('true', '1', 'yes', 'false', '')),
        fc.tuple(fc.constantFrom('default', 'prefix', 'limit'), hostileText),
        fc.tuple(hostileText, hostileText),
      ),
      { maxLength: 3 },
    ),
    body: fc.oneof(
      { weight: 5, arbitrary: bodyText(jsonValue) },
      { weight: 2, arbitrary: bodyText(fc.dictionary(hostileText, jsonValue, { maxKeys: 4 })) },
      { weight: 1, arbitrary: fc.constant(JSON.stringify('v'.repeat(5000))) },
    ),
    type: contentType,
  })
  .map((c) => {
    const request = withBody(
      c.method,
      `/api/v2/cache${c.key === '' ? '' : `/${c.key}`}${queryString(c.query)}`,
      c.method === 'GET' ? undefined : c.body,
      c.type,
    );
    return { ...request, ...(c.key !== '' && c.body !== undefined ? { key: c.key, value: c.body } : {}) };
  });

// ---------------------------------------------------------------------------------------------
// brokers

/** A topic or routing key: under the test's own prefix mostly, so that nothing reaches other users of the broker. */
const topicOf = (prefix: string) =>
  fc.oneof(
    { weight: 5, arbitrary: hostileText.map((text) => `${prefix}${text}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '#', '+', '*', '>', '/', '$SYS/x', `${prefix}a/#`, `${prefix}+/b`, `${prefix}a#`, `${prefix}a+`),
    },
  );

export const mqttCase = (prefix: string): fc.Arbitrary<RawRequest> => {
  const topic = topicOf(prefix);
  // Retained publishes would stay on the shared broker: `retain` only in forms that do not retain.
  const options = fc.array(
    fc.oneof(
      fc.tuple(fc.constant('qos'), fc.constantFrom('0', '1', '2', '3', '-1', '1.5', 'abc', '')),
      fc.tuple(fc.constant('retain'), fc.constantFrom('false', '0', '')),
      fc.tuple(fc.constantFrom('limit', 'wait'), fc.constantFrom('0', '1', '-1', '1.5', 'abc', '99999999', '20')),
      fc.tuple(hostileText, hostileText),
    ),
    { maxLength: 3 },
  );
  const message = fc.record(
    {
      topic: fc.oneof(topic, jsonValue),
      message: jsonValue,
      msg: jsonValue,
      qos: fc.oneof(fc.constantFrom(0, 1, 2, 3, -1, '1', 1.5, null), jsonValue),
      retain: fc.constantFrom(false, 0, 'false', null),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(topic, options, bodyText(jsonValue), contentType)
        .map(([t, q, b, type]) => withBody('POST', `/api/v2/mqtt/pub/${encode(t)}${queryString(q)}`, b, type)),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(bodyText(message), options, contentType)
        .map(([b, q, type]) => withBody('POST', `/api/v2/mqtt/pub${queryString(q)}`, b, type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), topic, options)
        .map(([method, t, q]) =>
          withBody(method, `/api/v2/mqtt/sub/${encode(t)}${queryString(q)}`, method === 'POST' ? '{}' : undefined, 'application/json'),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
          fc.constantFrom('', 'pub', 'sub', 'other'),
          bodyText(fc.oneof(message, fc.array(message, { maxLength: 3 }))),
        )
        .map(([method, resource, b]) =>
          withBody(method, `/api/v2/mqtt${resource === '' ? '' : `/${resource}`}`, method === 'GET' ? undefined : b, 'application/json'),
        ),
    },
  );
};

export const amqpCase = (prefix: string, exchange: string, queue: string): fc.Arbitrary<RawRequest> => {
  const key = topicOf(prefix);
  const name = fc.oneof(fc.constantFrom(exchange, '', 'amq.topic', 'amq.direct', `${prefix}missing`), key);
  const property = fc.record(
    {
      body: jsonValue,
      content_type: fc.oneof(hostileText, jsonValue),
      headers: fc.oneof(jsonValue, fc.constantFrom({ ['k'.repeat(300)]: 1 }, { a: 'x'.repeat(70_000) }, { a: { b: [{ c: null }] } })),
      priority: jsonValue,
      expiration: fc.oneof(fc.constantFrom('1000', '-1', '1.5', 'x', 10, 1e20), jsonValue),
      timestamp: jsonValue,
      message_id: fc.oneof(hostileText, jsonValue),
      delivery_mode: jsonValue,
    },
    { requiredKeys: [] },
  );
  const message = fc.record(
    {
      message: fc.oneof(jsonValue, property),
      msg: jsonValue,
      exchange: fc.oneof(name, jsonValue),
      queue: fc.oneof(fc.constantFrom(queue), key, jsonValue),
      topic: fc.oneof(key, jsonValue),
      routing_key: fc.oneof(key, jsonValue),
      routing: fc.oneof(key, jsonValue),
      persistent: jsonValue,
      delivery_mode: jsonValue,
    },
    { requiredKeys: [] },
  );
  const options = fc.array(
    fc.oneof(
      fc.tuple(fc.constant('exchange'), name),
      fc.tuple(fc.constantFrom('persistent', 'content_type'), hostileText),
      fc.tuple(fc.constantFrom('limit', 'wait'), fc.constantFrom('0', '1', '-1', '1.5', 'abc', '99999999', '20')),
      fc.tuple(hostileText, hostileText),
    ),
    { maxLength: 3 },
  );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.oneof(key, fc.constant(queue)), options, bodyText(jsonValue), contentType)
        .map(([k, q, b, type]) => withBody('POST', `/api/v2/amqp/pub/${encode(k)}${queryString(q)}`, b, type)),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(bodyText(message), contentType).map(([b, type]) => withBody('POST', '/api/v2/amqp/pub', b, type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('GET', 'DELETE', 'PUT'), fc.oneof(key, fc.constant(queue)), options)
        .map(([method, k, q]) => ({ method, url: `/api/v2/amqp/sub/${encode(k)}${queryString(q)}`, headers: {} })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'PATCH'),
          fc.constantFrom('', 'pub', 'sub', 'x'),
          bodyText(fc.oneof(message, fc.array(message, { maxLength: 2 }))),
        )
        .map(([method, resource, b]) =>
          withBody(method, `/api/v2/amqp${resource === '' ? '' : `/${resource}`}`, method === 'GET' ? undefined : b, 'application/json'),
        ),
    },
  );
};

// ---------------------------------------------------------------------------------------------
// MCP

const rpcId = fc.oneof(fc.integer(), fc.constantFrom('a', '', null, 1.5, 2 ** 60, -1), fc.constantFrom({}, [], true));

/** One JSON-RPC message: the methods the server knows, with odd params, unknown ones, and broken envelopes. */
export const rpcMessage = (tools: string[]): fc.Arbitrary<unknown> => {
  const toolName = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...tools, 'nosuch_tool') }, { weight: 1, arbitrary: hostileText });
  const params = fc.oneof(
    fc.record(
      {
        name: toolName,
        arguments: fc.oneof(fc.dictionary(fc.constantFrom('key', 'body', 'path', 'filter', 'ttl', 'topic', 'id'), jsonValue), jsonValue),
      },
      { requiredKeys: ['name'] },
    ),
    fc.record({
      uri: fc.oneof(
        fc.constantFrom(
          'portico://cache/_schema/x',
          'portico://db/_schema/..',
          'portico://x/_schema/%2e%2e',
          'file:///etc/passwd',
          'portico://',
          '',
        ),
        hostileText,
      ),
    }),
    fc.record(
      { protocolVersion: fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01', ''), capabilities: jsonValue, clientInfo: jsonValue },
      { requiredKeys: [] },
    ),
    fc.record({ cursor: jsonValue }),
    jsonValue,
  );
  const method = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'initialize',
        'tools/list',
        'tools/call',
        'resources/list',
        'resources/read',
        'ping',
        'prompts/list',
        'notifications/initialized',
      ),
    },
    { weight: 1, arbitrary: fc.oneof(hostileText, jsonValue) },
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: rpcId, method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        { jsonrpc: fc.oneof(fc.constantFrom('1.0', 2, null), jsonValue), id: rpcId, method, params },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: jsonValue },
  );
};

export const mcpCase = (tools: string[]): fc.Arbitrary<RawRequest> => {
  const message = rpcMessage(tools);
  const body = fc.oneof(
    { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)) },
    {
      weight: 1,
      arbitrary: fc.constant(JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
    },
    { weight: 1, arbitrary: bodyText(jsonValue) },
  );
  const accept = fc.constantFrom(
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json',
    'text/event-stream',
    '*/*',
    '',
  );
  return fc
    .tuple(
      fc.constantFrom('POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS'),
      body,
      accept,
      contentType,
      fc.constantFrom('agent', 'agent', 'agent', 'agent', 'agent', 'nosuch', 'cache'),
    )
    .map(([method, b, a, type, service]) => {
      const request = withBody(method, `/mcp/${service}`, method === 'GET' || method === 'OPTIONS' ? undefined : b, type);
      return { ...request, headers: { ...request.headers, ...(a === '' ? {} : { accept: a }) } };
    });
};
