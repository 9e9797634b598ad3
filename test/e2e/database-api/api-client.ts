/**
 * A platform serving one database service `db` over a target database, driven through Fastify's
 * inject as an administrator: the database API as clients see it, HTTP parsing included.
 */
import type { ServerOptions } from '#runtime/http/create-server.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';
import { type DatabaseTarget, modelWithDatabase } from './database-targets.js';

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
  const server = await startTestServer(modelWithDatabase(target, config), options);
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
