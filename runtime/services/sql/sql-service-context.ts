/** What a SQL service's request handlers share for the life of the service. */
import type { Kysely } from 'kysely';
import type { SqlDialectModule } from './dialects/sql-dialect.js';
import type { LiveSchema } from './live-schema.js';
import type { SqlServiceOptions } from './sql-config.js';

export interface SqlServiceContext {
  readonly serviceName: string;
  readonly db: Kysely<any>;
  readonly dialect: SqlDialectModule;
  readonly options: SqlServiceOptions;
  readonly schema: LiveSchema;
}
