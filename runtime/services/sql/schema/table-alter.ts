/**
 * Changes to an existing table's fields (`_schema` updates, `_field` writes): fields added,
 * changed and dropped. PostgreSQL and MySQL alter the table in place (alterInPlace, with the
 * dialect's own way of changing a column); SQLite rebuilds it (dialects/sqlite).
 */
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { FieldModel, TableModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { columnClauses, createIndexes, indexedFields } from './table-ddl.js';
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

/** A DDL statement not yet run. */
export interface DdlStatement {
  compile(): CompiledQuery;
}

/** Runs (or, for a database whose DDL is not transactional, gathers) the statements of one change. */
export type RunDdl = (statement: DdlStatement) => Promise<void>;

/** Changes one column in place: type, NULL/NOT NULL and default (keys are handled around it). */
export type ModifyColumn = (
  db: Kysely<any>,
  table: TableModel,
  change: FieldChange,
  dialect: SqlDialectModule,
  run: RunDdl,
) => Promise<void>;

function tableDefinition(table: TableModel, fields: FieldDefinition[]): TableDefinition {
  return { name: table.sourceName, label: null, description: null, fields };
}

function addForeignKey(db: Kysely<any>, table: TableModel, field: FieldDefinition): DdlStatement {
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
    );
}

/**
 * ALTER TABLE for databases that change columns in place: drops (with the foreign keys on the
 * dropped columns first), additions with their keys and indexes, then changes, adding the unique
 * and foreign keys a change asks for. `run` runs each statement, or gathers them into one
 * (MySQL: one ALTER TABLE is all or nothing, several are not); `indexes` makes an index an
 * ALTER TABLE clause there.
 */
export async function alterInPlace(
  db: Kysely<any>,
  dialect: SqlDialectModule,
  table: TableModel,
  changes: TableChanges,
  modifyColumn: ModifyColumn,
  run: RunDdl = (statement) => db.executeQuery(statement.compile()).then(() => undefined),
  indexes: 'create index' | 'add index' = 'create index',
): Promise<void> {
  const name = table.sourceName;
  const addIndexes = async (fields: readonly FieldDefinition[]) => {
    if (indexes === 'create index') return createIndexes(db, tableDefinition(table, [...fields]), fields);
    for (const field of indexedFields(fields))
      await run(db.schema.alterTable(name).addIndex(`ndx_${name}_${field.name}`).column(field.name));
  };
  for (const fk of changes.dropForeignKeys ?? []) await run(db.schema.alterTable(name).dropConstraint(fk));
  for (const field of changes.drop) {
    for (const fk of table.foreignKeys.filter((key) => key.fields.includes(field.name))) {
      await run(db.schema.alterTable(name).dropConstraint(fk.name));
    }
    await run(db.schema.alterTable(name).dropColumn(field.sourceName));
  }
  const hasKey = table.primaryKey.length > 0;
  for (const field of changes.add) {
    await run(db.schema.alterTable(name).addColumn(field.name, sql.raw(dialect.columnType(field)), columnClauses(field, !hasKey, dialect)));
    if (field.refTable !== null) await run(addForeignKey(db, table, field));
  }
  await addIndexes(changes.add);
  for (const change of changes.modify) {
    await modifyColumn(db, table, change, dialect, run);
    const { definition, current } = change;
    if (definition.isUnique && !current.isUnique && !current.isPrimaryKey) {
      await run(db.schema.alterTable(name).addUniqueConstraint(`undx_${name}_${definition.name}`, [definition.name]));
    }
    if (definition.refTable !== null && !current.isForeignKey) await run(addForeignKey(db, table, definition));
  }
  await addIndexes(changes.modify.map((c) => c.definition));
}
