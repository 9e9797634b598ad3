/**
 * A SQLite file written by another program, whose uuid-declared columns hold upper-case uuids:
 * this server writes and reads uuids in lower case, and still finds those rows by ids, by id in
 * the path (GET, PATCH, PUT, DELETE), by filters (=, !=, in, not in) and through related reads;
 * a new child points at such a parent as the parent holds it, and a uuid written again keeps its case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, startApi } from './database-api/api-client.js';
import { type DatabaseTarget, openDatabaseTarget } from './database-api/database-targets.js';

const A = 'F47AC10B-58CC-4372-A567-0E02B2C3D479';
const B = '6FA459EA-EE8A-3CA4-894E-DB77E160355E';
const C = '9A7B330A-A736-41E5-9F3A-3A1B2C4D5E6F';
const D = '1B9D6BCD-BBFD-4B2D-9B5D-AB8DFBBD4BED';

describe('SQLite uuids stored in upper case by another program', () => {
  let target: DatabaseTarget;
  let api: ApiClient;

  beforeAll(async () => {
    target = await openDatabaseTarget('sqlite');
    // Written with better-sqlite3 directly, as the other program wrote them (one child in lower case,
    // which a program without foreign keys enforced could write).
    await target.exec(`
      pragma foreign_keys = off
      ;;
      create table owner (id uuid primary key, name text not null)
      ;;
      create table pet (id integer primary key, owner_id uuid references owner(id), tag uuid, name text)
      ;;
      insert into owner values ('${A}', 'ann'), ('${B}', 'bob'), ('${C}', 'cy'), ('${D}', 'dee')
      ;;
      insert into pet values (1, '${A}', '${B}', 'rex'), (2, '${A.toLowerCase()}', null, 'tom'), (3, '${B}', '${C}', 'kit')
    `);
    api = await startApi(target);
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  const names = (body: { resource: Array<{ name: string }> }) => body.resource.map((row) => row.name);

  it('GET by id finds the row in the case it was stored or in lower case', async () => {
    for (const id of [A, A.toLowerCase(), `{${A}}`]) {
      const got = await api.get(`_table/owner/${encodeURIComponent(id)}`);
      expect(got.status, id).toBe(200);
      expect(got.body).toEqual({ id: A, name: 'ann' });
    }
    // Through the general read path too (fields, id_field).
    const some = await api.get(`_table/owner/${A.toLowerCase()}`, { fields: 'name' });
    expect(some.body).toEqual({ name: 'ann' });
    const byTag = await api.get(`_table/pet/${B.toLowerCase()}`, { id_field: 'tag', fields: 'name' });
    expect(byTag.status).toBe(200);
    expect(byTag.body).toEqual({ name: 'rex' });
  });

  it('ids= finds every named row, in the order named', async () => {
    const got = await api.get('_table/owner', { ids: `${B.toLowerCase()},${A}`, fields: 'name' });
    expect(got.status).toBe(200);
    expect(names(got.body)).toEqual(['bob', 'ann']);
    const tags = await api.get('_table/pet', { ids: `${C.toLowerCase()},${B}`, id_field: 'tag', fields: 'name' });
    expect(tags.status).toBe(200);
    expect(names(tags.body)).toEqual(['kit', 'rex']);
  });

  it('filters with =, !=, in and not in match either case', async () => {
    const cases: Array<[string, string[]]> = [
      [`id = '${A.toLowerCase()}'`, ['ann']],
      [`id = '${A}'`, ['ann']],
      [`id != '${A.toLowerCase()}'`, ['bob', 'cy', 'dee']],
      [`id in ('${A.toLowerCase()}', '${C}')`, ['ann', 'cy']],
      [`id not in ('${A.toLowerCase()}', '${C.toLowerCase()}')`, ['bob', 'dee']],
    ];
    for (const [filter, expected] of cases) {
      const got = await api.get('_table/owner', { filter, order: 'name' });
      expect(got.status, filter).toBe(200);
      expect(names(got.body), filter).toEqual(expected);
    }
    const pets = await api.get('_table/pet', { filter: `owner_id = '${A.toLowerCase()}'`, order: 'id' });
    expect(names(pets.body)).toEqual(['rex', 'tom']);
    const tagged = await api.get('_table/pet', { filter: `tag = '${C.toLowerCase()}'`, fields: 'name' });
    expect(names(tagged.body)).toEqual(['kit']);
  });

  it('related reads join rows whose uuids differ in case', async () => {
    const owners = await api.get('_table/owner', { ids: A.toLowerCase(), related: '*' });
    expect(owners.status).toBe(200);
    const owner = owners.body.resource[0];
    const relation = Object.keys(owner).find((key) => Array.isArray(owner[key])) as string;
    expect(relation, JSON.stringify(owner)).toBeDefined();
    expect(owner[relation].map((pet: { name: string }) => pet.name).sort()).toEqual(['rex', 'tom']);

    const pets = await api.get('_table/pet', { order: 'id', related: '*' });
    expect(pets.status).toBe(200);
    const parentKey = Object.keys(pets.body.resource[0]).find((key) => key.startsWith('owner_by')) as string;
    expect(pets.body.resource.map((pet: Record<string, { name: string } | null>) => pet[parentKey]?.name)).toEqual(['ann', 'ann', 'bob']);
  });

  it('writes a new child of a parent stored in upper case as the parent holds it, in either case given', async () => {
    // This server writes uuids in lower case: the foreign key refused these (409).
    for (const [id, owner] of [
      [10, A],
      [11, A.toLowerCase()],
      [12, `{${A.toLowerCase()}}`],
    ] as const) {
      const created = await api.call('POST', '_table/pet', { resource: [{ id, owner_id: owner, name: `new-${id}` }] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(await target.query(`select owner_id from pet where id = ${id}`)).toEqual([{ owner_id: A }]);
    }
    // Moved to another parent, by id and in a batch: again as that parent holds it.
    expect((await api.call('PATCH', '_table/pet/10', { owner_id: B.toLowerCase() })).status).toBe(200);
    expect((await api.call('PATCH', '_table/pet', { resource: [{ id: 11, owner_id: B.toLowerCase() }] })).status).toBe(200);
    expect(await target.query('select owner_id from pet where id in (10, 11)')).toEqual([{ owner_id: B }, { owner_id: B }]);
    // A parent that does not exist in any case is still refused.
    const orphan = await api.call('POST', '_table/pet', { resource: [{ id: 13, owner_id: '00000000-0000-4000-8000-000000000000' }] });
    expect(orphan.status).toBe(409);
    expect((await api.call('DELETE', '_table/pet?ids=10,11,12')).status).toBe(200);
  });

  it('keeps a stored uuid as it is when a PUT or PATCH body names the same uuid in another case', async () => {
    // A client reads a pet and sends it back whole: its uuids were rewritten in lower case (and
    // the foreign key then refused the owner's).
    const pet = (await api.get('_table/pet/1')).body;
    const put = await api.call('PUT', '_table/pet/1', { ...pet, owner_id: A.toLowerCase(), tag: B.toLowerCase(), name: 'rex' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await target.query('select owner_id, tag from pet where id = 1')).toEqual([{ owner_id: A, tag: B }]);
    // The key itself, when the record is found by another field.
    const byName = await api.call('PATCH', '_table/owner?id_field=name', { resource: [{ name: 'ann', id: A.toLowerCase() }] });
    expect(byName.status, JSON.stringify(byName.body)).toBe(200);
    expect(await target.query("select id from owner where name = 'ann'")).toEqual([{ id: A }]);
    // By filter, each row keeps its own text; a different uuid is written (in lower case).
    const filtered = await api.call('PATCH', `_table/pet?filter=${encodeURIComponent('id <= 2')}`, {
      resource: [{ tag: B.toLowerCase() }],
    });
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(await target.query('select tag from pet where id <= 2 order by id')).toEqual([{ tag: B }, { tag: B.toLowerCase() }]);
    expect((await api.call('PATCH', '_table/pet/2', { tag: null })).status).toBe(200);
    expect((await api.call('PATCH', '_table/pet/1', { tag: C.toLowerCase() })).status).toBe(200);
    expect(await target.query('select tag from pet where id = 1')).toEqual([{ tag: C.toLowerCase() }]);
    expect((await api.call('PATCH', '_table/pet/1', { tag: B })).status).toBe(200);
  });

  it('PATCH, PUT and DELETE by id change the row stored in upper case', async () => {
    const patched = await api.call('PATCH', `_table/owner/${B.toLowerCase()}`, { name: 'bobby' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(await target.query(`select name from owner where id = '${B}'`)).toEqual([{ name: 'bobby' }]);

    const put = await api.call('PUT', `_table/owner/${C.toLowerCase()}`, { name: 'cyril' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await target.query(`select name from owner where id = '${C}'`)).toEqual([{ name: 'cyril' }]);

    const byIds = await api.call('PATCH', '_table/pet?id_field=tag', { resource: [{ tag: C.toLowerCase(), name: 'kitty' }] });
    expect(byIds.status, JSON.stringify(byIds.body)).toBe(200);
    expect(await target.query('select name from pet where id = 3')).toEqual([{ name: 'kitty' }]);

    const deleted = await api.call('DELETE', `_table/owner/${D.toLowerCase()}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await target.query(`select count(*) as n from owner where id = '${D}'`)).toEqual([{ n: 0 }]);
    // Nothing else was touched.
    expect(await target.query('select count(*) as n from owner')).toEqual([{ n: 3 }]);
  });
});
