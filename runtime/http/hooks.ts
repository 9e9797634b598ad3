/**
 * Typed pre- and post-process hooks (issue 17): the user's own TypeScript, declared in
 * platform.yaml, default-exporting `defineHooks({...})` keyed by the reference's event names
 * (`{service}._table.{table}.{verb}.pre_process` / `.post_process`). A pre_process hook sees and
 * may replace the records a write sends; a post_process hook sees and may replace the records a
 * call answers with. A hook refuses with a thrown PorticoError (its status and message, in the
 * spec's envelope); anything else it throws is a 500 with a generic message.
 */
import { PorticoError } from '../core/errors.js';
import type { AuthContext } from '../auth/auth-context.js';
import type { RawQuery } from '../core/query-params.js';
import type { Verb } from '../model/platform-model.js';
import type { ServiceResult } from '../services/service-kind.js';

/** What a hook is told about the request besides its records. */
export interface HookContext {
  event: string;
  service: string;
  table: string;
  verb: Verb;
  query: RawQuery;
  auth: AuthContext;
}

/** A hook: may return replacement records; returning nothing keeps them as they are. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook written without a return statement returns void.
export type Hook<R> = (records: R[], context: HookContext) => R[] | undefined | void | Promise<R[] | undefined | void>;

/** The hook events of a SQL service's tables, with the records each one sees (from the generated `Tables`, `TableInserts`, `TableUpdates`). */
export type TableEvents<S extends string, T, I = T, U = T> = { [K in keyof T & string as `${S}._table.${K}.get.post_process`]: T[K] } & {
  [K in keyof T & string as `${S}._table.${K}.${'post' | 'put' | 'patch' | 'delete'}.post_process`]: T[K];
} & { [K in keyof I & string as `${S}._table.${K}.${'post' | 'put'}.pre_process`]: I[K] } & {
  [K in keyof U & string as `${S}._table.${K}.patch.pre_process`]: U[K];
};

/** A module's hooks, by event name. */
export type HookSet<E = Record<string, unknown>> = { [K in keyof E]?: Hook<E[K]> };

/** Declares a module's hooks; `E` is an event map such as `TableEvents<'db', Tables, TableInserts, TableUpdates>`. */
export function defineHooks<E>(hooks: HookSet<E>): HookSet<E> {
  return hooks;
}

/** The hooks of a platform, by event; several modules may hook one event (run in declaration order). */
export class HookRegistry {
  private readonly byEvent = new Map<string, Array<Hook<unknown>>>();
  private readonly services = new Set<string>();

  constructor(sets: ReadonlyArray<Record<string, unknown>> = []) {
    for (const set of sets) {
      for (const [event, hook] of Object.entries(set)) {
        if (typeof hook !== 'function') throw new TypeError(`Hook '${event}' is not a function.`);
        const list = this.byEvent.get(event) ?? [];
        list.push(hook as Hook<unknown>);
        this.byEvent.set(event, list);
        this.services.add(event.split('.')[0]);
      }
    }
  }

  get size(): number {
    return this.byEvent.size;
  }

  /** Whether any hook is attached to an event of this service (the fast path when none is). */
  touches(service: string): boolean {
    return this.services.has(service);
  }

  /** The names of the events with hooks, and how many each has. */
  attached(): Map<string, number> {
    return new Map([...this.byEvent].map(([event, hooks]) => [event, hooks.length]));
  }

  private async run(event: string, records: unknown[], context: Omit<HookContext, 'event'>): Promise<unknown[]> {
    let current = records;
    for (const hook of this.byEvent.get(event) ?? []) {
      let result: unknown;
      try {
        result = await hook(current, { ...context, event });
      } catch (error) {
        if (error instanceof PorticoError) throw error;
        throw new HookFailure(event, error);
      }
      if (result !== undefined) {
        if (!Array.isArray(result)) throw new HookFailure(event, new TypeError('a hook must return an array of records or nothing'));
        current = result;
      }
    }
    return current;
  }

  /** Runs a `_table` call through its pre_process and post_process hooks. */
  async aroundTable(
    service: string,
    table: string,
    call: { verb: Verb; query: RawQuery; body: unknown; auth: AuthContext },
    operation: (body: unknown) => Promise<ServiceResult>,
  ): Promise<ServiceResult> {
    const base = `${service}._table.${table}.${call.verb.toLowerCase()}`;
    const context = { service, table, verb: call.verb, query: call.query, auth: call.auth };
    let body = call.body;
    if (this.byEvent.has(`${base}.pre_process`) && body !== undefined && body !== null) {
      body = fromRecords(body, await this.run(`${base}.pre_process`, toRecords(body), context));
    }
    const result = await operation(body);
    if (this.byEvent.has(`${base}.post_process`) && (result.status ?? 200) < 400 && result.body !== undefined && result.body !== null) {
      return { ...result, body: fromRecords(result.body, await this.run(`${base}.post_process`, toRecords(result.body), context)) };
    }
    return result;
  }
}

/** A hook's unexpected exception: a 500 with a generic message; the cause goes to the log, never the client. */
export class HookFailure extends Error {
  constructor(
    readonly event: string,
    readonly cause: unknown,
  ) {
    super(`Hook on '${event}' failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** The records of a body: `{resource: [...]}`, an array, or one record. */
function toRecords(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (typeof body === 'object' && body !== null && Array.isArray((body as { resource?: unknown }).resource))
    return (body as { resource: unknown[] }).resource;
  return [body];
}

/** Puts records back in the shape the body had. */
function fromRecords(body: unknown, records: unknown[]): unknown {
  if (Array.isArray(body)) return records;
  if (typeof body === 'object' && body !== null && Array.isArray((body as { resource?: unknown }).resource))
    return { ...(body as object), resource: records };
  return records.length === 1 ? records[0] : records;
}
