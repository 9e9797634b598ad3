/**
 * Custom endpoints and the in-process API (issue 17 items 2 and 3), on the quickstart platform
 * plus a `shop` custom service of this file's own: routes served under /api/v2/{service}/ with
 * role grants applied as for any service (two roles), request bodies checked against the route's
 * schema (400 in the spec's shape), the schemas in the service's OpenAPI documents, a thrown
 * PorticoError answered with its status, anything else a generic 500, and in-process calls with
 * the caller's rights (role grants whose requestor includes `script`) refused where the role lacks
 * them and allowed with elevated rights. A wrong endpoint module does not compile (tsc).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, PorticoError } from '#runtime/core/errors.js';
import { defineHooks } from '#runtime/http/hooks.js';
import { loadModel } from '#runtime/http/run-server.js';
import type { EndpointRouteModel, PlatformModel, RoleModel } from '#runtime/model/platform-model.js';
import { customKind } from '#runtime/services/custom/custom-kind.js';
import { defineEndpoints, readEndpointSet, sortRoutes } from '#runtime/services/custom/endpoints.js';
import type { ApiTables } from '#runtime/services/service-api.js';
import type { TableInserts, TableUpdates, Tables } from '../../examples/quickstart/server/services/db/types.js';
import { loadUserModule } from '#generator/user-modules.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { copyQuickstart, repoRoot } from '#test/helpers/quickstart-copy.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

type DbApi = ApiTables<'db', Tables, TableInserts, TableUpdates>;

const order = {
  type: 'object',
  additionalProperties: false,
  required: ['item', 'quantity'],
  properties: { item: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } },
};

const shop = defineEndpoints<DbApi>({
  routes: [
    {
      method: 'GET',
      path: '/greet/:name',
      handler: (request, ctx) => ({ hello: request.params.name, user: ctx.auth.user?.email ?? null, service: ctx.service }),
    },
    {
      method: 'POST',
      path: '/orders',
      summary: 'Places an order.',
      request: order,
      response: { type: 'object', properties: { id: { type: 'integer' }, item: { type: 'string' } } },
      handler: (request: { body: { item: string; quantity: number } }, ctx) =>
        ctx.reply(201, { id: 7, item: request.body.item }, { 'x-order': '7' }),
    },
    { method: 'GET', path: '/orders/:id', handler: (request) => ({ id: Number(request.params.id) }) },
    {
      method: 'GET',
      path: '/refuse',
      handler: () => {
        throw new ConflictError('Out of stock.');
      },
    },
    {
      method: 'GET',
      path: '/crash',
      handler: () => {
        throw new Error('secret internals');
      },
    },
    // The caller's rights, then an administrator's.
    { method: 'GET', path: '/contacts', handler: async (_request, ctx) => ({ count: await ctx.api.table('db', 'contact').count() }) },
    {
      method: 'GET',
      path: '/contacts/elevated',
      handler: async (_request, ctx) => ({ count: await ctx.api.asAdmin().table('db', 'contact').count() }),
    },
    {
      method: 'GET',
      path: '/contacts/first',
      handler: async (_request, ctx) => {
        const [first] = await ctx.api
          .call('db', 'GET', '_table/contact', { query: { limit: 1, order: 'id', fields: ['id', 'last_name'] }, elevated: true })
          .then((r) => r.body.resource);
        return first;
      },
    },
    { method: 'DELETE', path: '/quiet', handler: () => undefined },
    // Writes a file in process, the body as the handler has it: text, bytes or an object.
    {
      method: 'POST',
      path: '/notes/:name',
      handler: async (request: { params: Record<string, string>; body: { text?: string; bytes?: number[]; json?: unknown } }, ctx) => {
        const { text, bytes, json } = request.body;
        const body = text ?? (bytes === undefined ? json : Uint8Array.from(bytes));
        const written = await ctx.api.asAdmin().call('files', 'POST', request.params.name, { body });
        return ctx.reply(201, written.body);
      },
    },
    { method: 'GET', path: '/export', handler: () => Readable.from(['id,name\n', '1,Ada\n']) },
    {
      method: 'GET',
      path: '/export/csv',
      handler: (_request, ctx) => ctx.reply(200, Readable.from(['id\n']), { 'Content-Type': 'text/csv' }),
    },
    // Calls itself in process: cut off at the nesting limit, not a stack overflow.
    { method: 'GET', path: '/loop', handler: (_request, ctx) => ctx.api.call('shop', 'GET', 'loop', { elevated: true }) },
  ],
});

const grant = (
  service: string,
  component: string,
  verbs: RoleModel['grants'][number]['verbs'],
  requestor: Array<'api' | 'script'> = ['api'],
) => ({
  service,
  component,
  verbs,
  requestor,
  filters: [],
  filterOp: 'and' as const,
});

const ROLES: RoleModel[] = [
  {
    name: 'counter',
    description: 'Counts contacts through the shop, for itself.',
    is_active: true,
    origin: 'platform',
    grants: [
      grant('shop', '*', ['GET', 'POST', 'DELETE']),
      grant('db', '_table/*', ['GET'], ['api', 'script']),
      grant('stats', 'contacts', ['GET']),
    ],
  },
  {
    name: 'outsider',
    description: 'Greets and orders; reads the tables itself, never through a script.',
    is_active: true,
    origin: 'platform',
    grants: [
      grant('shop', 'greet/*', ['GET']),
      grant('shop', 'orders', ['POST']),
      grant('shop', 'contacts/*', ['GET']),
      grant('shop', 'refuse', ['GET']),
      grant('db', '_table/*', ['GET']),
    ],
  },
];

const PASSWORD = 'custom-endpoints-password-1';
const queuedAfterStream: string[] = [];
const queuedGroups: string[] = [];
let dir: string;
let server: TestServer;
let admin: Api;
const as: Record<string, Api> = {};

beforeAll(async () => {
  dir = copyQuickstart();
  const quickstart = loadModel(new URL(`file://${dir}/server/model.json`));
  const shopService = {
    id: 10,
    name: 'shop',
    label: 'Shop',
    type: 'custom',
    description: 'A test custom service.',
    is_active: true,
    config: { module: 'endpoints/shop.ts' },
    origin: 'platform' as const,
    kind: 'custom' as const,
    routes: sortRoutes(readEndpointSet(shop).map((route) => route.model)),
  };
  const model: PlatformModel = {
    ...quickstart,
    services: [...quickstart.services, shopService],
    roles: [...quickstart.roles, ...ROLES],
    apps: [
      ...quickstart.apps,
      { name: 'client', label: 'Client', description: '', is_active: true, apiKey: null, role: null, origin: 'platform' },
    ],
    admins: minimalModel().admins,
  };
  // The quickstart's own hook and endpoint modules, loaded as `gen build` loads them.
  const quickstartDir = path.join(repoRoot, 'examples/quickstart');
  const quickstartModule = async (file: string) => (await loadUserModule(quickstartDir, file, path.join(dir, 'server'))).default;
  // A hook writing to its own service in process (a group named by the query), then refusing the write when asked to.
  const groupThenRefuse = defineHooks({
    'db._table.contact_info.post.post_process': async (_records, context) => {
      const group = context.query.tag_group;
      if (typeof group !== 'string') return;
      await context.api.asAdmin().table('db', 'contact_group').create({ name: group });
      if (context.query.refuse !== undefined) throw new ConflictError('Refused after tagging.');
    },
  });
  // Hooks on custom endpoint paths, named as GET /system/event lists them.
  const endpointHooks = defineHooks({
    'shop.greet.{name}.get.post_process': (body) => ({ ...(body as object), hooked: true }),
    // A pre_process hook sees the body before the route's schema check does.
    // Not an event of `shop` (its document has no root path): never runs.
    'shop.get.pre_process': () => {
      throw new ConflictError('The root is hooked.');
    },
    // Queued after a group is written, by a client or by the hook above inside its write's transaction.
    'db._table.contact_group.post.queued': (records) => {
      queuedGroups.push(...(records as Array<{ name?: unknown }>).map((record) => String(record.name)));
    },
    // A queued hook after a streamed answer: told nothing of the stream on its way to the client.
    'shop.export.get.queued': (body) => {
      queuedAfterStream.push(body === undefined ? 'nothing' : typeof body);
    },
    'shop.orders.post.pre_process': (body) => {
      if ((body as { item?: string } | null)?.item === 'forbidden') throw new ConflictError('No forbidden items.');
    },
  });
  const hooks = [
    (await quickstartModule('hooks/contact-info.ts')) as Record<string, unknown>,
    // platform.yaml `transaction: true`: the write and this hook's own write are kept or undone together.
    { file: 'hooks/group-then-refuse.ts', transaction: true, hooks: groupThenRefuse },
    endpointHooks,
  ];
  server = await startTestServer(model, { baseDir: dir, hooks, endpoints: { shop, stats: await quickstartModule('endpoints/stats.ts') } });
  const token = await server.adminToken();
  admin = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const id = async (resource: string, name: string) => (await admin('GET', `/system/${resource}?filter=name%3D'${name}'`)).body.resource[0];
  const client = await id('app', 'client');
  for (const role of ['counter', 'outsider']) {
    const email = `${role}@shop.test`;
    const user = await admin('POST', '/system/user', {
      resource: [
        {
          name: role,
          email,
          password: PASSWORD,
          is_active: true,
          user_to_app_to_role_by_user_id: [{ app_id: client.id, role_id: (await id('role', role)).id }],
        },
      ],
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const session = await admin('POST', '/user/session', { email, password: PASSWORD }, { key: client.api_key });
    as[role] = apiClient(server.app, () => ({ key: client.api_key, token: session.body.session_token }));
  }
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a custom service', () => {
  it('serves its routes under /api/v2/{service}/, with path parameters and the caller', async () => {
    const greeted = await as.outsider('GET', '/shop/greet/Ada');
    expect(greeted).toMatchObject({ status: 200, body: { hello: 'Ada', user: 'outsider@shop.test', service: 'shop' } });
    const placed = await as.outsider('POST', '/shop/orders', { item: 'tea', quantity: 2 });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({ id: 7, item: 'tea' });
    expect(placed.headers['x-order']).toBe('7');
    expect((await as.counter('GET', '/shop/orders/12')).body).toEqual({ id: 12 });
    const quiet = await as.counter('DELETE', '/shop/quiet');
    expect(quiet.status).toBe(204);
  });

  it('runs hooks on its paths, named as GET /system/event lists them', async () => {
    expect((await as.outsider('GET', '/shop/greet/Ada')).body).toMatchObject({ hello: 'Ada', hooked: true });
    const refused = await as.outsider('POST', '/shop/orders', { item: 'forbidden', quantity: 1 });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 409, message: 'No forbidden items.' } } });
    expect((await as.outsider('POST', '/shop/orders', { item: 'tea', quantity: 1 })).status).toBe(201);
    const events = await admin('GET', '/system/event?service=shop');
    expect(events.body.shop['shop/greet/{name}'].hooks).toEqual(['shop.greet.{name}.get.post_process']);
    expect(events.body.shop['shop/orders'].hooks).toEqual(['shop.orders.post.pre_process']);
    // The service's root is not in its document: no event, so its hook does not run.
    expect(events.body.shop.shop).toBeUndefined();
    expect(await admin('GET', '/shop')).toMatchObject({
      status: 404,
      body: { error: { code: 404, message: "Resource '' not found for service 'shop'." } },
    });
  });

  it('applies role grants as for any service: the component is the path', async () => {
    expect((await as.counter('GET', '/shop/orders/12')).status).toBe(200);
    const refused = await as.outsider('GET', '/shop/orders/12');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "Access Forbidden. GET access to component 'orders/12' of service 'shop' is not allowed by this user's role.",
    );
    expect((await as.outsider('GET', '/stats/contacts')).status).toBe(403);
    expect((await as.counter('GET', '/stats/contacts')).status).toBe(200);
    // The role editor's list of components.
    const components = await admin('GET', '/shop?as_access_list=true');
    expect(components.body.resource).toEqual([
      '',
      '*',
      'contacts',
      'contacts/elevated',
      'contacts/first',
      'crash',
      'export',
      'export/csv',
      'greet/*',
      'loop',
      'notes/*',
      'orders',
      'orders/*',
      'quiet',
      'refuse',
    ]);
  });

  it('answers an unknown path 404 and another verb on a known path 400, in the spec shape', async () => {
    const missing = await admin('GET', '/shop/nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 404, message: "Resource 'nothing/here' not found for service 'shop'." } });
    const verb = await admin('PUT', '/shop/orders', { item: 'x', quantity: 1 });
    expect(verb.status).toBe(400);
    expect(verb.body.error.message).toBe("PUT requests for resource 'orders' are not currently supported by the 'shop' service.");
  });

  it('checks request bodies against the route schema: a 400 in the spec shape naming the field', async () => {
    const cases: Array<[unknown, string, string | undefined]> = [
      [{ item: 'tea' }, "Invalid request: 'quantity' is required.", 'quantity'],
      [{ item: 'tea', quantity: 'two' }, "Invalid request: 'quantity' must be integer.", 'quantity'],
      [{ item: 'tea', quantity: 0 }, "Invalid request: 'quantity' must be >= 1.", 'quantity'],
      [{ item: 'tea', quantity: 1, colour: 'red' }, "Invalid request: 'colour' is not a known field.", 'colour'],
      [undefined, "Invalid request: 'body' must be object.", 'body'],
    ];
    for (const [body, message, field] of cases) {
      const answer = await as.outsider('POST', '/shop/orders', body);
      expect(answer.status, message).toBe(400);
      expect(answer.body).toEqual({ error: { code: 400, message, context: { field } } });
    }
  });

  it('sends a streamed answer with the type its handler set, else as application/octet-stream', async () => {
    const untyped = await admin('GET', '/shop/export');
    expect(untyped).toMatchObject({ status: 200, body: 'id,name\n1,Ada\n' });
    expect(untyped.headers['content-type']).toBe('application/octet-stream');
    for (let tries = 0; queuedAfterStream.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queuedAfterStream).toEqual(['nothing']);
    const csv = await admin('GET', '/shop/export/csv');
    expect(csv).toMatchObject({ status: 200, body: 'id\n' });
    expect(csv.headers['content-type']).toBe('text/csv');
  });

  it('answers a thrown PorticoError with its status and message; anything else is a generic 500', async () => {
    const refused = await as.outsider('GET', '/shop/refuse');
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 409, message: 'Out of stock.' } } });
    const crashed = await admin('GET', '/shop/crash');
    expect(crashed.status).toBe(500);
    expect(crashed.body).toEqual({ error: { code: 500, message: 'Internal server error.' } });
  });

  it('documents its routes and their schemas in _spec, api_docs and the combined document', async () => {
    const spec = await admin('GET', '/shop/_spec');
    expect(spec.status).toBe(200);
    const post = spec.body.paths['/orders'].post;
    expect(post.summary).toBe('Places an order.');
    // The body references its schema as a component named after the operation (spec, Discovery).
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PostOrdersRequest' });
    expect(spec.body.components.schemas.PostOrdersRequest).toEqual(order);
    // The handler chooses the success status (this one replies 201).
    expect(post.responses['2XX'].content['application/json'].schema.properties.item).toEqual({ type: 'string' });
    expect(spec.body.paths['/greet/{name}'].get.parameters).toEqual([
      expect.objectContaining({ name: 'name', in: 'path', required: true }),
    ]);
    expect((await admin('GET', '/api_docs/shop')).body.paths).toEqual(spec.body.paths);
    const combined = await admin('GET', '/api_docs');
    expect(combined.body.paths['/shop/orders'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/shop.PostOrdersRequest',
    });
    expect(combined.body.components.schemas['shop.PostOrdersRequest']).toEqual(order);
    expect(combined.body.paths['/stats/contacts'].get.responses['2XX'].content['application/json'].schema.required).toEqual([
      'total',
      'groups',
    ]);
    // The endpoints are events too.
    const events = await admin('GET', '/system/event?service=shop&as_list=true');
    expect(events.body.resource).toContain('shop.orders.post');
  });

  it('is listed as a service type (group Script) and is declared in platform.yaml only', async () => {
    const type = await admin('GET', '/system/service_type/custom');
    expect(type.body).toMatchObject({ name: 'custom', group: 'Script', service_definition_editable: false });
    expect(type.body.config_schema).toEqual([
      expect.objectContaining({ name: 'module', type: 'string', required: true }),
      expect.objectContaining({ name: 'timeout_ms', type: 'integer', required: false }),
    ]);
    const created = await admin('POST', '/system/service', {
      resource: [{ name: 'later', label: 'Later', type: 'custom', config: { module: 'x.ts' } }],
    });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toBe(
      "Service type 'custom' can only be declared in platform.yaml: its code is compiled with the server by `gen build`.",
    );
  });
});

/** A server of the built-in services and a custom service per module, read as gen build reads it (in the process that then serves it, as gen dev does), and an administrator's client. */
async function serveModules(
  modules: Record<string, unknown>,
  config: Record<string, Record<string, unknown>> = {},
): Promise<{ server: TestServer; call: Api }> {
  const services = [];
  for (const [index, [name, module]] of Object.entries(modules).entries()) {
    const read = (await customKind.introspect!(
      { name, type: 'custom', config: {} } as never,
      {
        loadModule: async () => module,
      } as never,
    )) as { routes: EndpointRouteModel[] };
    services.push({
      id: 20 + index,
      name,
      label: name,
      type: 'custom',
      description: '',
      is_active: true,
      config: { module: `endpoints/${name}.ts`, ...config[name] },
      origin: 'platform' as const,
      kind: 'custom' as const,
      routes: read.routes,
    });
  }
  const model = minimalModel();
  const started = await startTestServer({ ...model, services: [...model.services, ...services] }, { endpoints: modules });
  const token = await started.adminToken();
  return { server: started, call: apiClient(started.app, () => ({ key: started.apiKey, token })) };
}

it('serves request schemas with an $id: shared by two routes, by two services on one module, after gen build has read the module', async () => {
  const item = { $id: 'Item', type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  const forms = defineEndpoints({
    routes: [
      { method: 'POST', path: '/items', request: item, handler: (request: { body: unknown }) => request.body },
      { method: 'PUT', path: '/items/:id', request: item, handler: (request: { body: unknown }) => request.body },
    ],
  });
  const { server: formsServer, call } = await serveModules({ forms, forms2: forms });
  try {
    for (const path of ['/forms/items', '/forms2/items']) {
      expect(await call('POST', path, { name: 'tea' })).toMatchObject({ status: 200, body: { name: 'tea' } });
      expect(await call('PUT', `${path}/1`, { name: 'tea' })).toMatchObject({ status: 200, body: { name: 'tea' } });
      expect(await call('PUT', `${path}/1`, { name: 1 })).toMatchObject({
        status: 400,
        body: { error: { code: 400, message: "Invalid request: 'name' must be string.", context: { field: 'name' } } },
      });
    }
  } finally {
    await formsServer.close();
  }
});

it('answers in the spec shape whatever a handler throws: no Error at all, an error status that is none, a context JSON cannot hold', async () => {
  const cycle: Record<string, unknown> = { name: 'cycle' };
  cycle.self = cycle;
  const odd = defineEndpoints({
    routes: [
      ['undefined', undefined],
      ['null', null],
      ['text', 'out of stock'],
      ['status-99', new PorticoError(99, 'Odd.')],
      ['status-200', new PorticoError(200, 'Fine?')],
      ['cycle', new ConflictError('Taken.', cycle)],
      ['bigint', new ConflictError('Taken.', { id: 10n } as never)],
    ].map(([name, thrown]) => ({
      method: 'GET' as const,
      path: `/${name}`,
      handler: () => {
        throw thrown;
      },
    })),
  });
  const { server: oddServer, call } = await serveModules({ odd });
  try {
    const generic = { status: 500, body: { error: { code: 500, message: 'Internal server error.' } } };
    for (const name of ['undefined', 'null', 'text', 'status-99', 'status-200'])
      expect(await call('GET', `/odd/${name}`), name).toMatchObject(generic);
    for (const name of ['cycle', 'bigint']) {
      expect(await call('GET', `/odd/${name}`), name).toMatchObject({ status: 409, body: { error: { code: 409, message: 'Taken.' } } });
    }
    expect((await call('GET', '/system/environment')).status).toBe(200);
  } finally {
    await oddServer.close();
  }
});

it("cuts a handler that does not answer within its service's timeout_ms off with a 503, serving other requests meanwhile", async () => {
  const slow = defineEndpoints({
    routes: [
      { method: 'GET', path: '/never', handler: () => new Promise(() => undefined) },
      { method: 'GET', path: '/quick', handler: async () => ({ quick: true }) },
    ],
  });
  const { server: slowServer, call } = await serveModules({ slow }, { slow: { timeout_ms: 300 } });
  try {
    const started = Date.now();
    const never = call('GET', '/slow/never');
    expect(await call('GET', '/slow/quick')).toMatchObject({ status: 200, body: { quick: true } });
    expect(await never).toMatchObject({
      status: 503,
      body: {
        error: { code: 503, message: "The request did not complete in time: the endpoint of service 'slow' took longer than 300 ms." },
      },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  } finally {
    await slowServer.close();
  }
});

describe('the in-process API', () => {
  it("calls with the caller's rights: a role whose grant lacks the script requestor is refused", async () => {
    const counted = await as.counter('GET', '/shop/contacts');
    expect(counted).toMatchObject({ status: 200, body: { count: 100 } });
    // outsider reads _table/* over HTTP, but not in process.
    expect((await as.outsider('GET', '/db/_table/contact?limit=1')).status).toBe(200);
    const refused = await as.outsider('GET', '/shop/contacts');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "Access Forbidden. GET access to component '_table/contact' of service 'db' is not allowed by this user's role.",
    );
  });

  it('calls with elevated rights only when asked for', async () => {
    expect(await as.outsider('GET', '/shop/contacts/elevated')).toMatchObject({ status: 200, body: { count: 100 } });
    expect((await as.outsider('GET', '/shop/contacts/first')).body).toEqual({ id: 1, last_name: 'Yang' });
  });

  it('sends a string to a file service as its text, bytes as they are, an object as JSON', async () => {
    const stored = (name: string) => fs.readFileSync(path.join(dir, 'data/files', name));
    const text = await admin('POST', '/shop/notes/plain.txt', { text: 'He said "hi"\nand left.' });
    expect(text.status, JSON.stringify(text.body)).toBe(201);
    expect(text.body).toMatchObject({ name: 'plain.txt', type: 'file' });
    expect(stored('plain.txt').toString('utf8')).toBe('He said "hi"\nand left.');
    expect((await admin('POST', '/shop/notes/bytes.bin', { bytes: [0, 255, 34, 10] })).status).toBe(201);
    expect([...stored('bytes.bin')]).toEqual([0, 255, 34, 10]);
    expect((await admin('POST', '/shop/notes/data.json', { json: { a: [1, 'two'] } })).status).toBe(201);
    expect(stored('data.json').toString('utf8')).toBe('{"a":[1,"two"]}');
  });

  it('stops calls that nest too deep', async () => {
    const looped = await admin('GET', '/shop/loop');
    expect(looped.status).toBe(500);
    expect(looped.body.error.message).toBe('In-process service calls nested more than 8 deep: a hook or endpoint seems to call itself.');
  });

  it("the quickstart's stats endpoint counts per group with the caller's rights", async () => {
    const stats = await as.counter('GET', '/stats/contacts');
    expect(stats.body.total).toBe(100);
    expect(stats.body.groups).toHaveLength(9);
    expect(stats.body.groups.reduce((sum: number, group: { contacts: number }) => sum + group.contacts, 0)).toBe(100);
  });

  it("the quickstart's hook normalises phone numbers and writes an audit entry with elevated rights", async () => {
    const created = await as.counter('POST', '/db/_table/contact_info?fields=id,phone', {
      resource: [
        {
          contact_id: 1,
          info_type: 'work',
          phone: '(500) 555.0199',
          email: 'a@b.c',
          address: 'x',
          city: 'x',
          state: 'x',
          zip: 'x',
          country: 'x',
        },
      ],
    });
    // counter may not write contact_info: the hook runs only for writes that are allowed.
    expect(created.status).toBe(403);
    const written = await admin('POST', '/db/_table/contact_info?fields=id,phone', {
      resource: [
        {
          contact_id: 1,
          info_type: 'work',
          phone: '(500) 555.0199',
          email: 'a@b.c',
          address: 'x',
          city: 'x',
          state: 'x',
          zip: 'x',
          country: 'x',
        },
      ],
    });
    expect(written.status).toBe(200);
    expect(written.body.resource[0].phone).toBe('500 555-0199');
    const id = written.body.resource[0].id;
    const audit = await admin('GET', `/audit/_table/entry?filter=record_ids%3D'${id}'`);
    expect(audit.body.resource).toEqual([
      expect.objectContaining({ event: 'db._table.contact_info.post.post_process', record_ids: String(id), actor: 'admin@test.local' }),
    ]);
    const refused = await admin('PATCH', `/db/_table/contact_info/${id}`, { phone: 'call me' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^Phone number 'call me' is not valid/);
  });

  it("a hook's in-process write to its own service joins the write's transaction (`transaction: true`): kept or undone with it, no wait for the connection", async () => {
    const info = { contact_id: 1, phone: '500 555 0000', email: 'x', address: 'x', city: 'x', state: 'x', zip: 'x', country: 'x' };
    const groups = async (name: string) => (await admin('GET', `/db/_table/contact_group?filter=name%3D'${name}'`)).body.resource;
    const started = Date.now();
    const refused = await admin('POST', '/db/_table/contact_info?tag_group=undone&refuse=1', {
      resource: [{ ...info, info_type: 'gone' }],
    });
    expect(refused).toMatchObject({ status: 409, body: { error: { message: 'Refused after tagging.' } } });
    // On SQLite's one connection a write beside the transaction would wait for it until the hook timed out (503).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await groups('undone')).toEqual([]);
    // The queued hook of the write undone with the transaction never ran; that of the one kept runs once it is committed.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queuedGroups).not.toContain('undone');
    expect((await admin('GET', "/db/_table/contact_info?filter=info_type%3D'gone'")).body.resource).toEqual([]);
    const kept = await admin('POST', '/db/_table/contact_info?tag_group=kept', { resource: [{ ...info, info_type: 'kept' }] });
    expect(kept.status).toBe(200);
    expect(await groups('kept')).toEqual([expect.objectContaining({ name: 'kept' })]);
    for (let tries = 0; !queuedGroups.includes('kept') && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queuedGroups).toContain('kept');
  });
});

it('a wrong endpoint module, or a wrong use of the in-process API, fails tsc', { timeout: 300_000 }, async () => {
  // Inside the repository, so that `portico/runtime` resolves through the package's self-reference.
  const project = fs.mkdtempSync(path.join(repoRoot, '.tmp-endpoints-'));
  try {
    fs.cpSync(path.join(repoRoot, 'examples/quickstart/server/services'), path.join(project, 'server/services'), { recursive: true });
    fs.mkdirSync(path.join(project, 'endpoints'));
    const header = [
      "import { type ApiTables, defineEndpoints } from 'portico/runtime';",
      "import type { TableInserts, TableUpdates, Tables } from '../server/services/db/types.js';",
      "type DbApi = ApiTables<'db', Tables, TableInserts, TableUpdates>;",
    ].join('\n');
    const good = `${header}
export default defineEndpoints<DbApi>({
  routes: [
    { method: 'GET', path: '/names', handler: async (_r, ctx) => (await ctx.api.table('db', 'contact').list({ fields: ['first_name'] })).map((c) => c.first_name.trim()) },
    { method: 'POST', path: '/add', handler: async (r: { body: { last: string } }, ctx) => ctx.api.asAdmin().table('db', 'contact').create({ first_name: 'A', last_name: r.body.last }) },
  ],
});
`;
    const wrong = `${header}
export default defineEndpoints<DbApi>({
  routes: [
    { method: 'FETCH', path: '/a', handler: () => 1 },
    { method: 'GET', path: '/b', handler: async (_r, ctx) => (await ctx.api.table('db', 'contact').list()).map((c) => c.nick_name) },
    { method: 'GET', path: '/c', handler: async (_r, ctx) => ctx.api.table('db', 'nope').count() },
    { method: 'GET', path: '/d', handler: async (_r, ctx) => ctx.api.table('db', 'contact').create({ first_name: 'A' }) },
    { method: 'GET', path: '/e', handler: async (_r, ctx) => (await ctx.api.table('db', 'contact').list({ fields: ['id'] })).map((c) => c.last_name) },
  ],
});
`;
    fs.writeFileSync(path.join(project, 'endpoints/good.ts'), good);
    fs.writeFileSync(path.join(project, 'endpoints/wrong.ts'), wrong);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
    const result = await typecheckProject(path.join(project, 'tsconfig.json'));
    const out = result.stdout;
    expect(result.exitCode).not.toBe(0);
    expect(out).not.toContain('good.ts');
    expect(out).toMatch(/wrong\.ts\(6,\d+\): error TS2322: Type '"FETCH"' is not assignable to type 'Verb'/);
    expect(out).toMatch(/wrong\.ts\(7,\d+\): error TS2339: Property 'nick_name' does not exist/);
    expect(out).toMatch(/wrong\.ts\(8,\d+\): error TS2345: Argument of type '"nope"' is not assignable/);
    expect(out).toMatch(
      /wrong\.ts\(9,\d+\): error TS2345: .*Property 'last_name' is missing in type '\{ first_name: string; \}' but required in type 'ContactInsert'/s,
    );
    expect(out).toMatch(/wrong\.ts\(10,\d+\): error TS2339: Property 'last_name' does not exist on type 'Pick<Contact, "id">'/);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
