/**
 * Changes to an existing table's fields (`_schema` updates, `_field` writes): fields added,
 * changed and dropped. PostgreSQL and MySQL alter the table in place (alterInPlace, with the
 * dialect's own way of changing a column); SQLite rebuilds it (dialects/sqlite).
 */
import { sql, type Kysely } from 'kysely';
import type { FieldModel, TableModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { columnClauses, createIndexes } from './table-ddl.js';
import type { FieldDefinition, TableDefinition } from './table-definition.js';

export interface FieldChange {
  /** The merged definition (the client's changes onto the field's own). */
  definition: FieldDefinition;
  current: FieldModel;
}

export interface TableChanges {
  add: FieldDefinition[];
  modify: FieldChange[];
  drop: FieldModel[];
  /** Foreign keys (by model name) to drop, their fields staying. */
  dropForeignKeys?: string[];
}

/** Changes one column in place: type, NULL/NOT NULL and default (keys are handled around it). */
export type ModifyColumn = (db: Kysely<any>, table: TableModel, change: FieldChange, dialect: SqlDialectModule) => Promise<void>;

function tableDefinition(table: TableModel, fields: FieldDefinition[]): TableDefinition {
  return { name: table.sourceName, label: null, description: null, fields };
}

function addForeignKey(db: Kysely<any>, table: TableModel, field: FieldDefinition) {
  return db.schema
    .alterTable(table.sourceName)
    .addForeignKeyConstraint(
      `fk_${table.sourceName}_${field.name}`,
      [field.name],
      field.refTable as string,
      [field.refField ?? 'id'],
      (constraint) => {
        let c = constraint;
        if (field.refOnDelete) c = c.onDelete(field.refOnDelete);
        if (field.refOnUpdate) c = c.onUpdate(field.refOnUpdate);
        return c;
      },
    )
    .execute();
}

/**
 * ALTER TABLE for databases that change columns in place: drops (with the foreign keys on the
 * dropped columns first), additions with their keys and indexes, then changes, adding the unique
 * and foreign keys a change asks for.
 */
export async function alterInPlace(
  db: Kysely<any>,
  dialect: SqlDialectModule,
  table: TableModel,
  changes: TableChanges,
  modifyColumn: ModifyColumn,
): Promise<void> {
  const name = table.sourceName;
  for (const fk of changes.dropForeignKeys ?? []) await db.schema.alterTable(name).dropConstraint(fk).execute();
  for (const field of changes.drop) {
    for (const fk of table.foreignKeys.filter((key) => key.fields.includes(field.name))) {
      await db.schema.alterTable(name).dropConstraint(fk.name).execute();
    }
    await db.schema.alterTable(name).dropColumn(field.sourceName).execute();
  }
  const hasKey = table.primaryKey.length > 0;
  for (const field of changes.add) {
    await db.schema
      .alterTable(name)
      .addColumn(field.name, sql.raw(dialect.columnType(field)), columnClauses(field, !hasKey, dialect))
      .execute();
    if (field.refTable !== null) await addForeignKey(db, table, field);
  }
  await createIndexes(db, tableDefinition(table, changes.add), changes.add);
  for (const change of changes.modify) {
    await modifyColumn(db, table, change, dialect);
    const { definition, current } = change;
    if (definition.isUnique && !current.isUnique && !current.isPrimaryKey) {
      await db.schema.alterTable(name).addUniqueConstraint(`undx_${name}_${definition.name}`, [definition.name]).execute();
    }
    if (definition.refTable !== null && !current.isForeignKey) await addForeignKey(db, table, definition);
  }
  await createIndexes(
    db,
    tableDefinition(
      table,
      changes.modify.map((c) => c.definition),
    ),
    changes.modify.map((c) => c.definition),
  );
}
