/** The SQL database kinds, one dialect module each (MariaDB is served by the `mysql` kind). */
import type { ServiceKind } from '../service-kind.js';
import { mysqlKind } from './dialects/mysql/mysql-kind.js';
import { postgresKind } from './dialects/postgres/postgres-kind.js';
import { sqliteKind } from './dialects/sqlite/sqlite-kind.js';
import { createSqlServiceKind } from './sql-service-kind.js';

export const sqlServiceKinds: ServiceKind[] = [sqliteKind, postgresKind, mysqlKind].map(createSqlServiceKind);
