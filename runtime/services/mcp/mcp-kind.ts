/**
 * The `mcp` kind (group MCP, reference df-mcp-server): a Model Context Protocol server at
 * `/mcp/{service}` (outside /api/v2; runtime/http/mcp-route.ts serves it). Its REST side only
 * tells where the endpoint is.
 */
import { coreMessages } from '../../core/messages.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { jsonOperation } from '../../openapi/operation-builder.js';
import type { ServiceKind } from '../service-kind.js';

export const mcpConfigSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    app: {
      type: 'string',
      default: 'admin',
      description: 'App whose role applies to callers that send a session token (Bearer) without an API key.',
    },
    exposed_services: {
      type: 'array',
      items: { type: 'string' },
      default: [],
      description: "Services whose tools are offered; empty: every service the caller's role reaches.",
    },
    allow_writes: {
      type: 'boolean',
      default: true,
      description: 'Offer tools that write (POST, PUT, PATCH, DELETE); false: read-only tools.',
    },
    disabled_tools: { type: 'array', items: { type: 'string' }, default: [], description: 'Tool names not offered.' },
  },
};

export interface McpConfig {
  app: string;
  exposedServices: string[];
  allowWrites: boolean;
  disabledTools: Set<string>;
}

export function readMcpConfig(config: Record<string, unknown>): McpConfig {
  const names = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    app: typeof config.app === 'string' && config.app !== '' ? config.app : 'admin',
    exposedServices: names(config.exposed_services),
    allowWrites: config.allow_writes !== false,
    disabledTools: new Set(names(config.disabled_tools)),
  };
}

/** The OpenAPI fragment of an MCP service's REST side. */
function mcpOpenApi(endpoint: string): OpenApiFragment {
  return {
    paths: {
      '/': {
        get: jsonOperation({
          operationId: 'getMcpEndpoint',
          summary: `Where the MCP endpoint is (${endpoint}, Streamable HTTP, outside /api/v2).`,
          response: {
            description: 'The endpoint.',
            schema: {
              type: 'object',
              properties: { service_id: { type: 'integer' }, api_name: { type: 'string' }, mcp_endpoint: { type: 'string' } },
            },
          },
        }),
      },
    },
    components: {},
  };
}

export const mcpKind: ServiceKind = {
  type: 'mcp',
  label: 'MCP Server Service',
  group: 'MCP',
  description: 'MCP Server service for Model Context Protocol.',
  configSchema: mcpConfigSchema,
  describe: (service) => mcpOpenApi(`/mcp/${service.name}`),
  async open(service) {
    const endpoint = `/mcp/${service.name}`;
    return {
      async handle(call) {
        if (call.resource.length > 0 || call.verb !== 'GET')
          throw coreMessages.verbNotSupported.error(call.verb, call.resource.join('/'), service.name);
        return { body: { service_id: service.id, api_name: service.name, mcp_endpoint: endpoint } };
      },
      openapi: () => mcpOpenApi(endpoint),
      async close() {},
    };
  },
};
