/**
 * Stage 3, model: the PlatformModel from the normalised config and what introspection found.
 * Pure and deterministic: services by id, roles by name, apps built-ins first then by name,
 * every introspected list sorted again by code point (never by locale).
 */
import {
  MODEL_VERSION,
  type AdminSeed,
  type AppModel,
  type DatabaseSchema,
  type PlatformModel,
  type PlatformSettings,
  type RoleModel,
  type ServiceModel,
  type TableModel,
} from '../../runtime/model/platform-model.js';
import { sortRoutes } from '../../runtime/services/custom/endpoints.js';
import { systemDbKind } from '../../runtime/system/store/system-db-target.js';
import { builtinApps, builtinServices, FIRST_DECLARED_SERVICE_ID } from '../config/builtins.js';
import type { PlatformConfig, SystemConfig } from '../config/platform-config.js';

/**
 * What introspection found: the model each service kind returned, by service name. Plain JSON,
 * so that tests can store it and build models without live databases.
 */
export interface IntrospectionSnapshot {
  services: Record<string, ServiceModel>;
}

/** The services before introspection, with their ids: built-ins 1-7, then 8, 9, ... in declaration order. */
export function serviceModels(config: PlatformConfig): ServiceModel[] {
  let nextId = FIRST_DECLARED_SERVICE_ID;
  return config.services
    .map((service): ServiceModel => {
      const builtin = builtinServices.find((candidate) => candidate.name === service.name);
      return {
        id: builtin?.id ?? nextId++,
        name: service.name,
        label: service.label,
        type: service.type,
        description: service.description,
        is_active: service.is_active,
        config: service.config,
        origin: builtin ? 'builtin' : 'platform',
        kind: 'plain',
      };
    })
    .sort((a, b) => a.id - b.id);
}

export function buildModel(config: PlatformConfig, introspected: IntrospectionSnapshot): PlatformModel {
  return {
    modelVersion: MODEL_VERSION,
    platform: { name: config.platform.name, title: config.platform.title, description: config.platform.description },
    services: serviceModels(config).map((service) => withIntrospection(service, introspected.services[service.name])),
    roles: config.roles.map(roleModel).sort(byName),
    apps: appModels(config),
    limits: [...config.limits].sort(byName),
    admins: config.admins.map(
      (admin): AdminSeed => ({
        email: admin.email,
        password: admin.password,
        name: admin.name,
        first_name: admin.first_name,
        last_name: admin.last_name,
      }),
    ),
    settings: settings(config.system),
  };
}

/** The introspected model with the declared fields of the service (a stale snapshot cannot change them). */
function withIntrospection(base: ServiceModel, found: ServiceModel | undefined): ServiceModel {
  if (!found || found.kind === 'plain') return base;
  const { id, name, label, type, description, is_active, config, origin } = base;
  const declared = { id, name, label, type, description, is_active, config, origin };
  // SOAP models are sorted by their introspection already.
  if (found.kind === 'soap') return { ...found, ...declared };
  if (found.kind === 'custom') return { ...declared, kind: 'custom', routes: sortRoutes(found.routes) };
  return { ...declared, kind: 'sql', dialect: found.dialect, schema: sortSchema(found.schema) };
}

function sortSchema(schema: DatabaseSchema): DatabaseSchema {
  return {
    tables: schema.tables.map(sortTable).sort(byName),
    routines: [...schema.routines].sort(byName),
    ...(schema.warnings ? { warnings: schema.warnings } : {}),
  };
}

function sortTable(table: TableModel): TableModel {
  return {
    ...table,
    foreignKeys: [...table.foreignKeys].sort(byName),
    uniqueKeys: [...table.uniqueKeys].sort((a, b) => compare(a.join('\u0000'), b.join('\u0000'))),
    relations: [...table.relations].sort(byName),
  };
}

function roleModel(role: PlatformConfig['roles'][number]): RoleModel {
  return {
    name: role.name,
    description: role.description,
    is_active: role.is_active,
    grants: role.grants.map((grant) => ({
      service: grant.service,
      component: grant.component,
      verbs: grant.verbs,
      requestor: grant.requestor,
      filters: grant.filters.map((filter) => ({ name: filter.name, operator: filter.operator, value: String(filter.value) })),
      filterOp: grant.filter_op,
    })),
    origin: 'platform',
  };
}

function appModels(config: PlatformConfig): AppModel[] {
  const isBuiltin = (name: string) => builtinApps.some((builtin) => builtin.name === name);
  const toModel = (app: PlatformConfig['apps'][number]): AppModel => ({
    name: app.name,
    label: app.label,
    description: app.description,
    is_active: app.is_active,
    apiKey: app.api_key,
    role: app.role,
    origin: isBuiltin(app.name) ? 'builtin' : 'platform',
  });
  const builtins = builtinApps.flatMap((builtin) => config.apps.filter((app) => app.name === builtin.name)).map(toModel);
  const declared = config.apps
    .filter((app) => !isBuiltin(app.name))
    .map(toModel)
    .sort(byName);
  return [...builtins, ...declared];
}

/**
 * The system database: a URL of a server database (its scheme in any case), else a SQLite file
 * path. A value holding `${env:...}` is kept as written (a `sqlite` entry unless it starts with a
 * scheme): the runtime resolves it at start and tells a URL from a path again.
 */
const SYSTEM_DATABASE_TYPES = { postgres: 'pgsql', mysql: 'mysql' } as const;

function settings(system: SystemConfig): PlatformSettings {
  const kind = systemDbKind(system.database);
  return {
    systemDatabase:
      kind === 'sqlite' ? { type: 'sqlite', database: system.database } : { type: SYSTEM_DATABASE_TYPES[kind], url: system.database },
    redisUrl: system.redis.url,
    sessionTtlMinutes: system.session_ttl_minutes,
    jwtSecret: system.jwt_secret,
    passwordMinLength: system.password_min_length,
    allowOpenRegistration: system.allow_open_registration,
    openRegistrationRole: system.open_registration_role,
    openRegistrationAppRoles: system.open_registration_app_roles,
    maxRecords: system.max_records,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return compare(a.name, b.name);
}
