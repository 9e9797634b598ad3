/**
 * Checks of the services section beyond the schema: unique names, known types, what a built-in
 * override may change, and each service's config against its kind's JSON Schema.
 */
import type { ServiceType } from '../../runtime/services/service-kind.js';
import { didYouMean, type Diagnostic } from '../diagnostics.js';
import { builtinServices, RETYPABLE_BUILTIN } from './builtins.js';
import type { KindRegistry } from './kind-registry.js';
import { isRecord, objectItems, stringField, type Loose } from './loose-data.js';
import { validateWithSchema } from './schema-validator.js';
import type { YamlSource } from './yaml-source.js';

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
      else diagnostics.push(source.diagnosticAt([...path, 'name'], 'PCO107', `Service name '${name}' is already used by services[${first}].`));
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
          : source.diagnosticAt([...path, 'type'], 'PCO108', `Unknown service type '${declaredType}'.${didYouMean(declaredType, kinds.listServiceKinds().map((known) => known.type))}`),
      );
      continue;
    }
    if (builtin && declaredType !== undefined && declaredType !== builtin.type) {
      const problem = overrideProblem(builtin.name, builtin.type, kind);
      if (problem) diagnostics.push(source.diagnosticAt([...path, 'type'], 'PCO110', problem));
    }
    if (service.config === undefined) service.config = structuredClone(builtin?.config ?? {});
    if (isRecord(service.config)) diagnostics.push(...validateWithSchema(kind.configSchema, service.config, source, [...path, 'config']));
  }
  for (const builtin of builtinServices) {
    if (!firstIndex.has(builtin.name) && !kinds.getServiceKind(builtin.type)) {
      diagnostics.push(source.diagnosticAt([], 'PCO112', `The built-in service '${builtin.name}' needs service type '${builtin.type}', which is not registered.`));
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
