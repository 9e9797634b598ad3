import type { OpenAPIObject, OperationObject, PathItemObject } from 'openapi3-ts/oas30';
import { describe, expect, it } from 'vitest';
import type { OpenApiFragment } from '#runtime/openapi/fragment.js';
import { combinedDocument, serviceDocument } from '#runtime/openapi/service-document.js';
import { sqlServiceOpenApi } from '#runtime/openapi/sql-openapi.js';
import { systemServiceOpenApi } from '#runtime/openapi/system-openapi.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';
import { field, sqlService, table } from '#test/golden/fixtures/model-builders.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const allOperations = (document: OpenAPIObject): OperationObject[] =>
  Object.values(document.paths as Record<string, PathItemObject>).flatMap((item) =>
    METHODS.flatMap((method) => (item[method] ? [item[method]!] : [])),
  );

const info = (name: string) => ({ name, label: name.toUpperCase(), description: `The ${name} service.`, type: 'sqlite' });

/** A fragment whose schema `Thing` references `Part`, defined as given. */
const thingFragment = (part: Record<string, unknown>): OpenApiFragment => ({
  paths: {
    '/thing': {
      get: {
        operationId: 'getThing',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
  },
  components: { schemas: { Thing: { type: 'object', properties: { part: { $ref: '#/components/schemas/Part' } } }, Part: part } },
});

describe('serviceDocument', () => {
  const fragment = systemServiceOpenApi();
  const document = serviceDocument(
    { name: 'system', label: 'System Management', description: 'Manages the platform.', type: 'system' },
    fragment,
    'System',
  );

  it('serves the service under /api/v2/{service} with its tag and type', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(document.servers).toEqual([{ url: '/api/v2/system' }]);
    expect(document.tags).toEqual([{ name: 'system', description: 'Manages the platform.' }]);
    expect(document.info).toEqual({
      title: 'System Management',
      description: 'Manages the platform.',
      version: '2.0',
      'x-service-type': 'system',
      'x-service-group': 'System',
    });
  });

  it('declares every credential the server accepts', () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(
      Object.fromEntries(
        Object.entries(schemes).map(([name, scheme]) => [
          name,
          'name' in scheme ? `${scheme.in}:${scheme.name}` : `http:${(scheme as { scheme: string }).scheme}`,
        ]),
      ),
    ).toEqual({
      ApiKeyHeader: 'header:X-Service-API-Key',
      SessionTokenHeader: 'header:X-Service-Session-Token',
      DreamFactoryApiKeyHeader: 'header:X-DreamFactory-API-Key',
      DreamFactorySessionTokenHeader: 'header:X-DreamFactory-Session-Token',
      BearerAuth: 'http:bearer',
      ApiKeyQuery: 'query:api_key',
      SessionTokenQuery: 'query:session_token',
    });
    expect(document.security?.[0]).toEqual({ ApiKeyHeader: [], SessionTokenHeader: [] });
  });

  it("gives every operation the error responses, referencing the spec's Error shape", () => {
    for (const operation of allOperations(document)) {
      expect(operation.tags).toEqual(['system']);
      for (const status of ['400', '401', '403', '404', '500']) expect(operation.responses[status]).toHaveProperty('$ref');
    }
    expect(document.components?.responses?.NotFound).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(document.components?.schemas?.Error).toMatchObject({
      required: ['error'],
      properties: { error: { required: ['code', 'message'] } },
    });
  });

  it('leaves the fragment untouched', () => {
    expect(fragment).toEqual(systemServiceOpenApi());
  });

  it('includes only the shared components that are used', async () => {
    const empty = serviceDocument(info('files'), { paths: {}, components: {} });
    expect(Object.keys(empty.components ?? {})).toEqual(['securitySchemes']);
    expect(await openApiErrors(empty)).toBeNull();
  });

  it('renames a fragment component that clashes with a shared one, and its references', () => {
    const clashing = serviceDocument(info('db'), thingFragment({ type: 'string' }));
    expect(unresolvedRefs(clashing)).toEqual([]);
    const own: OpenApiFragment = {
      paths: thingFragment({}).paths,
      components: { schemas: { Thing: { type: 'object' }, Error: { type: 'string' } } },
    };
    own.paths['/thing'].get!.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Error' };
    const renamed = serviceDocument(info('db'), own);
    expect(renamed.components?.schemas?.['db.Error']).toEqual({ type: 'string' });
    expect(renamed.paths['/thing'].get!.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/db.Error',
    });
    expect(renamed.paths['/thing'].get!.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(renamed.components?.schemas?.Error).toMatchObject({ required: ['error'] });
  });
});

describe('combinedDocument', () => {
  const entries = addressBookModel.services.map((service) => ({
    service,
    fragment:
      service.kind === 'sql'
        ? sqlServiceOpenApi(service)
        : service.type === 'system'
          ? systemServiceOpenApi()
          : { paths: {}, components: {} },
  }));
  const document = combinedDocument(entries, { title: 'Quickstart', version: '2.0' });

  it("prefixes each service's paths and tags them", () => {
    expect(document.servers).toEqual([{ url: '/api/v2' }]);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/db', '/db/_table/{table_name}', '/db/_table/contact', '/system/admin/session']),
    );
    expect(document.tags?.map((tag) => tag.name)).toEqual(['api_docs', 'db', 'email', 'files', 'logs', 'system', 'user']);
    expect(document.paths['/system/admin/session'].post!.tags).toEqual(['system']);
  });

  it('is valid, its references resolve and its operationIds are unique', async () => {
    expect(await openApiErrors(document)).toBeNull();
    expect(unresolvedRefs(document)).toEqual([]);
    const ids = allOperations(document).map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('does not depend on the order of the entries', () => {
    expect(combinedDocument([...entries].reverse(), { title: 'Quickstart', version: '2.0' })).toEqual(document);
  });

  it('namespaces every service component with the service name, whatever other services hold', () => {
    const a = sqlService(1, 'a', 'sqlite', [table('contact', { fields: [field('id', {})] })]);
    const b = sqlService(2, 'b', 'sqlite', [table('contact', { fields: [field('name', {})] })]);
    const c = sqlService(3, 'c', 'sqlite', [table('contact', { fields: [field('id', {})] })]);
    const merged = combinedDocument(
      [a, b, c].map((service) => ({ service, fragment: sqlServiceOpenApi(service) })),
      { title: 'x', version: '2.0' },
    );
    const schemas = merged.components?.schemas ?? {};
    expect(
      Object.keys(schemas)
        .filter((name) => name.endsWith('contact'))
        .sort(),
    ).toEqual(['a.contact', 'b.contact', 'c.contact']);
    expect(schemas).toHaveProperty(['a.contact.insert']);
    expect(schemas).toHaveProperty(['a.TableSchema']);
    // A service alone gets the same names: adding or removing another service renames nothing.
    const alone = combinedDocument(
      [a, b].map((service) => ({ service, fragment: sqlServiceOpenApi(service) })),
      { title: 'x', version: '2.0' },
    );
    expect(Object.keys(alone.components?.schemas ?? {}).filter((name) => name.startsWith('a.'))).toEqual(
      Object.keys(schemas).filter((name) => name.startsWith('a.')),
    );
    expect(merged.paths['/b/_table/contact/{id}'].get!.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/b.contact',
    });
    expect(unresolvedRefs(merged)).toEqual([]);
  });

  it('renames components whose references only clash after renaming', () => {
    const merged = combinedDocument(
      [
        { service: info('a'), fragment: thingFragment({ type: 'string' }) },
        { service: info('b'), fragment: thingFragment({ type: 'integer' }) },
      ],
      { title: 'x', version: '2.0' },
    );
    expect(Object.keys(merged.components?.schemas ?? {}).sort()).toEqual(['Error', 'a.Part', 'a.Thing', 'b.Part', 'b.Thing']);
    expect(merged.components?.schemas?.['b.Thing']).toEqual({
      type: 'object',
      properties: { part: { $ref: '#/components/schemas/b.Part' } },
    });
  });

  it('makes duplicate operationIds unique', () => {
    const merged = combinedDocument(
      [
        { service: info('a'), fragment: thingFragment({}) },
        { service: info('b'), fragment: thingFragment({}) },
      ],
      { title: 'x', version: '2.0' },
    );
    expect([merged.paths['/a/thing'].get!.operationId, merged.paths['/b/thing'].get!.operationId]).toEqual(['getThing', 'getThing2']);
    expect(Object.keys(merged.components?.schemas ?? {}).sort()).toEqual(['Error', 'a.Part', 'a.Thing', 'b.Part', 'b.Thing']);
  });
});
