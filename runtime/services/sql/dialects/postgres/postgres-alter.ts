/** PostgreSQL column changes in place, inside one transaction (PostgreSQL's DDL is transactional). */
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema, TableModel } from '../../../../model/platform-model.js';
import { atomically } from '../../query/atomic.js';
import { alterInPlace, type FieldChange, type TableChanges } from '../../schema/table-alter.js';
import { columnDefault } from '../../schema/table-ddl.js';
import type { SqlDialectModule } from '../sql-dialect.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** PostgreSQL's code for a type change with no automatic conversion (text to integer): it needs USING. */
const NEEDS_USING = '42804';

/**
 * Type, NOT NULL and DEFAULT, each only when it changes; serial keys keep their type. The values
 * convert as an assignment does, so one that does not fit is an error (a 400, nothing changed);
 * only where no such conversion exists does an explicit cast (USING) convert them. That cast cut
 * text to a shorter length: varchar(10) to varchar(3) kept 'abc' of 'abcdefghij'.
 */
async function modifyColumn(
  db: Kysely<any>,
  table: TableModel,
  { definition, current }: FieldChange,
  dialect: SqlDialectModule,
): Promise<void> {
  const alter = (change: ReturnType<typeof sql>) =>
    sql`alter table ${sql.id(table.sourceName)} alter column ${sql.id(definition.name)} ${change}`.execute(db);
  const type = dialect.columnType(definition);
  if (!current.autoIncrement && type !== current.dbType) {
    try {
      await atomically(db, () => alter(sql`type ${sql.raw(type)}`));
    } catch (error) {
      if ((error as { code?: unknown }).code !== NEEDS_USING) throw error;
      await alter(sql`type ${sql.raw(type)} using ${sql.id(definition.name)}::${sql.raw(type)}`);
    }
  }
  if (definition.allowNull !== current.allowNull && !current.isPrimaryKey)
    await alter(definition.allowNull ? sql`drop not null` : sql`set not null`);
  if (definition.default !== undefined && !same(definition.default, current.default)) {
    const value = columnDefault(definition, dialect);
    await db.schema
      .alterTable(table.sourceName)
      .alterColumn(definition.name, (c) => (value === null || value === undefined ? c.dropDefault() : c.setDefault(value)))
      .execute();
  }
}

export function alterPostgresTable(
  db: Kysely<any>,
  _schema: DatabaseSchema,
  table: TableModel,
  changes: TableChanges,
  dialect: SqlDialectModule,
): Promise<void> {
  return db.transaction().execute((trx) => alterInPlace(trx, dialect, table, changes, modifyColumn));
}
