import { describe, expect, it } from 'vitest';
import { accessComponent, bySpecificity, endpointsOpenApi, matchPattern, routePattern } from '#runtime/services/custom/endpoint-routes.js';
import { EndpointModuleError, readEndpointSet } from '#runtime/services/custom/endpoints.js';

describe('matchPattern', () => {
  const cases: Array<[string, string[], Record<string, string> | null]> = [
    ['/', [], {}],
    ['/', ['x'], null],
    ['/contacts', ['contacts'], {}],
    ['/contacts', ['Contacts'], null],
    ['/contacts', ['contacts', '5'], null],
    ['/contacts/:id', ['contacts', '5'], { id: '5' }],
    ['/contacts/:id', ['contacts'], null],
    ['/contacts/:id/notes/:note', ['contacts', '5', 'notes', 'a b'], { id: '5', note: 'a b' }],
    ['/files/*', ['files', 'a', 'b.txt'], { '*': 'a/b.txt' }],
    ['/files/*', ['files'], null],
  ];
  it.each(cases)('%s against %j', (path, resource, want) => {
    expect(matchPattern(routePattern(path), resource)).toEqual(want);
  });

  it('orders literals before parameters before the rest, segment by segment (patterns of other lengths never match one path)', () => {
    const paths = ['/files/*', '/contacts/:id', '/contacts/new', '/:any/new', '/contacts'];
    const sorted = paths.map((path) => ({ path, pattern: routePattern(path) })).sort((a, b) => bySpecificity(a.pattern, b.pattern));
    expect(sorted.map((entry) => entry.path)).toEqual(['/contacts/new', '/contacts/:id', '/files/*', '/contacts', '/:any/new']);
  });

  it.each([
    ['/', ''],
    ['/Contacts', 'contacts'],
    ['/contacts/:id', 'contacts/*'],
    ['/a/:b/c', 'a/*'],
    ['/files/*', 'files/*'],
  ])('the access component of %s is %j', (path, component) => {
    expect(accessComponent(routePattern(path))).toBe(component);
  });
});

describe('endpointsOpenApi', () => {
  it('documents each route with its path parameters and schemas', () => {
    const fragment = endpointsOpenApi([
      { method: 'GET', path: '/contacts/:id', summary: 'One contact.' },
      { method: 'POST', path: '/contacts', request: { type: 'object' }, response: { type: 'array' } },
      { method: 'GET', path: '/', description: 'The root.' },
    ]);
    expect(Object.keys(fragment.paths)).toEqual(['/contacts/{id}', '/contacts', '/']);
    expect(fragment.paths['/contacts/{id}'].get).toMatchObject({
      operationId: 'getContactsById',
      summary: 'One contact.',
      parameters: [{ name: 'id', in: 'path', required: true }],
    });
    expect(fragment.paths['/contacts'].post).toMatchObject({
      operationId: 'postContacts',
      summary: 'POST /contacts',
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PostContactsRequest' } } } },
      // The handler chooses the success status; nothing returned is a 204.
      responses: {
        '2XX': { content: { 'application/json': { schema: { type: 'array' } } } },
        204: { description: 'The handler answered nothing.' },
      },
    });
    // Request bodies reference components, named after their operation (spec, Discovery).
    expect(fragment.components).toEqual({ schemas: { PostContactsRequest: { type: 'object' } } });
    expect(fragment.paths['/'].get).toMatchObject({ operationId: 'getRoot', description: 'The root.' });
  });
});

describe('readEndpointSet', () => {
  const handler = () => null;
  const cases: Array<[string, unknown, string]> = [
    ['no routes', {}, 'its default export must be defineEndpoints({ routes: [...] })'],
    ['a method', { routes: [{ method: 'get', path: '/x', handler }] }, 'routes[0].method must be GET, POST, PUT, PATCH or DELETE'],
    ['a relative path', { routes: [{ method: 'GET', path: 'x', handler }] }, "routes[0].path must start with '/'"],
    ['a bad segment', { routes: [{ method: 'GET', path: '/a/:1', handler }] }, "routes[0].path '/a/:1' has an invalid segment ':1'"],
    ['a rest not last', { routes: [{ method: 'GET', path: '/*/a', handler }] }, "routes[0].path '/*/a' has an invalid segment '*'"],
    [
      'the same route twice',
      {
        routes: [
          { method: 'GET', path: '/a/:x', handler },
          { method: 'GET', path: '/a/:y', handler },
        ],
      },
      'routes[1] (GET /a/:y) repeats an earlier route',
    ],
    ['no handler', { routes: [{ method: 'GET', path: '/a' }] }, 'routes[0].handler must be a function'],
    [
      'a schema that is not an object',
      { routes: [{ method: 'GET', path: '/a', handler, request: 'x' }] },
      'routes[0].request must be a JSON Schema object',
    ],
  ];
  it.each(cases)('refuses %s', (_name, value, message) => {
    expect(() => readEndpointSet(value)).toThrow(new EndpointModuleError(message));
  });

  it('answers the routes as the model holds them (plain JSON, slashes normalised)', () => {
    const [route] = readEndpointSet({
      routes: [{ method: 'POST', path: '/a//b/', summary: 's', request: { type: 'object', default: undefined }, handler }],
    });
    expect(route.model).toEqual({ method: 'POST', path: '/a/b', summary: 's', request: { type: 'object' } });
    expect(route.handler).toBe(handler);
  });
});
