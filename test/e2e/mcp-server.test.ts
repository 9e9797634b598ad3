/**
 * The `mcp` service driven by the MCP SDK's own client over Streamable HTTP: tools differ by role,
 * a table tool call goes through the REST checks (filters, row filters), refusals, resources for
 * table schemas, and the reference's 401 with JSON-RPC -32001 and WWW-Authenticate.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { brokerService } from '#test/helpers/broker-fixtures.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;
let base: string;
let adminToken: string;
const keys: Record<string, string> = {};

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'portico-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/agent`), { requestInit: { headers } }));
  return client;
}

beforeAll(async () => {
  const model = minimalModel();
  model.services.push(brokerService(50, 'agent', 'mcp', {}));
  server = await startTestServer(model);
  adminToken = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token: adminToken }));
  const db = new Database(path.join(server.dir, 'docs.sqlite'));
  db.exec('create table doc (id integer primary key autoincrement, owner text not null, title text not null)');
  db.exec("insert into doc (owner, title) values ('ann', 'alpha'), ('bob', 'beta'), ('ann', 'apple')");
  db.exec('create table secret (id integer primary key, value text)');
  db.close();
  const docs = (
    await api('POST', '/system/service', {
      resource: [{ name: 'docs', label: 'Docs', type: 'sqlite', config: { database: 'docs.sqlite' } }],
    })
  ).body.resource[0].id;
  const role = async (name: string, grants: unknown[]) =>
    (await api('POST', '/system/role', { resource: [{ name, role_service_access_by_role_id: grants }] })).body.resource[0].id;
  const reader = await role('reader', [
    { service_id: docs, component: '_table/doc', verb_mask: 1, filters: [{ name: 'owner', operator: '=', value: 'ann' }] },
    { service_id: docs, component: '_schema/*', verb_mask: 1 },
  ]);
  const writer = await role('writer', [{ service_id: docs, component: '*', verb_mask: 31 }]);
  for (const [name, id] of [
    ['reader-app', reader],
    ['writer-app', writer],
  ] as const) {
    keys[name] = (await api('POST', '/system/app?fields=api_key', { resource: [{ name, role_id: id }] })).body.resource[0].api_key;
  }
  base = await server.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => server?.close());

describe('mcp service', () => {
  it('lists different tools for different roles, from the OpenAPI operations each role may use', async () => {
    const reader = await connect({ 'X-DreamFactory-API-Key': keys['reader-app'] });
    const writer = await connect({ 'X-Service-API-Key': keys['writer-app'] });
    const readerTools = (await reader.listTools()).tools;
    const writerTools = (await writer.listTools()).tools;
    const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();
    expect(names(readerTools).every((n) => n.startsWith('docs_get'))).toBe(true);
    expect(names(readerTools).some((n) => /Doc/.test(n))).toBe(true);
    expect(names(readerTools).some((n) => /Secret/.test(n))).toBe(false);
    expect(names(writerTools)).toEqual(expect.arrayContaining(names(readerTools)));
    expect(names(writerTools).some((n) => n.startsWith('docs_create') && /Doc/.test(n))).toBe(true);
    expect(names(writerTools).some((n) => /Secret/.test(n))).toBe(true);
    // Input schemas are the OpenAPI ones: the filter parameter, a typed body for creates.
    const list = readerTools.find((t) => /^docs_get.*DocRecords$/.test(t.name))!;
    expect(list.inputSchema.properties).toHaveProperty('filter');
    const create = writerTools.find((t) => /^docs_create.*DocRecords$/.test(t.name))!;
    expect(JSON.stringify(create.inputSchema.properties!.body)).toContain('title');
    await reader.close();
    await writer.close();
  });

  it("calls a table tool through the REST checks: filter grammar and the role's row filter", async () => {
    const reader = await connect({ 'X-DreamFactory-API-Key': keys['reader-app'] });
    const tool = (await reader.listTools()).tools.find((t) => /^docs_get.*DocRecords$/.test(t.name))!;
    const result = await reader.callTool({ name: tool.name, arguments: { filter: 'title like "a%" or title like "b%"', order: 'id' } });
    expect(result.isError).toBe(false);
    const records = (result.structuredContent as { resource: Array<{ owner: string; title: string }> }).resource;
    // The row filter of the grant keeps bob's record out, as it does over REST.
    expect(records.map((r) => r.title)).toEqual(['alpha', 'apple']);
    const rest = await apiClient(server.app, () => ({ key: keys['reader-app'] }))(
      'GET',
      '/docs/_table/doc?filter=title%20like%20%22a%25%22%20or%20title%20like%20%22b%25%22&order=id',
    );
    expect(rest.body).toEqual(result.structuredContent);
    await reader.close();
  });

  it('refuses what the role has no grant for', async () => {
    const reader = await connect({ 'X-DreamFactory-API-Key': keys['reader-app'] });
    const writer = await connect({ 'X-Service-API-Key': keys['writer-app'] });
    const create = (await writer.listTools()).tools.find((t) => /^docs_create.*DocRecords$/.test(t.name))!;
    const refused = await reader.callTool({ name: create.name, arguments: { body: { resource: [{ owner: 'eve', title: 'x' }] } } });
    expect(refused.isError).toBe(true);
    const created = await writer.callTool({ name: create.name, arguments: { body: { resource: [{ owner: 'eve', title: 'evening' }] } } });
    expect(created.isError).toBe(false);
    expect((await api('GET', '/docs/_table/doc?filter=owner%3D%22eve%22')).body.resource).toHaveLength(1);
    await reader.close();
    await writer.close();
  });

  it("keeps a tool call on the tool's own path: '..' in a path argument is refused", async () => {
    const writer = await connect({ 'X-Service-API-Key': keys['writer-app'] });
    const tools = (await writer.listTools()).tools;
    const byId = tools.find((t) => t.description?.startsWith('GET /api/v2/docs/_table/doc/{id}'));
    expect(byId).toBeDefined();
    // `../secret` read another table than the tool's; `../../../x/y` another service.
    for (const id of ['../secret', '1/../../../../system/environment', '.']) {
      const result = await writer.callTool({ name: byId!.name, arguments: { id } });
      expect(result.isError, id).toBe(true);
      expect((result.content as Array<{ text: string }>)[0].text).toBe("Argument 'id' may not hold '.' or '..' path segments.");
    }
    await writer.close();
  });

  it('offers table schemas as resources', async () => {
    const reader = await connect({ 'X-DreamFactory-API-Key': keys['reader-app'] });
    const { resources } = await reader.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['portico://docs/_schema/doc']));
    const read = await reader.readResource({ uri: 'portico://docs/_schema/doc' });
    const schema = JSON.parse((read.contents[0] as { text: string }).text);
    expect(schema.name).toBe('doc');
    expect(schema.field.map((f: { name: string }) => f.name)).toEqual(['id', 'owner', 'title']);
    await reader.close();
  });

  it("offers only a database's tables as resources, not a remote API's /_table paths", async () => {
    // A remote API whose document has database-like paths: they were listed as its tables.
    const paths = Object.fromEntries(
      ['/_schema/{table_name}', '/_table/ghost'].map((p) => [
        p,
        { get: { operationId: `get${p.length}`, responses: { 200: { description: 'ok' } } } },
      ]),
    );
    const created = await api('POST', '/system/service', {
      resource: [
        {
          name: 'lookalike',
          label: 'Look-alike',
          type: 'rws',
          config: { base_url: 'http://127.0.0.1:9/v1', openapi: { openapi: '3.0.0', info: { title: 'x', version: '1' }, paths } },
        },
      ],
    });
    expect(created.status).toBe(201);
    const admin = await connect({ 'X-Service-API-Key': server.apiKey, 'X-Service-Session-Token': adminToken });
    try {
      const uris = (await admin.listResources()).resources.map((r) => r.uri);
      expect(uris).toEqual(expect.arrayContaining(['portico://docs/_schema/doc', 'portico://docs/_schema/secret']));
      expect(uris.filter((uri) => uri.startsWith('portico://lookalike/'))).toEqual([]);
      // Nor is such a URI read (it became a call proxied to the remote).
      await expect(admin.readResource({ uri: 'portico://lookalike/_schema/ghost' })).rejects.toThrow(
        "Unknown resource 'portico://lookalike/_schema/ghost'",
      );
    } finally {
      await admin.close();
      await api('DELETE', '/system/service?filter=name%3D%27lookalike%27');
    }
  });

  it('reads only table schemas as resources: a URI with dot segments, a query or another path is refused', async () => {
    const writer = await connect({ 'X-Service-API-Key': keys['writer-app'] });
    // The URI went into the REST URL as written: `../_table/secret` read the rows of a table.
    for (const uri of [
      'portico://docs/_schema/../_table/secret',
      'portico://docs/_schema/doc/../../../system/environment',
      'portico://docs/_schema/%2e%2e',
      'portico://docs/_schema/doc?fields=name',
      'portico://system/_schema/x',
    ]) {
      await expect(writer.readResource({ uri }), uri).rejects.toThrow(`Unknown resource '${uri}'.`);
    }
    const read = await writer.readResource({ uri: 'portico://docs/_schema/secret' });
    expect(JSON.parse((read.contents[0] as { text: string }).text).name).toBe('secret');
    await writer.close();
  });

  it('answers malformed frames, empty or long batches and other verbs with JSON-RPC errors', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-service-api-key': keys['reader-app'],
    };
    const post = (body: string) => fetch(`${base}/mcp/agent`, { method: 'POST', headers, body });
    // It answered a body that is no JSON in the REST envelope, which MCP clients do not read.
    const bad = await post('{"jsonrpc":"2.0",');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
    });
    // An empty batch was a 202 with no answer; a batch of thousands made as many REST calls.
    const empty = await post('[]');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } });
    const long = await post(JSON.stringify(Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))));
    expect(long.status).toBe(400);
    expect((await long.json()).error.code).toBe(-32600);
    const batch = await post(JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))));
    expect(batch.status).toBe(200);
    expect((await batch.json()).map((answer: { id: number }) => answer.id)).toEqual([1, 2]);
    // PUT and PATCH were 404s ("No route"): the endpoint is there, the verb is not.
    for (const method of ['PUT', 'PATCH']) {
      const answer = await fetch(`${base}/mcp/agent`, { method, headers, body: '{}' });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
      expect((await answer.json()).error.code).toBe(-32000);
    }
  });

  it("accepts a session token as Bearer (role from the service's app) and answers 401 as the reference", async () => {
    const admin = await connect({ Authorization: `Bearer ${adminToken}` });
    expect((await admin.listTools()).tools.length).toBeGreaterThan(5);
    await admin.close();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${base}/mcp/agent`, { method: 'POST', headers: json, body });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="MCP", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/mcp\/agent\/\.well-known\/oauth-protected-resource"$/,
    );
    expect(await missing.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Unauthorized: Bearer token required' },
    });
    const invalid = await fetch(`${base}/mcp/agent`, { method: 'POST', headers: { ...json, authorization: 'Bearer nonsense' }, body });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await fetch(`${base}/mcp/nothing`, { method: 'POST', headers: json, body })).status).toBe(404);
    const get = await fetch(`${base}/mcp/agent`, { headers: { accept: 'text/event-stream', 'x-service-api-key': keys['reader-app'] } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
  });

  it('is listed with group MCP and tells its endpoint over REST', async () => {
    expect((await api('GET', '/system/service_type/mcp')).body).toMatchObject({ name: 'mcp', group: 'MCP' });
    expect((await api('GET', '/agent')).body).toMatchObject({ api_name: 'agent', mcp_endpoint: '/mcp/agent' });
  });
});
