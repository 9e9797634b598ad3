/**
 * MCP tools from OpenAPI fragments: one tool per operation of a service the caller's role may use
 * (the same documents `/_spec` serves, so the input schemas are the OpenAPI ones, `$ref`s
 * inlined). A tool call is the REST call it stands for.
 */
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas30';
import type { Verb } from '../../model/platform-model.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';

export interface ToolCall {
  verb: Verb;
  /** Path after /api/v2/{service}, with `{name}` placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  service: string;
  call: ToolCall;
}

export interface ToolSource {
  service: string;
  fragment: OpenApiFragment;
}

const METHODS: Array<[keyof OpenAPIObject['paths'][string], Verb]> = [
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
];

type Components = Record<string, Record<string, unknown>>;

/** Inlines `#/components/...` references (a reference met again inside itself becomes `{}`). */
function inline(value: unknown, components: Components, seen: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, components, seen));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as ReferenceObject).$ref;
  if (typeof ref === 'string') {
    const [, , section, name] = ref.split('/');
    const target = components[section]?.[name];
    if (target === undefined || seen.includes(ref) || seen.length > 8) return {};
    return inline(target, components, [...seen, ref]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (key !== 'example' && key !== 'examples') out[key] = inline(item, components, seen);
  return out;
}

/** A tool name MCP clients accept: `[A-Za-z0-9_-]`, at most 64 characters. */
export function toolName(service: string, operationId: string): string {
  const name = `${service}_${operationId}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= 64) return name;
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 55)}_${hash.toString(16).padStart(8, '0')}`;
}

/** The grant component of a path: its static part (`/_table/contact/{id}` → `_table/contact`). */
export function pathComponent(path: string): string {
  const brace = path.indexOf('{');
  return (brace === -1 ? path : path.slice(0, brace)).replace(/^\/+|\/+$/g, '');
}

/**
 * Tools of the sources' operations that `allows(service, component, verb)` lets the caller use.
 * Generic table paths (`/_table/{table_name}`) and `_schema` paths are left to the typed table
 * tools and to resources.
 */
export function buildTools(
  sources: ToolSource[],
  shared: Components,
  allows: (service: string, component: string, verb: Verb) => boolean,
): McpTool[] {
  const tools: McpTool[] = [];
  const names = new Set<string>();
  for (const { service, fragment } of sources) {
    const components = { ...shared } as Components;
    for (const [section, entries] of Object.entries(fragment.components ?? {}))
      components[section] = { ...(components[section] ?? {}), ...(entries as Record<string, unknown>) };
    for (const [path, item] of Object.entries(fragment.paths)) {
      if (path.includes('{table_name}') || path.startsWith('/_schema') || path === '/_spec') continue;
      for (const [method, verb] of METHODS) {
        const operation = item[method] as OperationObject | undefined;
        if (!operation?.operationId) continue;
        if (!allows(service, pathComponent(path), verb)) continue;
        const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(
          (p) => inline(p, components) as ParameterObject,
        );
        const properties: Record<string, unknown> = {};
        const required: string[] = [];
        const call: ToolCall = { verb, path, pathParams: [], queryParams: [], hasBody: false };
        for (const parameter of parameters) {
          if (parameter.in !== 'path' && parameter.in !== 'query') continue;
          properties[parameter.name] = {
            ...((parameter.schema as SchemaObject) ?? {}),
            ...(parameter.description ? { description: parameter.description } : {}),
          };
          if (parameter.in === 'path') {
            call.pathParams.push(parameter.name);
            required.push(parameter.name);
          } else {
            call.queryParams.push(parameter.name);
          }
        }
        const body = operation.requestBody
          ? (inline(operation.requestBody, components) as {
              description?: string;
              required?: boolean;
              content?: Record<string, { schema?: unknown }>;
            })
          : null;
        const bodySchema = body?.content?.['application/json']?.schema;
        if (body) {
          call.hasBody = true;
          properties.body = { ...((bodySchema as object) ?? {}), description: body.description ?? 'Request body.' };
          if (body.required) required.push('body');
        }
        const name = toolName(service, operation.operationId);
        if (names.has(name)) continue;
        names.add(name);
        tools.push({
          name,
          description: [`${verb} /api/v2/${service}${path}.`, operation.summary, operation.description].filter(Boolean).join(' '),
          inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
          service,
          call,
        });
      }
    }
  }
  return tools;
}

/** The REST request a tool call stands for: path with its parameters, query and body from the arguments. */
export function toolRequest(tool: McpTool, args: Record<string, unknown>): { verb: Verb; url: string; body: unknown } {
  let path = tool.call.path;
  for (const name of tool.call.pathParams) {
    const value = args[name];
    if (value === undefined || value === null || value === '') throw new Error(`Argument '${name}' is required.`);
    // A parameter may span segments (cache keys, topics): encode each segment. A `.` or `..` one
    // would be resolved by the URL parser: `../../other/x` left the tool's path and the services
    // and tools the MCP service offers.
    const segments = String(value).split('/');
    if (segments.some((segment) => segment === '.' || segment === '..'))
      throw new Error(`Argument '${name}' may not hold '.' or '..' path segments.`);
    path = path.replace(`{${name}}`, segments.map(encodeURIComponent).join('/'));
  }
  const query = new URLSearchParams();
  for (const name of tool.call.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const search = query.toString();
  return {
    verb: tool.call.verb,
    url: `/api/v2/${encodeURIComponent(tool.service)}${path === '/' ? '' : path}${search ? `?${search}` : ''}`,
    body: tool.call.hasBody ? args.body : undefined,
  };
}
