/**
 * The hook events of a service as the `Events` interface of its types.ts, and of the whole
 * platform as events.ts: each event (named by runtime/http/hook-events.ts, as the runtime fires
 * and GET /system/event lists them) with the data its hooks receive and may return, for
 * `defineHooks<Events>({...})` of portico/runtime (runtime/http/hooks.ts says what the data is).
 * events.ts also has `Api`, the database services' tables for the in-process API of hooks and
 * custom endpoints (`defineHooks<Events, Api>`, `defineEndpoints<Api>`).
 */
import { eventName, HOOK_PHASES, pathSegments, type HookPhase } from '../../runtime/http/hook-events.js';
import type { PlatformModel, SoapServiceModel, SqlServiceModel, TableModel, Verb } from '../../runtime/model/platform-model.js';
import { internalServiceFragment } from '../../runtime/openapi/model-fragment.js';
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

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

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

/** The events of the runtime's own services (system, user, api_docs): every path and verb of their documents, the bodies as they are. */
function builtinEvents(model: PlatformModel): EventEntry[] {
  return model.services.flatMap((service) => {
    const fragment = internalServiceFragment(service.type);
    if (fragment === null) return [];
    return Object.entries(fragment.paths)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([path, item]) =>
        METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).flatMap((method) =>
          both(service.name, pathSegments(path), method, 'unknown', 'unknown'),
        ),
      );
  });
}

/** A TypeScript identifier for a service's `Events` (or `suffix`) in events.ts (`db` -> `DbEvents`). */
function aliasOf(service: string, taken: Set<string>, suffix = 'Events'): string {
  const base = `${service.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase()).replace(/^[^A-Za-z_$]*/, '')}`;
  let alias = `${base.charAt(0).toUpperCase()}${base.slice(1)}${suffix}`;
  for (let n = 2; taken.has(alias); n++) alias = `${base.charAt(0).toUpperCase()}${base.slice(1)}${suffix}${n}`;
  taken.add(alias);
  return alias;
}

/** events.ts: every hook event of the platform, from the services' types.ts and the runtime's own services. */
export function createEventsFile(model: PlatformModel): string {
  const taken = new Set(['BuiltinEvents', 'Events', 'Api', 'ApiTables']);
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
  const statements: Declaration[] = [
    { kind: 'typeImport', names: ['ApiTables'], from: RUNTIME_SPECIFIER },
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
  ];
  const apis = typed.flatMap(({ service, tables }) =>
    tables === null ? [] : [`ApiTables<${JSON.stringify(service)}, ${tables.tables}, ${tables.inserts}, ${tables.updates}>`],
  );
  statements.push(
    {
      kind: 'interface',
      name: 'BuiltinEvents',
      doc: docText(
        "Hook events of the runtime's own services (`system`, `user`, `api_docs`): the request and response bodies as they are.",
      ),
      properties: builtinEvents(model).map(([name, type]) => ({ name: propertyKey(name), type })),
    },
    {
      kind: 'typeAlias',
      name: 'Events',
      doc: docText(
        'Every hook event of the platform with the data its hooks receive and may return: `export default defineHooks<Events>({...})` of portico/runtime in a module platform.yaml names under `hooks`.',
      ),
      type: [...typed.map(({ alias }) => alias), 'BuiltinEvents'].join(' & '),
    },
    {
      kind: 'typeAlias',
      name: 'Api',
      doc: docText(
        "The tables of the platform's database services as the in-process API of hooks and custom endpoints sees them (`ctx.api.table('db', 'contact')`): `defineHooks<Events, Api>({...})` and `defineEndpoints<Api>({...})` of portico/runtime.",
      ),
      type: apis.length === 0 ? 'Record<never, never>' : apis.join(' & '),
    },
  );
  return printTypeScript(statements);
}
