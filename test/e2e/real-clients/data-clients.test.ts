/**
 * The reference platform's data clients (javascript-sdk, angular2/ionic SDKs, the address-book
 * samples, the Syncfusion adaptor), call by call as they send them
 * (/work/shared/reference/real-client-surface.md, rows 1-5, 14, 20, 21, 31).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Api } from '#test/helpers/api-client.js';
import { minimalModel, startTestServer, type TestServer } from '#test/helpers/platform-fixtures.js';

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startTestServer(minimalModel());
  const token = await server.adminToken();
  api = apiClient(server.app, () => ({ key: server.apiKey, token }));
  const service = await api('POST', '/system/service', {
    resource: [{ name: 'crm', label: 'CRM', type: 'sqlite', config: { database: 'crm.sqlite' } }],
  });
  expect(service.status).toBe(201);
  const schema = await api('POST', '/crm/_schema', {
    resource: [
      {
        name: 'contact',
        field: [
          { name: 'id', type: 'id' },
          { name: 'first_name', type: 'string' },
          { name: 'last_name', type: 'string' },
        ],
      },
    ],
  });
  expect(schema.status).toBe(200);
  const people = ['Ann', 'Bob', 'Cy', 'Di'].map((first_name) => ({ first_name, last_name: 'Doe' }));
  expect((await api('POST', '/crm/_table/contact', { resource: people })).status).toBe(200);
});
afterAll(async () => server.close());

// jQuery's $.param (the javascript-sdk, and forms serialised by it) sends an array as `name[]=a&name[]=b`,
// which PHP, and so the reference, reads as the list [a, b].
describe('list parameters sent as name[]=', () => {
  it('selects the ids, fields and related of a table read', async () => {
    const read = await api('GET', '/crm/_table/contact?ids[]=2&ids[]=3&fields[]=id&fields[]=first_name');
    expect([read.status, read.body]).toEqual([
      200,
      {
        resource: [
          { id: 2, first_name: 'Bob' },
          { id: 3, first_name: 'Cy' },
        ],
      },
    ]);
    const ordered = await api('GET', '/crm/_table/contact?order[]=id%20desc&limit=1&fields=id');
    expect(ordered.body).toEqual({ resource: [{ id: 4 }] });
  });

  it('deletes the ids given so', async () => {
    const created = await api('POST', '/crm/_table/contact', {
      resource: [
        { first_name: 'Ed', last_name: 'Roe' },
        { first_name: 'Flo', last_name: 'Roe' },
      ],
    });
    const ids = created.body.resource.map((r: { id: number }) => r.id);
    const deleted = await api('DELETE', `/crm/_table/contact?${ids.map((id: number) => `ids[]=${id}`).join('&')}`);
    expect([deleted.status, deleted.body]).toEqual([200, { resource: ids.map((id: number) => ({ id })) }]);
  });

  it('selects on system resources too', async () => {
    const services = await api('GET', '/system/service?ids[]=1&ids[]=7&fields[]=id&fields[]=name');
    expect(services.body).toEqual({
      resource: [
        { id: 1, name: 'system' },
        { id: 7, name: 'user' },
      ],
    });
  });
});

// The React address book's search boxes send what is typed, unquoted: `(name like ${value}%)`.
describe('unquoted filter values of several words', () => {
  it('match as the whole text up to the next and, or, comma or parenthesis, as in the reference', async () => {
    const created = await api('POST', '/crm/_table/contact', { resource: [{ first_name: 'Mary Ann', last_name: 'Van Dyke' }] });
    const id = created.body.resource[0].id;
    const search = async (filter: string) => (await api('GET', `/crm/_table/contact?fields=id&filter=${encodeURIComponent(filter)}`)).body;
    expect(await search('(last_name like Van D%)')).toEqual({ resource: [{ id }] });
    expect(await search('first_name = Mary Ann and last_name like Van%')).toEqual({ resource: [{ id }] });
    expect(await search('(first_name = Mary Ann) or (first_name = No One)')).toEqual({ resource: [{ id }] });
    expect(await search('last_name in (Van Dyke, Nobody Else) and first_name like M%')).toEqual({ resource: [{ id }] });
    expect((await api('DELETE', `/crm/_table/contact/${id}`)).status).toBe(200);
  });
});

// northwind-svelte reads Northwind's PascalCase columns (OrderID, CustomerID): a service with keep_case (DESIGN 5.8).
describe('northwind-svelte against a service keeping the database case', () => {
  beforeAll(async () => {
    const service = await api('POST', '/system/service', {
      resource: [{ name: 'nw', label: 'Northwind', type: 'sqlite', config: { database: 'nw.sqlite', keep_case: true } }],
    });
    expect(service.status).toBe(201);
    const customerId = { name: 'CustomerID', type: 'string', length: 5 };
    const schema = await api('POST', '/nw/_schema', {
      resource: [
        {
          name: 'Customers',
          field: [
            { ...customerId, is_primary_key: true },
            { name: 'CompanyName', type: 'string' },
          ],
        },
        {
          name: 'Orders',
          field: [
            { name: 'OrderID', type: 'id' },
            { ...customerId, allow_null: true, is_foreign_key: true, ref_table: 'Customers', ref_field: 'CustomerID' },
            { name: 'OrderDate', type: 'datetime', allow_null: true },
          ],
        },
      ],
    });
    expect(schema.status).toBe(200);
    await api('POST', '/nw/_table/Customers', {
      resource: [
        { CustomerID: 'ALFKI', CompanyName: 'Alfreds' },
        { CustomerID: 'ANATR', CompanyName: 'Ana' },
      ],
    });
    await api('POST', '/nw/_table/Orders', {
      resource: [
        { CustomerID: 'ALFKI', OrderDate: '1997-08-25 00:00:00' },
        { CustomerID: 'ANATR', OrderDate: '1997-09-25 00:00:00' },
      ],
    });
  });

  it('lists a page with its count, filtered, ordered and with related records, under the columns as the database names them', async () => {
    const page = await api('GET', '/nw/_table/Orders?include_count=true&limit=1&offset=0&order=OrderDate%20desc&related=*');
    expect(page.body).toEqual({
      resource: [
        {
          OrderID: 2,
          CustomerID: 'ANATR',
          OrderDate: '1997-09-25 00:00:00',
          Customers_by_CustomerID: { CustomerID: 'ANATR', CompanyName: 'Ana' },
        },
      ],
      meta: { count: 2, next: 1 },
    });
    const filtered = await api('GET', `/nw/_table/Orders?filter=${encodeURIComponent("(CustomerID='ALFKI')")}&fields=OrderID`);
    expect(filtered.body).toEqual({ resource: [{ OrderID: 1 }] });
    const customer = await api('GET', '/nw/_table/Customers/ALFKI?related=Orders_by_CustomerID');
    expect(customer.body.Orders_by_CustomerID.map((o: { OrderID: number }) => o.OrderID)).toEqual([1]);
  });

  it('updates a record by its key and reads it back', async () => {
    expect((await api('PATCH', '/nw/_table/Orders/1', { OrderDate: '1998-01-01 00:00:00' })).body).toEqual({ OrderID: 1 });
    expect((await api('GET', '/nw/_table/Orders/1?fields=OrderID,OrderDate')).body).toEqual({
      OrderID: 1,
      OrderDate: '1998-01-01 00:00:00',
    });
  });
});

// The admin console's relationship editor and df-mcp-server (row 35) read `_schema/{t}/_related` and write one
// relationship back by name. A PATCH by name changes what it names: the keys not sent stay the relationship's
// own (as PATCH of a field by name does), and a name the table has not is a 404, as for `_field/{f}`.
describe('a relationship written by name under _schema/{t}/_related', () => {
  it('keeps the keys not sent, and an unknown name is a 404', async () => {
    const schema = await api('POST', '/crm/_schema', {
      resource: [
        {
          name: 'phone',
          field: [
            { name: 'id', type: 'id' },
            { name: 'contact_id', type: 'reference', ref_table: 'contact', ref_field: 'id', allow_null: true },
          ],
        },
      ],
    });
    expect(schema.status).toBe(200);
    const path = '/crm/_schema/contact/_related/phone_by_contact_id';
    const changed = await api('PATCH', path, { ref_on_delete: 'CASCADE' });
    expect(changed.status).toBe(200);
    const read = await api('GET', path);
    expect([read.status, read.body.type, read.body.ref_table, read.body.ref_field, read.body.ref_on_delete]).toEqual([
      200,
      'has_many',
      'phone',
      'contact_id',
      'CASCADE',
    ]);
    for (const verb of ['PATCH', 'PUT']) {
      const unknown = await api(verb, '/crm/_schema/contact/_related/nope', { ref_on_delete: 'CASCADE' });
      expect([verb, unknown.status, unknown.body]).toEqual([
        verb,
        404,
        { error: { code: 404, message: "Relationship 'nope' not found in table 'contact'." } },
      ]);
    }
  });
});

// The admin console's field and relationship editors (rows 23, 35) with the body lost on the way: a missing or null
// body is the 400 records and system records give, not a 200 that changed nothing.
describe('a field or relationship written by name without a body', () => {
  it('is a 400 in the error shape for PATCH and PUT, and changes nothing', async () => {
    const schema = await api('POST', '/crm/_schema', {
      resource: [
        {
          name: 'note',
          field: [
            { name: 'id', type: 'id' },
            { name: 'contact_id', type: 'reference', ref_table: 'contact', ref_field: 'id', allow_null: true },
          ],
        },
      ],
    });
    expect(schema.status).toBe(200);
    const before = (await api('GET', '/crm/_schema/contact')).body;
    for (const path of ['/crm/_schema/contact/_field/first_name', '/crm/_schema/contact/_related/note_by_contact_id']) {
      for (const [verb, body] of [
        ['PATCH', undefined],
        ['PUT', undefined],
        ['PATCH', 'null'],
        ['PUT', 'null'],
        ['PATCH', '[]'],
      ] as const) {
        const answer = await api(verb, path, body);
        expect([path, verb, body, answer.status, answer.body]).toEqual([
          path,
          verb,
          body,
          400,
          { error: { code: 400, message: 'The request body must be a JSON object of field values.' } },
        ]);
      }
    }
    expect((await api('GET', '/crm/_schema/contact')).body).toEqual(before);
  });
});
