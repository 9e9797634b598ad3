import { describe, expect, it } from 'vitest';
import type { CatalogColumn, CatalogTable } from '#runtime/services/sql/schema/catalog.js';
import { withoutNameCollisions } from '#runtime/services/sql/schema/name-collisions.js';

const column = (name: string): CatalogColumn => ({ name, dbType: 'integer', nullable: true, default: null, autoIncrement: false });
const table = (name: string, columns: string[], extra: Partial<CatalogTable> = {}): CatalogTable => ({
  name,
  schema: null,
  isView: false,
  columns: columns.map(column),
  primaryKey: [],
  foreignKeys: [],
  uniqueKeys: [],
  ...extra,
});
const lower = (name: string) => name.toLowerCase();
const fk = (columns: string[], refTable: string, refColumns: string[]) => ({
  name: null,
  columns,
  refTable,
  refColumns,
  onUpdate: 'no action' as const,
  onDelete: 'no action' as const,
});

describe('withoutNameCollisions', () => {
  it('keeps a catalog without collisions as it is', () => {
    const catalog = [table('a', ['id', 'Name']), table('B', ['id'])];
    expect(withoutNameCollisions(catalog, lower)).toEqual({ catalog, warnings: [] });
  });

  it('serves the table or column written as its API name, else the first, and says what it left out', () => {
    const { catalog, warnings } = withoutNameCollisions(
      [table('Item', ['id']), table('ITEM', ['id']), table('Order', ['ID', 'Id', 'id']), table('order', ['Total', 'TOTAL'])],
      lower,
    );
    expect(catalog.map((t) => [t.name, t.columns.map((c) => c.name)])).toEqual([
      ['Item', ['id']],
      ['order', ['Total']],
    ]);
    expect(warnings).toEqual([
      'tables "Item" and "ITEM" have one API name \'item\': only "Item" is served.',
      'tables "order" and "Order" have one API name \'order\': only "order" is served.',
      'columns "Total" and "TOTAL" of table "order" have one API name \'total\': only "Total" is served.',
    ]);
  });

  it('leaves out the keys naming a column left out, and the foreign keys to a table or column left out', () => {
    const { catalog } = withoutNameCollisions(
      [
        table('contact', ['id', 'ID', 'code', 'CODE'], { primaryKey: ['ID'], uniqueKeys: [['code'], ['CODE'], ['id', 'code']] }),
        table('Contact', ['id']),
        table('note', ['id', 'a', 'b', 'c'], {
          primaryKey: ['id'],
          foreignKeys: [
            fk(['a'], 'contact', ['id']),
            fk(['b'], 'Contact', ['id']),
            fk(['c'], 'contact', ['CODE']),
            fk(['c'], 'elsewhere', ['x']),
          ],
        }),
      ],
      lower,
    );
    const [contact, note] = catalog;
    expect([contact!.primaryKey, contact!.uniqueKeys]).toEqual([[], [['code'], ['id', 'code']]]);
    expect(note!.foreignKeys.map((key) => key.refTable)).toEqual(['contact', 'elsewhere']);
  });
});
