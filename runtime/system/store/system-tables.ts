/** Kysely table types of the system database. Timestamps are `YYYY-MM-DD HH:MM:SS` strings (UTC). */
import type { Generated } from 'kysely';

export interface UserTable {
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
  confirm_code: string | null;
  /** Tokens issued before this instant (epoch seconds) are refused: set on password change. */
  tokens_valid_after: number;
  created_date: string;
  last_modified_date: string;
  created_by_id: number | null;
  last_modified_by_id: number | null;
}

export interface AppTable {
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
  created_date: string;
  last_modified_date: string;
  created_by_id: number | null;
  last_modified_by_id: number | null;
}

export interface RoleTable {
  id: Generated<number>;
  name: string;
  description: string;
  is_active: number;
  origin: string;
  created_date: string;
  last_modified_date: string;
  created_by_id: number | null;
  last_modified_by_id: number | null;
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

export interface ServiceTable {
  id: number;
  name: string;
  label: string;
  description: string;
  is_active: number;
  type: string;
  /** JSON object. */
  config: string;
  origin: string;
  created_date: string;
  last_modified_date: string;
  created_by_id: number | null;
  last_modified_by_id: number | null;
}

export interface UserAppRoleTable {
  id: Generated<number>;
  user_id: number;
  app_id: number;
  role_id: number;
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

export interface SystemTables {
  user: UserTable;
  app: AppTable;
  role: RoleTable;
  role_service_access: RoleServiceAccessTable;
  service: ServiceTable;
  user_to_app_to_role: UserAppRoleTable;
  revoked_token: RevokedTokenTable;
  system_setting: SettingTable;
}
