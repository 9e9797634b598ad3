/** MySQL/MariaDB column changes in place: MODIFY COLUMN restates the whole column. */
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema, TableModel } from '../../../../model/platform-model.js';
import { alterInPlace, type FieldChange, type TableChanges } from '../../schema/table-alter.js';
import { columnDefault } from '../../schema/table-ddl.js';
import type { SqlDialectModule } from '../sql-dialect.js';

/** The column's type, NULL/NOT NULL, default, auto-increment and `on update`; its keys stay. */
async function modifyColumn(db: Kysely<any>, table: TableModel, { definition }: FieldChange, dialect: SqlDialectModule): Promise<void> {
  await db.schema
    .alterTable(table.sourceName)
    .modifyColumn(definition.name, sql.raw(dialect.columnType(definition)), (column) => {
      let c = definition.allowNull ? column : column.notNull();
      const value = columnDefault(definition, dialect);
      if (value !== undefined) c = c.defaultTo(value);
      if (definition.autoIncrement) c = c.autoIncrement();
      const suffix = dialect.columnSuffix(definition);
      return suffix === null ? c : c.modifyEnd(sql.raw(suffix));
    })
    .execute();
}

/** MySQL commits every DDL statement: a failure part-way leaves the earlier changes made. */
export function alterMysqlTable(
  db: Kysely<any>,
  _schema: DatabaseSchema,
  table: TableModel,
  changes: TableChanges,
  dialect: SqlDialectModule,
): Promise<void> {
  return alterInPlace(db, dialect, table, changes, modifyColumn);
}
