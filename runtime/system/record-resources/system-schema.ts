/**
 * The system database as the SQL records engine sees it: its introspected schema without the
 * columns no request may read, filter on or write directly (password hashes, reset codes, token
 * cut-offs) and without the bookkeeping tables. Read once when the platform opens.
 */
import type { DatabaseSchema } from '../../model/platform-model.js';
import { LiveSchema } from '../../services/sql/live-schema.js';
import type { SqlServiceContext } from '../../services/sql/sql-service-context.js';
import { readDatabaseSchema } from '../../services/sql/sql-service-kind.js';
import { systemDialect, type SystemDb } from '../store/system-db.js';

/** Columns the system layer alone reads and writes. */
const SECRET_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  user: ['password', 'confirm_code', 'confirm_code_expiry', 'tokens_valid_after'],
};

const RECORD_TABLES = new Set([
  'user',
  'role',
  'app',
  'service',
  'role_service_access',
  'user_to_app_to_role',
  'cors_config',
  'lookup',
  'email_template',
  'system_custom',
  'limits',
  'scheduler_task',
  'service_report',
]);

/** Enough for any system list; the reference platform has no lower limit on system resources. */
const SYSTEM_MAX_RECORDS = 100_000;

/**
 * Emails compare without case in logins and the unique check on every kind (SQLite's nocase,
 * MySQL's _ci collation, PostgreSQL's unique index on lower(email)); PostgreSQL's text column
 * itself compares exactly, so its filters are told to.
 */
const IGNORE_CASE: Readonly<Record<string, readonly string[]>> = { user: ['email'] };

export async function publicSystemSchema(db: SystemDb): Promise<DatabaseSchema> {
  const dialect = systemDialect(db);
  const schema = await readDatabaseSchema(db, dialect, false);
  const ignoreCase = (table: string, field: string) => dialect.dialect === 'postgres' && (IGNORE_CASE[table] ?? []).includes(field);
  return {
    routines: [],
    tables: schema.tables
      .filter((table) => RECORD_TABLES.has(table.name))
      .map((table) => {
        const secret = SECRET_COLUMNS[table.name] ?? [];
        return {
          ...table,
          fields: table.fields
            .filter((field) => !secret.includes(field.name))
            .map((field) => (ignoreCase(table.name, field.name) ? { ...field, ignoreCase: true as const } : field)),
          // Nor relations through or to the tables left out (a filter on service_doc_by_service_id.format).
          relations: table.relations.filter(
            (relation) =>
              RECORD_TABLES.has(relation.refTable) && (relation.junctionTable === null || RECORD_TABLES.has(relation.junctionTable)),
          ),
        };
      }),
  };
}

/** A records-engine context over the system database (or one of its transactions). */
export function systemRecordsContext(db: SystemDb, schema: LiveSchema): SqlServiceContext {
  return {
    serviceName: 'system',
    db,
    dialect: systemDialect(db),
    options: { maxRecords: SYSTEM_MAX_RECORDS, allowUpsert: false, keepCase: false },
    schema,
  };
}

export async function openSystemSchema(db: SystemDb): Promise<LiveSchema> {
  return new LiveSchema(await publicSystemSchema(db), systemDialect(db));
}
