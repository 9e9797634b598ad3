/**
 * The address-book fixture end to end: its tables created through `_schema`, its records loaded
 * through `_table`, then read back with filters, paging and `related` across the foreign keys
 * and the junction table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { ApiClient } from './api-client.js';

import { ADDRESS_BOOK_DIR } from '#test/helpers/shared-dir.js';
export { ADDRESS_BOOK_DIR };

interface FixtureTable {
  name: string;
  field?: unknown[];
  record?: Record<string, unknown>[];
}

function fixture(file: string): FixtureTable[] {
  const json = JSON.parse(fs.readFileSync(path.join(ADDRESS_BOOK_DIR, file), 'utf8')) as { service: Array<{ table: FixtureTable[] }> };
  return json.service[0].table;
}

/** Creates and loads the address book; returns the record counts by table. */
export async function loadAddressBook(api: ApiClient): Promise<Record<string, number>> {
  const created = await api.call('POST', '_schema', { resource: fixture('schema.json') });
  expect(created).toEqual({
    status: 200,
    body: { resource: [{ name: 'contact' }, { name: 'contact_info' }, { name: 'contact_group' }, { name: 'contact_group_relationship' }] },
  });
  const data = new Map(fixture('data.json').map((table) => [table.name, table.record ?? []]));
  const counts: Record<string, number> = {};
  // Referenced tables first.
  for (const table of ['contact', 'contact_group', 'contact_info', 'contact_group_relationship']) {
    const records = data.get(table) ?? [];
    const loaded = await api.call('POST', `_table/${table}`, { resource: records });
    expect(loaded.status, JSON.stringify(loaded.body).slice(0, 300)).toBe(200);
    expect(loaded.body.resource).toHaveLength(records.length);
    counts[table] = records.length;
  }
  return counts;
}

/** The address-book tests; `api()` is the client of a database where loadAddressBook ran. */
export function addressBookTests(api: () => ApiClient): void {
  it('lists the created tables and describes them with their relationships', async () => {
    expect((await api().get('_table')).body).toEqual({
      resource: [{ name: 'contact' }, { name: 'contact_group' }, { name: 'contact_group_relationship' }, { name: 'contact_info' }],
    });
    const info = (await api().get('_schema/contact_info')).body;
    expect(info.primary_key).toEqual(['id']);
    const byName = Object.fromEntries(info.field.map((f: { name: string }) => [f.name, f]));
    expect(byName.id).toMatchObject({ type: 'id', auto_increment: true, is_primary_key: true, allow_null: false });
    expect(byName.contact_id).toMatchObject({
      type: 'reference',
      is_foreign_key: true,
      ref_table: 'contact',
      ref_field: 'id',
      ref_on_delete: 'CASCADE',
      required: true,
    });
    expect(byName.info_type).toMatchObject({ type: 'string', length: 32, allow_null: false });
    // The spec's field definition: the native type is returned on read.
    expect(byName.info_type.db_type).toMatch(/^(varchar|character varying)\(32\)$/);
    expect(byName.id.db_type).toMatch(/^(integer|int\(11\))$/);
    expect(byName.ordinal).toMatchObject({ type: 'integer', allow_null: true, required: false });
    const contact = (await api().get('_schema/contact')).body;
    expect(contact.related.map((r: { name: string; type: string }) => [r.name, r.type])).toEqual([
      ['contact_group_by_contact_group_relationship', 'many_many'],
      ['contact_group_relationship_by_contact_id', 'has_many'],
      ['contact_info_by_contact_id', 'has_many'],
    ]);
  });

  it('serves the loaded records with counts, filters, order and paging', async () => {
    expect((await api().get('_table/contact', { count_only: 'true' })).body).toEqual({ meta: { count: 100 } });
    expect((await api().get('_table/contact_info', { include_count: 'true', limit: '5' })).body.meta).toEqual({ count: 300, next: 5 });
    const page = await api().get('_table/contact', {
      filter: "last_name like 'S%' or id = 1",
      fields: 'id,last_name',
      order: 'last_name desc,id',
      limit: '3',
      offset: '1',
      include_count: 'true',
    });
    expect(page.body).toEqual({
      resource: [
        { id: 11, last_name: 'Suarez' },
        { id: 33, last_name: 'Stone' },
        { id: 44, last_name: 'Simmons' },
      ],
      meta: { count: 7, next: 4 },
    });
    expect((await api().get('_table/contact/7')).body).toEqual({
      id: 7,
      first_name: 'Janet',
      last_name: 'Alvarez',
      image_url: '',
      twitter: '@janet9',
      skype: 'janet9',
      notes: '',
    });
  });

  it('reads belongs_to, has_many and many_many relationships', async () => {
    const info = await api().get('_table/contact_info/4', {
      related: 'contact_by_contact_id',
      fields: 'id,info_type',
      'contact_by_contact_id.fields': 'id,last_name',
    });
    expect(info.body).toEqual({ id: 4, info_type: 'home', contact_by_contact_id: { id: 2, last_name: 'Huang' } });
    const contact = await api().get('_table/contact/1', { related: '*', fields: 'first_name' });
    expect(contact.body.first_name).toBe('Jon');
    expect(contact.body.contact_info_by_contact_id.map((r: { info_type: string }) => r.info_type).sort()).toEqual([
      'home',
      'mobile',
      'work',
    ]);
    expect(contact.body.contact_group_by_contact_group_relationship).toEqual([{ id: 7, name: 'Mid West' }]);
    expect(contact.body.contact_group_relationship_by_contact_id).toEqual([{ id: 1, contact_id: 1, contact_group_id: 7 }]);
    expect(contact.body).not.toHaveProperty('id');
  });

  it('reads many_many from the other side, for a whole page, with per-relationship options', async () => {
    const groups = await api().get('_table/contact_group', {
      related: 'contact_by_contact_group_relationship',
      order: 'id',
      fields: 'name',
      'contact_by_contact_group_relationship.fields': 'last_name',
      'contact_by_contact_group_relationship.order': 'last_name',
      'contact_by_contact_group_relationship.limit': '2',
    });
    expect(groups.status).toBe(200);
    expect(groups.body.resource).toHaveLength(9);
    for (const group of groups.body.resource) {
      const names = group.contact_by_contact_group_relationship.map((c: { last_name: string }) => c.last_name);
      expect(names.length).toBeLessThanOrEqual(2);
      expect(names).toEqual([...names].sort());
    }
    const total = await api().get('_table/contact_group_relationship', { count_only: 'true' });
    expect(total.body.meta.count).toBe(100);
    const all = await api().get('_table/contact_group', {
      related: 'contact_by_contact_group_relationship',
      'contact_by_contact_group_relationship.fields': 'id',
    });
    const linked = all.body.resource.reduce(
      (n: number, g: { contact_by_contact_group_relationship: unknown[] }) => n + g.contact_by_contact_group_relationship.length,
      0,
    );
    expect(linked).toBe(100);
    // A relationship's limit below 1 is no valid limit, as for the list itself (reference 2.4): the service maximum.
    for (const limit of ['0', '-1']) {
      const unlimited = await api().get('_table/contact_group', {
        related: 'contact_by_contact_group_relationship',
        'contact_by_contact_group_relationship.fields': 'id',
        'contact_by_contact_group_relationship.limit': limit,
      });
      expect(unlimited.body, `limit=${limit}`).toEqual(all.body);
    }
  });

  it('filters on related fields with dot notation', async () => {
    const mid = await api().get('_table/contact', { filter: "contact_group.name = 'Mid West'", fields: 'id', order: 'id', limit: '3' });
    expect(mid.body.resource[0]).toEqual({ id: 1 });
    const work = await api().get('_table/contact', {
      filter: "contact_info_by_contact_id.email like '%@Work.com' and id < 4",
      fields: 'id',
      order: 'id',
    });
    expect(work.body.resource).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect((await api().get('_table/contact', { filter: 'contact_group.bogus = 1' })).body.error.message).toBe(
      "Invalid or unparsable field in filter request: 'contact_group.bogus'",
    );
  });
}
