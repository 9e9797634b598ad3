/**
 * Kysely table types of the system database. Timestamps are `YYYY-MM-DD HH:MM:SS` strings (UTC);
 * flags (`boolean` columns) read as 0/1 through Kysely, JSON columns as text.
 */
import type { Generated } from 'kysely';

/** The columns every audited system table ends with. */
export interface AuditColumns {
  created_date: string;
  last_modified_date: string;
  created_by_id: number | null;
  last_modified_by_id: number | null;
}

export interface UserTable extends AuditColumns {
  id: Generated<number>;
  name: string;
  username: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string;
  /** bcrypt hash, or null when no password is set yet. */
  password: string | null;
  is_sys_admin: number;
  is_active: number;
  phone: string | null;
  default_app_id: number | null;
  last_login_date: string | null;
  /** Password-reset code (bcrypt hash), and when it stops working (epoch seconds). */
  confirm_code: string | null;
  confirm_code_expiry: number | null;
  /** Tokens issued before this instant (epoch seconds) are refused: set on password change. */
  tokens_valid_after: number;
}

export interface AppTable extends AuditColumns {
  id: Generated<number>;
  name: string;
  label: string;
  description: string;
  is_active: number;
  api_key: string;
  role_id: number | null;
  type: number;
  path: string | null;
  url: string | null;
  origin: string;
}

export interface RoleTable extends AuditColumns {
  id: Generated<number>;
  name: string;
  description: string;
  is_active: number;
  origin: string;
}

export interface RoleServiceAccessTable {
  id: Generated<number>;
  role_id: number;
  /** null: every service. */
  service_id: number | null;
  component: string;
  verb_mask: number;
  requestor_mask: number;
  /** JSON array of {name, operator, value}. */
  filters: string;
  filter_op: string;
}

export interface ServiceTable extends AuditColumns {
  id: number;
  name: string;
  label: string;
  description: string;
  is_active: number;
  type: string;
  /** JSON object. */
  config: string;
  origin: string;
}

export interface ServiceDocTable {
  id: Generated<number>;
  service_id: number;
  /** 0 JSON, 1 YAML. */
  format: number;
  content: string;
  created_date: string;
  last_modified_date: string;
}

export interface UserAppRoleTable {
  id: Generated<number>;
  user_id: number;
  app_id: number;
  role_id: number;
}

export interface CorsConfigTable extends AuditColumns {
  id: Generated<number>;
  /** Request path the rule applies to: a glob (`api/v2/*`, `*`) or a regular expression starting with `^`. */
  path: string;
  description: string;
  /** Comma-separated allowed origins, or `*`. */
  origin: string;
  header: string;
  exposed_header: string;
  /** Verb mask of the allowed methods. */
  method: number;
  max_age: number;
  supports_credentials: number;
  enabled: number;
}

export interface LookupTable extends AuditColumns {
  id: Generated<number>;
  /** The scope: all three null for a global (system) lookup. */
  app_id: number | null;
  role_id: number | null;
  user_id: number | null;
  name: string;
  value: string | null;
  private: number;
  description: string;
}

export interface EmailTemplateTable extends AuditColumns {
  id: Generated<number>;
  name: string;
  description: string;
  /** JSON arrays of addresses. */
  to: string;
  cc: string;
  bcc: string;
  subject: string;
  body_text: string;
  body_html: string;
  from_name: string | null;
  from_email: string | null;
  reply_to_name: string | null;
  reply_to_email: string | null;
}

export interface SystemCustomTable extends AuditColumns {
  name: string;
  /** JSON value. */
  value: string | null;
}

export interface RevokedTokenTable {
  jti: string;
  /** Epoch seconds after which the row can be dropped. */
  expires_at: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

export interface LimitTable extends AuditColumns {
  id: Generated<number>;
  /** `instance`, `instance.user`, `instance.each_user.service`, ... (reference 5.11). */
  type: string;
  /** Computed from the other fields: what makes a limit unique. */
  key_text: string;
  rate: number;
  /** 0 minute, 1 hour, 2 day, 3 7-day, 4 30-day. */
  period: number;
  user_id: number | null;
  role_id: number | null;
  service_id: number | null;
  endpoint: string | null;
  verb: string | null;
  name: string;
  description: string | null;
  is_active: number;
  origin: string;
}

export interface SchemaTableExtraTable {
  id: Generated<number>;
  service_id: number;
  table_name: string;
  label: string | null;
  plural: string | null;
  description: string | null;
}

export interface SchemaFieldExtraTable {
  id: Generated<number>;
  service_id: number;
  table_name: string;
  field_name: string;
  label: string | null;
  description: string | null;
  type: string | null;
}

export interface SchedulerTaskTable extends AuditColumns {
  id: Generated<number>;
  name: string;
  description: string;
  is_active: number;
  service_id: number;
  /** The path under the service ('' for its root). */
  component: string;
  verb: string;
  /** The verb as a mask (GET 1, POST 2, PUT 4, PATCH 8, DELETE 16), as the reference keeps it. */
  verb_mask: number;
  /** Minutes between runs. */
  frequency: number;
  /** The request body (JSON text), if any. */
  payload: string | null;
}

/** The outcome of a task's last run. */
export interface TaskLogTable {
  task_id: number;
  status_code: number;
  content: string | null;
  created_date: string;
  last_modified_date: string;
}

export interface ServiceReportTable {
  id: Generated<number>;
  service_id: number | null;
  service_name: string;
  user_email: string | null;
  action: string;
  request_verb: string;
  created_date: string;
  last_modified_date: string;
}

/** When a subject (app, role, user) last made an allowed request and was last refused. */
export interface AccessUsageTable {
  subject_type: string;
  subject_id: number;
  last_used_at: string | null;
  last_denied_at: string | null;
  /** The service of the last allowed request, and its status. */
  last_service: string | null;
  last_status: number | null;
}

export interface SystemTables {
  limits: LimitTable;
  user: UserTable;
  app: AppTable;
  role: RoleTable;
  role_service_access: RoleServiceAccessTable;
  service: ServiceTable;
  service_doc: ServiceDocTable;
  user_to_app_to_role: UserAppRoleTable;
  cors_config: CorsConfigTable;
  lookup: LookupTable;
  schema_table_extra: SchemaTableExtraTable;
  schema_field_extra: SchemaFieldExtraTable;
  email_template: EmailTemplateTable;
  system_custom: SystemCustomTable;
  revoked_token: RevokedTokenTable;
  system_setting: SettingTable;
  scheduler_task: SchedulerTaskTable;
  task_log: TaskLogTable;
  service_report: ServiceReportTable;
  access_usage: AccessUsageTable;
}
