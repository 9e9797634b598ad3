/** The SQL database kinds: sqlite now; pgsql and mysql join as dialect modules beside dialects/sqlite. */
import type { ServiceKind } from '../service-kind.js';
import { sqliteKind } from './dialects/sqlite/sqlite-kind.js';
import { createSqlServiceKind } from './sql-service-kind.js';

export const sqlServiceKinds: ServiceKind[] = [createSqlServiceKind(sqliteKind)];
