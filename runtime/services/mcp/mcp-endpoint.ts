/**
 * One MCP request (Streamable HTTP, stateless: a server and transport per request, so any
 * instance can answer): tools and resources for what the caller's role may reach, every tool
 * call made as the REST call it stands for, through the platform's own checks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Verb } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { buildTools, type McpTool, toolRequest } from './mcp-tools.js';
import { decodePercent } from '../../core/percent-decoding.js';

/** What the MCP endpoint needs of the platform, for one caller (runtime/http/mcp-route.ts provides it). */
export interface McpPlatform {
  /** The services the caller's role reaches and the MCP service exposes, with their OpenAPI fragments. */
  services(): Promise<Array<{ name: string; type: string; label: string; fragment: OpenApiFragment }>>;
  /** The names of the tables a service serves (its handler's, as `_spec?tables=true` lists them); undefined for a service without tables or one that cannot be opened now. */
  tables(service: string): Promise<readonly string[] | undefined>;
  /** Shared OpenAPI components the fragments reference. */
  sharedComponents(): Record<string, Record<string, unknown>>;
  /** Whether the caller's role allows the verb on a component of a service (something under it, for path templates). */
  allows(service: string, component: string, verb: Verb): boolean;
  /** Makes a REST call as the caller (same credentials, checks, limits and hooks). */
  call(verb: Verb, url: string, body: unknown): Promise<{ status: number; body: unknown }>;
  /** Tools the MCP service's config leaves out, and whether it offers writes. */
  disabledTools: ReadonlySet<string>;
  allowWrites: boolean;
  /** Keeps what `build` made for this caller's role a few seconds (tool lists cost a walk of every document). */
  memo<T>(key: string, build: () => Promise<T>): Promise<T>;
}

/** `portico://{service}/_schema/{table}`: one table, encoded as one segment, no query or fragment. */
const SCHEMA_URI = /^portico:\/\/([^/?#]+)\/_schema\/([^/?#]+)$/;

/**
 * The service and table a schema resource URI names, when the caller is offered that service;
 * else null. The URI went into the REST URL as written: `portico://docs/_schema/../_table/secret`
 * read rows, and `../../system/admin` other services, the MCP service's `exposed_services` too.
 */
async function schemaResource(platform: McpPlatform, uri: string): Promise<{ service: string; table: string } | null> {
  const match = SCHEMA_URI.exec(uri);
  if (!match) return null;
  const table = decodePercent(match[2]);
  if (table === null || table === '.' || table === '..') return null;
  const service = (await platform.services()).find((s) => s.name === match[1]);
  // Only a service with tables has table schemas: on a remote API the URI became a proxied call.
  if (service === undefined || (await platform.tables(service.name)) === undefined) return null;
  return { service: service.name, table };
}

function resultOf(response: { status: number; body: unknown }) {
  const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? null);
  const structured =
    response.body !== null && typeof response.body === 'object' && !Array.isArray(response.body)
      ? (response.body as Record<string, unknown>)
      : undefined;
  return {
    content: [{ type: 'text' as const, text }],
    ...(structured ? { structuredContent: structured } : {}),
    isError: response.status >= 400,
  };
}

export async function tools(platform: McpPlatform): Promise<McpTool[]> {
  const services = await platform.services();
  const list = buildTools(
    services.map((s) => ({ service: s.name, fragment: s.fragment })),
    platform.sharedComponents(),
    (service, component, verb) => (platform.allowWrites || verb === 'GET') && platform.allows(service, component, verb),
  );
  return list.filter((tool) => !platform.disabledTools.has(tool.name));
}

/** Table schemas as resources: one per table of a database service whose `_schema` the role may read. */
async function resources(platform: McpPlatform) {
  const out: Array<{ uri: string; name: string; mimeType: string; description: string }> = [];
  for (const service of await platform.services()) {
    // The handler's tables, not `/_table/{name}` paths read back out of the document: a remote
    // API's document with such paths listed its paths as database tables.
    for (const table of (await platform.tables(service.name)) ?? []) {
      if (!platform.allows(service.name, `_schema/${table}`, 'GET')) continue;
      out.push({
        uri: `portico://${service.name}/_schema/${encodeURIComponent(table)}`,
        name: `${service.name}/${table}`,
        mimeType: 'application/json',
        description: `Schema of table ${table} of ${service.label}.`,
      });
    }
  }
  return out;
}

/** Answers one MCP HTTP request on raw Node objects (the route has hijacked the reply). */
export async function serveMcp(
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  platform: McpPlatform,
  serverName: string,
): Promise<void> {
  const [{ Server }, { StreamableHTTPServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server({ name: `portico-${serverName}`, version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  let cached: Promise<McpTool[]> | null = null;
  const toolList = () => (cached ??= platform.memo('tools', () => tools(platform)));
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: (await toolList()).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (call) => {
    const tool = (await toolList()).find((candidate) => candidate.name === call.params.name);
    if (!tool)
      return { content: [{ type: 'text', text: `Unknown tool '${call.params.name}', or not allowed for this role.` }], isError: true };
    let rest: ReturnType<typeof toolRequest>;
    try {
      rest = toolRequest(tool, (call.params.arguments ?? {}) as Record<string, unknown>);
    } catch (error) {
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
    return resultOf(await platform.call(rest.verb, rest.url, rest.body));
  });
  server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: await resources(platform) }));
  server.setRequestHandler(types.ReadResourceRequestSchema, async (read) => {
    const target = await schemaResource(platform, read.params.uri);
    if (!target) throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown resource '${read.params.uri}'.`);
    const response = await platform.call(
      'GET',
      `/api/v2/${encodeURIComponent(target.service)}/_schema/${encodeURIComponent(target.table)}`,
      undefined,
    );
    if (response.status >= 400)
      throw new types.McpError(types.ErrorCode.InvalidParams, `Resource '${read.params.uri}': ${JSON.stringify(response.body)}`);
    return { contents: [{ uri: read.params.uri, mimeType: 'application/json', text: JSON.stringify(response.body) }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
