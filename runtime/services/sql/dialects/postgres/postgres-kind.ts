/** The `pgsql` service kind: a PostgreSQL database (one schema of it), by connection fields or URL. */
import type { SqlConnection, SqlKindDefinition } from '../sql-dialect.js';
import { serverConfigSchema, serverConnection, type ServerDefaults } from '../server-config.js';
import { openPostgresDatabase, postgresDialect } from './postgres-dialect.js';

const DEFAULTS: ServerDefaults = { schemes: ['postgres', 'postgresql'], port: 5432, username: 'postgres' };
const DEFAULT_SCHEMA = 'public';

const configSchema = serverConfigSchema('PostgreSQL', DEFAULTS, {
  schema: { type: 'string', minLength: 1, description: `The schema whose tables, views and routines the service serves (default ${DEFAULT_SCHEMA}).` },
});

function connect(config: Record<string, unknown>): Promise<SqlConnection> {
  const schema = typeof config.schema === 'string' && config.schema !== '' ? config.schema : DEFAULT_SCHEMA;
  return openPostgresDatabase(serverConnection(config, DEFAULTS), schema);
}

export const postgresKind: SqlKindDefinition = {
  type: 'pgsql',
  label: 'PostgreSQL',
  description: 'A PostgreSQL database: tables, records, schema, stored procedures and functions.',
  configSchema,
  dialect: postgresDialect,
  connect,
};
