/**
 * Every request body of every document the server produces references `#/components/schemas/...`
 * (spec, Discovery): the document of each service type (databases with awkward table names, the
 * runtime's own services, SOAP, and every registered kind) and the combined document of them all.
 */
import type { OperationObject, PathItemObject, RequestBodyObject, SchemaObject } from 'openapi3-ts/oas30';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CustomServiceModel, ServiceModel, SoapServiceModel, SqlServiceModel } from '#runtime/model/platform-model.js';
import type { OpenApiFragment } from '#runtime/openapi/fragment.js';
import { modelFragment } from '#runtime/openapi/model-fragment.js';
import { combinedDocument, serviceDocument } from '#runtime/openapi/service-document.js';
import { sqlServiceOpenApi } from '#runtime/openapi/sql-openapi.js';
import { listServiceKinds } from '#runtime/services/registry.js';
import { soapKind } from '#runtime/services/soap/soap-kind.js';
import { internalServiceTypes } from '#runtime/system/internal-service-types.js';
import { field, plain, sqlService, table } from '#test/golden/fixtures/model-builders.js';
import { bodiesNotByReference, openApiErrors, requestBodySchemas, unresolvedRefs } from '#test/golden/validators.js';
import { soapService } from '../services/soap/soap-test-helpers.js';

const id = field('id', { type: 'integer', dbType: 'integer', allowNull: false, isPrimaryKey: true, autoIncrement: true });
const named = (name: string) => table(name, { fields: [id, field(`${name.replace(/\W/g, '_')}_note`, {})] });
/** Tables whose names crowd each other: a name and the name plus a suffix the builder adds, spaces and dots, case only. */
const AWKWARD_TABLES = [
  'orders',
  'ordersRequest',
  'orders.insertRequest',
  'orders.updateRequest',
  'Orders',
  'order items',
  'order.items',
  'order_items',
  'RecordsRequest',
  'FieldSchemas',
  'Error',
];

const calculator = (await soapKind.introspect!(soapService({ wsdl: 'calculator.wsdl' }, { name: 'calc' }), {
  baseDir: fileURLToPath(new URL('../../../e2e/soap/wsdl/', import.meta.url)),
  resolveEnv: (value) => value,
})) as SoapServiceModel;

const customService: CustomServiceModel = {
  kind: 'custom',
  id: 40,
  name: 'stats',
  label: 'Stats',
  type: 'custom',
  description: '',
  is_active: true,
  config: { module: 'endpoints/stats.ts' },
  origin: 'platform',
  routes: [
    { method: 'GET', path: '/contacts', response: { type: 'object' } },
    { method: 'POST', path: '/contacts', request: { type: 'object', properties: { name: { type: 'string' } } } },
    { method: 'PUT', path: '/contacts/:id', request: { type: 'object', properties: { name: { type: 'string' } } } },
    { method: 'POST', path: '/notes/*', request: { type: 'string' } },
  ],
};

/** One service of every type the server documents. */
function everyService(): ServiceModel[] {
  const services: ServiceModel[] = [];
  let next = 1;
  for (const internal of internalServiceTypes)
    services.push(plain(next++, internal.type === 'swagger' ? 'api_docs' : internal.type, internal.label, internal.type, ''));
  for (const kind of listServiceKinds()) {
    const name = `svc_${kind.type}`;
    if (['sqlite', 'pgsql', 'mysql'].includes(kind.type)) {
      const dialect = ({ sqlite: 'sqlite', pgsql: 'postgres', mysql: 'mysql' } as const)[kind.type as 'sqlite'];
      services.push(sqlService(next++, name, dialect, AWKWARD_TABLES.map(named)));
    } else if (kind.type === 'soap') services.push({ ...calculator, id: next++, name });
    else if (kind.type === 'custom') services.push({ ...customService, id: next++, name });
    else services.push(plain(next++, name, kind.label, kind.type, '', { base_url: 'http://example.test/api' }));
  }
  return services;
}

describe('request bodies of every document', () => {
  const services = everyService();

  it('covers every service type', () => {
    expect(new Set(services.map((service) => service.type)).size).toBe(listServiceKinds().length + internalServiceTypes.length);
  });

  for (const service of services) {
    it(`reference schema components in the document of a ${service.type} service`, async () => {
      const document = serviceDocument(service, modelFragment(service));
      expect(bodiesNotByReference(document)).toEqual([]);
      expect(unresolvedRefs(document)).toEqual([]);
      expect(await openApiErrors(document)).toBeNull();
    });
  }

  it('reference schema components in the combined document', async () => {
    const document = combinedDocument(
      services.map((service) => ({ service, fragment: modelFragment(service) })),
      { title: 'All', version: '2.0' },
    );
    expect(requestBodySchemas(document).length).toBeGreaterThan(100);
    expect(bodiesNotByReference(document)).toEqual([]);
    expect(unresolvedRefs(document)).toEqual([]);
    expect(await openApiErrors(document)).toBeNull();
  });
});

describe('request body components of the builders', () => {
  it('are named by the builders themselves: no fragment of the runtime leaves a body inline', () => {
    for (const service of everyService()) {
      const fragment = modelFragment(service);
      const inline = requestBodySchemas({ openapi: '3.0.3', info: { title: '', version: '' }, paths: fragment.paths })
        .filter(({ schema }) => typeof (schema as { $ref?: unknown }).$ref !== 'string')
        .map(({ at }) => `${service.type}: ${at}`);
      expect(inline).toEqual([]);
    }
  });

  it('give each table its own bodies, whatever the names of the others: POST/PUT take `<table>.insertRequest`, PATCH `<table>.updateRequest`', () => {
    const service = sqlService(1, 'db', 'sqlite', AWKWARD_TABLES.map(named)) as SqlServiceModel;
    const document = serviceDocument(service, sqlServiceOpenApi(service));
    const schemas = document.components?.schemas as Record<string, { properties?: Record<string, any> }>;
    const bodyOf = (path: string, method: 'post' | 'put' | 'patch') =>
      ((document.paths[path][method] as OperationObject).requestBody as RequestBodyObject).content['application/json'].schema as {
        $ref: string;
      };
    const componentOf = (ref: { $ref: string }) => ref.$ref.slice('#/components/schemas/'.length);
    const names = new Set<string>();
    for (const name of AWKWARD_TABLES) {
      const path = `/_table/${encodeURIComponent(name)}`;
      const column = `${name.replace(/\W/g, '_')}_note`;
      const inserts = componentOf(bodyOf(path, 'post'));
      const updates = componentOf(bodyOf(path, 'patch'));
      expect(componentOf(bodyOf(path, 'put'))).toBe(inserts);
      names.add(inserts);
      names.add(updates);
      // Each body holds records of this table (its own column), new ones for POST/PUT, changes for PATCH.
      for (const [body, kind] of [
        [inserts, 'insert'],
        [updates, 'update'],
      ] as const) {
        const items = schemas[body].properties?.resource.items as { $ref: string };
        expect(schemas[componentOf(items)].properties, `${name} ${kind}`).toHaveProperty(column);
        expect(componentOf(items), `${name} ${kind}`).toMatch(new RegExp(`\\.${kind}\\d*$`));
      }
      // The single-record bodies reference the table's insert and update components too.
      const record = `${path}/{id}`;
      expect(componentOf(bodyOf(record, 'put'))).toBe(componentOf(schemas[inserts].properties?.resource.items));
      expect(componentOf(bodyOf(record, 'patch'))).toBe(componentOf(schemas[updates].properties?.resource.items));
    }
    // Two bodies per table, none shared with another table or a shared component.
    expect(names.size).toBe(2 * AWKWARD_TABLES.length);
    expect(componentOf(bodyOf('/_table/orders', 'post'))).toBe('orders.insertRequest');
    expect(componentOf(bodyOf('/_table/orders', 'patch'))).toBe('orders.updateRequest');
    expect(componentOf(bodyOf('/_table/Orders', 'post'))).toBe('Orders.insertRequest');
    expect(componentOf(bodyOf('/_table/ordersRequest', 'post'))).toBe('ordersRequest.insertRequest');
    // The table named like the orders body keeps a record component of its own.
    expect(componentOf(bodyOf('/_table/orders.insertRequest', 'post'))).not.toBe('orders.insertRequest');
    expect(componentOf(bodyOf('/_schema/{table_name}/_field', 'post'))).toBe('FieldSchemas');
    expect(componentOf(bodyOf('/_schema/{table_name}/_related', 'post'))).toBe('RelationshipSchemas');
    expect(schemas.Error.properties).toHaveProperty('error');
    expect(unresolvedRefs(document)).toEqual([]);
  });

  it("move the inline bodies of a fragment they did not build (a remote API's own document) into components", async () => {
    const pet: SchemaObject = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    const remote: OpenApiFragment = {
      paths: {
        '/pets': {
          post: {
            operationId: 'createPet',
            requestBody: { content: { 'application/json': { schema: pet }, 'application/xml': { schema: pet } } },
            responses: { '201': { description: 'Created.' } },
          },
          put: {
            requestBody: { content: { 'text/plain': {} } },
            responses: { '200': { description: 'Stored.' } },
          },
        },
        '/pets/{id}': {
          patch: {
            operationId: 'updatePet',
            requestBody: { $ref: '#/components/requestBodies/PetBody' },
            responses: { '200': { description: 'Changed.' } },
          },
        },
      },
      components: {
        schemas: { CreatePetRequest: { type: 'string' } },
        requestBodies: {
          PetBody: { content: { 'application/json': { schema: { type: 'object', properties: { tag: { type: 'string' } } } } } },
        },
      },
    };
    const document = serviceDocument({ name: 'remote', label: 'Remote', description: '', type: 'rws' }, remote);
    expect(bodiesNotByReference(document)).toEqual([]);
    const schemas = document.components?.schemas ?? {};
    // Named after the operation, beside the document's own `CreatePetRequest`; equal schemas share one component.
    expect(schemas.CreatePetRequest).toEqual({ type: 'string' });
    expect(schemas.CreatePetRequest2).toEqual(pet);
    const content = (path: string, method: 'post' | 'put') =>
      ((document.paths[path] as PathItemObject)[method]!.requestBody as RequestBodyObject).content;
    expect(content('/pets', 'post')['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatePetRequest2' });
    expect(content('/pets', 'post')['application/xml'].schema).toEqual({ $ref: '#/components/schemas/CreatePetRequest2' });
    expect(content('/pets', 'put')['text/plain'].schema).toEqual({ $ref: '#/components/schemas/PutPetsRequest' });
    expect(document.components?.requestBodies?.PetBody).toEqual({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/UpdatePetRequest' } } },
    });
    expect(unresolvedRefs(document)).toEqual([]);
    expect(await openApiErrors(document)).toBeNull();
    // The fragment itself is left as it was (documents are built from copies).
    expect(remote.paths['/pets'].post?.requestBody).toHaveProperty('content.application/json.schema.type', 'object');
  });
});
