/**
 * Turns a SQL kind definition into a ServiceKind: build-time introspection and serving, loading the
 * dialect on first use, and the request handler (with the live schema and response cache) when a
 * service opens.
 */
import type { DatabaseSchema, ServiceModel, SqlServiceModel } from '../../model/platform-model.js';
import type { RuntimeContext, ServiceHandler, ServiceKind } from '../service-kind.js';
import type { SqlDialectModule, SqlKindDefinition } from './dialects/sql-dialect.js';
import { readDatabaseSchema } from './schema/database-schema-reader.js';
import { sqlCacheSettings, sqlServiceOptions } from './sql-config.js';

export { readDatabaseSchema };

function sqlModel(service: ServiceModel, dialect: SqlDialectModule, schema: DatabaseSchema): SqlServiceModel {
  const { id, name, label, type, description, is_active, config, origin } = service;
  return { id, name, label, type, description, is_active, config, origin, kind: 'sql', dialect: dialect.dialect, schema };
}

export function createSqlServiceKind(definition: SqlKindDefinition): ServiceKind {
  let loading: ReturnType<SqlKindDefinition['load']> | undefined;
  const load = () => (loading ??= definition.load());
  return {
    type: definition.type,
    label: definition.label,
    group: 'Database',
    description: definition.description,
    configSchema: definition.configSchema,
    checkConfig: definition.checkConfig,

    async introspect(service: ServiceModel, ctx: RuntimeContext): Promise<SqlServiceModel> {
      const config = ctx.resolveEnv(service.config);
      const { dialect, connect } = await load();
      const connection = await connect(config, ctx);
      try {
        return sqlModel(service, dialect, await readDatabaseSchema(connection.db, dialect, sqlServiceOptions(config).keepCase));
      } finally {
        await connection.close();
      }
    },

    async open(service: ServiceModel, ctx: RuntimeContext): Promise<ServiceHandler> {
      const config = ctx.resolveEnv(service.config);
      const options = sqlServiceOptions(config);
      const [{ dialect, connect }, { LiveSchema }, { SqlServiceHandler }, { SqlResponseCache }] = await Promise.all([
        load(),
        import('./live-schema.js'),
        import('./sql-handler.js'),
        import('./sql-response-cache.js'),
      ]);
      const connection = await connect(config, ctx);
      try {
        // A model from the generator carries the schema; services created at run time are read live.
        const schema =
          service.kind === 'sql' && service.schema.tables.length > 0
            ? service.schema
            : await readDatabaseSchema(connection.db, dialect, options.keepCase);
        const model = sqlModel(service, dialect, schema);
        const live = new LiveSchema(schema, dialect, () => connection.schemaChanged?.());
        const extras = ctx.schemaExtras ? { serviceId: service.id, store: ctx.schemaExtras } : null;
        if (extras) live.setExtras(await extras.store.read(service.id));
        const cache = sqlCacheSettings(config);
        return new SqlServiceHandler(
          { serviceName: service.name, db: connection.db, dialect, options, schema: live, extras },
          model,
          connection,
          cache === null ? null : SqlResponseCache.open(cache, ctx, service.name, config),
        );
      } catch (error) {
        await connection.close();
        throw error;
      }
    },
  };
}
