/**
 * Spec conformance of table and schema endpoints (issue 9 items 13, 15, 17): stable primary-key
 * order without `order`, HEAD like GET without a body, 405 in the error envelope for methods no
 * route takes, and the `_schema` field and relationship paths documented in `_spec`.
 */
import { expect, it } from 'vitest';
import type { ApiClient } from './api-client.js';

export function conformanceTests(api: () => ApiClient): void {
  it('lists without order in primary-key order, whatever fields are asked for', async () => {
    const all = await api().get('_table/contact_info', { limit: '5' });
    const ids = all.body.resource.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    for (const fields of ['email', 'city,email', 'contact_id,id']) {
      const page = await api().get('_table/contact_info', { limit: '3', fields: fields.includes('id') ? fields : `id,${fields}` });
      expect(page.body.resource.map((r: { id: number }) => r.id)).toEqual(ids.slice(0, 3));
    }
    const second = await api().get('_table/contact_info', { limit: '2', offset: '2', fields: 'id' });
    expect(second.body.resource.map((r: { id: number }) => r.id)).toEqual(ids.slice(2, 4));
  });

  it('answers HEAD like GET, without a body', async () => {
    const get = await api().call('GET', '_table/contact?limit=1');
    const head = await api().call('HEAD', '_table/contact?limit=1');
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(get.status).toBe(200);
    expect((await api().call('HEAD', '_table/contact/1')).status).toBe(200);
    expect((await api().call('HEAD', '_table/no_such_table')).status).toBe(404);
  });

  it('refuses a method no route takes with 405 in the error envelope', async () => {
    const trace = await api().call('TRACE', '_table/contact');
    expect(trace.status).toBe(405);
    expect(trace.body).toEqual({ error: { code: 405, message: "Invalid or unsupported verb 'TRACE' used in request." } });
  });

  it('documents the _schema field and relationship paths it serves', async () => {
    const spec = (await api().call('GET', '_spec')).body;
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining([
      '/_schema/{table_name}/_field', '/_schema/{table_name}/_field/{field_name}', '/_schema/{table_name}/_related', '/_schema/{table_name}/_related/{relationship_name}',
    ]));
    expect(Object.keys(spec.paths['/_schema/{table_name}/_field/{field_name}'])).toEqual(expect.arrayContaining(['get', 'put', 'patch', 'delete']));
    expect((await api().call('GET', '_schema/contact/_field')).status).toBe(200);
    expect((await api().call('GET', '_schema/contact/_field/first_name')).body).toMatchObject({ name: 'first_name' });
    expect((await api().call('GET', '_schema/contact_info/_related')).status).toBe(200);
  });
}
