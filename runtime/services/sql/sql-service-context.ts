/** What a SQL service's request handlers share for the life of the service. */
import type { Kysely } from 'kysely';
import type { SqlDialectModule } from './dialects/sql-dialect.js';
import type { LiveSchema } from './live-schema.js';
import type { SqlServiceOptions } from './sql-config.js';
import type { SchemaExtrasStore } from '../service-kind.js';

export interface SqlServiceContext {
  readonly serviceName: string;
  readonly db: Kysely<any>;
  readonly dialect: SqlDialectModule;
  readonly options: SqlServiceOptions;
  readonly schema: LiveSchema;
  /** Where labels and descriptions `_schema` clients set are kept, and this service's id there; null at build time. */
  readonly extras?: { serviceId: number; store: SchemaExtrasStore } | null;
}
