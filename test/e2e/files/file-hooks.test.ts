/**
 * Hooks on a file service's paths (issue 17): a request for a file has the `{file_path}` event
 * and one for a folder (trailing slash) the `{folder_path}` event, at any depth, as GET
 * /system/event lists them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '#runtime/core/errors.js';
import { defineHooks } from '#runtime/http/hooks.js';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;
const seen: string[] = [];

const hooks = defineHooks({
  'files.{file_path}.put.pre_process': (_body, context) => {
    seen.push(`${context.event} ${context.resource.join('/')}`);
    if (context.resource.at(-1) === 'forbidden.txt') throw new ConflictError('No forbidden files.');
  },
  'files.{folder_path}.get.post_process': (body, context) => {
    seen.push(`${context.event} ${context.resource.join('/')}`);
    return { ...(body as object), hooked: true };
  },
});

beforeAll(async () => {
  server = await startTestServer(undefined, { hooks: [hooks] });
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
});
afterAll(async () => server?.close());

describe('hooks on a file service', () => {
  it('run on the file and folder events of requests at any depth', async () => {
    const token = await server.adminToken();
    const headers = { 'x-service-api-key': server.apiKey, 'x-service-session-token': token, 'content-type': 'text/plain' };
    expect((await api('POST', '/files/docs/')).status).toBe(201);
    const written = await server.app.inject({ method: 'PUT', url: '/api/v2/files/docs/a.txt', payload: 'hello', headers });
    expect(written.statusCode).toBe(201);
    const refused = await server.app.inject({ method: 'PUT', url: '/api/v2/files/docs/forbidden.txt', payload: 'no', headers });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: { code: 409, message: 'No forbidden files.' } });
    expect(fs.existsSync(path.join(server.dir, 'data/files/docs/forbidden.txt'))).toBe(false);
    const listed = await api('GET', '/files/docs/');
    expect(listed.body).toMatchObject({ hooked: true, resource: [expect.objectContaining({ name: 'a.txt' })] });
    expect(seen).toEqual([
      'files.{file_path}.put.pre_process docs/a.txt',
      'files.{file_path}.put.pre_process docs/forbidden.txt',
      'files.{folder_path}.get.post_process docs',
    ]);
  });

  it('are listed with the events GET /system/event names', async () => {
    const events = await api('GET', '/system/event?as_list=true');
    expect(events.status).toBe(200);
    expect(events.body.resource).toEqual(expect.arrayContaining(['files.{file_path}.put', 'files.{folder_path}.get']));
  });
});
