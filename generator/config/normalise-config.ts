/**
 * Turns validated platform.yaml data into the PlatformConfig: built-in services and apps merged
 * with their overrides, and the defaults that depend on other fields (labels, titles, names).
 */
import { builtinApps, builtinServices } from './builtins.js';
import type { KindRegistry } from './kind-registry.js';
import type {
  AdminConfig,
  AppConfig,
  HookConfig,
  LimitConfig,
  OutputConfig,
  PlatformConfig,
  RoleConfig,
  ServiceConfig,
  SystemConfig,
} from './platform-config.js';
import { fillDefaults } from './schema-validator.js';

/** Validated data: the platform schema's defaults are filled in, services' configs are complete. */
export interface ValidatedConfig {
  platform: { name: string; title?: string; description: string };
  services: Array<Omit<ServiceConfig, 'label' | 'type' | 'description'> & { label?: string; type?: string; description?: string }>;
  roles: RoleConfig[];
  apps: Array<Omit<AppConfig, 'label' | 'description'> & { label?: string; description?: string }>;
  admins: Array<Omit<AdminConfig, 'name'> & { name?: string }>;
  limits: LimitConfig[];
  hooks: HookConfig[];
  system: SystemConfig;
  output: OutputConfig;
}

export function normaliseConfig(data: ValidatedConfig, kinds: KindRegistry): PlatformConfig {
  const declared = new Map(data.services.map((service) => [service.name, service]));
  const builtins = builtinServices.map((builtin): ServiceConfig => {
    const override = declared.get(builtin.name);
    return {
      name: builtin.name,
      label: override?.label ?? builtin.label,
      type: override?.type ?? builtin.type,
      description: override?.description ?? builtin.description,
      is_active: override?.is_active ?? true,
      config: override?.config ?? builtinConfig(builtin.name, builtin.type, builtin.config, kinds),
    };
  });
  const others = data.services
    .filter((service) => !builtinServices.some((builtin) => builtin.name === service.name))
    .map(
      (service): ServiceConfig => ({
        name: service.name,
        label: service.label ?? service.name,
        type: service.type!,
        description: service.description ?? '',
        is_active: service.is_active,
        config: service.config,
      }),
    );

  const declaredApps = new Map(data.apps.map((app) => [app.name, app]));
  const apps = [
    ...builtinApps.map((builtin): AppConfig => {
      const override = declaredApps.get(builtin.name);
      return {
        name: builtin.name,
        label: override?.label ?? builtin.label,
        description: override?.description ?? builtin.description,
        is_active: override?.is_active ?? true,
        api_key: override?.api_key ?? null,
        role: override?.role ?? null,
      };
    }),
    ...data.apps
      .filter((app) => !builtinApps.some((builtin) => builtin.name === app.name))
      .map(
        (app): AppConfig => ({
          name: app.name,
          label: app.label ?? app.name,
          description: app.description ?? '',
          is_active: app.is_active,
          api_key: app.api_key,
          role: app.role,
        }),
      ),
  ];

  return {
    platform: { name: data.platform.name, title: data.platform.title ?? data.platform.name, description: data.platform.description },
    services: [...builtins, ...others],
    roles: data.roles,
    apps,
    admins: data.admins.map((admin) => ({
      email: admin.email,
      password: admin.password,
      name: admin.name ?? (`${admin.first_name} ${admin.last_name}`.trim() || admin.email),
      first_name: admin.first_name,
      last_name: admin.last_name,
    })),
    limits: data.limits,
    hooks: data.hooks,
    system: data.system,
    output: data.output,
  };
}

/** A built-in's own config with its kind's defaults; failing its kind's schema is a Portico bug. */
function builtinConfig(name: string, type: string, config: Record<string, unknown>, kinds: KindRegistry): Record<string, unknown> {
  const filled = structuredClone(config);
  const kind = kinds.getServiceKind(type);
  const problems = kind ? fillDefaults(kind.configSchema, filled) : `service type '${type}' is not registered`;
  if (problems) throw new Error(`The default config of built-in service '${name}' is invalid: ${problems}`);
  return filled;
}
