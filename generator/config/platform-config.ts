/**
 * The normalised platform config: platform.yaml after validation against
 * schemas/platform.schema.json, with every default filled in and the built-in services and apps
 * merged. Field names and defaults mirror the schema (a unit test walks both and checks that
 * they agree); `${env:NAME}` references stay as written.
 */
import type { Verb } from '../../runtime/model/platform-model.js';

export interface PlatformConfig {
  platform: PlatformSection;
  /** Built-in services first (in id order, overrides applied), then the declared ones in declaration order. */
  services: ServiceConfig[];
  roles: RoleConfig[];
  /** Built-in apps first, then the declared ones in declaration order. */
  apps: AppConfig[];
  admins: AdminConfig[];
  limits: LimitConfig[];
  /** The user's hook modules, in declaration order. */
  hooks: HookConfig[];
  system: SystemConfig;
  output: OutputConfig;
}

/** A hook module declared in platform.yaml. */
export interface HookConfig {
  /** A .ts file relative to platform.yaml. */
  file: string;
  /** The export holding the hooks (`default`, or a named export). */
  export: string;
  /** How long one of its hooks may take before the request is answered 503, in milliseconds. */
  timeout_ms: number;
  /** Table writes its post_process hooks follow run in one transaction with the hooks (a hook that throws undoes the write). */
  transaction: boolean;
}

/** What `gen build` writes besides the server itself. */
export interface OutputConfig {
  /** Also write openapi.json, the combined document of every service. */
  combined_openapi: boolean;
}

/** A rate limit declared in platform.yaml (role and service by name). */
export interface LimitConfig {
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

export interface PlatformSection {
  name: string;
  /** Defaults to the name. */
  title: string;
  description: string;
}

/** The fields of the API's service record. */
export interface ServiceConfig {
  name: string;
  label: string;
  type: string;
  description: string;
  is_active: boolean;
  /** Validated against the kind's configSchema, its defaults applied. */
  config: Record<string, unknown>;
}

export interface RoleConfig {
  name: string;
  description: string;
  is_active: boolean;
  grants: GrantConfig[];
}

export interface GrantConfig {
  /** A service name or `*`. */
  service: string;
  component: string;
  verbs: Verb[];
  requestor: Array<'api' | 'script'>;
  filters: RowFilterConfig[];
  filter_op: 'and' | 'or';
}

export interface RowFilterConfig {
  name: string;
  operator: string;
  value: string | number | boolean;
}

export interface AppConfig {
  name: string;
  label: string;
  description: string;
  is_active: boolean;
  api_key: string | null;
  role: string | null;
}

export interface AdminConfig {
  email: string;
  password: string | null;
  /** Defaults to first and last name, else the email. */
  name: string;
  first_name: string;
  last_name: string;
}

export interface SystemConfig {
  database: string;
  redis: { url: string };
  session_ttl_minutes: number;
  jwt_secret: string;
  password_min_length: number;
  allow_open_registration: boolean;
  open_registration_role: string | null;
  open_registration_app_roles: Record<string, string>;
  max_records: number;
}
