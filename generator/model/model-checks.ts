/**
 * Checks of platform.yaml against what introspection found, run on the built model: role grants
 * naming tables, procedures, functions or SOAP operations that do not exist (PCO202), row filters
 * naming missing columns (PCO203) or that the runtime could not apply (PCO204). Every problem is
 * returned, positioned at its place in platform.yaml. Pure: filters go through the runtime's own
 * filter code (row-filters.ts, filter-fields.ts, filter-compiler.ts), exactly as a request would.
 */
import { PorticoError } from '../../runtime/core/errors.js';
import type {
  PlatformModel,
  RowFilterModel,
  ServiceModel,
  SoapServiceModel,
  SqlServiceModel,
  TableModel,
} from '../../runtime/model/platform-model.js';
import { ROUTINE_RESOURCES, SQL_CAPABILITIES } from '../../runtime/services/sql/dialects/dialect-capabilities.js';
import { compileFilter } from '../../runtime/services/sql/filter/filter-compiler.js';
import { resolveField } from '../../runtime/services/sql/filter/filter-fields.js';
import type { FilterNode } from '../../runtime/services/sql/filter/filter-parser.js';
import { rowFiltersToNode } from '../../runtime/services/sql/filter/row-filters.js';
import { operationsByApiName } from '../../runtime/services/soap/operation-names.js';
import type { GrantConfig, PlatformConfig } from '../config/platform-config.js';
import { isRecord } from '../config/loose-data.js';
import type { YamlSource } from '../config/yaml-source.js';
import { didYouMean, type Diagnostic } from '../diagnostics.js';

/** Resources of a SQL service a grant's component may start with. */
const SQL_RESOURCES = ['_table', '_schema'];
/** `{user.id}` and other lookups: resolved per caller, so their values are not checked at build time. */
const LOOKUP = /\{[^{}\s]+\}/;

export interface ModelCheckOptions {
  /** Services whose introspection failed: their grants cannot be checked (the failure is reported). */
  unavailable?: ReadonlySet<string>;
}

/** Every problem of the config's grants and row filters against the model. */
export function checkModel(
  model: PlatformModel,
  config: PlatformConfig,
  source: YamlSource,
  options: ModelCheckOptions = {},
): Diagnostic[] {
  const unavailable = options.unavailable ?? new Set<string>();
  const diagnostics: Diagnostic[] = [];
  config.roles.forEach((role, roleIndex) => {
    role.grants.forEach((grant, grantIndex) => {
      const at: GrantPlace = { source, path: ['roles', roleIndex, 'grants', grantIndex], role: role.name, diagnostics };
      if (grant.service === '*') {
        const services = model.services.filter(
          (service): service is SqlServiceModel => service.kind === 'sql' && !unavailable.has(service.name),
        );
        checkFilters(
          at,
          grant,
          services.flatMap((service) => service.schema.tables.map((table) => ({ service, table }))),
        );
        return;
      }
      const service = findService(model, grant.service);
      if (service === undefined || unavailable.has(service.name)) return;
      if (service.kind === 'sql')
        checkFilters(
          at,
          grant,
          checkSqlComponent(at, grant, service).map((table) => ({ service, table })),
        );
      else if (service.kind === 'soap') checkSoapComponent(at, grant, service);
    });
  });
  return diagnostics;
}

interface GrantPlace {
  source: YamlSource;
  /** `['roles', i, 'grants', j]`. */
  path: Array<string | number>;
  role: string;
  diagnostics: Diagnostic[];
}

function where(at: GrantPlace): string {
  return `roles[${at.path[1]}].grants[${at.path[3]}] (role '${at.role}')`;
}

function findService(model: PlatformModel, name: string): ServiceModel | undefined {
  return (
    model.services.find((service) => service.name === name) ??
    model.services.find((service) => service.name.toLowerCase() === name.toLowerCase())
  );
}

/** The component as the access check compares it: lower case, without surrounding slashes. */
function normalise(component: string): string {
  return component
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
}

/** Whether a grant's component covers a concrete component, by the rules of runtime/auth/access.ts. */
function covers(granted: string, component: string): boolean {
  if (granted === '*' || granted === component) return true;
  const star = granted.indexOf('*');
  if (star > 0) return star === granted.length - 1 && `${component}/`.startsWith(granted.slice(0, star));
  return granted !== '' && component.startsWith(`${granted}/`);
}

/** Checks the table, procedure or function a grant names; returns the tables it covers (for its row filters). */
function checkSqlComponent(at: GrantPlace, grant: GrantConfig, service: SqlServiceModel): TableModel[] {
  const granted = normalise(grant.component);
  const { tables, routines } = service.schema;
  const hasRoutines = SQL_CAPABILITIES[service.dialect].routines;
  const concrete = [
    ...tables.map((table) => `_table/${table.name.toLowerCase()}`),
    ...routines.map((routine) => `${routine.kind === 'procedure' ? '_proc' : '_func'}/${routine.name.toLowerCase()}`),
  ];
  const covered = tables.filter((table) => covers(granted, `_table/${table.name.toLowerCase()}`));
  const report = (message: string) => at.diagnostics.push(at.source.diagnosticAt([...at.path, 'component'], 'PCO202', message));
  if (granted === '' || granted === '*') return covered;

  const [resource, name] = granted.split('/');
  const resources = hasRoutines ? [...SQL_RESOURCES, ...ROUTINE_RESOURCES] : SQL_RESOURCES;
  const star = granted.indexOf('*');
  if (star >= 0) {
    // A wildcard naming part of a table or routine (`_table/ord*`) must match one.
    if (name !== undefined && name !== '*' && resource !== '_schema' && !concrete.some((component) => covers(granted, component))) {
      report(`'${grant.component}' in ${where(at)} matches nothing in service '${service.name}'.`);
    }
    return covered;
  }
  if (!hasRoutines && (ROUTINE_RESOURCES as readonly string[]).includes(resource)) {
    report(
      `'${grant.component}' in ${where(at)} names a procedure or function, which service '${service.name}' (${service.type}) cannot have.`,
    );
    return covered;
  }
  if (!resources.includes(resource)) {
    const known = hasRoutines ? "'_table', '_schema', '_proc' or '_func'" : "'_table' or '_schema'";
    report(
      `Unknown resource '${resource}' in ${where(at)}: a component of service '${service.name}' starts with ${known}.${didYouMean(resource, resources)}`,
    );
    return covered;
  }
  if (name === undefined || name === '' || resource === '_schema') return covered;
  if (resource === '_table') {
    if (!tables.some((table) => table.name.toLowerCase() === name)) {
      const names = tables.map((table) => table.name);
      report(`Unknown table '${name}' in ${where(at)}: service '${service.name}' has no such table.${didYouMean(name, names)}`);
    }
    return covered;
  }
  const kind = resource === '_proc' ? 'procedure' : 'function';
  const names = routines.filter((routine) => routine.kind === kind).map((routine) => routine.name);
  if (!names.some((routine) => routine.toLowerCase() === name)) {
    report(`Unknown ${kind} '${name}' in ${where(at)}: service '${service.name}' has no such ${kind}.${didYouMean(name, names)}`);
  }
  return covered;
}

/** A SOAP service's components are its operations, by WSDL or documented name, in any case. */
function checkSoapComponent(at: GrantPlace, grant: GrantConfig, service: SoapServiceModel): void {
  const granted = normalise(grant.component);
  if (granted === '' || granted === '*') return;
  const apiNames = [
    ...operationsByApiName(service.operations).keys(),
    ...service.operations.map((operation) => operation.sourceName.toLowerCase()),
  ];
  const [name] = granted.split('/');
  const report = (message: string) => at.diagnostics.push(at.source.diagnosticAt([...at.path, 'component'], 'PCO202', message));
  if (granted.includes('*')) {
    if (!apiNames.some((operation) => covers(granted, operation)))
      report(`'${grant.component}' in ${where(at)} matches no operation of service '${service.name}'.`);
    return;
  }
  if (!apiNames.includes(name)) {
    const names = service.operations.map((operation) => operation.sourceName);
    report(`Unknown operation '${name}' in ${where(at)}: service '${service.name}' has no such operation.${didYouMean(name, names)}`);
  }
}

/** Each row filter of a grant: valid for the runtime's filter code, naming a column of every table the grant covers. */
function checkFilters(at: GrantPlace, grant: GrantConfig, tables: Array<{ service: SqlServiceModel; table: TableModel }>): void {
  grant.filters.forEach((declared, index) => {
    const path = [...at.path, 'filters', index];
    const filter: RowFilterModel = { name: declared.name, operator: declared.operator, value: String(declared.value) };
    const text = `'${filter.name} ${filter.operator} ${filter.value}'`;
    let node: FilterNode | null;
    try {
      // Lookups stay as written: their values are the caller's, known at run time.
      node = rowFiltersToNode([filter], 'and', () => undefined);
    } catch (error) {
      const reason =
        error instanceof PorticoError && isRecord(error.context) && typeof error.context.reason === 'string'
          ? error.context.reason
          : error instanceof Error
            ? error.message
            : String(error);
      at.diagnostics.push(
        at.source.diagnosticAt([...path, 'value'], 'PCO204', `Row filter ${text} in ${where(at)} is invalid: ${reason}.`),
      );
      return;
    }
    if (node === null || !('field' in node)) return;
    const field = node.field;
    const missing = tables.filter(
      ({ service, table }) => !resolves(() => resolveField(field, { table, schema: service.schema, qualifier: table.sourceName })),
    );
    if (missing.length > 0) {
      at.diagnostics.push(at.source.diagnosticAt([...path, 'name'], 'PCO203', missingFieldMessage(filter.name, missing, at)));
      return;
    }
    if (LOOKUP.test(filter.value)) return;
    for (const { service, table } of tables) {
      try {
        compileFilter(node, { table, schema: service.schema, dialect: service.dialect });
      } catch (error) {
        if (!(error instanceof PorticoError)) throw error;
        at.diagnostics.push(
          at.source.diagnosticAt(
            [...path, 'value'],
            'PCO204',
            `Row filter ${text} in ${where(at)} cannot apply to table '${table.name}' of service '${service.name}': ${error.message}`,
          ),
        );
        return;
      }
    }
  });
}

function missingFieldMessage(name: string, missing: Array<{ service: SqlServiceModel; table: TableModel }>, at: GrantPlace): string {
  if (missing.length === 1) {
    const [{ service, table }] = missing;
    const fields = table.fields.map((field) => field.name);
    const hint = name.includes('.') ? '' : didYouMean(name, fields);
    return `Row filter field '${name}' in ${where(at)} is not a column of table '${table.name}' of service '${service.name}'.${hint}`;
  }
  const shown = missing.slice(0, 3).map(({ service, table }) => `'${service.name}.${table.name}'`);
  const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
  return `Row filter field '${name}' in ${where(at)} is not a column of tables ${shown.join(', ')}${more}, which the grant covers.`;
}

function resolves(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch (error) {
    if (error instanceof PorticoError) return false;
    throw error;
  }
}
