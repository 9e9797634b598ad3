/** The live schema of an open database: the dialect's catalog and routines, assembled. */
import type { DatabaseSchema } from '../../../model/platform-model.js';
import type { SqlConnection, SqlDialectModule } from '../dialects/sql-dialect.js';
import { assembleSchema } from './schema-assembler.js';

/** Reads tables, views and routines (API names lower-cased unless `keepCase`). */
export async function readDatabaseSchema(db: SqlConnection['db'], dialect: SqlDialectModule, keepCase: boolean): Promise<DatabaseSchema> {
  const catalog = await dialect.readCatalog(db);
  return assembleSchema(catalog, { keepCase }, dialect.routines === null ? [] : await dialect.routines.read(db));
}
