import { describe, expect, it } from 'vitest';
import { recordSatisfies } from '#runtime/services/sql/filter/row-filter-values.js';
import { rowFiltersToNode } from '#runtime/services/sql/filter/row-filters.js';

const lookup = (name: string) => (name === 'user.id' ? '7' : name === 'user.email' ? 'u@x.io' : undefined);
const key = (name: string) => name;

describe('recordSatisfies', () => {
  it.each<[string, string, string, Record<string, unknown>, boolean, boolean]>([
    ['owner_id', '=', '{user.id}', { owner_id: 7 }, true, true],
    ['owner_id', '=', '{user.id}', { owner_id: '7' }, true, true],
    ['owner_id', '=', '{user.id}', { owner_id: 8 }, true, false],
    ['owner_id', '=', '{user.id}', {}, true, false],
    ['owner_id', '=', '{user.id}', {}, false, true],
    ['email', '=', "'{user.email}'", { email: 'u@x.io' }, true, true],
    ['level', '>=', '3', { level: 2 }, true, false],
    ['level', '<', '3', { level: 2 }, true, true],
    ['status', 'in', "('a', 'b')", { status: 'b' }, true, true],
    ['status', 'not in', "('a', 'b')", { status: 'b' }, true, false],
    ['name', 'like', "'J%'", { name: 'jane' }, true, true],
    ['name', 'contains', "'an'", { name: 'Jane' }, true, true],
    ['deleted', '=', 'false', { deleted: false }, true, true],
    ['deleted', '=', 'null', { deleted: null }, true, true],
    ['deleted', 'is not null', '', { deleted: null }, true, false],
  ])('%s %s %s with %o (creating %s): %s', (name, operator, value, record, creating, expected) => {
    const node = rowFiltersToNode([{ name, operator, value }], 'and', lookup)!;
    expect(recordSatisfies(node, record, creating, key)).toBe(expected);
  });

  it('needs every filter with and, one with or', () => {
    const filters = [
      { name: 'a', operator: '=', value: '1' },
      { name: 'b', operator: '=', value: '2' },
    ];
    expect(recordSatisfies(rowFiltersToNode(filters, 'and', lookup)!, { a: 1, b: 3 }, true, key)).toBe(false);
    expect(recordSatisfies(rowFiltersToNode(filters, 'or', lookup)!, { a: 1, b: 3 }, true, key)).toBe(true);
  });
});
