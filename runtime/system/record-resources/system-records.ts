/**
 * The model-backed system resources and their nested records (reference 5.2-5.9, spec
 * "Resources and their fields"). Pure data: the system service validates input against it, the
 * OpenAPI builder documents it.
 */
import { limitFields } from '../limits/limit-record.js';
import {
  AUDIT_FIELDS,
  belongsTo,
  type FieldRule,
  field,
  flag,
  hasMany,
  hasOne,
  type JsonSchema,
  MAX_INTEGER,
  nullableId,
  READ_ONLY_AUDITED,
  type ResourceDefinition,
  record,
  recordId,
  resource,
} from './resource-definition.js';

const text = (maxLength?: number): JsonSchema => (maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength });
const nullableText = (maxLength?: number): JsonSchema => ({ ...text(maxLength), type: ['string', 'null'] });
/** An optional text stored as "" when absent: null is taken for it (as the reference does) and read back as "". */
const optionalText = (maxLength?: number): FieldRule => field(nullableText(maxLength), { nullIsEmpty: true });

export const VERB_NAMES = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const rowFilterSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'operator', 'value'],
  properties: {
    name: { type: 'string', minLength: 1 },
    operator: { type: 'string', minLength: 1 },
    value: { type: ['string', 'number', 'boolean', 'null'] },
  },
};

/** A grant of a role: service (null: every service), component, verbs, requestors, row filters. */
export const roleServiceAccessRecord = record({
  table: 'role_service_access',
  label: 'RoleServiceAccess',
  plural: 'RoleServiceAccesses',
  fields: {
    role_id: field(nullableId, { references: 'role' }),
    service_id: field(nullableId, { references: 'service' }),
    component: field({ type: ['string', 'null'], maxLength: 255 }),
    verb_mask: field({ type: 'integer', minimum: 0, maximum: 31, description: 'GET 1, POST 2, PUT 4, PATCH 8, DELETE 16.' }),
    // 0 (no requestor: a grant that grants nothing) as the reference stores it; the Terraform provider sends it.
    requestor_mask: field({ type: 'integer', minimum: 0, maximum: 3, description: 'API 1, script 2, both 3.' }),
    filters: field({ type: 'array', items: rowFilterSchema }, { json: true }),
    // Kept as sent (the reference's admin console sends "AND"/"OR", the Terraform provider "" for none); matched
    // without case, anything but or being and.
    filter_op: field({ type: 'string', pattern: '^([aA][nN][dD]|[oO][rR])?$', description: 'and (default) or or, in any case.' }),
  },
  readOnly: ['id'],
  ignored: [...AUDIT_FIELDS],
});

/** A user's role for one app. */
export const userAppRoleRecord = record({
  table: 'user_to_app_to_role',
  label: 'UserAppRole',
  plural: 'UserAppRoles',
  fields: {
    user_id: field(nullableId, { references: 'user' }),
    app_id: field(recordId, { required: true, references: 'app' }),
    role_id: field(recordId, { required: true, references: 'role' }),
  },
  readOnly: ['id'],
});

const lookupFields: Record<string, FieldRule> = {
  name: field({ type: 'string', minLength: 1, maxLength: 64 }, { required: true }),
  value: field({ type: ['string', 'number', 'boolean', 'null'] }),
  private: field(flag),
  description: optionalText(255),
};

/** A lookup (global variable), scoped to an app, a role or a user. */
export const scopedLookupRecord = record({
  table: 'lookup',
  label: 'ScopedLookup',
  plural: 'ScopedLookups',
  fields: {
    ...lookupFields,
    app_id: field(nullableId, { references: 'app' }),
    role_id: field(nullableId, { references: 'role' }),
    user_id: field(nullableId, { references: 'user' }),
  },
});

export const roleResource = resource({
  name: 'role',
  summary: 'Roles: what the calls of an app or user may reach, per service, component and verb.',
  table: 'role',
  label: 'Role',
  plural: 'Roles',
  fields: {
    name: field({ type: 'string', minLength: 1, maxLength: 64 }, { required: true }),
    description: optionalText(),
    is_active: field(flag),
  },
  readOnly: [...READ_ONLY_AUDITED, 'origin'],
  // role_lookup_by_role_id: the early reference's name of lookup_by_role_id, which the Terraform provider sends;
  // default_app_id: what the reference's legacy admin app sends with a new role.
  ignored: ['accessible_tabs', 'role_lookup_by_role_id', 'default_app_id'],
  relations: {
    role_service_access_by_role_id: hasMany(roleServiceAccessRecord, 'role_id', true),
    lookup_by_role_id: hasMany(scopedLookupRecord, 'role_id', true),
    user_to_app_to_role_by_role_id: hasMany(userAppRoleRecord, 'role_id', false),
  },
});

const personFields: Record<string, FieldRule> = {
  name: field({ type: 'string', minLength: 1, maxLength: 255 }, { required: true }),
  email: field({ type: 'string', format: 'email', maxLength: 255 }, { required: true }),
  first_name: field(nullableText(255)),
  last_name: field(nullableText(255)),
  username: field({ type: ['string', 'null'], minLength: 1, maxLength: 255, pattern: '^\\S+$' }, { emptyIsNull: true }),
  phone: field(nullableText(32)),
  is_active: field(flag),
  default_app_id: field(nullableId, { references: 'app' }),
  /** null or "" (a form's blank password field) leaves the password as it is. */
  password: field({ type: ['string', 'null'] }, { writeOnly: true, emptyIsNull: true }),
};

const person = {
  table: 'user',
  fields: personFields,
  readOnly: [...READ_ONLY_AUDITED, 'last_login_date'],
  // The admin console also sends is_root_admin (derived, not kept) and its restricted-admin tab
  // choices, which the admin resource turns into a role (resources/restricted-admins.ts).
  ignored: [
    'is_sys_admin',
    'is_root_admin',
    'confirmed',
    'expired',
    'security_question',
    'security_answer',
    'oauth_provider',
    'adldap',
    'ldap_username',
    'saml',
    'send_invite',
    'user_custom_by_user_id',
    'access_by_tabs',
    'is_restricted_admin',
    // The Terraform provider's admin: the confirmation code and the early reference's name of lookup_by_user_id;
    // the reference's legacy admin app sends user_source and user_data with a new user or administrator.
    'confirm_code',
    'user_lookup_by_user_id',
    'user_source',
    'user_data',
  ],
  hidden: ['is_sys_admin'],
  relations: {
    user_to_app_to_role_by_user_id: hasMany(userAppRoleRecord, 'user_id', true),
    lookup_by_user_id: hasMany(scopedLookupRecord, 'user_id', true),
  },
} as const;

export const adminResource = resource({
  ...person,
  name: 'admin',
  summary: 'Administrators: users who bypass role checks and manage the platform.',
  label: 'Admin',
  plural: 'Admins',
});

export const userResource = resource({
  ...person,
  name: 'user',
  summary: 'Regular users: their roles per app come from user_to_app_to_role_by_user_id.',
  label: 'User',
  plural: 'Users',
});

export const appResource = resource({
  name: 'app',
  summary: 'Apps: each holds an API key; its role_id is the default role of calls made with that key.',
  table: 'app',
  label: 'App',
  plural: 'Apps',
  fields: {
    name: field({ type: 'string', minLength: 1, maxLength: 64 }, { required: true }),
    label: optionalText(255),
    description: optionalText(),
    is_active: field(flag),
    api_key: field({ type: 'string', pattern: '^[0-9a-f]{64}$', description: '64 lowercase hex characters; generated when absent.' }),
    role_id: field(nullableId, { references: 'role' }),
    type: field({ type: 'integer', minimum: 0, maximum: 4, description: '0 none (API key only), 1 storage, 2 URL, 3 path, 4 git.' }),
    path: field(nullableText()),
    url: field(nullableText()),
  },
  readOnly: [...READ_ONLY_AUDITED, 'origin', 'launch_url'],
  ignored: ['storage_service_id', 'storage_container', 'requires_fullscreen', 'allow_fullscreen_toggle', 'toggle_location'],
  relations: {
    role_by_role_id: belongsTo(roleResource, 'role_id'),
    lookup_by_app_id: hasMany(scopedLookupRecord, 'app_id', true),
    user_to_app_to_role_by_app_id: hasMany(userAppRoleRecord, 'app_id', false),
  },
});

/** A service's own OpenAPI document (reference 5.4). */
export const serviceDocRecord = record({
  table: 'service_doc',
  label: 'ServiceDoc',
  plural: 'ServiceDocs',
  fields: {
    service_id: field(nullableId, { references: 'service' }),
    format: field({ type: 'integer', enum: [0, 1], description: '0 JSON, 1 YAML.' }),
    content: field({ type: 'string', description: 'The document, JSON or YAML as format says.' }),
  },
  readOnly: ['id', 'created_date', 'last_modified_date'],
});

export const serviceResource = resource({
  name: 'service',
  summary: 'Services: each is served under /api/v2/{name} as soon as it is created.',
  table: 'service',
  label: 'Service',
  plural: 'Services',
  fields: {
    name: field(
      {
        type: 'string',
        pattern: '^[a-z0-9_][a-z0-9_-]*$',
        maxLength: 40,
        description: 'Lowercase letters, digits, underscores and dashes.',
      },
      { required: true },
    ),
    label: field({ type: 'string', minLength: 1, maxLength: 80 }, { required: true }),
    type: field({ type: 'string', minLength: 1, description: 'A name from GET /system/service_type.' }, { required: true }),
    description: optionalText(255),
    is_active: field(flag),
    config: field({ type: 'object', additionalProperties: true }, { json: true }),
  },
  readOnly: [...READ_ONLY_AUDITED, 'origin', 'mutable', 'deletable'],
  // The admin console's service form sends storage_service_id for every type (Excel services use it), the
  // Terraform provider a doc object (format, content).
  ignored: ['storage_service_id', 'doc'],
  relations: {
    role_service_access_by_service_id: hasMany(roleServiceAccessRecord, 'service_id', false),
    service_doc_by_service_id: hasOne(serviceDocRecord, 'service_id', true),
  },
});

export const corsResource = resource({
  name: 'cors',
  summary: 'CORS rules: which origins may call which paths, with which methods and headers.',
  table: 'cors_config',
  label: 'Cors',
  plural: 'CorsConfigs',
  fields: {
    path: field(
      {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description: 'Request path glob (`api/v2/*`, `*`), or a regular expression starting with `^`.',
      },
      { required: true },
    ),
    description: optionalText(255),
    origin: field({ type: 'string', minLength: 1, description: 'Comma-separated origins, or `*`.' }, { required: true }),
    header: optionalText(),
    exposed_header: optionalText(),
    method: field({
      anyOf: [
        { type: 'array', items: { type: 'string', enum: [...VERB_NAMES] }, uniqueItems: true },
        { type: 'integer', minimum: 0, maximum: 31 },
      ],
      description: 'Allowed methods: verb names, or a verb mask.',
    }),
    max_age: field({ type: 'integer', minimum: 0, maximum: MAX_INTEGER }),
    supports_credentials: field(flag),
    enabled: field(flag),
  },
});

export const lookupResource = resource({
  name: 'lookup',
  summary: 'Global lookups: named values usable as {name} in role filters and configs; private values are masked.',
  table: 'lookup',
  label: 'Lookup',
  plural: 'Lookups',
  fields: lookupFields,
  hidden: ['app_id', 'role_id', 'user_id'],
});

/** Addresses as an email service takes them (the Terraform provider sends `{name, email}` objects). */
const addresses: JsonSchema = {
  anyOf: [
    {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string' },
          {
            type: 'object',
            properties: { name: { type: 'string' }, email: { type: 'string' } },
            required: ['email'],
            additionalProperties: false,
          },
        ],
      },
    },
    { type: 'string' },
  ],
  description: 'Email addresses: an array of addresses or `{email, name}` objects, or a comma-separated string.',
};

export const emailTemplateResource = resource({
  name: 'email_template',
  summary: 'Email templates: subject and bodies with {placeholders}, used for password resets and invitations.',
  table: 'email_template',
  label: 'EmailTemplate',
  plural: 'EmailTemplates',
  fields: {
    name: field({ type: 'string', minLength: 1, maxLength: 64 }, { required: true }),
    description: optionalText(255),
    to: field(addresses, { json: true }),
    cc: field(addresses, { json: true }),
    bcc: field(addresses, { json: true }),
    subject: optionalText(80),
    body_text: optionalText(),
    body_html: optionalText(),
    from_name: field(nullableText(255)),
    from_email: field(nullableText(255)),
    reply_to_name: field(nullableText(255)),
    reply_to_email: field(nullableText(255)),
  },
  // from, reply_to and Cc (its cc, whose JSON tag lost the name): what the Terraform provider sends besides;
  // replay_to_email and replay_to_name: the reference's legacy admin app's new template (sic).
  ignored: ['attachment', 'defaults', 'from', 'reply_to', 'Cc', 'replay_to_email', 'replay_to_name'],
});

export const customResource = resource({
  name: 'custom',
  summary: 'Custom settings: named JSON values; GET /system/custom/{name} returns the value alone.',
  table: 'system_custom',
  label: 'Custom',
  plural: 'Customs',
  idField: 'name',
  fields: {
    name: field({ type: 'string', minLength: 1, maxLength: 255 }, { required: true }),
    value: field({}, { json: true }),
  },
  readOnly: [...AUDIT_FIELDS],
});

/**
 * Rate limits, with the records they name; `related=limit_cache_by_limit_id` adds their counters
 * (computed by the limit behaviour, not stored).
 */
export const limitResource: ResourceDefinition = {
  ...limitFields,
  relations: {
    service_by_service_id: belongsTo(serviceResource, 'service_id'),
    role_by_role_id: belongsTo(roleResource, 'role_id'),
    user_by_user_id: belongsTo(userResource, 'user_id'),
  },
};

/** A scheduled task's last failed run (one per task; a successful run removes it, as the reference does). */
export const taskLogRecord = record({
  table: 'task_log',
  label: 'TaskLog',
  plural: 'TaskLogs',
  idField: 'task_id',
  fields: {},
  readOnly: ['task_id', 'status_code', 'content', 'created_date', 'last_modified_date'],
});

/**
 * Scheduled tasks (the reference's df-scheduler): every `frequency` minutes the platform calls
 * `verb` on `component` of the service, with `payload` as the body, as the administrator who
 * created the task; `related=task_log_by_task_id` adds the last failure (null once a run succeeds).
 */
export const schedulerResource = resource({
  name: 'scheduler',
  summary: 'Scheduled tasks: a call to a service made every `frequency` minutes, with its last failure if the last run failed.',
  table: 'scheduler_task',
  label: 'SchedulerTask',
  plural: 'SchedulerTasks',
  fields: {
    name: field({ type: 'string', minLength: 1, maxLength: 64 }, { required: true }),
    description: optionalText(255),
    is_active: field(flag),
    service_id: field(recordId, { required: true, references: 'service' }),
    component: field(
      { ...nullableText(255), description: "The path under the service: '_table/contact', '' for its root." },
      { nullIsEmpty: true },
    ),
    verb: field({ type: 'string', enum: [...VERB_NAMES], description: 'GET (default), POST, PUT, PATCH or DELETE.' }),
    verb_mask: field({
      type: 'integer',
      enum: [1, 2, 4, 8, 16],
      description: 'The verb as a mask (GET 1, POST 2, PUT 4, PATCH 8, DELETE 16).',
    }),
    frequency: field({
      type: 'integer',
      minimum: 1,
      maximum: 525_600,
      description: 'Minutes between runs (default 5, also when sent as null).',
    }),
    payload: field({
      type: ['string', 'object', 'array', 'null'],
      description: 'The body sent: JSON text (an object or array is stored as its text).',
    }),
  },
  // The reference's console sends back what it shows beside the task.
  ignored: ['has_log', 'service', 'service_name'],
  relations: {
    task_log_by_task_id: hasOne(taskLogRecord, 'task_id', false),
    service_by_service_id: belongsTo(serviceResource, 'service_id'),
  },
});

/** Services created, changed and deleted through the API: written by the platform, read and deleted by clients. */
export const serviceReportResource = resource({
  name: 'service_report',
  summary:
    'Service reports: who created, changed or deleted which service through the API, and when (read only; old reports may be deleted).',
  table: 'service_report',
  label: 'ServiceReport',
  plural: 'ServiceReports',
  fields: {},
  readOnly: ['id', 'service_id', 'service_name', 'user_email', 'action', 'request_verb', 'created_date', 'last_modified_date'],
  writes: 'delete',
});

/** Every model-backed system resource, in the order the system listing shows them. */
export const SYSTEM_RECORD_RESOURCES: readonly ResourceDefinition[] = [
  adminResource,
  appResource,
  corsResource,
  customResource,
  emailTemplateResource,
  limitResource,
  lookupResource,
  roleResource,
  schedulerResource,
  serviceResource,
  serviceReportResource,
  userResource,
];
