/** The `pgsql` service kind: a PostgreSQL database (one schema of it), by connection fields or URL. */
import type { SqlKindDefinition } from '../sql-dialect.js';
import { serverConfigSchema, serverConnection, type ServerDefaults } from '../server-config.js';

const DEFAULTS: ServerDefaults = { schemes: ['postgres', 'postgresql'], port: 5432, username: 'postgres' };
const DEFAULT_SCHEMA = 'public';

const configSchema = serverConfigSchema('PostgreSQL', DEFAULTS, {
  schema: {
    type: 'string',
    minLength: 1,
    description: `The schema whose tables, views and routines the service serves (default ${DEFAULT_SCHEMA}).`,
  },
});

const schemaOf = (config: Record<string, unknown>) =>
  typeof config.schema === 'string' && config.schema !== '' ? config.schema : DEFAULT_SCHEMA;

export const postgresKind: SqlKindDefinition = {
  type: 'pgsql',
  label: 'PostgreSQL',
  description: 'A PostgreSQL database: tables, records, schema, stored procedures and functions.',
  configSchema,
  checkConfig(config) {
    serverConnection(config, DEFAULTS);
  },
  async load() {
    const { openPostgresDatabase, postgresDialect } = await import('./postgres-dialect.js');
    return { dialect: postgresDialect, connect: (config) => openPostgresDatabase(serverConnection(config, DEFAULTS), schemaOf(config)) };
  },
};
