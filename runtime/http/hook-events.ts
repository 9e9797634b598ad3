/**
 * Event names (reference 5.10): `{service}.{path with / as .}.{verb}`, with `.pre_process` or
 * `.post_process` for the hooks around it (`db._table.contact.post.pre_process`). `eventName` is
 * the one place they are built: the dispatch names the event of a request with it, GET
 * /system/event names the events of a service's OpenAPI paths with it, and the generator names
 * the keys of the generated `Events` types with it.
 *
 * A request's event follows the path it matches: `_table/contact/7` is `db._table.contact.{id}`,
 * `_proc/bump` is `db._proc.bump` (the listing's `{procedure_name}` filled in), a SOAP operation
 * is its documented name (`calc.add`), `system/role/3` is `system.role.{id}`.
 */
import type { ServiceModel, SoapServiceModel, Verb } from '../model/platform-model.js';
import { documentedNames, operationsByApiName, operationsByExactName } from '../services/soap/operation-names.js';
import { splitInlineCall } from '../services/sql/routines/routine-arguments.js';
import { decodePercent } from '../core/percent-decoding.js';

/** The phases whose hooks see the data and may change it: before the operation and after it. */
export type HookPhase = 'pre_process' | 'post_process';

export const HOOK_PHASES: readonly HookPhase[] = ['pre_process', 'post_process'];

/**
 * The reference's third variant (`db._table.contact.post.queued`): a hook run once the answer has
 * gone, on what a post_process hook would see; it cannot change the answer, and what it throws is
 * logged, never sent.
 */
export const QUEUED_PHASE = 'queued';

/** Every phase an event name may end with. */
export type EventPhase = HookPhase | typeof QUEUED_PHASE;

export const EVENT_PHASES: readonly EventPhase[] = [...HOOK_PHASES, QUEUED_PHASE];

/** `{service}.{path...}.{verb}[.{phase}]`, the verb lower-cased. */
export function eventName(service: string, path: readonly string[], verb: Verb | Lowercase<Verb>, phase?: HookPhase): string {
  // Built by concatenation: the dispatch names the event of every hooked request with it.
  let name = service;
  for (const part of path) name += `.${part}`;
  name += `.${LOWER_VERBS[verb] ?? verb.toLowerCase()}`;
  return phase === undefined ? name : `${name}.${phase}`;
}

const LOWER_VERBS: Readonly<Partial<Record<string, Lowercase<Verb>>>> = {
  GET: 'get',
  POST: 'post',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'delete',
  get: 'get',
  post: 'post',
  put: 'put',
  patch: 'patch',
  delete: 'delete',
};

/** The segments of an OpenAPI path (`/_table/contact/{id}` -> `_table`, `contact`, `{id}`). */
export function pathSegments(openApiPath: string): string[] {
  return openApiPath
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodePercent(part) ?? part);
}

/**
 * Placeholders of the listing's generic paths that a request's event fills in with the name it
 * calls (`/_table/{table_name}` -> `db._table.contact`); `{id}` and the rest stay as written.
 */
export const NAMED_PLACEHOLDERS: ReadonlySet<string> = new Set(['{table_name}', '{procedure_name}', '{function_name}']);

/** The event path of a database service's request: `_table/{table}[/{id}]`, `_proc/{name}`, `_func/{name}`; null for the rest. */
export function databaseEventPath(resource: readonly string[]): string[] | null {
  const [segment, name, id] = resource;
  if (name === undefined) return null;
  if (segment === '_table' && resource.length <= 3) return id === undefined ? ['_table', name] : ['_table', name, '{id}'];
  if ((segment === '_proc' || segment === '_func') && resource.length === 2) return [segment, splitInlineCall(name).name];
  return null;
}

const soapNames = new WeakMap<SoapServiceModel, { exact: Map<string, string>; anyCase: Map<string, string> }>();

/** The event path of a SOAP operation call: its documented name (as the service's OpenAPI path). */
export function soapEventPath(model: ServiceModel, resource: readonly string[]): string[] | null {
  if (resource.length !== 1) return null;
  const requested = resource[0].toLowerCase();
  if (model.kind !== 'soap' || model.operations.length === 0) return [requested.replace(/_/g, '')];
  let names = soapNames.get(model);
  if (names === undefined) {
    const documented = documentedNames(model.operations.map((operation) => operation.name));
    const index = new Map(model.operations.map((operation, i) => [operation, documented[i]]));
    // As the handler finds the operation (LiveContract.operation): a name spelt exactly, else ignoring case.
    names = {
      exact: new Map([...operationsByExactName(model.operations)].map(([name, operation]) => [name, index.get(operation)!])),
      anyCase: new Map([...operationsByApiName(model.operations)].map(([apiName, operation]) => [apiName, index.get(operation)!])),
    };
    soapNames.set(model, names);
  }
  return [names.exact.get(resource[0]) ?? names.anyCase.get(requested) ?? requested];
}

interface PathTemplate {
  /** The document's path, as written there. */
  path: string;
  segments: string[];
  /** The document's path ends with `/` (a file service's `/{folder_path}/`). */
  trailingSlash: boolean;
}

/**
 * The paths of a service's OpenAPI document, matched against requests. With `restOfPath` (file
 * services, whose `{file_path}` and `{folder_path}` may hold `/`), a template's last placeholder
 * takes every remaining segment of the request.
 */
export class PathTemplates {
  private readonly templates: PathTemplate[];

  constructor(
    openApiPaths: Iterable<string>,
    private readonly restOfPath = false,
  ) {
    this.templates = [...openApiPaths].map((path) => ({
      path,
      segments: pathSegments(path),
      trailingSlash: path.length > 1 && path.endsWith('/'),
    }));
  }

  /**
   * The template a request's path matches, literal segments before placeholders and then the one
   * whose trailing slash the request has (`docs/` is a folder, `docs/a.txt` a file); null when
   * none does.
   */
  match(resource: readonly string[], trailingSlash = false): string[] | null {
    const best = this.best(resource, trailingSlash);
    return best === null ? null : best.segments.map((part, i) => (NAMED_PLACEHOLDERS.has(part) ? resource[i] : part));
  }

  /** The document's path a request's path matches (as `match` chooses it), or null. */
  documentPath(resource: readonly string[], trailingSlash = false): string | null {
    return this.best(resource, trailingSlash)?.path ?? null;
  }

  private best(resource: readonly string[], trailingSlash: boolean): PathTemplate | null {
    let best: PathTemplate | null = null;
    let bestScore = -1;
    for (const candidate of this.templates) {
      const { segments: template, trailingSlash: slashed } = candidate;
      const last = template.length - 1;
      const rest = this.restOfPath && last >= 0 && isPlaceholder(template[last]);
      if (rest ? resource.length < template.length : template.length !== resource.length) continue;
      // Literal segments weigh by position (2 per later segment less), the trailing slash least.
      let score = slashed === trailingSlash ? 1 : 0;
      let fits = true;
      for (let i = 0; i < template.length && fits; i++) {
        const part = template[i];
        if (isPlaceholder(part)) continue;
        if (part.toLowerCase() === resource[i].toLowerCase()) score += 2 ** (template.length - i + 1);
        else fits = false;
      }
      if (fits && score > bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    return best;
  }
}

const isPlaceholder = (part: string) => part.startsWith('{') && part.endsWith('}');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The events of a listed endpoint (a path template and verb) as a pattern over event names with
 * any phase, a named placeholder standing for any name; `literal` counts the path's other
 * segments, so that of two endpoints matching an event the more specific one can be chosen.
 */
export function endpointPattern(
  service: string,
  path: readonly string[],
  verb: Verb | Lowercase<Verb>,
): { pattern: RegExp; literal: number } {
  const parts = [service, ...path, verb.toLowerCase()].map((part) => (NAMED_PLACEHOLDERS.has(part) ? '.+' : escapeRegExp(part)));
  return {
    pattern: new RegExp(`^${parts.join('\\.')}\\.(?:${EVENT_PHASES.join('|')})$`),
    literal: path.filter((part) => !NAMED_PLACEHOLDERS.has(part)).length,
  };
}
