/**
 * The discovery documents tell the truth: on a platform with every service type the runtime has
 * (test/e2e/openapi-truth/truth-platform.ts), each service's `GET /{service}/_spec` is walked
 * operation by operation. Each documented operation is called once as a client generated from
 * the document would call it (path parameters naming things that exist, the query parameters it
 * requires, a body made from its request schema or a better one written below) and once with a bad
 * request (a body that is no JSON, or a path naming nothing). Every answer must have a status the
 * operation documents, a documented content type and a body its schema accepts; a good request to
 * a documented path must not be a 404 (the document promising what is not served), and a few
 * paths and methods the document does not have must not be answered as if served. The combined
 * document (`GET /api_docs`) and `GET /api_docs/{service}` must give the same operations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiErrors } from '#test/golden/validators.js';
import { requireBroker } from '#test/helpers/require-broker.js';
import { requireService } from '#test/helpers/require-service.js';
import { type Answer, DocumentChecker, type Operation } from './openapi-truth/document-checker.js';
import { startTruthPlatform, type TruthPlatform } from './openapi-truth/truth-platform.js';

type Json = any;
let platform: TruthPlatform;
/** The combined document, read once (every walk's service is in it). */
let combined: Json;

beforeAll(async () => {
  platform = await startTruthPlatform({
    postgres: await requireService('postgres'),
    mysql: await requireService('mysql'),
    redis: await requireBroker('redis'),
    rabbitmq: await requireBroker('rabbitmq'),
    mosquitto: await requireBroker('mosquitto'),
  });
}, 180_000);
afterAll(async () => platform?.close());

/** Calls the API as the administrator; `body` a string is sent as it is, with `contentType`. */
async function call(
  method: string,
  url: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await platform.server.app.inject({
    method: method as 'GET',
    url: `/api/v2${url}`,
    headers: {
      'x-service-api-key': platform.server.apiKey,
      'x-service-session-token': await token(),
      ...(body === undefined ? {} : { 'content-type': contentType }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const type = String(response.headers['content-type'] ?? '');
  let parsed: Json = response.body;
  if (type.includes('json') && response.body !== '') parsed = JSON.parse(response.body);
  return { status: response.statusCode, body: parsed, contentType: type };
}

let session: string | undefined;
async function token(): Promise<string> {
  session ??= await platform.server.adminToken();
  return session;
}

/** A request the walk makes for one operation. */
interface Request {
  /** Path (percent-encoded) and query, relative to the service. */
  url: string;
  body?: unknown;
  contentType?: string;
  /** The fields a partial read asked for. */
  selected?: string[];
  headers?: Record<string, string>;
}

/** What a walk knows of one kind of service: values of path parameters, and better requests than the document alone gives. */
interface WalkPlan {
  /** A value of a path parameter of an operation (undefined: the parameter's sample; null: nothing exists to name, only the bad request is made). */
  value(op: Operation, name: string): string | null | undefined | Promise<string | null | undefined>;
  /** A better request than the sampled one, or undefined. */
  request?(op: Operation, url: string): Request | undefined;
  /** Setup before the walk (records the walk's writes change). */
  prepare?(): Promise<void>;
  /** More good requests than one per operation, made after the reads (the answers are checked alike). */
  extras?: Array<Request & { method: string }>;
}

const fill = (template: string, value: (name: string) => string) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => value(name).split('/').map(encodeURIComponent).join('/'));

/** Operations in an order that keeps what later ones need: reads, creates, changes, then deletes (deepest paths first). */
function walkOrder(operations: Operation[]): Operation[] {
  const rank = { get: 0, post: 1, put: 2, patch: 3, delete: 4 };
  return [...operations].sort(
    (a, b) => rank[a.method] - rank[b.method] || (a.method === 'delete' ? b.template.length - a.template.length : 0),
  );
}

/** The request a client generated from the document would make: required query parameters and a body from the schemas. */
async function sampledRequest(checker: DocumentChecker, op: Operation, plan: WalkPlan): Promise<Request | null> {
  const values = new Map<string, string>();
  for (const parameter of op.parameters.filter((p) => p.in === 'path')) {
    const value = await plan.value(op, parameter.name);
    if (value === null) return null;
    values.set(parameter.name, value ?? String(checker.sample(parameter.schema ?? { type: 'string' })));
  }
  const path = fill(op.template, (name) => values.get(name) ?? 'x');
  const query = op.parameters
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(checker.sample(p.schema ?? {})))}`);
  const url = `${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const better = plan.request?.(op, url);
  if (better !== undefined) return better;
  const body = checker.resolve(op.operation.requestBody);
  if (body?.content === undefined) return { url };
  const json = body.content['application/json'];
  if (json !== undefined) return { url, body: checker.sample(json.schema ?? {}) };
  const [type] = Object.keys(body.content);
  return { url, body: 'walked', contentType: type };
}

/** The bad request of an operation: a body that is no JSON, or else a path naming nothing. */
function badRequest(checker: DocumentChecker, op: Operation, request: Request): Request | undefined {
  const content = Object.keys(checker.resolve(op.operation.requestBody)?.content ?? {});
  // A body that must be JSON (file writes take any bytes, JSON-typed ones too).
  if (content.length === 1 && content[0] === 'application/json')
    return { url: request.url, body: '{"resource": [', contentType: 'application/json' };
  if (op.template.includes('{')) {
    const url = fill(op.template, () => 'no_such_thing_0');
    return { url };
  }
  return undefined;
}

interface WalkResult {
  checker: DocumentChecker;
  /** Good requests a documented operation answered 404. */
  missing: string[];
  walked: number;
}

async function walk(service: string, plan: WalkPlan): Promise<WalkResult> {
  const spec = await call('GET', `/${service}/_spec`);
  expect(spec.status).toBe(200);
  // A valid OpenAPI 3.0 document, served alike by api_docs, its paths in the combined document under the service's name.
  expect(await openApiErrors(spec.body)).toBeNull();
  expect((await call('GET', `/api_docs/${service}`)).body.paths).toEqual(spec.body.paths);
  combined ??= (await call('GET', '/api_docs')).body;
  for (const [path, item] of Object.entries<Json>(spec.body.paths))
    expect(Object.keys(combined.paths[path === '/' ? `/${service}` : `/${service}${path}`] ?? {}), `${service} ${path}`).toEqual(
      Object.keys(item),
    );
  const checker = new DocumentChecker(service, spec.body);
  await plan.prepare?.();
  // What the service's root lists is documented: a listed resource without a path is one a client cannot know.
  const root = await call('GET', `/${service}`);
  if (root.status === 200 && Array.isArray(root.body?.resource)) {
    for (const entry of root.body.resource) {
      const name = encodeURIComponent(String(typeof entry === 'string' ? entry : entry.name)).replace(/%2F/g, '/');
      // SOAP operations are documented lowercase without underscores, and called by any case (spec, SOAP services).
      const soapName = name.toLowerCase().replace(/_/g, '');
      if ([`/${name}`, `/${name}/`, `/${soapName}`].every((path) => checker.pathOf(path) === undefined))
        checker.problems.push(`GET /${service} lists '${name}', which the document has no path for`);
    }
  }
  const missing: string[] = [];
  const walkedUrls = new Map<string, string>();
  let walked = 0;
  const operations = walkOrder(checker.operations());
  const firstWrite = operations.findIndex((op) => op.method !== 'get');
  for (const [index, op] of operations.entries()) {
    if (index === firstWrite) {
      for (const extra of plan.extras ?? []) {
        const answer = await call(extra.method, `/${service}${extra.url}`, extra.body, extra.contentType, extra.headers);
        checker.check(extra.method, extra.url, answer, { selected: extra.selected });
        if (answer.status >= 400)
          missing.push(`${extra.method} ${extra.url} -> ${answer.status}: ${JSON.stringify(answer.body).slice(0, 160)}`);
      }
    }
    const method = op.method.toUpperCase();
    const request = await sampledRequest(checker, op, plan);
    if (request === null) {
      const bad = badRequest(checker, op, { url: op.template });
      if (bad !== undefined) checker.check(method, bad.url, await call(method, `/${service}${bad.url}`, bad.body, bad.contentType));
      continue;
    }
    const answer = await call(method, `/${service}${request.url}`, request.body, request.contentType, request.headers);
    walkedUrls.set(op.template, request.url.split('?')[0]);
    checker.check(method, request.url, answer, { selected: request.selected });
    // A logout, or a refresh (which revokes the token it refreshes), ends the walk's session: the next call logs in again.
    if (method !== 'GET' && op.template.endsWith('/session')) session = undefined;
    walked++;
    // A good read of a documented path is served: a 404 or a 400 says the document promises what is not there.
    if (answer.status === 404 || (method === 'GET' && answer.status === 400))
      missing.push(`${method} ${request.url} -> ${answer.status}: ${JSON.stringify(answer.body).slice(0, 160)}`);
    const bad = badRequest(checker, op, request);
    if (bad === undefined) continue;
    const refusal = await call(method, `/${service}${bad.url}`, bad.body, bad.contentType);
    checker.check(method, bad.url, refusal);
    if (refusal.status < 400 && bad.body !== undefined)
      checker.problems.push(`${method} /${service}${bad.url}: a body that is no JSON was answered ${refusal.status}`);
  }
  // Methods a documented path does not have are not served there (405, or 404 where the path is a pattern's).
  for (const [template, url] of walkedUrls) {
    const documented = new Set(Object.keys(checker.doc.paths[template]));
    for (const method of ['get', 'post', 'put', 'patch', 'delete'].filter((m) => !documented.has(m))) {
      const answer = await call(method.toUpperCase(), `/${service}${url}`, method === 'get' || method === 'delete' ? undefined : {});
      if (answer.status < 400)
        checker.problems.push(
          `${method.toUpperCase()} /${service}${url} -> ${answer.status}: served, but ${template} documents no ${method}`,
        );
    }
  }
  return { checker, missing, walked };
}

const report = (result: WalkResult) => ({ problems: result.checker.problems, missing: result.missing });

// ------------------------------------------------------------------------------------------------
// Databases

/** A walk of a database service: reads name the address book's contact, writes a scratch table of the walk's own. */
function databasePlan(service: string): WalkPlan {
  // Contacts the walk changes and deletes: by id on the typed and the generic path, and in lists.
  const contacts: Record<'typed' | 'generic' | 'typedList' | 'genericList', number> = {
    typed: 0,
    generic: 0,
    typedList: 0,
    genericList: 0,
  };
  const typedId: Record<string, () => string> = {
    contact: () => String(contacts.typed),
    'odd%20name': () => 'walk',
    member: () => '1,1',
  };
  return {
    extras: [
      { method: 'GET', url: '/_table/contact?group=last_name&fields=last_name,COUNT(*)&limit=3', selected: ['last_name'] },
      { method: 'GET', url: '/_table/contact/1?fields=first_name', selected: ['first_name'] },
      { method: 'GET', url: '/_table/contact?related=contact_info_by_contact_id&limit=2' },
      { method: 'GET', url: '/_table/contact?include_count=true&limit=2' },
      { method: 'GET', url: '/_table/contact?count_only=true' },
      { method: 'GET', url: '/_table/contact_names/1?id_field=id' },
      { method: 'GET', url: '/_table/log_line?limit=1' },
      { method: 'GET', url: '/_table/member/1,1' },
    ],
    async prepare() {
      const names = Object.keys(contacts) as Array<keyof typeof contacts>;
      const created = await call('POST', `/${service}/_table/contact`, {
        resource: names.map((name) => ({ first_name: 'Walk', last_name: name })),
      });
      names.forEach((name, index) => {
        contacts[name] = created.body.resource[index].id;
      });
      expect(
        (await call('POST', `/${service}/_table/odd%20name`, { resource: [{ code: 'walk', 'e-mail': 'w@example.com' }] })).status,
      ).toBe(200);
      const scratch = await call('POST', `/${service}/_schema`, {
        resource: [
          {
            name: 'scratch',
            field: [
              { name: 'id', type: 'id' },
              { name: 'label', type: 'string', length: 40 },
              { name: 'contact_id', type: 'reference', ref_table: 'contact', ref_field: 'id' },
            ],
          },
        ],
      });
      expect(scratch.status, JSON.stringify(scratch.body)).toBe(200);
    },
    value(op, name) {
      const schemaWrite = op.template.startsWith('/_schema/') && op.method !== 'get';
      if (name === 'table_name') return schemaWrite ? 'scratch' : 'contact';
      if (name === 'field_name') return schemaWrite ? 'label' : 'first_name';
      if (name === 'relationship_name') return schemaWrite ? 'contact_by_contact_id' : 'contact_info_by_contact_id';
      if (name === 'id') {
        const table = /^\/_table\/([^/]+)\/\{id\}$/.exec(op.template)?.[1];
        return table === '{table_name}' ? String(contacts.generic) : (typedId[table ?? '']?.() ?? '1');
      }
      return undefined;
    },
    request(op, url) {
      const list = /^\/_table\/([^/{]+|\{table_name\})$/.exec(op.template)?.[1];
      if (list === 'contact' || list === '{table_name}') {
        const id = list === 'contact' ? contacts.typedList : contacts.genericList;
        if (op.method === 'put') return { url, body: { resource: [{ id, first_name: 'Walk', last_name: 'Kept' }] } };
        if (op.method === 'patch') return { url, body: { resource: [{ id, notes: 'walked' }] } };
        if (op.method === 'delete') return { url: `${url}?ids=${id}` };
        if (op.method === 'get') return { url: `${url}?fields=id,last_name&limit=3`, selected: ['id', 'last_name'] };
      }
      if (/^\/_table\/contact(\/\{id\}|\/\{table_name\}\/\{id\})?$/.test(op.template) || op.template === '/_table/{table_name}/{id}') {
        if (op.method === 'put') return { url, body: { first_name: 'Walk', last_name: 'Replaced' } };
        if (op.method === 'patch') return { url, body: { notes: 'walked' } };
      }
      if (op.template === '/_schema' && op.method === 'post')
        return { url, body: { resource: [{ name: 'scratch2', field: [{ name: 'id', type: 'id' }] }] } };
      return undefined;
    },
  };
}

describe('each database service answers as its _spec says', () => {
  for (const kind of ['sqlite', 'postgres', 'mysql'] as const) {
    it(kind, { timeout: 120_000 }, async (context) => {
      const service = platform.databases.get(kind);
      if (service === undefined) return context.skip();
      const result = await walk(service, databasePlan(service));
      expect(report(result)).toEqual({ problems: [], missing: [] });
    });
  }
});

/** Values a write takes exactly, per column of `write_shape` (truth-platform.ts), as sent and of each kind the server accepts. */
const EXACT_WRITES: Record<'sqlite' | 'postgres' | 'mysql', Array<Record<string, unknown>>> = {
  sqlite: [
    { exact: '12345678901234567890.0123456789', cents: 123.45, big: '9223372036854775807' },
    { exact: 1.5, cents: 0.5, big: 7 },
  ],
  postgres: [
    { exact: '12345678901234567890.0123456789', cents: 123.45, big: '9223372036854775807' },
    { exact: 1.5, exacts: ['1.5', '12345678901234567890.5', 2], bigs: ['9223372036854775807', 1] },
  ],
  mysql: [
    { exact: '12345678901234567890.0123456789', cents: 123.45, big: '9223372036854775807' },
    { exact: 1.5, big: 7 },
  ],
};

/**
 * What a read returns of an EXACT_WRITES record: every digit written, as a number while a double
 * holds them, else as text (PostgreSQL and MariaDB keep them; SQLite's numeric is a REAL).
 */
const EXACT_READS: Record<'sqlite' | 'postgres' | 'mysql', (written: Record<string, unknown>) => Record<string, unknown>> = {
  sqlite: (written) => ({ exact: Number(written.exact) }),
  postgres: (written) =>
    written.exacts === undefined ? { exact: written.exact } : { exact: written.exact, exacts: [1.5, '12345678901234567890.5', 2] },
  mysql: (written) => ({ exact: written.exact }),
};

describe('write bodies: what the request schemas admit is what the server takes', () => {
  for (const kind of ['sqlite', 'postgres', 'mysql'] as const) {
    it(kind, { timeout: 60_000 }, async (context) => {
      const service = platform.databases.get(kind);
      if (service === undefined) return context.skip();
      const checker = new DocumentChecker(service, (await call('GET', `/${service}/_spec`)).body);
      for (const record of EXACT_WRITES[kind]) {
        // A wide decimal's exact text and a bigint beyond 2^53 are taken: the request schemas must say so.
        expect(checker.mismatches('#/components/schemas/write_shape.insert', record), JSON.stringify(record)).toEqual([]);
        expect(checker.mismatches('#/components/schemas/write_shape.update', record), JSON.stringify(record)).toEqual([]);
        const created = await call('POST', `/${service}/_table/write_shape?fields=*`, { resource: [record] });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const id = created.body.resource[0].id;
        const updated = await call('PATCH', `/${service}/_table/write_shape/${id}?fields=*`, record);
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        // What reads return stays as the record schema says, and keeps the digits written.
        const read = await call('GET', `/${service}/_table/write_shape/${id}`);
        for (const answer of [created.body.resource[0], updated.body, read.body]) {
          expect(checker.mismatches('#/components/schemas/write_shape', answer), JSON.stringify(answer)).toEqual([]);
          expect(answer, JSON.stringify(answer)).toMatchObject(EXACT_READS[kind](record));
        }
      }
      // Text that is no number is refused by both.
      expect(checker.mismatches('#/components/schemas/write_shape.insert', { exact: '12,5' })).not.toEqual([]);
      expect((await call('POST', `/${service}/_table/write_shape`, { resource: [{ exact: '12,5' }] })).status).toBe(400);
    });
  }
});

// ------------------------------------------------------------------------------------------------
// The other services

/** Names and ids the walk of `system` uses: records it creates for its writes, the first listed for reads. */
function systemPlan(): WalkPlan {
  const created = new Map<string, Array<string | number>>();
  const first = async (resource: string): Promise<string | null> => {
    const listed = await call('GET', `/system/${resource}?limit=1`);
    const record = listed.body?.resource?.[0];
    return record === undefined ? null : String(typeof record === 'object' ? (record.id ?? record.name) : record);
  };
  // One instance limit per period may exist: one for each limit the walk writes.
  const periods = ['minute', 'hour', 'day', '7-day', '30-day'];
  const records: Record<string, () => Record<string, unknown>> = {
    admin: () => ({ email: `walk-${created.size}-${Math.random().toString(36).slice(2, 8)}@example.com`, name: 'Walk' }),
    user: () => ({ email: `walk-${created.size}-${Math.random().toString(36).slice(2, 8)}@example.com`, name: 'Walk' }),
    app: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}` }),
    role: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}` }),
    service: () => ({
      name: `walk${Math.random().toString(36).slice(2, 8)}`,
      label: 'Walk',
      type: 'local_file',
      config: { container: 'walk' },
    }),
    cors: () => ({ origin: 'https://walk.example.com', path: `walk/${Math.random().toString(36).slice(2, 8)}`, method: ['GET'] }),
    lookup: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}`, value: 'v' }),
    email_template: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}`, subject: 'Hi', body_text: 'Hello' }),
    custom: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}`, value: 'v' }),
    limit: () => ({ name: `walk_${Math.random().toString(36).slice(2, 8)}`, type: 'instance', rate: 1000, period: periods.shift() }),
    scheduler: () => ({
      name: `walk_${Math.random().toString(36).slice(2, 8)}`,
      service_id: 1,
      component: 'environment',
      verb: 'GET',
      frequency: 60,
      is_active: false,
    }),
  };
  const change = (resource: string) =>
    ({ admin: { name: 'Walked' }, user: { name: 'Walked' }, custom: { value: 'walked' } })[resource] ?? { description: 'walked' };
  return {
    async prepare() {
      for (const [resource, record] of Object.entries(records)) {
        const answer = await call('POST', `/system/${resource}`, { resource: [record(), record(), record()] });
        expect(answer.status, `${resource}: ${JSON.stringify(answer.body)}`).toBe(201);
        created.set(
          resource,
          answer.body.resource.map((r: { id?: number; name?: string }) => r.id ?? r.name),
        );
      }
    },
    async value(op, name) {
      const resource = op.template.split('/')[1];
      if (name === 'service') return 'db_sqlite';
      const ids = created.get(resource);
      if (name === 'id' && ids !== undefined && op.method !== 'get') return String(ids[0]);
      return first(resource);
    },
    request(op, url) {
      const resource = op.template.split('/')[1];
      const ids = created.get(resource);
      if (op.template === '/admin/password')
        return { url, body: { old_password: 'not-the-password-0', new_password: 'walk-password-0123456' } };
      if (op.template === '/admin/profile' && op.method === 'post') return { url, body: { first_name: 'Ada' } };
      if (op.template === '/admin/session' && op.method === 'post')
        return { url, body: { email: 'admin@test.local', password: 'admin-password-12345' } };
      if (ids === undefined) return undefined;
      const key = resource === 'custom' ? 'name' : 'id';
      if (op.template === `/${resource}` && (op.method === 'put' || op.method === 'patch'))
        return { url, body: { resource: [{ ...(op.method === 'put' ? records[resource]() : change(resource)), [key]: ids[1] }] } };
      if (op.template === `/${resource}` && op.method === 'delete') return { url: `${url}?ids=${ids[2]}` };
      if (op.template === `/${resource}/{id}` && op.method === 'put') return { url, body: records[resource]() };
      if (op.template === `/${resource}/{id}` && op.method === 'patch') return { url, body: change(resource) };
      if (op.template === `/${resource}` && op.method === 'post') return { url, body: { resource: [records[resource]()] } };
      return undefined;
    },
  };
}

const plain = (
  values: Record<string, string | ((op: Operation) => string)>,
  requests: WalkPlan['request'] = () => undefined,
): WalkPlan => ({
  value: (op, name) => {
    const value = values[name];
    return typeof value === 'function' ? value(op) : value;
  },
  request: requests,
});

describe('each other service answers as its _spec says', () => {
  it('system', { timeout: 120_000 }, async () => {
    const result = await walk('system', systemPlan());
    expect(report(result)).toEqual({ problems: [], missing: [] });
  });

  it('user, api_docs, files, email, the custom endpoints and the rws remote', { timeout: 120_000 }, async () => {
    const results = [
      await walk('user', plain({})),
      await walk('api_docs', plain({ service: 'db_sqlite' })),
      await walk('files', {
        extras: [
          { method: 'GET', url: '/walk/hello.txt', headers: { Range: 'bytes=0-1' } },
          { method: 'GET', url: '/walk/hello.txt?include_properties=true' },
          { method: 'GET', url: '/walk/?include_properties=true' },
        ],
        ...plain({
          folder_path: 'walk',
          file_path: (op) => (op.method === 'delete' ? 'walk-gone.txt' : 'walk/hello.txt'),
        }),
        async prepare() {
          expect((await call('POST', '/files/walk/')).status).toBe(201);
          expect((await call('PUT', '/files/walk/hello.txt', 'hello', 'text/plain')).status).toBeLessThan(300);
          expect((await call('PUT', '/files/walk-gone.txt', 'bye', 'text/plain')).status).toBeLessThan(300);
        },
      }),
      await walk(
        'email',
        plain({}, (_op, url) => ({ url, body: { to: [{ email: 'someone@example.com' }], subject: 'Walk', body_text: 'Hello' } })),
      ),
      await walk(
        'shop',
        plain({ name: 'Ada', id: '7' }, (op, url) => (op.method === 'post' ? { url, body: { item: 'tea', quantity: 2 } } : undefined)),
      ),
      await walk('remote', plain({ path: 'things/1' })),
    ];
    expect(results.map(report)).toEqual(results.map(() => ({ problems: [], missing: [] })));
  });

  it('SOAP services of the test WSDLs', { timeout: 120_000 }, async () => {
    const results = [];
    for (const service of platform.soap.values()) results.push(await walk(service, plain({})));
    expect(results.map(report)).toEqual(results.map(() => ({ problems: [], missing: [] })));
  });

  it('the cache and the brokers', { timeout: 120_000 }, async () => {
    const results = [];
    for (const service of ['cache', 'amqp', 'mqtt'].filter((name) => !platform.missing.includes(name))) {
      const plan = plain({ key: 'walk_key', topic: 'walk_topic' });
      plan.prepare = async () => {
        const made =
          service === 'cache' ? await call('POST', '/cache', { walk_key: 'v' }) : await call('POST', `/${service}/sub/walk_topic`, {});
        expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
      };
      results.push(await walk(service, plan));
    }
    expect(results.map(report)).toEqual(results.map(() => ({ problems: [], missing: [] })));
  });
});
