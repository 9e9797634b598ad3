import type { OperationObject, PathItemObject } from 'openapi3-ts/oas30';
import { describe, expect, it } from 'vitest';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
import { insertJsonSchema, recordJsonSchema, updateJsonSchema } from '#runtime/openapi/record-schemas.js';
import { serviceDocument } from '#runtime/openapi/service-document.js';
import { sqlServiceOpenApi } from '#runtime/openapi/sql-openapi.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';
import { field, sqlService, table } from '#test/golden/fixtures/model-builders.js';
import { openApiErrors, unresolvedRefs } from '#test/golden/validators.js';

const db = addressBookModel.services.find((service): service is SqlServiceModel => service.kind === 'sql')!;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(paths: Record<string, PathItemObject>): Array<[string, string, OperationObject]> {
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [[path, method, item[method]!] as [string, string, OperationObject]] : [])),
  );
}

describe('sqlServiceOpenApi', () => {
  const fragment = sqlServiceOpenApi(db);

  it('documents the service paths and one typed pair per table', () => {
    expect(Object.keys(fragment.paths).sort()).toEqual(
      [
        '/',
        '/_schema',
        '/_schema/{table_name}',
        '/_schema/{table_name}/_field',
        '/_schema/{table_name}/_field/{field_name}',
        '/_schema/{table_name}/_related',
        '/_schema/{table_name}/_related/{relationship_name}',
        '/_table',
        // A table without a primary key (a view, a keyless table) has no typed `/{id}`: none of its records has an identifier.
        ...db.schema.tables.flatMap((t) =>
          t.primaryKey.length > 0 ? [`/_table/${t.name}`, `/_table/${t.name}/{id}`] : [`/_table/${t.name}`],
        ),
        '/_table/{table_name}',
        '/_table/{table_name}/{id}',
      ].sort(),
    );
  });

  it.each([
    ['/_table/{table_name}', 'get', 'getDbTableRecords'],
    ['/_table/{table_name}', 'post', 'createDbTableRecords'],
    ['/_table/{table_name}', 'put', 'replaceDbTableRecords'],
    ['/_table/{table_name}', 'patch', 'updateDbTableRecords'],
    ['/_table/{table_name}', 'delete', 'deleteDbTableRecords'],
    ['/_table/{table_name}/{id}', 'get', 'getDbTableRecord'],
    ['/_table/contact', 'get', 'getDbContactRecords'],
    ['/_table/contact_info/{id}', 'patch', 'updateDbContactInfoRecord'],
    ['/_table', 'get', 'getDbTables'],
    ['/_schema/{table_name}', 'get', 'getDbTableSchema'],
  ] as const)('%s %s is %s', (path, method, operationId) => {
    expect(fragment.paths[path][method]?.operationId).toBe(operationId);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations(fragment.paths).map(([, , operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists records with every query parameter of the spec', () => {
    const refs = (fragment.paths['/_table/contact'].get!.parameters ?? []).map((p) => ('$ref' in p ? p.$ref.split('/').pop() : p.name));
    expect(refs).toEqual([
      'fields',
      'filter',
      'limit',
      'offset',
      'order',
      'include_count',
      'count_only',
      'ids',
      'id_field',
      'related',
      'group',
      'having',
    ]);
  });

  it("types table paths with the table's record, insert and update components", () => {
    const contact = db.schema.tables[0];
    expect(fragment.components.schemas?.contact).toEqual(recordJsonSchema(contact, { required: true }));
    expect(fragment.components.schemas?.['contact.insert']).toEqual(insertJsonSchema(contact));
    expect(fragment.components.schemas?.['contact.update']).toEqual(updateJsonSchema(contact));
    const one = fragment.paths['/_table/contact/{id}'];
    const list = fragment.paths['/_table/contact'];
    const body = (operation: { requestBody?: unknown } | undefined) =>
      (operation!.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json'].schema;
    expect(one.get!.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/contact' });
    expect(body(one.patch)).toEqual({ $ref: '#/components/schemas/contact.update' });
    expect(body(one.put)).toEqual({ $ref: '#/components/schemas/contact.insert' });
    // Bodies of several records reference components of their own (spec, Discovery).
    expect(body(list.post)).toEqual({ $ref: '#/components/schemas/contact.insertRequest' });
    expect(body(list.put)).toEqual({ $ref: '#/components/schemas/contact.insertRequest' });
    expect(body(list.patch)).toEqual({ $ref: '#/components/schemas/contact.updateRequest' });
    expect(fragment.components.schemas?.['contact.insertRequest']).toEqual({
      type: 'object',
      required: ['resource'],
      properties: { resource: { type: 'array', items: { $ref: '#/components/schemas/contact.insert' } } },
    });
    expect(fragment.components.schemas?.['contact.updateRequest']).toMatchObject({
      properties: { resource: { items: { $ref: '#/components/schemas/contact.update' } } },
    });
  });

  it('documents views read-only', () => {
    expect(Object.keys(fragment.paths['/_table/contact_summary']).filter((key) => key !== 'parameters')).toEqual(['get']);
  });

  it('names awkward tables safely and uniquely', () => {
    const service = sqlService(9, 'my_db', 'sqlite', [
      table('Error', { fields: [field('id', {})] }),
      table('my table', { fields: [field('id', {})] }),
      table('table', { fields: [field('id', {})] }),
    ]);
    const awkward = sqlServiceOpenApi(service);
    expect(Object.keys(awkward.paths)).toContain('/_table/my%20table');
    expect(awkward.components.schemas).toHaveProperty('my_table');
    expect(awkward.components.schemas).toHaveProperty('Error2');
    expect(awkward.paths['/_table/table'].get!.operationId).toBe('getMyDbTable2Records');
    expect(awkward.paths['/_table/Error/{id}'].get!.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Error2',
    );
  });

  it('documents routines only when the database has them', () => {
    const withRoutines = {
      ...db,
      schema: {
        ...db.schema,
        routines: [{ name: 'tally', sourceName: 'tally', kind: 'function' as const, returnType: 'integer', params: [] }],
      },
    };
    const paths = Object.keys(sqlServiceOpenApi(withRoutines).paths);
    expect(paths).toEqual(expect.arrayContaining(['/_func', '/_func/{function_name}']));
    expect(paths).not.toContain('/_proc');
  });

  it('makes a valid document whose references resolve', async () => {
    const document = serviceDocument(db, fragment);
    expect(await openApiErrors(document)).toBeNull();
    expect(unresolvedRefs(document)).toEqual([]);
  });
});
