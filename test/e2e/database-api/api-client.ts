/**
 * A platform serving one database service `db` over a target database, driven through Fastify's
 * inject as an administrator: the database API as clients see it, HTTP parsing included.
 */
import type { ServerOptions } from '#runtime/http/create-server.js';
import type { PlatformModel, SqlServiceModel } from '#runtime/model/platform-model.js';
import { tableRouteSchemas } from '#runtime/openapi/record-schemas.js';
import { getServiceKind } from '#runtime/services/registry.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { type DatabaseTarget, databaseServiceModel, modelWithDatabase } from './database-targets.js';

export interface ApiResponse {
  status: number;
  body: any;
}

export interface ApiClient {
  /** `path` is relative to /api/v2/db and may carry its query string. */
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** `GET` with query parameters (encoded here). */
  get(path: string, query?: Record<string, string>): Promise<ApiResponse>;
  server: TestServer;
  close(): Promise<void>;
}

/** `a=1&b=x%20y` */
export function queryString(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
}

/** `options` are the server's (its environment, say). */
export async function startApi(
  target: DatabaseTarget,
  config: Record<string, unknown> = {},
  options: Partial<ServerOptions> = {},
): Promise<ApiClient> {
  return startApiOn(modelWithDatabase(target, config), options);
}

/**
 * The target introspected as `gen build` does, served as a generated server serves it: service
 * `db` with its tables in the model and their precompiled route schemas (routes.json).
 */
export async function startGeneratedApi(target: DatabaseTarget): Promise<ApiClient> {
  const plain = databaseServiceModel(target);
  const kind = getServiceKind(plain.type);
  if (kind?.introspect === undefined) throw new Error(`No introspection for ${plain.type}`);
  const service = (await kind.introspect(plain, { baseDir: process.cwd(), resolveEnv: (value) => value })) as SqlServiceModel;
  const base = minimalModel();
  const model = minimalModel({ services: [...base.services, service].sort((a, b) => a.id - b.id) });
  const tables = Object.fromEntries(service.schema.tables.map((table) => [table.name, tableRouteSchemas(table, service.dialect)]));
  return startApiOn(model, { routes: [{ service: service.name, tables }] });
}

async function startApiOn(model: PlatformModel, options: Partial<ServerOptions>): Promise<ApiClient> {
  const server = await startTestServer(model, options);
  const token = await server.adminToken();
  const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': token };
  const call = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const response = await server.app.inject({
      method: method as 'GET',
      url: `/api/v2/db${path.startsWith('/') || path.startsWith('?') || path === '' ? '' : '/'}${path}`,
      headers,
      ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } }),
    });
    return { status: response.statusCode, body: response.body === '' ? null : JSON.parse(response.body) };
  };
  return {
    call,
    get: (path, query) => call('GET', query === undefined ? path : `${path}?${queryString(query)}`),
    server,
    close: () => server.close(),
  };
}
