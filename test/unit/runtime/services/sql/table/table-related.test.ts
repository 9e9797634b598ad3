import { describe, expect, it } from 'vitest';
import type { RelationModel, TableModel } from '#runtime/model/platform-model.js';
import { relationOf } from '#runtime/services/sql/table/table-related.js';

const relation = (name: string): RelationModel => ({
  name,
  type: 'has_many',
  field: ['id'],
  refTable: 'child',
  refField: ['parent_id'],
  junctionTable: null,
  junctionField: null,
  junctionRefField: null,
});

const tableWith = (relations: RelationModel[]) => ({ name: 'parent', relations }) as unknown as TableModel;

describe('relationOf (the record keys of nested writes)', () => {
  it('finds a relationship by its name in any case, the first of names that fold alike', () => {
    const first = relation('Child_by_parent_id');
    const second = relation('child_by_PARENT_ID');
    const other = relation('toy_by_parent_id');
    const table = tableWith([first, second, other]);
    expect(relationOf(table, 'Child_by_parent_id')).toBe(first);
    expect(relationOf(table, 'child_by_PARENT_ID')).toBe(first);
    expect(relationOf(table, 'CHILD_BY_PARENT_ID')).toBe(first);
    expect(relationOf(table, 'TOY_by_parent_id')).toBe(other);
    expect(relationOf(table, 'name')).toBeUndefined();
    expect(relationOf(tableWith([]), 'child_by_parent_id')).toBeUndefined();
  });

  it('reads the relationships a table has now (a schema change gives a table a new list)', () => {
    const table = tableWith([relation('child_by_parent_id')]);
    expect(relationOf(table, 'toy_by_parent_id')).toBeUndefined();
    const changed = { ...table, relations: [...table.relations, relation('toy_by_parent_id')] } as TableModel;
    expect(relationOf(changed, 'toy_by_parent_id')?.name).toBe('toy_by_parent_id');
  });
});
