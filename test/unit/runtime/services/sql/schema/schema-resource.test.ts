import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceHandler } from '#runtime/services/service-kind.js';
import { type caller, openAddressBook, tempDir } from '../sql-test-helpers.js';

const env = tempDir();
let handler: ServiceHandler;
let call: ReturnType<typeof caller>;

beforeAll(async () => {
  ({ handler, call } = await openAddressBook(env.dir));
});
afterAll(async () => {
  await handler.close();
  env.cleanup();
});

const TABLES = ['contact', 'contact_group', 'contact_group_relationship', 'contact_info'];

describe('table listings (reference 1.4)', () => {
  it.each(['_table', '_schema'])('%s lists names only by default', async (path) => {
    expect((await call('GET', path)).body).toEqual({ resource: TABLES.map((name) => ({ name })) });
  });

  it('gives every descriptor key for fields=*, the named keys otherwise, bare names for as_list', async () => {
    expect(((await call('GET', '_table', { fields: '*' })).body as { resource: unknown[] }).resource[3]).toEqual({
      name: 'contact_info',
      label: 'Contact Info',
      description: '',
      native: null,
      plural: 'Contact Infos',
      is_view: false,
    });
    expect(((await call('GET', '_schema', { fields: 'name,label' })).body as { resource: unknown[] }).resource[1]).toEqual({
      name: 'contact_group',
      label: 'Contact Group',
    });
    expect((await call('GET', '_table', { as_list: 'true' })).body).toEqual({ resource: TABLES });
  });
});

describe('GET _schema/{table} (reference 3.3)', () => {
  it('describes a table: keys in order, fields in database order, relations sorted', async () => {
    const body = (await call('GET', '_schema/Contact_Info')).body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'name',
      'label',
      'description',
      'native',
      'plural',
      'is_view',
      'primary_key',
      'name_field',
      'field',
      'related',
    ]);
    expect(body).toMatchObject({
      name: 'contact_info',
      label: 'Contact Info',
      plural: 'Contact Infos',
      is_view: false,
      primary_key: ['id'],
      name_field: null,
    });
    const fields = body.field as Array<Record<string, unknown>>;
    expect(fields.map((f) => f.name)).toEqual([
      'id',
      'ordinal',
      'contact_id',
      'info_type',
      'phone',
      'email',
      'address',
      'city',
      'state',
      'zip',
      'country',
    ]);
    expect(Object.keys(fields[0])).toEqual([
      'name',
      'label',
      'description',
      'native',
      'type',
      'db_type',
      'length',
      'precision',
      'scale',
      'default',
      'required',
      'allow_null',
      'fixed_length',
      'supports_multibyte',
      'auto_increment',
      'is_primary_key',
      'is_unique',
      'is_index',
      'is_foreign_key',
      'ref_table',
      'ref_field',
      'ref_on_update',
      'ref_on_delete',
      'picklist',
      'validation',
      'db_function',
      'is_virtual',
      'is_aggregate',
    ]);
    expect(fields[0]).toMatchObject({
      type: 'id',
      db_type: 'integer',
      required: false,
      allow_null: false,
      auto_increment: true,
      is_primary_key: true,
    });
    expect(fields[2]).toMatchObject({
      name: 'contact_id',
      label: 'Contact Id',
      type: 'reference',
      required: true,
      is_foreign_key: true,
      ref_table: 'contact',
      ref_field: 'id',
      ref_on_update: 'NO ACTION',
      ref_on_delete: 'CASCADE',
    });
    expect(fields[3]).toMatchObject({ name: 'info_type', type: 'string', db_type: 'varchar(32)', length: 32, required: true });
    expect(body.related).toEqual([
      {
        name: 'contact_by_contact_id',
        label: 'Contact By Contact Id',
        description: null,
        native: null,
        type: 'belongs_to',
        field: 'contact_id',
        is_virtual: false,
        ref_service_id: null,
        ref_table: 'contact',
        ref_field: 'id',
        ref_on_update: 'NO ACTION',
        ref_on_delete: 'CASCADE',
        junction_service_id: null,
        junction_table: null,
        junction_field: null,
        junction_ref_field: null,
        always_fetch: false,
        flatten: false,
        flatten_drop_prefix: false,
      },
    ]);
  });

  it('describes many_many relations with their junction', async () => {
    const related = ((await call('GET', '_schema/contact')).body as { related: Array<Record<string, unknown>> }).related;
    expect(related.map((r) => r.name)).toEqual([
      'contact_group_by_contact_group_relationship',
      'contact_group_relationship_by_contact_id',
      'contact_info_by_contact_id',
    ]);
    expect(related[0]).toMatchObject({
      type: 'many_many',
      field: 'id',
      ref_table: 'contact_group',
      ref_field: 'id',
      ref_on_delete: null,
      junction_table: 'contact_group_relationship',
      junction_field: 'contact_id',
      junction_ref_field: 'contact_group_id',
    });
    expect(related[2]).toMatchObject({
      type: 'has_many',
      field: 'id',
      ref_table: 'contact_info',
      ref_field: 'contact_id',
      ref_on_delete: 'CASCADE',
    });
  });

  it('serves ids, _field and _related', async () => {
    expect(
      ((await call('GET', '_schema', { ids: 'contact_group,contact' })).body as { resource: Array<{ name: string }> }).resource.map(
        (t) => t.name,
      ),
    ).toEqual(['contact_group', 'contact']);
    expect(((await call('GET', '_schema/contact/_field')).body as { resource: unknown[] }).resource).toHaveLength(7);
    expect((await call('GET', '_schema/contact/_field/FIRST_NAME')).body).toMatchObject({ name: 'first_name', length: 40 });
    expect((await call('GET', '_schema/contact/last_name')).body).toMatchObject({ name: 'last_name' });
    expect(((await call('GET', '_schema/contact_info/_related')).body as { resource: unknown[] }).resource).toHaveLength(1);
    expect((await call('GET', '_schema/contact_info/_related/contact_by_contact_id')).body).toMatchObject({ type: 'belongs_to' });
  });

  it.each([
    ['_schema/nope', 404, 'Table "nope" does not exist in the database.'],
    ['_schema/contact/_field/nope', 404, "Field 'nope' not found in table 'contact'."],
    ['_schema/contact/nope', 404, "Field 'nope' not found in table 'contact'."],
    ['_schema/contact/_related/nope', 404, "Relationship 'nope' not found in table 'contact'."],
    ['_schema/contact/other/thing', 400, 'Invalid schema path in describe request.'],
    ['_schema/contact/_field/a/b', 404, "Resource '_schema/contact/_field/a/b' not found for service 'db'."],
  ])('%s -> %i', async (path, status, message) => {
    expect(await call('GET', path)).toEqual({ status, body: { error: { code: status, message } } });
  });
});
