/**
 * Checks across sections: unique role, app and admin names; grants naming existing services;
 * apps and open registration naming existing roles (and apps); administrator passwords long enough;
 * a system database URL of a kind Portico has.
 */
import { unknownSystemDbScheme } from '../../runtime/system/store/system-db-target.js';
import { didYouMean, type Diagnostic } from '../diagnostics.js';
import { builtinApps, builtinServices } from './builtins.js';
import { isRecord, objectItems, stringField, type Loose } from './loose-data.js';
import type { YamlSource } from './yaml-source.js';

/** Checks `data` (already validated against the platform schema, defaults filled in). */
export function checkReferences(data: Loose, source: YamlSource): Diagnostic[] {
  const serviceNames = unique([...builtinServices.map((service) => service.name), ...names(data.services, 'name')]);
  const roleNames = names(data.roles, 'name');
  const system = isRecord(data.system) ? data.system : {};
  const diagnostics = [
    ...duplicates(source, data.roles, 'roles', 'name', 'Role name'),
    ...duplicates(source, data.apps, 'apps', 'name', 'App name'),
    ...duplicates(source, data.admins, 'admins', 'email', 'Administrator email'),
    ...duplicates(source, data.limits, 'limits', 'name', 'Limit name'),
  ];
  for (const [roleIndex, role] of objectItems(data.roles)) {
    for (const [grantIndex, grant] of objectItems(role.grants)) {
      const service = stringField(grant, 'service');
      if (service !== undefined && service !== '*' && !serviceNames.includes(service)) {
        const path = ['roles', roleIndex, 'grants', grantIndex, 'service'];
        diagnostics.push(
          source.diagnosticAt(
            path,
            'PCO109',
            `Unknown service '${service}' in roles[${roleIndex}].grants[${grantIndex}].service.${didYouMean(service, [...serviceNames, '*'])}`,
          ),
        );
      }
    }
  }
  for (const [index, app] of objectItems(data.apps)) {
    const role = stringField(app, 'role');
    if (role !== undefined && !roleNames.includes(role)) {
      diagnostics.push(
        source.diagnosticAt(
          ['apps', index, 'role'],
          'PCO109',
          `Unknown role '${role}' in apps[${index}].role.${didYouMean(role, roleNames)}`,
        ),
      );
    }
  }
  const openRole = stringField(system, 'open_registration_role');
  if (openRole !== undefined && !roleNames.includes(openRole)) {
    diagnostics.push(
      source.diagnosticAt(
        ['system', 'open_registration_role'],
        'PCO109',
        `Unknown role '${openRole}' in system.open_registration_role.${didYouMean(openRole, roleNames)}`,
      ),
    );
  }
  const appNames = unique([...builtinApps.map((app) => app.name), ...names(data.apps, 'name')]);
  const appRoles = isRecord(system.open_registration_app_roles) ? system.open_registration_app_roles : {};
  for (const [app, role] of Object.entries(appRoles)) {
    const path = ['system', 'open_registration_app_roles', app];
    if (!appNames.includes(app)) {
      diagnostics.push(
        source.diagnosticAt(path, 'PCO109', `Unknown app '${app}' in system.open_registration_app_roles.${didYouMean(app, appNames)}`),
      );
    } else if (typeof role === 'string' && !roleNames.includes(role)) {
      diagnostics.push(
        source.diagnosticAt(
          path,
          'PCO109',
          `Unknown role '${role}' in system.open_registration_app_roles.${app}.${didYouMean(role, roleNames)}`,
        ),
      );
    }
  }
  const systemDatabase = stringField(system, 'database');
  const badScheme = systemDatabase === undefined ? null : unknownSystemDbScheme(systemDatabase);
  if (badScheme !== null) diagnostics.push(source.diagnosticAt(['system', 'database'], 'PCO106', `system.database: ${badScheme}`));
  const minLength = typeof system.password_min_length === 'number' ? system.password_min_length : 0;
  for (const [index, limit] of objectItems(data.limits)) {
    const service = stringField(limit, 'service');
    const role = stringField(limit, 'role');
    const type = stringField(limit, 'type') ?? '';
    if (service && !serviceNames.includes(service))
      diagnostics.push(
        source.diagnosticAt(
          ['limits', index, 'service'],
          'PCO109',
          `Unknown service '${service}' in limits[${index}].service.${didYouMean(service, serviceNames)}`,
        ),
      );
    if (role && !roleNames.includes(role))
      diagnostics.push(
        source.diagnosticAt(
          ['limits', index, 'role'],
          'PCO109',
          `Unknown role '${role}' in limits[${index}].role.${didYouMean(role, roleNames)}`,
        ),
      );
    const needs = (field: 'service' | 'role' | 'endpoint', when: boolean) => {
      if (when && !stringField(limit, field))
        diagnostics.push(
          source.diagnosticAt(
            ['limits', index],
            'PCO109',
            `limits[${index}] of type ${type} needs ${field === 'endpoint' ? 'an' : 'a'} ${field}.`,
          ),
        );
    };
    needs('service', type.includes('service'));
    needs('endpoint', type.includes('endpoint'));
    needs('role', type === 'instance.role');
  }
  for (const [index, admin] of objectItems(data.admins)) {
    const password = stringField(admin, 'password');
    if (password !== undefined && password.length < minLength) {
      diagnostics.push(
        source.diagnosticAt(
          ['admins', index, 'password'],
          'PCO106',
          `admins[${index}].password is shorter than system.password_min_length (${minLength} characters).`,
        ),
      );
    }
  }
  return diagnostics;
}

function names(list: unknown, key: string): string[] {
  return objectItems(list).flatMap(([, item]) => stringField(item, key) ?? []);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function duplicates(source: YamlSource, list: unknown, section: string, key: string, what: string): Diagnostic[] {
  const firstIndex = new Map<string, number>();
  const diagnostics: Diagnostic[] = [];
  for (const [index, item] of objectItems(list)) {
    const value = stringField(item, key);
    if (value === undefined) continue;
    const normalised = value.toLowerCase();
    const first = firstIndex.get(normalised);
    if (first === undefined) firstIndex.set(normalised, index);
    else
      diagnostics.push(source.diagnosticAt([section, index, key], 'PCO107', `${what} '${value}' is already used by ${section}[${first}].`));
  }
  return diagnostics;
}
