import { describe, expect, it } from 'vitest';
import type { ForeignKeyModel, TableModel } from '#runtime/model/platform-model.js';
import { buildRelations } from '#runtime/services/sql/schema/relation-builder.js';

type Table = Omit<TableModel, 'relations'>;

function table(
  name: string,
  primaryKey: string[],
  foreignKeys: Array<Partial<ForeignKeyModel> & Pick<ForeignKeyModel, 'fields' | 'refTable'>>,
  uniqueKeys: string[][] = [],
): Table {
  return {
    name,
    sourceName: name,
    sourceSchema: null,
    label: name,
    description: '',
    isView: false,
    primaryKey,
    fields: [],
    uniqueKeys,
    foreignKeys: foreignKeys.map((fk) => ({
      name: `fk_${name}_${fk.fields.join('_')}`,
      refFields: ['id'],
      onUpdate: 'no action',
      onDelete: 'no action',
      ...fk,
    })),
  };
}

const names = (tables: TableModel[], name: string) => tables.find((t) => t.name === name)?.relations.map((r) => `${r.name}:${r.type}`);

describe('buildRelations', () => {
  it('makes has_one when the key is unique on the other side, has_many otherwise', () => {
    const tables = buildRelations([
      table('user', ['id'], []),
      table('passport', ['id'], [{ fields: ['user_id'], refTable: 'user' }], [['user_id']]),
      table('post', ['id'], [{ fields: ['user_id'], refTable: 'user' }]),
    ]);
    expect(names(tables, 'user')).toEqual(['passport_by_user_id:has_one', 'post_by_user_id:has_many']);
    expect(names(tables, 'passport')).toEqual(['user_by_user_id:belongs_to']);
  });

  it('joins the junction both ways and names multi-column keys by all their fields', () => {
    const tables = buildRelations([
      table('a', ['id'], []),
      table('b', ['id'], []),
      table(
        'a_b',
        ['a_id', 'b_id'],
        [
          { fields: ['a_id'], refTable: 'a' },
          { fields: ['b_id'], refTable: 'b' },
        ],
      ),
      table('c', ['id'], [{ fields: ['x', 'y'], refTable: 'a_b', refFields: ['a_id', 'b_id'] }]),
    ]);
    expect(names(tables, 'a')).toEqual(['a_b_by_a_id:has_many', 'b_by_a_b:many_many']);
    expect(names(tables, 'b')).toEqual(['a_b_by_b_id:has_many', 'a_by_a_b:many_many']);
    expect(names(tables, 'a_b')).toEqual(['a_by_a_id:belongs_to', 'b_by_b_id:belongs_to', 'c_by_x_y:has_many']);
    expect(tables.find((t) => t.name === 'c')?.relations).toEqual([
      {
        name: 'a_b_by_x_y',
        type: 'belongs_to',
        field: ['x', 'y'],
        refTable: 'a_b',
        refField: ['a_id', 'b_id'],
        junctionTable: null,
        junctionField: null,
        junctionRefField: null,
      },
    ]);
  });

  it('keeps the first relation of a name (a self reference is belongs_to and has_many of one name)', () => {
    const tables = buildRelations([table('emp', ['id'], [{ fields: ['boss_id'], refTable: 'emp' }])]);
    expect(names(tables, 'emp')).toEqual(['emp_by_boss_id:belongs_to']);
  });
});
