/**
 * The hook events of a service as the `Events` interface of its types.ts, and of the whole
 * platform as events.ts: each event (named by runtime/http/hook-events.ts, as the runtime fires
 * and GET /system/event lists them) with the data its hooks receive and may return, for
 * `defineHooks<Events>({...})` of portico/runtime (runtime/http/hooks.ts says what the data is).
 * The events of the other services (the runtime's own, files, email, custom endpoints...) are
 * types of portico/runtime that events.ts names (runtime/http/service-events.ts).
 * events.ts also has `Api`, the database services' tables for the in-process API of hooks and
 * custom endpoints (`defineHooks<Events, Api>`, `defineEndpoints<Api>`).
 */
import { endpointPattern, eventName, HOOK_PHASES, pathSegments, QUEUED_PHASE, type HookPhase } from '../../runtime/http/hook-events.js';
import { documentedEndpoints, INTERNAL_SERVICE_PATHS } from '../../runtime/http/service-events.js';
import type {
  PlatformModel,
  ServiceModel,
  SoapServiceModel,
  SqlServiceModel,
  TableModel,
  Verb,
} from '../../runtime/model/platform-model.js';
import { modelFragment } from '../../runtime/openapi/model-fragment.js';
import { documentedNames } from '../../runtime/services/soap/operation-names.js';
import {
  docText,
  printTypeScript,
  propertyKey,
  RUNTIME_SPECIFIER,
  type Declaration,
  type InterfaceDeclaration,
} from './typescript-printer.js';

/** An event and the TypeScript type of what its hooks see. */
type EventEntry = [name: string, type: string];

/** The type names of one table in types.ts (insert and update are null for a view). */
export interface TableTypeNames {
  table: TableModel;
  record: string;
  insert: string | null;
  update: string | null;
}

/** `Foo[]`, or `Array<...>` for a type that is not a plain name. */
function arrayOf(type: string): string {
  return /^[\w.]+$/.test(type) ? `${type}[]` : `Array<${type}>`;
}

function both(service: string, path: string[], verb: Verb | Lowercase<Verb>, pre: string, post: string): EventEntry[] {
  return HOOK_PHASES.map((phase: HookPhase) => [eventName(service, path, verb, phase), phase === 'pre_process' ? pre : post]);
}

/**
 * A database service's events: its root, each table's `_table/{name}` and `_table/{name}/{id}`
 * (records: none for a read, the inserts or updates a write sends; what a read answers, the
 * identifiers or fields a write answers), each routine (the body of a POST, nothing for a GET:
 * its arguments are in the query; what the routine answers).
 */
export function databaseEvents(
  service: SqlServiceModel,
  tables: readonly TableTypeNames[],
): { entries: EventEntry[]; routineRequest: boolean } {
  const name = service.name;
  const entries: EventEntry[] = both(name, [], 'get', 'undefined', 'unknown');
  for (const { table, record, insert, update } of tables) {
    const written = arrayOf(`Partial<${record}>`);
    for (const path of [
      ['_table', table.name],
      ['_table', table.name, '{id}'],
    ]) {
      const one = path.length === 3;
      entries.push(...both(name, path, 'get', '[]', arrayOf(record)));
      if (insert === null || update === null) continue;
      if (!one) entries.push(...both(name, path, 'post', arrayOf(insert), written));
      entries.push(...both(name, path, 'put', arrayOf(insert), written));
      entries.push(...both(name, path, 'patch', arrayOf(update), written));
      entries.push(...both(name, path, 'delete', one ? '[]' : written, written));
    }
  }
  for (const routine of service.schema.routines) {
    const path = [routine.kind === 'procedure' ? '_proc' : '_func', routine.name];
    entries.push(...both(name, path, 'get', 'undefined', 'unknown'), ...both(name, path, 'post', 'RoutineRequest', 'unknown'));
  }
  return { entries, routineRequest: service.schema.routines.length > 0 };
}

/** A SOAP service's events: each operation by its documented name (the request a POST sends, nothing for a GET: its fields are in the query; the response). */
export function soapEvents(service: SoapServiceModel, types: ReadonlyArray<{ request: string; response: string }>): EventEntry[] {
  const names = documentedNames(service.operations.map((operation) => operation.name));
  return service.operations.flatMap((operation, index) => [
    ...both(service.name, [names[index]], 'post', types[index].request, types[index].response),
    ...(operation.simpleInput ? both(service.name, [names[index]], 'get', 'undefined', types[index].response) : []),
  ]);
}

/**
 * Whether an event name is one the platform raises (as the dispatch names its requests' events):
 * a database's, case-insensitively (its tables and routines are), a SOAP operation's, or one on a
 * path of another service's OpenAPI document. `gen build` warns of a hook on any other event: it
 * would never run (a table created later through `_schema` excepted).
 */
export function platformEvents(model: PlatformModel): (event: string) => boolean {
  const folded = new Set<string>();
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const service of model.services) {
    if (service.kind === 'sql') {
      const tables = service.schema.tables.map((table) => ({
        table,
        record: 'R',
        insert: table.isView ? null : 'I',
        update: table.isView ? null : 'U',
      }));
      for (const [name] of databaseEvents(service, tables).entries) folded.add(name.toLowerCase());
    } else if (service.kind === 'soap') {
      for (const [name] of soapEvents(
        service,
        service.operations.map(() => ({ request: '', response: '' })),
      ))
        exact.add(name);
    } else {
      for (const [path, item] of Object.entries(modelFragment(service).paths)) {
        for (const verb of ['get', 'post', 'put', 'patch', 'delete'] as const) {
          if ((item as Record<string, unknown>)[verb] !== undefined)
            patterns.push(endpointPattern(service.name, pathSegments(path), verb).pattern);
        }
      }
    }
  }
  const queued = `.${QUEUED_PHASE}`;
  return (event) => {
    // A queued hook follows the operation its post_process hook does.
    const phased = event.endsWith(queued) ? `${event.slice(0, -queued.length)}.post_process` : event;
    return exact.has(phased) || folded.has(phased.toLowerCase()) || patterns.some((pattern) => pattern.test(event));
  };
}

/** The `Events` interface of a service's types.ts. */
export function eventsInterface(service: string, entries: readonly EventEntry[]): InterfaceDeclaration {
  return {
    kind: 'interface',
    name: 'Events',
    doc: docText(
      `Hook events of the \`${service}\` service, with the data each hook receives and may return: \`defineHooks<Events>({...})\` of portico/runtime.`,
    ),
    properties: entries.map(([name, type]) => ({ name: propertyKey(name), type })),
  };
}

/**
 * The events of a service whose bodies the generated types do not describe, as a type of
 * portico/runtime (service-events.ts): a service of one of the runtime's own types by its type,
 * any other by the paths of its OpenAPI document; null for a database or SOAP service (their
 * types.ts has their `Events`) and for a service with no paths.
 */
function untypedEvents(service: ServiceModel): string | null {
  if (service.kind === 'sql' || service.kind === 'soap') return null;
  const name = JSON.stringify(service.name);
  if (Object.hasOwn(INTERNAL_SERVICE_PATHS, service.type)) return `InternalServiceEvents<${JSON.stringify(service.type)}, ${name}>`;
  const endpoints = documentedEndpoints(modelFragment(service).paths);
  return endpoints.length === 0 ? null : `EndpointEvents<${name}, ${endpoints.map((endpoint) => JSON.stringify(endpoint)).join(' | ')}>`;
}

/** A TypeScript identifier for a service's `Events` (or `suffix`) in events.ts (`db` -> `DbEvents`). */
function aliasOf(service: string, taken: Set<string>, suffix = 'Events'): string {
  const base = `${service.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase()).replace(/^[^A-Za-z_$]*/, '')}`;
  let alias = `${base.charAt(0).toUpperCase()}${base.slice(1)}${suffix}`;
  for (let n = 2; taken.has(alias); n++) alias = `${base.charAt(0).toUpperCase()}${base.slice(1)}${suffix}${n}`;
  taken.add(alias);
  return alias;
}

/** events.ts: every hook event of the platform, from the services' types.ts and portico/runtime. */
export function createEventsFile(model: PlatformModel): string {
  const runtimeTypes = ['ApiTables', 'EndpointEvents', 'InternalServiceEvents'];
  const taken = new Set(['Events', 'Api', ...runtimeTypes]);
  const typed = model.services
    .filter((service) => service.kind === 'sql' || service.kind === 'soap')
    .map((service) => ({
      service: service.name,
      alias: aliasOf(service.name, taken),
      // The database services' record types, for `Api`.
      tables:
        service.kind === 'sql'
          ? {
              tables: aliasOf(service.name, taken, 'Tables'),
              inserts: aliasOf(service.name, taken, 'TableInserts'),
              updates: aliasOf(service.name, taken, 'TableUpdates'),
            }
          : null,
    }));
  const events = [...typed.map(({ alias }) => alias), ...model.services.flatMap((service) => untypedEvents(service) ?? [])];
  const apis = typed.flatMap(({ service, tables }) =>
    tables === null ? [] : [`ApiTables<${JSON.stringify(service)}, ${tables.tables}, ${tables.inserts}, ${tables.updates}>`],
  );
  const used = runtimeTypes.filter((name) => name === 'ApiTables' || events.some((type) => type.startsWith(`${name}<`)));
  const statements: Declaration[] = [
    { kind: 'typeImport', names: used, from: RUNTIME_SPECIFIER },
    ...typed.map(
      ({ service, alias, tables }): Declaration => ({
        kind: 'typeImport',
        names: [
          `Events as ${alias}`,
          ...(tables === null
            ? []
            : [`TableInserts as ${tables.inserts}`, `TableUpdates as ${tables.updates}`, `Tables as ${tables.tables}`]),
        ],
        from: `./services/${service}/types.js`,
      }),
    ),
    {
      kind: 'typeAlias',
      name: 'Events',
      doc: docText(
        "Every hook event of the platform with the data its hooks receive and may return (the databases' and SOAP services' from their types.ts; the other services' on the paths of their OpenAPI documents, the bodies as they are): `export default defineHooks<Events>({...})` of portico/runtime in a module platform.yaml names under `hooks`.",
      ),
      // One service a line: a file service has many endpoints.
      type: events.length === 0 ? 'Record<never, never>' : events.join(' &\n  '),
    },
    {
      kind: 'typeAlias',
      name: 'Api',
      doc: docText(
        "The tables of the platform's database services as the in-process API of hooks and custom endpoints sees them (`ctx.api.table('db', 'contact')`): `defineHooks<Events, Api>({...})` and `defineEndpoints<Api>({...})` of portico/runtime.",
      ),
      type: apis.length === 0 ? 'Record<never, never>' : apis.join(' & '),
    },
  ];
  return printTypeScript(statements);
}
