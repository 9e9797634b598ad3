/**
 * Grouped reads (`group`, `having`, aggregates) and nested writes of related records (created,
 * linked, unlinked, and rolled back with their parent) on the address book.
 */
import { expect, it } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { DatabaseTarget } from './database-targets.js';

const INFO = { phone: '555', email: 'x@example.com', address: 'a', city: 'c', state: 's', zip: 'z', country: 'c' };

export function groupTests(api: () => ApiClient): void {
  it('groups with aggregates, orders by their alias and counts the groups', async () => {
    const result = await api().get('_table/contact_info', {
      group: 'info_type',
      fields: 'info_type,COUNT(*),min(id)',
      order: 'info_type desc',
      include_count: 'true',
    });
    expect(result.body).toEqual({
      resource: [
        { info_type: 'work', COUNT_ALL: 100, MIN_id: 2 },
        { info_type: 'mobile', COUNT_ALL: 100, MIN_id: 3 },
        { info_type: 'home', COUNT_ALL: 100, MIN_id: 1 },
      ],
      meta: { count: 3 },
    });
  });

  it('aggregates the whole table when fields hold aggregates only (no primary-key order on PostgreSQL)', async () => {
    const result = await api().get('_table/contact_info', { fields: 'count(*),max(id)' });
    expect(result).toEqual({ status: 200, body: { resource: [{ COUNT_ALL: 300, MAX_id: 300 }] } });
    const filtered = await api().get('_table/contact_info', { fields: 'COUNT(*)', filter: "info_type = 'home'", include_count: 'true' });
    expect(filtered.body).toEqual({ resource: [{ COUNT_ALL: 100 }], meta: { count: 1 } });
    expect((await api().get('_table/contact_info', { fields: 'count(*)', count_only: 'true' })).body).toEqual({ meta: { count: 1 } });
    const refused = await api().get('_table/contact_info', { fields: 'count(*)', having: 'count(*) > 1000', include_count: 'true' });
    expect(refused.body).toEqual({ resource: [], meta: { count: 0 } });
  });

  it('refuses sum and avg of a field that is not numeric alike (SQLite and MySQL summed text as 0, PostgreSQL answered 500)', async () => {
    const result = await api().get('_table/contact_info', { group: 'info_type', fields: 'info_type,sum(email)' });
    expect(result.body.error).toEqual({
      code: 400,
      message: "Aggregate 'sum(email)' needs a numeric field: 'email' is of type string.",
      context: { field: 'email' },
    });
    expect((await api().get('_table/contact_info', { fields: 'avg(city)' })).status).toBe(400);
  });

  it('returns groups in the order of the group fields without order, so that pages of groups do not overlap (PostgreSQL hashed them)', async () => {
    const query = { group: 'contact_id', fields: 'contact_id,count(*)', having: 'count(*) >= 1' };
    const all = (await api().get('_table/contact_group_relationship', query)).body.resource.map(
      (r: { contact_id: number }) => r.contact_id,
    );
    expect(all.length).toBeGreaterThan(20);
    expect(all).toEqual([...all].sort((a: number, b: number) => a - b));
    const paged: number[] = [];
    for (let offset = 0; offset < all.length; offset += 7) {
      const page = await api().get('_table/contact_group_relationship', { ...query, limit: '7', offset: String(offset) });
      paged.push(...page.body.resource.map((r: { contact_id: number }) => r.contact_id));
    }
    expect(paged).toEqual(all);
  });

  it('filters groups with having, and takes group_by', async () => {
    const all = (await api().get('_table/contact_group_relationship', { group: 'contact_group_id', fields: 'contact_group_id,count(*)' }))
      .body.resource;
    const big = all.filter((row: { COUNT_ALL: number }) => row.COUNT_ALL >= 12);
    expect(big.length).toBeGreaterThan(0);
    const result = await api().get('_table/contact_group_relationship', {
      group_by: 'contact_group_id',
      fields: 'contact_group_id,count(*),sum(contact_id)',
      having: 'count(*) >= 12 and contact_group_id < 9',
      order: 'contact_group_id',
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.resource.map((row: { contact_group_id: number }) => row.contact_group_id)).toEqual(
      big
        .map((row: { contact_group_id: number }) => row.contact_group_id)
        .filter((id: number) => id < 9)
        .sort((a: number, b: number) => a - b),
    );
    for (const row of result.body.resource) expect(typeof row.SUM_contact_id).toBe('number');
    const counted = await api().get('_table/contact_group_relationship', {
      group: 'contact_group_id',
      having: 'count(*) >= 12',
      count_only: 'true',
    });
    expect(counted.body).toEqual({ meta: { count: big.length } });
  });

  it.each([
    [{ group: 'info_type', fields: 'city' }, "Field 'city' must be one of the 'group' fields or an aggregate when records are grouped."],
    [
      { group: 'info_type', having: 'city = 1' },
      "Field 'city' in 'having' must be one of the 'group' fields or inside an aggregate function.",
    ],
    [{ filter: 'count(*) > 1' }, "Aggregate function 'count(*)' is only allowed in 'having'."],
    [{ group: 'info_type', order: 'COUNT_ALL' }, "Invalid field 'COUNT_ALL' in order by clause."],
  ])('refuses %j', async (query, message) => {
    expect((await api().get('_table/contact_info', query)).body.error.message).toBe(message);
  });
}

export function nestedWriteTests(api: () => ApiClient, target: () => DatabaseTarget): void {
  const count = async (table: string, where: string) =>
    Number((await target().query(`select count(*) as n from ${table} where ${where}`))[0].n);

  it('creates a record with has_many and many_many records, and returns them with related', async () => {
    const created = await api().call(
      'POST',
      '_table/contact?related=contact_info_by_contact_id,contact_group_by_contact_group_relationship&fields=first_name',
      {
        resource: [
          {
            first_name: 'Nested',
            last_name: 'One',
            contact_info_by_contact_id: [
              { info_type: 'home', ...INFO },
              { info_type: 'work', ...INFO },
            ],
            contact_group_by_contact_group_relationship: [{ name: 'Nested group' }, { id: 1 }],
          },
        ],
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const [record] = created.body.resource;
    expect(record.first_name).toBe('Nested');
    expect(record.contact_info_by_contact_id.map((r: { info_type: string }) => r.info_type).sort()).toEqual(['home', 'work']);
    expect(record.contact_group_by_contact_group_relationship.map((g: { name: string }) => g.name).sort()).toEqual([
      'Armed Forces',
      'Nested group',
    ]);
    expect(record).not.toHaveProperty('id');
  });

  it('creates the belongs_to record first and points the foreign key at it', async () => {
    const created = await api().call('POST', '_table/contact_info?fields=info_type&related=contact_by_contact_id', {
      resource: [{ info_type: 'mobile', ...INFO, contact_by_contact_id: { first_name: 'Owner', last_name: 'Two' } }],
    });
    expect(created.body.resource[0]).toMatchObject({
      info_type: 'mobile',
      contact_by_contact_id: { first_name: 'Owner', last_name: 'Two' },
    });
  });

  it('rolls a record back with its related records when one of them fails', async () => {
    const failed = await api().call('POST', '_table/contact', {
      resource: [
        {
          first_name: 'Rolled',
          last_name: 'Back',
          contact_info_by_contact_id: [
            { info_type: 'home', ...INFO },
            { info_type: null, ...INFO },
          ],
        },
      ],
    });
    expect(failed.status).toBe(400);
    expect(failed.body.error.message).toBe("Failed to update many to one assignment.\nField 'info_type' can not be NULL.");
    expect(await count('contact', "first_name = 'Rolled'")).toBe(0);
    expect(
      await count(
        'contact_info',
        `email = 'x@example.com' and info_type = 'home' and contact_id not in (select id from contact where first_name = 'Nested')`,
      ),
    ).toBe(0);
  });

  it('links, unlinks and deletes related records on update', async () => {
    const [owner] = (await api().get('_table/contact', { filter: "first_name = 'Nested'", fields: 'id' })).body.resource;
    const groups = (await api().get(`_table/contact/${owner.id}`, { related: 'contact_group_by_contact_group_relationship' })).body
      .contact_group_by_contact_group_relationship;
    const nestedGroup = groups.find((g: { name: string }) => g.name === 'Nested group');
    const unlinked = await api().call('PATCH', `_table/contact/${owner.id}?related=contact_group_by_contact_group_relationship`, {
      contact_group_by_contact_group_relationship: [{ id: nestedGroup.id, 'contact.id': null }],
    });
    expect(unlinked.body.contact_group_by_contact_group_relationship).toEqual([{ id: 1, name: 'Armed Forces' }]);
    const info = (await api().get(`_table/contact/${owner.id}`, { related: 'contact_info_by_contact_id' })).body.contact_info_by_contact_id;
    const refused = await api().call('PATCH', `_table/contact/${owner.id}`, {
      contact_info_by_contact_id: [{ id: info[0].id, contact_id: null }],
    });
    expect(refused.status).toBe(400);
    const deleted = await api().call(
      'PATCH',
      `_table/contact/${owner.id}?allow_related_delete=true&related=contact_info_by_contact_id&contact_info_by_contact_id.fields=id`,
      {
        contact_info_by_contact_id: [{ id: info[0].id, contact_id: null }, { id: 5 }],
      },
    );
    expect(deleted.body.contact_info_by_contact_id.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b)).toEqual(
      [5, info[1].id].sort((a, b) => a - b),
    );
  });
}
