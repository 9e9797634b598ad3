/**
 * Relationships derived from foreign keys, dialect-independent, named as the reference platform
 * names them (clients depend on the names):
 * - belongs_to on the table holding the key: `{ref_table}_by_{field}`;
 * - has_many on the referenced table (has_one when the key is also unique there): `{table}_by_{field}`;
 * - many_many between two tables a junction table points at: `{ref_table}_by_{junction_table}`.
 * Multi-column keys join their field names with `_`.
 */
import type { RelationModel, TableModel } from '../../../model/platform-model.js';

type TableWithoutRelations = Omit<TableModel, 'relations'>;

function sameFields(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
}

function isUniqueIn(table: TableWithoutRelations, fields: string[]): boolean {
  return sameFields(table.primaryKey, fields) || table.uniqueKeys.some((key) => sameFields(key, fields));
}

/** Returns the tables with `relations` filled and sorted by name; the first relation of a name wins. */
export function buildRelations(tables: readonly TableWithoutRelations[]): TableModel[] {
  const byName = new Map<string, RelationModel[]>(tables.map((table) => [table.name, []]));
  const add = (tableName: string, relation: RelationModel) => byName.get(tableName)?.push(relation);

  for (const table of tables) {
    for (const fk of table.foreignKeys) {
      const fieldPart = fk.fields.join('_');
      add(table.name, {
        name: `${fk.refTable}_by_${fieldPart}`,
        type: 'belongs_to',
        field: fk.fields,
        refTable: fk.refTable,
        refField: fk.refFields,
        junctionTable: null,
        junctionField: null,
        junctionRefField: null,
      });
      add(fk.refTable, {
        name: `${table.name}_by_${fieldPart}`,
        type: isUniqueIn(table, fk.fields) ? 'has_one' : 'has_many',
        field: fk.refFields,
        refTable: table.name,
        refField: fk.fields,
        junctionTable: null,
        junctionField: null,
        junctionRefField: null,
      });
    }
    // Every pair of single-column keys of a third table makes it a junction between their targets.
    const singles = table.foreignKeys.filter((fk) => fk.fields.length === 1 && fk.refFields.length === 1);
    for (const near of singles) {
      for (const far of singles) {
        if (near === far || near.refTable === table.name || far.refTable === table.name) continue;
        add(near.refTable, {
          name: `${far.refTable}_by_${table.name}`,
          type: 'many_many',
          field: near.refFields,
          refTable: far.refTable,
          refField: far.refFields,
          junctionTable: table.name,
          junctionField: near.fields[0],
          junctionRefField: far.fields[0],
        });
      }
    }
  }

  return tables.map((table) => {
    const seen = new Set<string>();
    const relations = (byName.get(table.name) ?? []).filter((relation) => !seen.has(relation.name) && seen.add(relation.name));
    relations.sort((a, b) => compareNames(a.name, b.name));
    return { ...table, relations };
  });
}

/** Byte-order comparison: deterministic whatever the locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
