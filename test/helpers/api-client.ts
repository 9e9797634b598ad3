/** A small client over app.inject for tests: credentials, JSON bodies, status and parsed body. */
import type { FastifyInstance } from 'fastify';

export interface ApiResponse {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

export interface Credentials {
  key?: string;
  token?: string;
}

export type Api = (
  method: string,
  url: string,
  body?: unknown,
  credentials?: Credentials | null,
  headers?: Record<string, string>,
) => Promise<ApiResponse>;

/** Calls /api/v2 paths with the given default credentials (null: none). */
export function apiClient(app: FastifyInstance, defaults: () => Credentials): Api {
  return async (method, url, body, credentials, headers = {}) => {
    const use = credentials === null ? {} : (credentials ?? defaults());
    const response = await app.inject({
      method: method as 'GET',
      url: url.startsWith('/api/') ? url : `/api/v2${url}`,
      headers: {
        ...(use.key ? { 'x-service-api-key': use.key } : {}),
        ...(use.token ? { 'x-service-session-token': use.token } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = response.body;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: response.statusCode, body: parsed, headers: response.headers as Record<string, unknown> };
  };
}
