/**
 * The PlatformModel: the one intermediate representation between the generator and the runtime.
 *
 * Plain, JSON-serialisable data. The generator builds it from platform.yaml plus introspection
 * snapshots and freezes it into the generated server as `model.json`; the runtime serves any
 * service from it (and builds the same shapes live for services created at run time).
 *
 * Names: `name` is what the API shows (lower-cased table and column names unless a service keeps
 * the database's case), `sourceName` is the identifier in the database.
 * Secrets never appear resolved: values taken from the environment stay as `${env:NAME}` and the
 * runtime resolves them at start.
 */

export const MODEL_VERSION = 1 as const;

export interface PlatformModel {
  modelVersion: typeof MODEL_VERSION;
  platform: PlatformInfo;
  /** Every service, built-ins included, sorted by id. */
  services: ServiceModel[];
  /** Roles declared in platform.yaml, sorted by name. */
  roles: RoleModel[];
  /** Apps: the built-ins (admin, api_docs, file_manager) and those declared in platform.yaml. */
  apps: AppModel[];
  /** Administrators to create on first start when the system database has none. */
  admins: AdminSeed[];
  settings: PlatformSettings;
}

export interface PlatformInfo {
  /** Short machine name of the platform (from platform.yaml `platform.name`). */
  name: string;
  title: string;
  description: string;
}

export interface PlatformSettings {
  /** System database (sessions, users, API-created services, ...). Relative paths resolve against the platform directory. */
  systemDatabase: { type: 'sqlite'; database: string } | { type: 'pgsql' | 'mysql'; url: string };
  /** Session token lifetime in minutes (24 h by default). */
  sessionTtlMinutes: number;
  /** JWT signing secret, usually `${env:PORTICO_JWT_SECRET}`; when empty a random secret is kept in the system database. */
  jwtSecret: string;
  /** Minimum password length for users and administrators. */
  passwordMinLength: number;
  /** Open registration through POST /api/v2/user/register. */
  allowOpenRegistration: boolean;
  /** Role given to users who register themselves (role name), if any. */
  openRegistrationRole: string | null;
  /** Default and maximum record limit of table list queries, unless a service sets its own. */
  maxRecords: number;
}

/** Where a service, role or app comes from: built into every platform, declared in platform.yaml, or created through the API. */
export type Origin = 'builtin' | 'platform' | 'api';

interface ServiceBase {
  id: number;
  /** URL namespace: /api/v2/{name}. */
  name: string;
  label: string;
  /** A service type id from the service-kind registry (`sqlite`, `pgsql`, `soap`, ...). */
  type: string;
  description: string;
  is_active: boolean;
  /** Type-specific configuration exactly as declared (env references unresolved). */
  config: Record<string, unknown>;
  origin: Origin;
}

/** A SQL database service (`sqlite`, `pgsql`, `mysql`). */
export interface SqlServiceModel extends ServiceBase {
  kind: 'sql';
  dialect: SqlDialect;
  schema: DatabaseSchema;
}

/** A service whose behaviour needs no introspection (system, user, files, email, docs, ...). */
export interface PlainServiceModel extends ServiceBase {
  kind: 'plain';
}

export type ServiceModel = SqlServiceModel | PlainServiceModel;

export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

export interface DatabaseSchema {
  /** Tables and views, sorted by name. */
  tables: TableModel[];
  /** Stored procedures and functions, sorted by name (empty on SQLite). */
  routines: RoutineModel[];
}

export interface TableModel {
  name: string;
  sourceName: string;
  /** Database schema (PostgreSQL) or null. */
  sourceSchema: string | null;
  label: string;
  description: string;
  isView: boolean;
  /** Primary key field names (API names), in key order. */
  primaryKey: string[];
  /** Columns in their database order. */
  fields: FieldModel[];
  /** Foreign keys declared on this table, sorted by name. */
  foreignKeys: ForeignKeyModel[];
  /** Unique constraints and unique indexes other than the primary key, each a list of field names. */
  uniqueKeys: string[][];
  /** Relationships derived from foreign keys (theirs and ours), sorted by name. */
  relations: RelationModel[];
}

/** The reference platform's abstract column types. */
export type AbstractType =
  | 'id' | 'bigid' | 'reference' | 'user_id' | 'user_id_on_create' | 'user_id_on_update'
  | 'timestamp_on_create' | 'timestamp_on_update'
  | 'string' | 'text' | 'integer' | 'bigint' | 'boolean' | 'float' | 'double' | 'decimal' | 'money'
  | 'date' | 'time' | 'datetime' | 'timestamp' | 'binary' | 'json' | 'uuid' | 'array';

export interface FieldModel {
  name: string;
  sourceName: string;
  label: string;
  type: AbstractType;
  /** Native type as the database reports it, lower-case (`varchar(40)`, `integer`). */
  dbType: string;
  length: number | null;
  precision: number | null;
  scale: number | null;
  /** Default: a scalar, `{expression: 'CURRENT_TIMESTAMP'}` for SQL expressions, or null. */
  default: string | number | boolean | { expression: string } | null;
  allowNull: boolean;
  isPrimaryKey: boolean;
  autoIncrement: boolean;
  isUnique: boolean;
  isForeignKey: boolean;
  refTable: string | null;
  refField: string | null;
}

export interface ForeignKeyModel {
  name: string;
  fields: string[];
  refTable: string;
  refFields: string[];
  onUpdate: ReferentialAction;
  onDelete: ReferentialAction;
}

export type ReferentialAction = 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';

export interface RelationModel {
  /** `{ref_table}_by_{field}` for belongs_to/has_many/has_one; `{ref_table}_by_{junction_table}` for many_many. */
  name: string;
  type: 'belongs_to' | 'has_many' | 'has_one' | 'many_many';
  /** Field(s) of this table. */
  field: string[];
  refTable: string;
  refField: string[];
  junctionTable: string | null;
  /** Junction column pointing at this table. */
  junctionField: string | null;
  /** Junction column pointing at refTable. */
  junctionRefField: string | null;
}

export interface RoutineModel {
  name: string;
  sourceName: string;
  kind: 'procedure' | 'function';
  returnType: string | null;
  params: RoutineParamModel[];
}

export interface RoutineParamModel {
  name: string;
  position: number;
  mode: 'IN' | 'OUT' | 'INOUT';
  dbType: string;
}

/** Verbs a role grant may allow. */
export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RoleModel {
  name: string;
  description: string;
  is_active: boolean;
  grants: GrantModel[];
  origin: Origin;
}

export interface GrantModel {
  /** Service name, or `*` for every service. */
  service: string;
  /** Component path: `*`, `_table/*`, `_table/contact`, `_schema`, `` (service root)... */
  component: string;
  verbs: Verb[];
  /** Who may use the grant: API calls, scripts, or both. */
  requestor: Array<'api' | 'script'>;
  /** Row filters applied to table access, as bound parameters. */
  filters: RowFilterModel[];
  filterOp: 'and' | 'or';
}

export interface RowFilterModel {
  name: string;
  operator: string;
  value: string;
}

export interface AppModel {
  name: string;
  label: string;
  description: string;
  is_active: boolean;
  /** A fixed key (literal or `${env:NAME}`), or null to generate a random one on first start. */
  apiKey: string | null;
  /** Name of the app's default role, or null. */
  role: string | null;
  origin: Origin;
}

export interface AdminSeed {
  email: string;
  /** Literal or `${env:NAME}`; null means "take PORTICO_ADMIN_PASSWORD or generate and print one". */
  password: string | null;
  name: string;
  first_name: string;
  last_name: string;
}
