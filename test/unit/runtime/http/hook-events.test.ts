import { describe, expect, it } from 'vitest';
import { fileServiceOpenApi } from '#runtime/services/file/file-openapi.js';
import { databaseEventPath, endpointPattern, eventName, PathTemplates, pathSegments, soapEventPath } from '#runtime/http/hook-events.js';
import type { SoapServiceModel } from '#runtime/model/platform-model.js';
import { internalServiceFragment } from '#runtime/openapi/model-fragment.js';
import { plain } from '#test/golden/fixtures/model-builders.js';

describe('eventName', () => {
  it.each([
    [['db', ['_table', 'contact'], 'GET', undefined], 'db._table.contact.get'],
    [['db', ['_table', 'contact', '{id}'], 'patch', 'pre_process'], 'db._table.contact.{id}.patch.pre_process'],
    [['email', [], 'POST', 'post_process'], 'email.post.post_process'],
  ] as const)('%j is %s', ([service, path, verb, phase], name) => {
    expect(eventName(service, path, verb, phase)).toBe(name);
  });

  it('reads OpenAPI paths decoded', () => {
    expect(pathSegments('/_table/order%20lines/{id}')).toEqual(['_table', 'order lines', '{id}']);
    expect(pathSegments('/')).toEqual([]);
  });
});

describe('the event path of a request', () => {
  it.each([
    [
      ['_table', 'contact'],
      ['_table', 'contact'],
    ],
    [
      ['_table', 'contact', '7'],
      ['_table', 'contact', '{id}'],
    ],
    [
      ['_proc', 'bump(1,2)'],
      ['_proc', 'bump'],
    ],
    [
      ['_func', 'add_numbers'],
      ['_func', 'add_numbers'],
    ],
    [['_table'], null],
    [['_table', 'contact', '7', 'x'], null],
    [['_schema', 'contact'], null],
  ])('of a database, %j is %j', (resource, path) => {
    expect(databaseEventPath(resource)).toEqual(path);
  });

  it('of a SOAP service is the documented name, whichever name or case the request used', () => {
    const operation = (name: string) => ({ name }) as SoapServiceModel['operations'][number];
    const model = {
      ...plain(9, 'calc', 'calc', 'soap', ''),
      kind: 'soap',
      operations: [operation('Get_Quote'), operation('GetQuote'), operation('Add')],
    } as unknown as SoapServiceModel;
    expect(soapEventPath(model, ['ADD'])).toEqual(['add']);
    expect(soapEventPath(model, ['GetQuote'])).toEqual(['getquote']);
    expect(soapEventPath(model, ['get_quote'])).toEqual(['get_quote']);
    expect(soapEventPath(model, ['add', 'x'])).toBeNull();
  });

  it('of a SOAP operation whose WSDL name differs from another only in case is its own when spelt exactly', () => {
    const operation = (name: string, sourceName: string) => ({ name, sourceName }) as SoapServiceModel['operations'][number];
    const model = {
      ...plain(9, 'items', 'items', 'soap', ''),
      kind: 'soap',
      operations: [operation('GETITEM', 'GETITEM'), operation('GetItem_2', 'GetItem')],
    } as unknown as SoapServiceModel;
    expect(soapEventPath(model, ['GetItem'])).toEqual(['getitem2']);
    expect(soapEventPath(model, ['GETITEM'])).toEqual(['getitem']);
    expect(soapEventPath(model, ['getItem'])).toEqual(['getitem']);
  });

  it("of the runtime's own services is the path of their document it matches, literal segments first", () => {
    const system = new PathTemplates(Object.keys(internalServiceFragment('system')!.paths));
    expect(system.match(['role'])).toEqual(['role']);
    expect(system.match(['role', '3'])).toEqual(['role', '{id}']);
    expect(system.match(['admin', 'session'])).toEqual(['admin', 'session']);
    expect(system.match([])).toEqual([]);
    expect(system.match(['nope', '1', '2'])).toBeNull();
    const tables = new PathTemplates(['/_table/{table_name}', '/_table/contact', '/_proc/{procedure_name}']);
    expect(tables.match(['_table', 'contact'])).toEqual(['_table', 'contact']);
    expect(tables.match(['_table', 'other'])).toEqual(['_table', 'other']);
    expect(tables.match(['_proc', 'bump'])).toEqual(['_proc', 'bump']);
  });

  it('of a file service is its file or its folder by the trailing slash, at any depth', () => {
    const files = new PathTemplates(Object.keys(fileServiceOpenApi('files').paths!), true);
    expect(files.match([])).toEqual([]);
    expect(files.match(['a.txt'])).toEqual(['{file_path}']);
    expect(files.match(['docs'], true)).toEqual(['{folder_path}']);
    expect(files.match(['docs', 'sub', 'a.txt'])).toEqual(['{file_path}']);
    expect(files.match(['docs', 'sub'], true)).toEqual(['{folder_path}']);
    // Without `restOfPath` a placeholder is one segment.
    expect(new PathTemplates(['/{file_path}']).match(['docs', 'a.txt'])).toBeNull();
  });
});

describe('endpointPattern', () => {
  it('matches the events of an endpoint, a named placeholder standing for any name', () => {
    const typed = endpointPattern('db', ['_table', 'contact'], 'get');
    const generic = endpointPattern('db', ['_table', '{table_name}'], 'get');
    const record = endpointPattern('db', ['_table', 'contact', '{id}'], 'get');
    expect(typed.pattern.test('db._table.contact.get.pre_process')).toBe(true);
    expect(typed.pattern.test('db._table.contact.get')).toBe(false);
    expect(typed.pattern.test('db._table.contact.{id}.get.pre_process')).toBe(false);
    expect(generic.pattern.test('db._table.contact.get.post_process')).toBe(true);
    expect(typed.literal).toBeGreaterThan(generic.literal);
    expect(record.pattern.test('db._table.contact.{id}.get.post_process')).toBe(true);
    expect(record.pattern.test('db._table.contact.7.get.post_process')).toBe(false);
    expect(endpointPattern('odd', ['_table', 'a.b'], 'get').pattern.test('odd._table.aXb.get.pre_process')).toBe(false);
  });
});
