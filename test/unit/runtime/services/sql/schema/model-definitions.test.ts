import { describe, expect, it } from 'vitest';
import type { DatabaseSchema, FieldModel, TableModel } from '#runtime/model/platform-model.js';
import { currentDefinition, definitionInput, mergedDefinition, rebuiltDefinition } from '#runtime/services/sql/schema/model-definitions.js';
import { field } from '../filter/filter-fixtures.js';

const parent: TableModel = {
  name: 'parent',
  sourceName: 'Parent',
  sourceSchema: null,
  label: 'Parent',
  description: '',
  isView: false,
  primaryKey: ['id'],
  fields: [
    field('id', 'id', { dbType: 'integer', allowNull: false }),
    field('a', 'integer', { dbType: 'integer' }),
    field('b', 'integer', { dbType: 'integer' }),
  ],
  foreignKeys: [],
  uniqueKeys: [['a', 'b']],
  relations: [],
};
const name: FieldModel = field('name', 'string', {
  sourceName: 'Name',
  dbType: 'character varying(40)',
  length: 40,
  allowNull: false,
  default: 'x',
});
const owner: FieldModel = field('owner_id', 'reference', { dbType: 'integer', isForeignKey: true, refTable: 'parent', refField: 'id' });
const child: TableModel = {
  ...parent,
  name: 'child',
  sourceName: 'child',
  uniqueKeys: [],
  fields: [
    field('id', 'id', { dbType: 'integer', allowNull: false }),
    name,
    owner,
    field('pa', 'integer', { dbType: 'integer' }),
    field('pb', 'integer', { dbType: 'integer' }),
  ],
  foreignKeys: [
    { name: 'fk_child_owner_id', fields: ['owner_id'], refTable: 'parent', refFields: ['id'], onUpdate: 'no action', onDelete: 'cascade' },
    {
      name: 'fk_child_pa_pb',
      fields: ['pa', 'pb'],
      refTable: 'parent',
      refFields: ['a', 'b'],
      onUpdate: 'no action',
      onDelete: 'no action',
    },
  ],
};
const schema: DatabaseSchema = { tables: [child, parent], routines: [] };

describe('definitions of existing fields', () => {
  it('gives a field as input with its source names, native type and single-field key', () => {
    expect(definitionInput(schema, child, owner)).toEqual({
      name: 'owner_id',
      db_type: 'integer',
      allow_null: true,
      auto_increment: false,
      is_primary_key: false,
      is_unique: false,
      ref_table: 'Parent',
      ref_field: 'id',
      ref_on_update: 'no action',
      ref_on_delete: 'cascade',
    });
    expect(currentDefinition(schema, child, name)).toMatchObject({
      name: 'Name',
      type: 'character varying(40)',
      native: true,
      allowNull: false,
      default: 'x',
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['keeps what the change leaves out', { allow_null: true }, { type: 'character varying(40)', allowNull: true, default: 'x' }],
    ['resizes the native type when only a size is given', { length: 80 }, { type: 'character varying', length: 80 }],
    ['takes a new type whole', { type: 'text' }, { type: 'text', native: false, default: 'x' }],
    ['keeps the database name whatever name the change gives', { name: 'NAME', allow_null: true }, { name: 'Name' }],
  ])('merging a change %s', (_name, change, want) => {
    expect(mergedDefinition(schema, child, name, { name: 'name', ...change }, 0)).toMatchObject(want);
  });

  it('rebuilds a table with its keys over several fields, without those over dropped fields', () => {
    const fields = child.fields.map((f) => currentDefinition(schema, child, f));
    expect(rebuiltDefinition(schema, child, fields).foreignKeys).toEqual([
      { fields: ['pa', 'pb'], refTable: 'Parent', refFields: ['a', 'b'], onUpdate: 'no action', onDelete: 'no action' },
    ]);
    expect(
      rebuiltDefinition(
        schema,
        child,
        fields.filter((f) => f.name !== 'pb'),
      ).foreignKeys,
    ).toEqual([]);
    expect(
      rebuiltDefinition(
        schema,
        parent,
        parent.fields.map((f) => currentDefinition(schema, parent, f)),
      ).uniqueKeys,
    ).toEqual([['a', 'b']]);
  });
});
