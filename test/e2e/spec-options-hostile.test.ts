/**
 * GET /{service}/_spec's options (runtime/openapi/spec-views.ts) with odd combinations, on the
 * runtime's own services and on a database that cannot be reached: no 5xx, the format asked for
 * whatever the view, and an Accept header read by its preferences.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

const model = minimalModel();
model.services.push(
  {
    id: 20,
    name: 'book',
    type: 'sqlite',
    label: 'Book',
    description: '',
    is_active: true,
    config: { database: 'book.sqlite' },
    origin: 'platform',
    kind: 'plain',
  },
  {
    // Nothing listens on port 1: the service is declared but cannot be opened.
    id: 21,
    name: 'down',
    type: 'pgsql',
    label: 'Down',
    description: '',
    is_active: true,
    config: { host: '127.0.0.1', port: 1, database: 'none', username: 'nobody' },
    origin: 'platform',
    kind: 'plain',
  },
  {
    // A remote API whose own document has a `/_table/{name}` path: it is no database, it has no tables.
    id: 22,
    name: 'remote',
    type: 'rws',
    label: 'Remote',
    description: '',
    is_active: true,
    config: {
      base_url: 'http://127.0.0.1:1/v1',
      openapi: {
        openapi: '3.0.3',
        info: { title: 'Remote', version: '1' },
        paths: { '/_table/thing': { get: { operationId: 'things', responses: { 200: { description: 'ok' } } } } },
      },
    },
    origin: 'platform',
    kind: 'plain',
  },
);

let server: TestServer;
let headers: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer(model);
  const db = new Database(path.join(server.dir, 'book.sqlite'));
  db.exec("create table author (id integer primary key, name text not null); insert into author values (1, 'Ada'), (2, 'Bo')");
  db.close();
  headers = { 'x-dreamfactory-api-key': server.apiKey, 'x-dreamfactory-session-token': await server.adminToken() };
});
afterAll(async () => server?.close());

const spec = (service: string, query: string, extra: Record<string, string> = {}) =>
  server.app.inject({ method: 'GET', url: `/api/v2/${service}/_spec${query}`, headers: { ...headers, ...extra } });

describe('_spec options, odd and hostile', () => {
  it('answers model=true of a database that cannot be reached with the model and why it is empty, not a 500', async () => {
    const response = await spec('down', '?model=true');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      service: 'down',
      tables: [],
      error: 'The service cannot be reached right now: its data model is unavailable.',
    });
    // Its document is served without paths, as before.
    expect((await spec('down', '')).json().paths).toEqual({});
  });

  it('answers model=true from the tables alone, building no document, and 404 for a service that does not exist (the document was built and dropped)', async () => {
    const handler = await server.app.portico.services.handler('book');
    const openapi = vi.spyOn(handler, 'openapi');
    try {
      expect((await spec('book', '?model=true')).json()).toHaveProperty('service', 'book');
      expect(openapi).not.toHaveBeenCalled();
      expect((await spec('book', '')).json()).toHaveProperty('openapi');
      expect(openapi).toHaveBeenCalledTimes(1);
    } finally {
      openapi.mockRestore();
    }
    const missing = await spec('nosuch', '?model=true');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual((await spec('nosuch', '')).json());
  });

  it("lists with tables=true a database's tables as its handler serves them, and none for a service that is no database (the remote's /_table path was listed)", async () => {
    expect((await spec('book', '?tables=true')).json()['x-dreamfactory-resources']).toEqual({
      type: 'database',
      tables: ['author'],
      count: 1,
      note: 'Use these names with /_table/{table_name} endpoints',
    });
    const remote = (await spec('remote', '?tables=true')).json();
    expect(Object.keys(remote.paths)).toEqual(['/_table/thing']);
    expect(remote).not.toHaveProperty('x-dreamfactory-resources');
    expect((await spec('down', '?tables=true')).json()).not.toHaveProperty('x-dreamfactory-resources');
  });

  it('answers model=true in YAML when format=yaml or the Accept header asks for it (JSON came back)', async () => {
    const json = (await spec('book', '?model=true')).json();
    expect(Object.keys(json.tables)).toEqual(['author']);
    for (const [query, extra] of [
      ['?model=true&format=yaml', {}],
      ['?model=true', { accept: 'application/yaml' }],
    ] as const) {
      const response = await spec('book', query, extra);
      expect(response.headers['content-type']).toBe('application/x-yaml; charset=utf-8');
      expect(parseYaml(response.body)).toEqual(json);
    }
    const system = await spec('system', '?model=true&format=yml');
    expect(parseYaml(system.body)).toMatchObject({ service: 'system', error: 'This service does not support schema introspection.' });
  });

  it('reads the Accept header by its preferences: YAML refused (q=0) or less preferred than */* keeps JSON (YAML came back)', async () => {
    // A YAML type only as preferred as one listed before it keeps JSON, the default; `yaml` is no media type.
    for (const accept of [
      'application/yaml;q=0',
      'text/yaml;q=0.1, */*',
      'application/yaml;q=0.5, text/html',
      'application/yaml;q=x',
      'text/html, application/yaml',
      'yaml',
    ]) {
      const response = await spec('book', '', { accept });
      expect(response.headers['content-type'], accept).toMatch(/^application\/json/);
    }
    for (const accept of ['text/html;q=0.5, application/x-yaml', '*/*;q=0.1, text/yaml;q=0.2', 'APPLICATION/YAML']) {
      const response = await spec('book', '', { accept });
      expect(response.headers['content-type'], accept).toBe('application/x-yaml; charset=utf-8');
    }
  });

  it('keeps to a JSON answer and no 5xx for repeated, empty, unknown and very long option values on every kind of service', async () => {
    const long = 'x'.repeat(6000);
    const queries = [
      '?model=true&model=false',
      '?model=false&model=true',
      '?resource_name[]=author',
      '?resource_name=&compact=&tables=&format=&model=',
      `?resource_name=${long}&format=${long}`,
      '?format=xml',
      '?compact=true&resource_name=nothing',
      '?format=yaml&format=json',
    ];
    for (const service of ['book', 'down', 'remote', 'system', 'user', 'api_docs', 'files', 'email'])
      for (const query of queries) {
        const response = await spec(service, query);
        expect(response.statusCode, `${service} ${query}`).toBe(200);
        expect(response.headers['content-type'], `${service} ${query}`).toMatch(/^application\/json/);
      }
    // The last value of a repeated option wins, as for every other query parameter.
    expect((await spec('book', '?model=true&model=false')).json()).toHaveProperty('openapi');
    expect((await spec('book', '?model=false&model=true')).json()).toHaveProperty('service', 'book');
    expect((await spec('book', '?compact=true&resource_name=nothing')).json()).toMatchObject({ endpoints: [], endpoint_count: 0 });
    // PHP's `name[]` array syntax reads as the plain parameter, on _spec as on a table (query-params.ts).
    expect((await spec('book', '?resource_name[]=author&compact[]=true')).json()).toEqual(
      (await spec('book', '?resource_name=author&compact=true')).json(),
    );
    const table = (query: string) => server.app.inject({ method: 'GET', url: `/api/v2/book/_table/author${query}`, headers });
    expect((await table('?ids[]=1&fields[]=id')).json()).toEqual({ resource: [{ id: 1 }] });
  });

  it('refuses a NUL or bytes that are not UTF-8 in an option in the error shape', async () => {
    for (const query of ['?resource_name=a%00b', '?format=%FF%FE', '?model=%C3']) {
      const response = await spec('book', query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ error: expect.objectContaining({ code: 400, message: expect.any(String) }) });
    }
  });
});
