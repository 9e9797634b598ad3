/** The `mysql` service kind: a MySQL or MariaDB database, by connection fields or URL. */
import type { SqlKindDefinition } from '../sql-dialect.js';
import { serverConfigSchema, serverConnection, type ServerDefaults } from '../server-config.js';

const DEFAULTS: ServerDefaults = { schemes: ['mysql', 'mariadb'], port: 3306, username: 'root' };

export const mysqlKind: SqlKindDefinition = {
  type: 'mysql',
  label: 'MySQL',
  description: 'A MySQL or MariaDB database: tables, records, schema, stored procedures and functions.',
  configSchema: serverConfigSchema('MySQL/MariaDB', DEFAULTS),
  checkConfig(config) {
    serverConnection(config, DEFAULTS);
  },
  async load() {
    const { mysqlDialect, openMysqlDatabase } = await import('./mysql-dialect.js');
    return { dialect: mysqlDialect, connect: (config) => openMysqlDatabase(serverConnection(config, DEFAULTS)) };
  },
};
