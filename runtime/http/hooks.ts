/**
 * Typed pre- and post-process hooks (issue 17): the user's own TypeScript, declared in
 * platform.yaml, exporting `defineHooks({...})` keyed by the reference's event names
 * (hook-events.ts: `{service}._table.{table}.{verb}.pre_process`, `db._proc.{name}.post.post_process`,
 * `calc.add.post.pre_process`, `system.role.post.pre_process`, ...).
 *
 * What a hook receives and may replace (returning nothing keeps it):
 * - `_table` events: records. A pre_process hook the records the request sends (none for a read),
 *   their column values as the generated types promise them (a database's `hookRecords`: `"5"`
 *   for an integer column is 5; a value that cannot be is the write's 400, before any hook runs;
 *   of a `continue` batch, that record alone is left out of the hooks' and fails in the write's batch error),
 *   a post_process hook the records the call answers with.
 * - every other event: the payload. A pre_process hook the request body (undefined when there is
 *   none: query parameters are in `context.query`, which it may change), a post_process hook the
 *   response body.
 * A hook refuses with a thrown PorticoError (its status and message, in the spec's envelope);
 * anything else it throws is a 500 with a generic message, the cause in the log only. A hook that
 * has not finished after its module's timeout is cut off with a 503. A pre_process hook that
 * throws stops a write before it starts. A post_process hook runs inside the write's transaction
 * when it has one (a batch in rollback mode), or when its module asks for one (platform.yaml
 * `transaction: true`): then when it throws, nothing of the write is kept. Otherwise the write has
 * ended when the hook runs, as in the reference: its error is the answer, the write stays.
 *
 * A `.queued` hook (the reference's queued event scripts, `db._table.contact.post.queued`) runs
 * after the answer has gone, once the write is committed, on what a post_process hook would see
 * (the answer as the post_process hooks left it): it never delays or changes the answer, and what
 * it throws, or a timeout, is logged with the request's id, never sent. A failed request runs none.
 */
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext } from '../auth/auth-context.js';
import type { Answer } from '../core/answer.js';
import { PorticoError, type ErrorContext } from '../core/errors.js';
import { coreMessages } from '../core/messages.js';
import { pick, toBool, type RawQuery } from '../core/query-params.js';
import { describeThrown } from '../core/thrown-at.js';
import { StartupError } from '../system/store/system-db.js';
import type { Verb } from '../model/platform-model.js';
import type { HookRecords, ServiceCall, ServiceHandler, ServiceResult } from '../services/service-kind.js';
import type { ServiceApi, UntypedTables } from '../services/service-api.js';
import { isThenable, withDeadline } from './deadlines.js';
import { EVENT_PHASES, eventName, QUEUED_PHASE, type EventPhase } from './hook-events.js';

export type { EventPhase, HookPhase } from './hook-events.js';

/** What a hook is told about the request besides its data; `A` types `api` (`ApiTables<...>`, or the generated `Api`). */
export interface HookContext<A = UntypedTables> {
  /** The event, `{service}.{path}.{verb}.{phase}` (`queued` for a queued hook). */
  event: string;
  service: string;
  /** The table of a `_table` event; '' for other events. */
  table: string;
  verb: Verb;
  /** The request's query parameters: what a pre_process hook changes here is what the operation sees. */
  query: RawQuery;
  auth: AuthContext;
  /** The path after /api/v2/{service}, URL-decoded (`['_table', 'contact', '7']`). */
  resource: readonly string[];
  phase: EventPhase;
  /** The request's logger (pino, carrying the request id): what a hook logs goes with the request's own lines. */
  log: FastifyBaseLogger;
  /**
   * The platform's services in process, with the caller's rights as a script (`api.asAdmin()` for
   * an administrator's). Inside a table write's transaction, calls to the same service join it.
   */
  api: ServiceApi<A>;
}

/** A hook: may return replacement data; returning nothing keeps the data as it is. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook written without a return statement returns void.
export type Hook<D, A = UntypedTables> = (data: D, context: HookContext<A>) => D | undefined | void | Promise<D | undefined | void>;

/** The body of a `_proc` or `_func` call (reference 4): arguments by name, in order, or as an object. */
export interface RoutineRequest {
  params?: Array<{ name: string; value?: unknown }> | unknown[] | Record<string, unknown>;
  /** Wrap result rows under this name. */
  wrapper?: string;
  /** Type to cast a single result to. */
  returns?: string;
  [member: string]: unknown;
}

type TablePath<K extends string> = K | `${K}.{id}`;

/**
 * The `_table` events of a SQL service, with the records each hook sees (from the generated
 * `Tables`, `TableInserts`, `TableUpdates`); the generated `Events` of a service's types.ts lists
 * the same events, with its routines'. Writes answer with the identifiers (or the `fields` asked
 * for), hence `Partial`.
 */
export type TableEvents<S extends string, T, I = T, U = T> = {
  [K in keyof T & string as `${S}._table.${TablePath<K>}.get.pre_process`]: [];
} & { [K in keyof T & string as `${S}._table.${TablePath<K>}.get.post_process`]: T[K][] } & {
  [K in keyof I & string as `${S}._table.${K}.post.pre_process` | `${S}._table.${TablePath<K>}.put.pre_process`]: I[K][];
} & { [K in keyof U & string as `${S}._table.${TablePath<K>}.patch.pre_process`]: U[K][] } & {
  [K in keyof I & string as `${S}._table.${K}.delete.pre_process`]: Array<Partial<K extends keyof T ? T[K] : never>>;
} & { [K in keyof I & string as `${S}._table.${K}.{id}.delete.pre_process`]: [] } & {
  [K in keyof I & string as
    | `${S}._table.${K}.post.post_process`
    | `${S}._table.${TablePath<K>}.${'put' | 'patch' | 'delete'}.post_process`]: Array<Partial<K extends keyof T ? T[K] : never>>;
};

/** A queued hook: runs after the answer has gone, on what a post_process hook would see; what it returns is ignored. */
export type QueuedHook<D, A = UntypedTables> = (data: D, context: HookContext<A>) => unknown;

/** The queued events of an event map: `{operation}.queued` beside each `{operation}.post_process`, with its data. */
export type QueuedEvents<E> = {
  [K in keyof E & string as K extends `${infer O}.post_process` ? `${O}.${typeof QUEUED_PHASE}` : never]: E[K];
};

/** A module's hooks, by event. */
export type HookSet<E = Record<string, unknown>, A = UntypedTables> = { [K in keyof E]?: Hook<E[K], A> } & {
  [K in keyof QueuedEvents<E>]?: QueuedHook<QueuedEvents<E>[K], A>;
};

/**
 * Declares a module's hooks; `E` is an event map such as the generated `Events` of a service's
 * types.ts, `A` the tables `context.api` is typed by (the generated `Api` of events.ts).
 */
export function defineHooks<E, A = UntypedTables>(hooks: HookSet<E, A>): HookSet<E, A> {
  return hooks;
}

/** A hook module as runServer hands it to createServer (imported where the generated main.mjs names it). */
export interface HookModule {
  /** The module's hooks by event (its default export, or the export platform.yaml names). */
  hooks: Readonly<Record<string, unknown>>;
  /** Where it comes from (platform.yaml `hooks[].file`), for logs and GET /system/event. */
  file?: string;
  /** How long one of its hooks may take, in milliseconds (platform.yaml `hooks[].timeout_ms`). */
  timeoutMs?: number;
  /** Table writes its post_process hooks follow run in one transaction with the hooks (platform.yaml `hooks[].transaction`). */
  transaction?: boolean;
}

/** How long a hook may take unless its module says otherwise. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

const MODULE_KEYS = new Set(['hooks', 'file', 'timeoutMs', 'transaction']);

/** A HookModule, or a bare set of hooks (event names always hold a dot). */
function asModule(entry: HookModule | Readonly<Record<string, unknown>>, index: number): Required<HookModule> {
  const keys = typeof entry === 'object' && entry !== null ? Object.keys(entry) : [];
  const described = keys.includes('hooks') && keys.every((key) => MODULE_KEYS.has(key));
  const module = (described ? entry : { hooks: entry }) as HookModule;
  if (typeof module.hooks !== 'object' || module.hooks === null || Array.isArray(module.hooks)) {
    throw new HookModuleError(
      module.file ?? `hooks[${index}]`,
      'its export is no set of hooks: export defineHooks({...}) of portico/runtime',
    );
  }
  return {
    hooks: module.hooks,
    file: module.file ?? `hooks[${index}]`,
    timeoutMs: module.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    transaction: module.transaction ?? false,
  };
}

interface AttachedHook {
  hook: Hook<unknown>;
  file: string;
  timeoutMs: number;
}

/** Where a hooked call goes: a service's handler, which may run calls inside one transaction. */
export type HookTarget = Pick<ServiceHandler, 'handle' | 'transaction' | 'hookRecords'>;

/** The transaction a hook's in-process calls to the same service join: that service's handler inside it. */
export interface JoinedTransaction {
  service: string;
  handler: Pick<ServiceHandler, 'handle'>;
  /** Holds work (the queued hooks of a call inside the transaction) until it commits; dropped if it rolls back. */
  afterCommit(work: () => void): void;
}

/** A hooked request: the service, its event path (hook-events.ts), the request's logger and its in-process API. */
export interface HookedCall {
  service: string;
  path: readonly string[];
  call: ServiceCall;
  log: FastifyBaseLogger;
  /** The caller's in-process API; given a transaction, its calls to that service run inside it. */
  api(joined?: JoinedTransaction): ServiceApi;
  /**
   * The path's names are case-insensitive (a database's tables and routines: `_table/CONTACT` is
   * `contact`), so that its events are matched whatever the case the client wrote.
   */
  foldCase?: boolean;
  /** The call runs inside a hooked write's transaction: its queued hooks wait for the commit. */
  joined?: JoinedTransaction;
}

/** The hooks of one event (an operation), before and after it, and queued after its answer. */
interface EventHooks {
  pre: AttachedHook[] | undefined;
  post: AttachedHook[] | undefined;
  queued: AttachedHook[] | undefined;
  /** Whether a module of its post_process hooks asked for the write's transaction. */
  transaction: boolean;
}

/** The hooks of a platform, by event; several modules may hook one event (run in declaration order). */
export class HookRegistry {
  /** Every hooked event name as declared, for GET /system/event. */
  private readonly byEvent = new Map<string, AttachedHook[]>();
  /** The same hooks by operation (the event without its phase): one lookup per request. */
  private readonly byOperation = new Map<string, EventHooks>();
  /** The same by operation in lower case, with the operation as declared (case-insensitive paths). */
  private readonly byFoldedOperation = new Map<string, { operation: string; hooks: EventHooks }>();
  private readonly services = new Set<string>();
  /** Queued hooks still running: awaited when the server closes. */
  private readonly pending = new Set<Promise<void>>();

  constructor(modules: ReadonlyArray<HookModule | Readonly<Record<string, unknown>>> = []) {
    modules.forEach((entry, index) => {
      const module = asModule(entry, index);
      for (const [event, hook] of Object.entries(module.hooks)) {
        if (typeof hook !== 'function') throw new HookModuleError(module.file, `the hook '${event}' is not a function`);
        const phase = EVENT_PHASES.find((name) => event.endsWith(`.${name}`));
        // A misspelt phase would never run, and nothing would say so.
        if (phase === undefined || event.length === phase.length + 1) {
          throw new HookModuleError(
            module.file,
            `the event '${event}' does not end with .pre_process, .post_process or .queued (GET /api/v2/system/event lists the events)`,
          );
        }
        const list = this.byEvent.get(event) ?? [];
        list.push({ hook: hook as Hook<unknown>, file: module.file, timeoutMs: module.timeoutMs });
        this.byEvent.set(event, list);
        this.services.add(event.split('.')[0]);
        const operation = event.slice(0, -phase.length - 1);
        const hooks = this.byOperation.get(operation) ?? { pre: undefined, post: undefined, queued: undefined, transaction: false };
        hooks[phase === 'pre_process' ? 'pre' : phase === 'post_process' ? 'post' : 'queued'] = list;
        if (phase === 'post_process' && module.transaction) hooks.transaction = true;
        this.byOperation.set(operation, hooks);
        this.byFoldedOperation.set(operation.toLowerCase(), { operation, hooks });
      }
    });
  }

  get size(): number {
    return this.byEvent.size;
  }

  /** Whether any hook is attached to an event of this service (the fast path when none is). */
  touches(service: string): boolean {
    return this.services.has(service);
  }

  /** Whether a post_process hook follows this operation: it may answer with other fields and types than the columns'. */
  rewritesAnswer(service: string, path: readonly string[], verb: Verb): boolean {
    return this.byOperation.get(eventName(service, path, verb))?.post !== undefined;
  }

  /** The events with hooks, each with the modules its hooks come from, in order. */
  attached(): Map<string, string[]> {
    return new Map([...this.byEvent].map(([event, hooks]) => [event, hooks.map((hook) => hook.file)]));
  }

  /**
   * Runs a call through the hooks of its event. A table write with a post_process hook runs in
   * one transaction with its hooks when the write is in rollback mode or the hook's module asks
   * for it, and the target offers one: a hook that throws rolls the write back; the operation's
   * own failure keeps what its batch mode keeps (it undoes its own partial work). Otherwise no
   * transaction is taken (on PostgreSQL and MySQL it would cost two round trips per write): a
   * pre_process hook that throws stops the write before it starts, and a post_process hook runs
   * after it, as in the reference.
   */
  around(hooked: HookedCall, target: HookTarget): Answer<ServiceResult> {
    const { service, path, call } = hooked;
    let operation = eventName(service, path, call.verb);
    let hooks = this.byOperation.get(operation);
    if (hooks === undefined && hooked.foldCase) {
      // `_table/CONTACT` is the table `contact`: its hooks run (and a client cannot pass them by by writing the name otherwise).
      const folded = this.byFoldedOperation.get(operation.toLowerCase());
      if (folded !== undefined) ({ operation, hooks } = folded);
    }
    if (hooks === undefined) return target.handle(call);
    const run = new HookedRun(hooked, operation, hooks, target);
    // Inside the write's transaction, the post_process hook can still undo it.
    const answered =
      run.records &&
      call.verb !== 'GET' &&
      hooks.post !== undefined &&
      target.transaction !== undefined &&
      (hooks.transaction || toBool(pick(call.query, 'rollback')))
        ? this.inTransaction(run, target as Required<HookTarget>)
        : run.through(target);
    const { queued } = hooks;
    if (queued === undefined) return answered;
    // Once the write is committed: queued hooks never see a write that was undone.
    return answered.then((result) => {
      if ((result.status ?? 200) >= 400) return result;
      const work = run.queuedRun(queued, result);
      if (hooked.joined !== undefined) hooked.joined.afterCommit(() => this.enqueue(work));
      else this.enqueue(work);
      return result;
    });
  }

  /** A hooked write in one transaction with its hooks; what its hooks' calls queued runs once it commits. */
  private async inTransaction(run: HookedRun, target: Required<HookTarget>): Promise<ServiceResult> {
    const committed: Array<() => void> = [];
    const outcome = await target.transaction((handler) => run.inside(handler, committed));
    for (const work of committed) work();
    return HookedRun.outcome(outcome);
  }

  /** Starts queued hooks once the current answer is on its way, and keeps them until they end. */
  private enqueue(work: () => Promise<void>): void {
    const job = new Promise<void>((resolve) => setImmediate(resolve)).then(work);
    this.pending.add(job);
    void job.then(() => this.pending.delete(job));
  }

  /** Resolves when no queued hook runs any more (the server waits for them as it closes). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

type Outcome = { result: ServiceResult } | { failed: unknown };

/** One hooked call: its pre_process hooks, the operation, its post_process hooks. */
class HookedRun {
  readonly records: boolean;
  private readonly table: string;
  private joined: JoinedTransaction | undefined;

  constructor(
    private readonly hooked: HookedCall,
    private readonly operation: string,
    private readonly hooks: EventHooks,
    /** Gives the records as the hooks' types promise them (its hookRecords); none for untyped services. */
    private readonly target: Pick<HookTarget, 'hookRecords'>,
  ) {
    this.records = hooked.path[0] === '_table';
    // The table as the event names it (its case may differ from the request's).
    const start = hooked.service.length + '._table.'.length;
    this.table = this.records ? operation.slice(start, start + hooked.path[1].length) : '';
  }

  static outcome(this: void, outcome: Outcome): ServiceResult {
    if ('failed' in outcome) throw outcome.failed;
    return outcome.result;
  }

  async through(target: Pick<ServiceHandler, 'handle'>): Promise<ServiceResult> {
    const { call } = this.hooked;
    const body = this.hooks.pre === undefined ? call.body : await this.before(this.hooks.pre);
    const result = await target.handle(body === call.body ? call : { ...call, body });
    return this.hooks.post === undefined ? result : this.after(this.hooks.post, result);
  }

  /** Inside a write's transaction: the operation's own failure is returned, so that it keeps what its batch mode keeps. */
  async inside(handler: Pick<ServiceHandler, 'handle'>, committed: Array<() => void>): Promise<Outcome> {
    // The hooks' own calls to this service go through the transaction too (on SQLite's one
    // connection they could not run beside it).
    this.joined = { service: this.hooked.service, handler, afterCommit: (work) => committed.push(work) };
    const { call } = this.hooked;
    const body = this.hooks.pre === undefined ? call.body : await this.before(this.hooks.pre);
    let result: ServiceResult;
    try {
      result = await handler.handle(body === call.body ? call : { ...call, body });
    } catch (failed) {
      return { failed };
    }
    return { result: this.hooks.post === undefined ? result : await this.after(this.hooks.post, result) };
  }

  /**
   * The queued hooks of this call on its answer (what a post_process hook sees), to run later:
   * each in turn, none changing the data; what one throws is logged.
   */
  queuedRun(queued: readonly AttachedHook[], result: ServiceResult): () => Promise<void> {
    // The write's transaction, if any, is over: the hooks' own calls stand alone.
    this.joined = undefined;
    // A streamed answer (a file's content) is on its way to the client: a queued hook gets nothing
    // of it, as the reference's queued scripts get no streamed response, lest it read the client's bytes.
    const streamed = result.body instanceof Readable || result.body instanceof ReadableStream;
    const data = this.records
      ? toBool(pick(this.hooked.call.query, 'count_only'))
        ? []
        : (toRecords(result.body) ?? [])
      : streamed
        ? undefined
        : result.body;
    return async () => {
      const context = this.context(QUEUED_PHASE);
      for (const attached of queued) {
        try {
          const returned = attached.hook(data, context);
          if (isThenable(returned)) await withTimeout(returned, attached, context);
        } catch (error) {
          const failure = error instanceof HookTimeout ? error : new HookFailure(context.event, attached.file, error);
          context.log.error({ err: error }, `${failure.message} (a queued hook: the answer had gone).`);
        }
      }
    };
  }

  private context(phase: EventPhase): HookContext {
    const { service, call, log } = this.hooked;
    return new CallContext(`${this.operation}.${phase}`, phase, service, this.table, call, log, () => this.hooked.api(this.joined));
  }

  private async before(pre: readonly AttachedHook[]): Promise<unknown> {
    const { body } = this.hooked.call;
    if (!this.records) return runHooks(pre, body, this.context('pre_process'), false);
    const sent = toRecords(body) ?? [];
    // Once, before the first hook: a value that cannot be of its column's type is refused before any hook sees it.
    const { records: typed, refused } =
      this.target.hookRecords === undefined || sent.length === 0
        ? { records: sent, refused: [] }
        : this.target.hookRecords(this.hooked.call, sent);
    const changed = await runHooks(pre, typed, this.context('pre_process'), true);
    const written = refused.length === 0 ? changed : withRefused(changed as unknown[], refused);
    return written === sent ? body : fromRecords(body, written as unknown[]);
  }

  private async after(post: readonly AttachedHook[], result: ServiceResult): Promise<ServiceResult> {
    if ((result.status ?? 200) >= 400) return result;
    // The hooks may change the records in place: the answer is serialised from them.
    result.json = undefined;
    if (!this.records) return { ...result, body: await runHooks(post, result.body, this.context('post_process'), false) };
    // A count (`{"meta":{"count":n}}`) holds no records: taken for one, a hook's filter or new field changed the count's answer.
    const answered = toBool(pick(this.hooked.call.query, 'count_only')) ? null : toRecords(result.body);
    if (answered === null) return result;
    const changed = await runHooks(post, answered, this.context('post_process'), true);
    return changed === answered ? result : { ...result, body: fromRecords(result.body, changed as unknown[]) };
  }
}

/**
 * The hooks' records with the ones refused before them put back at their indexes (or last, when
 * the hooks returned fewer), so that the write fails each alone in its batch error, where the
 * client sent it.
 */
function withRefused(records: readonly unknown[], refused: HookRecords['refused']): unknown[] {
  const written = [...records];
  for (const { index, record } of refused) written.splice(Math.min(index, written.length), 0, record);
  return written;
}

/** Runs an event's hooks in turn, each on what the one before returned. */
async function runHooks(hooks: readonly AttachedHook[], data: unknown, context: HookContext, records: boolean): Promise<unknown> {
  let current = data;
  for (const attached of hooks) {
    let result: unknown;
    try {
      result = attached.hook(current, context);
      if (isThenable(result)) result = await withTimeout(result, attached, context);
    } catch (error) {
      throw asRequestError(error, attached, context);
    }
    if (result === undefined) continue;
    if (records && !Array.isArray(result)) {
      throw new HookFailure(
        context.event,
        attached.file,
        new TypeError('a hook of a _table event must return an array of records or nothing'),
      );
    }
    current = result;
  }
  return current;
}

/** What a hook is told; its `api` is made when a hook first uses it (most hooks call no other service). */
class CallContext implements HookContext {
  readonly verb: Verb;
  readonly query: RawQuery;
  readonly auth: AuthContext;
  readonly resource: readonly string[];
  private made: ServiceApi | undefined;

  constructor(
    readonly event: string,
    readonly phase: EventPhase,
    readonly service: string,
    readonly table: string,
    call: ServiceCall,
    readonly log: FastifyBaseLogger,
    private readonly makeApi: () => ServiceApi,
  ) {
    this.verb = call.verb;
    this.query = call.query;
    this.auth = call.auth;
    this.resource = call.resource;
  }

  get api(): ServiceApi {
    this.made ??= this.makeApi();
    return this.made;
  }
}

/** A hook's promise, or a HookTimeout once the hook's time is up. */
function withTimeout(pending: PromiseLike<unknown>, attached: AttachedHook, context: HookContext): Promise<unknown> {
  return withDeadline(pending, attached.timeoutMs, () => new HookTimeout(context.event, attached.file, attached.timeoutMs));
}

/** What a hook threw, as the request's error. */
function asRequestError(error: unknown, attached: AttachedHook, context: HookContext): Error {
  if (error instanceof PorticoError) return error;
  if (error instanceof HookTimeout) {
    const answer = coreMessages.hookTimedOut.error();
    answer.cause = error;
    return answer;
  }
  // A PorticoError of another copy of the runtime (a hook module resolving its own `portico/runtime`).
  if (
    error instanceof Error &&
    typeof (error as Partial<PorticoError>).status === 'number' &&
    typeof (error as Partial<PorticoError>).toBody === 'function'
  ) {
    const { status, context: errorContext } = error as PorticoError;
    if (status >= 400 && status < 600) return new PorticoError(status, error.message, (errorContext ?? null) as ErrorContext);
  }
  return new HookFailure(context.event, attached.file, error);
}

/** A hook module that cannot serve: a value that is no function, an event name that is none (the server does not start). */
export class HookModuleError extends StartupError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`Portico: the hook module ${file} cannot be used: ${reason}.`);
  }
}

/** A hook's unexpected exception: a 500 with a generic message; the cause goes to the log, never the client. */
export class HookFailure extends Error {
  constructor(
    readonly event: string,
    readonly file: string,
    readonly cause: unknown,
  ) {
    super(`Hook on '${event}' (${file}) failed: ${describeThrown(cause)}`);
  }
}

/** A hook that did not finish in time (the cause of the 503, in the log). */
export class HookTimeout extends Error {
  constructor(
    readonly event: string,
    readonly file: string,
    readonly timeoutMs: number,
  ) {
    super(`Hook on '${event}' (${file}) did not finish within ${timeoutMs} ms; the request was answered 503.`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The records of a body: `{resource: [...]}`, `{resource: {...}}` (one record), an array, or one record; null when it holds none (nothing). */
function toRecords(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (isObject(body)) return Array.isArray(body.resource) ? body.resource : isObject(body.resource) ? [body.resource] : [body];
  return null;
}

/** Puts records back in the shape the body had. */
function fromRecords(body: unknown, records: unknown[]): unknown {
  if (Array.isArray(body)) return records;
  if (isObject(body) && Array.isArray(body.resource)) return { ...body, resource: records };
  if (isObject(body) && isObject(body.resource)) return { ...body, resource: records.length === 1 ? records[0] : records };
  if (isObject(body) && records.length === 1) return records[0];
  return body === undefined || body === null ? (records.length === 0 ? body : { resource: records }) : records;
}
