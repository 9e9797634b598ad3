/** The `mysql` service kind: a MySQL or MariaDB database, by connection fields or URL. */
import type { SqlConnection, SqlKindDefinition } from '../sql-dialect.js';
import { serverConfigSchema, serverConnection, type ServerDefaults } from '../server-config.js';
import { mysqlDialect, openMysqlDatabase } from './mysql-dialect.js';

const DEFAULTS: ServerDefaults = { schemes: ['mysql', 'mariadb'], port: 3306, username: 'root' };

function connect(config: Record<string, unknown>): Promise<SqlConnection> {
  return openMysqlDatabase(serverConnection(config, DEFAULTS));
}

export const mysqlKind: SqlKindDefinition = {
  type: 'mysql',
  label: 'MySQL',
  description: 'A MySQL or MariaDB database: tables, records, schema, stored procedures and functions.',
  configSchema: serverConfigSchema('MySQL/MariaDB', DEFAULTS),
  dialect: mysqlDialect,
  connect,
};
