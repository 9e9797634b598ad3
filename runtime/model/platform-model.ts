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
  /** Rate limits declared in platform.yaml (absent in models built before they existed). */
  limits?: LimitModel[];
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
  /** Redis shared by instances (may hold `${env:...}`); empty or absent: none. PORTICO_REDIS_URL wins. */
  redisUrl?: string;
  /** Session token lifetime in minutes (24 h by default). */
  sessionTtlMinutes: number;
  /** JWT signing secret, usually `${env:PORTICO_JWT_SECRET}`; when empty a random secret is kept in the system database. */
  jwtSecret: string;
  /** Minimum password length for users and administrators. */
  passwordMinLength: number;
  /** Open registration through POST /api/v2/user/register. */
  allowOpenRegistration: boolean;
  /** Role given to users who register themselves (role name), for every app, if any. */
  openRegistrationRole: string | null;
  /** Role (name) a registering user gets for an app (by app name), instead of openRegistrationRole. */
  openRegistrationAppRoles: Record<string, string>;
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

/**
 * A SOAP service (`soap`): the operations of its WSDL as JSON endpoints. Built by introspection
 * at build time; a service created through the API starts with no operations and reads its WSDL
 * on its first call.
 */
export interface SoapServiceModel extends ServiceBase {
  kind: 'soap';
  /** The WSDL as declared in the config: a URL, a file name or a path relative to the platform directory. */
  wsdl: string;
  /** Endpoint address of the WSDL's first port of each SOAP version; `options.location` overrides them. */
  endpoints: Partial<Record<SoapVersion, string>>;
  /** Operations, sorted by lower-cased name. */
  operations: SoapOperationModel[];
  /** Named JSON Schemas the operations reference as `#/components/schemas/{name}`, sorted by name. */
  definitions: Record<string, JsonSchema>;
  /** What introspection left out and why (unusable ports, missing elements), sorted. */
  warnings: string[];
  /**
   * The definitions of complex types derived from others (of every complex type when a member is
   * of xsd:anyType), by XML name (`{namespace}local`): a reply element whose xsi:type names one is
   * read as that type. Absent when there are none.
   */
  derivedTypes?: Record<string, string>;
}

/**
 * A custom service (`custom`): route handlers in the user's TypeScript module (config `module`),
 * compiled with the server by `gen build`, which reads the module's routes into the model for
 * the OpenAPI documents.
 */
export interface CustomServiceModel extends ServiceBase {
  kind: 'custom';
  /** Sorted by path, then method. */
  routes: EndpointRouteModel[];
}

/** One route of a custom service, as its module declares it (the handler stays in the module). */
export interface EndpointRouteModel {
  method: Verb;
  /** Relative to the service, `/` or segments, `:name` for a path parameter, `*` last for the rest: `/contacts/:id`. */
  path: string;
  summary?: string;
  description?: string;
  /** JSON Schema (OpenAPI 3.0 dialect) the request body must match: a 400 in the spec's shape otherwise. */
  request?: JsonSchema;
  /** JSON Schema of the response body, for the OpenAPI documents. */
  response?: JsonSchema;
}

export type ServiceModel = SqlServiceModel | SoapServiceModel | PlainServiceModel | CustomServiceModel;

/** A JSON Schema (the OpenAPI 3.0 dialect: `nullable`, `xml`), as plain data. */
export type JsonSchema = Record<string, unknown>;

export type SoapVersion = '1.1' | '1.2';

export interface SoapOperationModel {
  /** Name in the API (`/api/v2/{service}/{name}`, matched case-insensitively): the WSDL name, made unique ignoring case. */
  name: string;
  /** Name in the WSDL. */
  sourceName: string;
  /** The WSDL's documentation of the operation, or ''. */
  description: string;
  style: 'document' | 'rpc';
  use: 'literal' | 'encoded';
  /** The soapAction of the binding the operation is called through by default (the SOAP 1.1 one when there is one). */
  soapAction: string;
  /**
   * The soapAction of each SOAP version's binding, when the bindings give the operation different
   * ones (a call in the other version must send its own binding's); absent otherwise.
   */
  soapActions?: Partial<Record<SoapVersion, string>>;
  /** SOAP versions of the bindings that offer the operation, sorted. */
  soapVersions: SoapVersion[];
  /**
   * WS-Addressing, by the SOAP version of the binding that uses it (the binding itself or a policy
   * it references): the request then carries wsa:Action, MessageID, ReplyTo and To, in `namespace`
   * (marked mustUnderstand when the binding requires it). Absent when no binding uses it.
   */
  addressing?: Partial<Record<SoapVersion, SoapAddressingModel>>;
  /**
   * Where the operation's own ports are, by SOAP version, when that is not the service's address
   * for the version (a WSDL whose ports of other bindings are at other addresses); absent otherwise.
   */
  endpoints?: Partial<Record<SoapVersion, string>>;
  input: SoapMessageModel;
  /** null for a one-way operation. */
  output: SoapMessageModel | null;
  /**
   * JSON Schema of a SOAP Fault's detail: the elements of the operation's declared faults
   * (wsdl:fault), each an optional member; absent when it declares none.
   */
  faultDetail?: JsonSchema;
  /** Every input field is a scalar or a repeated scalar, so GET with query parameters can call the operation. */
  simpleInput: boolean;
}

/** The WS-Addressing headers of an operation's requests. */
export interface SoapAddressingModel {
  /** The headers' namespace: WS-Addressing 1.0 (`http://www.w3.org/2005/08/addressing`) or the 2004/08 submission. */
  namespace: string;
  /** wsa:Action: the input's stated action, else the binding's soapAction, else WS-Addressing's default action. */
  action: string;
  required: boolean;
}

/**
 * How a JSON object stands for the SOAP body of a message. With a `wrapper`, the body holds that
 * one element and the JSON object is its content (document/literal wrapped, rpc); without, the
 * body holds the message's elements and each is a member of the JSON object.
 */
export interface SoapMessageModel {
  wrapper: { name: string; namespace: string } | null;
  /** JSON Schema of the JSON object; properties carry their XML namespace and attribute flag in `xml`. */
  schema: JsonSchema;
}

export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

export interface DatabaseSchema {
  /** Tables and views, sorted by name. */
  tables: TableModel[];
  /** Stored procedures and functions, sorted by name (empty on SQLite). */
  routines: RoutineModel[];
  /** Tables and columns left out because another one has the same API name (name-collisions.ts); absent when none. */
  warnings?: string[];
}

export interface TableModel {
  name: string;
  sourceName: string;
  /** Database schema (PostgreSQL) or null. */
  sourceSchema: string | null;
  label: string;
  description: string;
  /** The plural of the label a `_schema` client set; derived from the label when absent. */
  plural?: string;
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

/** The reference platform's abstract column types (model-shape.ts checks a model.json's fields against them). */
export const MODEL_FIELD_TYPES = [
  'id',
  'bigid',
  'reference',
  'user_id',
  'user_id_on_create',
  'user_id_on_update',
  'timestamp_on_create',
  'timestamp_on_update',
  'string',
  'text',
  'integer',
  'bigint',
  'boolean',
  'float',
  'double',
  'decimal',
  'money',
  'date',
  'time',
  'datetime',
  'timestamp',
  'binary',
  'json',
  'uuid',
  'array',
] as const;

export type AbstractType = (typeof MODEL_FIELD_TYPES)[number];

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
  /** The values an enumerated column allows (PostgreSQL enum types, MySQL `enum(...)`), in the database's order. */
  picklist?: string[];
  /** What a `_schema` client wrote about the field. */
  description?: string;
  /** A generated column (`GENERATED ALWAYS AS (...)`, virtual or stored): the database computes it, writes leave it out. */
  computed?: true;
  /** Compared without case where the column's own collation does not (the system database's emails on PostgreSQL). */
  ignoreCase?: true;
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
  /** The routine gives it a value when a call leaves it out (PostgreSQL's `default`); MySQL's parameters have none. */
  defaulted?: boolean;
}

/** Verbs a role grant may allow. */
export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A declared rate limit: role and service by name, period by label. */
export interface LimitModel {
  name: string;
  description: string;
  type: string;
  rate: number;
  period: string;
  service: string | null;
  endpoint: string | null;
  role: string | null;
  verb: Verb | null;
  is_active: boolean;
}

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
