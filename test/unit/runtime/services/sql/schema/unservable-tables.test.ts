import { describe, expect, it } from 'vitest';
import type { CatalogColumn, CatalogTable } from '#runtime/services/sql/schema/catalog.js';
import { servableTables } from '#runtime/services/sql/schema/unservable-tables.js';

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
const fk = (columns: string[], refTable: string) => ({
  name: null,
  columns,
  refTable,
  refColumns: ['id'],
  onUpdate: 'no action' as const,
  onDelete: 'no action' as const,
});

describe('servableTables', () => {
  it('keeps a catalog with nothing to leave out as it is', () => {
    const catalog = [table('a', ['id'], { primaryKey: ['id'], foreignKeys: [fk(['id'], 'elsewhere')] })];
    expect(servableTables(catalog)).toEqual({ catalog, warnings: [] });
  });

  it('leaves out unreadable views and tables without columns, with the foreign keys to them', () => {
    const served = servableTables([
      table('empty', []),
      table('note', ['id', 'stale_id', 'empty_id', 'other_id'], {
        primaryKey: ['id'],
        foreignKeys: [fk(['stale_id'], 'Stale'), fk(['empty_id'], 'empty'), fk(['other_id'], 'not_in_catalog')],
      }),
      table('stale', [], { isView: true, unreadable: 'no such table: main.gone' }),
    ]);
    expect(served.warnings).toEqual([
      'table "empty" has no columns the database describes: it is not served.',
      'view "stale" can not be read (no such table: main.gone): it is not served.',
    ]);
    expect(served.catalog.map((t) => t.name)).toEqual(['note']);
    expect(served.catalog[0].foreignKeys.map((key) => key.refTable)).toEqual(['not_in_catalog']);
  });

  it('keeps the listed columns of a key naming hidden ones (MariaDB system versioning), and drops other keys on them', () => {
    const served = servableTables([
      table('history', ['id', 'n'], {
        primaryKey: ['id', 'row_end'],
        uniqueKeys: [['n', 'row_end'], ['n']],
        foreignKeys: [fk(['row_end'], 'x')],
      }),
    ]);
    expect(served.warnings).toEqual([]);
    expect(served.catalog[0]).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['n']], foreignKeys: [] });
  });
});
