/**
 * Checks of the services section beyond the schema: unique names, known types, what a built-in
 * override may change, and each service's config against its kind's JSON Schema.
 */
import type { ServiceType } from '../../runtime/services/service-kind.js';
import { didYouMean, type Diagnostic } from '../diagnostics.js';
import { builtinServices, RETYPABLE_BUILTIN } from './builtins.js';
import type { KindRegistry } from './kind-registry.js';
import { isRecord, objectItems, stringField, type Loose } from './loose-data.js';
import { pathText, validateWithSchema } from './schema-validator.js';
import type { ValuePath, YamlSource } from './yaml-source.js';

/**
 * Checks `data.services` (already validated against the platform schema) and fills in each
 * service's config: the built-in's config when an override gives none, then the kind's defaults.
 */
export function checkServices(data: Loose, source: YamlSource, kinds: KindRegistry): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const firstIndex = new Map<string, number>();
  for (const [index, service] of objectItems(data.services)) {
    const path = ['services', index];
    const name = stringField(service, 'name');
    if (name !== undefined) {
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, index);
      else
        diagnostics.push(source.diagnosticAt([...path, 'name'], 'PCO107', `Service name '${name}' is already used by services[${first}].`));
    }
    const builtin = builtinServices.find((candidate) => candidate.name === name);
    const declaredType = stringField(service, 'type');
    if (service.type === undefined && !builtin) {
      diagnostics.push(source.diagnosticAt(path, 'PCO103', `Missing required key 'type' in services[${index}].`));
    }
    const type = declaredType ?? builtin?.type;
    if (type === undefined) continue;
    const kind = kinds.getServiceKind(type);
    if (!kind) {
      diagnostics.push(
        declaredType === undefined
          ? source.diagnosticAt(path, 'PCO112', `The built-in service '${name}' needs service type '${type}', which is not registered.`)
          : source.diagnosticAt([...path, 'type'], 'PCO108', `Unknown service type '${declaredType}'.${suggestType(declaredType, kinds)}`),
      );
      continue;
    }
    if (builtin && declaredType !== undefined && declaredType !== builtin.type) {
      const problem = overrideProblem(builtin.name, builtin.type, kind);
      if (problem) diagnostics.push(source.diagnosticAt([...path, 'type'], 'PCO110', problem));
    }
    if (service.config === undefined) service.config = structuredClone(builtin?.config ?? {});
    if (isRecord(service.config)) diagnostics.push(...checkServiceConfig(kind, service.config, source, [...path, 'config']));
  }
  for (const builtin of builtinServices) {
    if (!firstIndex.has(builtin.name) && !kinds.getServiceKind(builtin.type)) {
      diagnostics.push(
        source.diagnosticAt(
          [],
          'PCO112',
          `The built-in service '${builtin.name}' needs service type '${builtin.type}', which is not registered.`,
        ),
      );
    }
  }
  return diagnostics;
}

function overrideProblem(name: string, builtinType: string, kind: ServiceType): string | null {
  if (name !== RETYPABLE_BUILTIN) {
    return `The built-in service '${name}' has type '${builtinType}'; an override may change its label, description, is_active and config, not its type.`;
  }
  if (kind.group !== 'Database') return `The built-in service '${name}' must be a database; '${kind.type}' is of group ${kind.group}.`;
  return null;
}

/** What people call a database or protocol when they do not know Portico's type name. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  postgres: 'pgsql',
  postgresql: 'pgsql',
  pg: 'pgsql',
  psql: 'pgsql',
  mariadb: 'mysql',
  sqlite3: 'sqlite',
  wsdl: 'soap',
};

/** "Did you mean" for a service type: close to a type, one of its common names, or its label. */
export function suggestType(declared: string, kinds: KindRegistry): string {
  const known = kinds.listServiceKinds();
  const close = didYouMean(
    declared,
    known.map((kind) => kind.type),
  );
  if (close) return close;
  const alias = TYPE_ALIASES[declared.toLowerCase()];
  if (alias !== undefined && kinds.getServiceKind(alias)) return ` Did you mean '${alias}'?`;
  // `PostgreSQL` -> pgsql, `SOAP Service` -> soap: compare with each type's label and its words.
  const byLabel = new Map<string, string>();
  for (const kind of known) {
    const label = kind.label.toLowerCase();
    for (const name of [label.replace(/[^a-z0-9]+/g, ''), ...label.split(/[^a-z0-9]+/)])
      if (name.length > 2 && !byLabel.has(name)) byLabel.set(name, kind.type);
  }
  const match = didYouMean(declared, [...byLabel.keys()]).match(/'(.*)'/);
  return match ? ` Did you mean '${byLabel.get(match[1].toLowerCase())}'?` : '';
}

/**
 * A service's config against its kind's JSON Schema. Keys the kind does not declare are reported
 * with "did you mean" (the API accepts them, platform.yaml does not: a misspelt key is a silent
 * default otherwise); the rest is checked as if each misspelt key were written as suggested, so
 * that `databse:` is one problem, not also a missing `database`.
 */
function checkServiceConfig(kind: ServiceType, config: Record<string, unknown>, source: YamlSource, path: ValuePath): Diagnostic[] {
  const properties = isRecord(kind.configSchema.properties) ? Object.keys(kind.configSchema.properties) : [];
  const unknown = properties.length === 0 ? [] : Object.keys(config).filter((key) => !properties.includes(key));
  if (unknown.length === 0) return validateWithSchema(kind.configSchema, config, source, path);
  const diagnostics: Diagnostic[] = [];
  const corrected = { ...config };
  for (const key of unknown) {
    const hint = didYouMean(key, properties);
    diagnostics.push(
      source.diagnosticAt([...path, key], 'PCO102', `Unknown key '${key}' in ${pathText(path)} (type ${kind.type}).${hint}`, { key: true }),
    );
    const suggestion = hint.match(/'(.*)'/)?.[1];
    delete corrected[key];
    if (suggestion !== undefined && !(suggestion in config)) corrected[suggestion] = config[key];
  }
  return [...diagnostics, ...validateWithSchema(kind.configSchema, corrected, source, path)];
}
