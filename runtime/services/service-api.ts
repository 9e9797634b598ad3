/**
 * The in-process service API (issue 17) that hooks and custom endpoints get as `ctx.api`: calls
 * to the platform's services without leaving the process, through the same dispatch as an HTTP
 * request (access checks, row filters, record limits, hooks). A call has the caller's rights, as
 * a server-side script (role grants apply where their `requestor` includes `script`, as the
 * reference's SCRIPT requestor); `asAdmin()` or `{ elevated: true }` gives an administrator's
 * rights, and only when asked for. Types only: the implementation is runtime/http/in-process-api.ts.
 */
import type { RawQuery } from '../core/query-params.js';
import type { Verb } from '../model/platform-model.js';

/** One table's record types as the in-process API sees them: as read, as created, as changed. */
export interface TableTypes<R = Record<string, any>, I = R, U = Partial<R>> {
  row: R;
  insert: I;
  update: U;
}

/**
 * A SQL service's tables for the typed API, from its generated types.ts:
 * `ApiTables<'db', Tables, TableInserts, TableUpdates>`; several services combine with `&`.
 */
export type ApiTables<S extends string, T, I = T, U = T> = {
  [K in S]: {
    [N in keyof T]: TableTypes<T[N], N extends keyof I ? I[N] : T[N], N extends keyof U ? U[N] : Partial<T[N]>>;
  };
};

/** Any service and table, with loose records: the API's type when no `ApiTables` is given. */
export type UntypedTables = Record<string, Record<string, TableTypes>>;

/** Query parameters of an in-process call: strings, numbers and booleans as a client would send them; a list is comma-joined. */
export type ApiQuery = Record<string, string | number | boolean | ReadonlyArray<string | number> | undefined>;

export interface CallOptions {
  query?: ApiQuery;
  /**
   * The body, as an HTTP client would send it: to a file, email or remote web service a string
   * goes as UTF-8 text (text/plain), a Buffer or Uint8Array as its bytes
   * (application/octet-stream), anything else as JSON; other services take it as parsed JSON.
   */
  body?: unknown;
  /** Request headers (`content-type` for a raw body, `x-file-name`, `if-match`, ...); credentials in them are ignored. */
  headers?: Readonly<Record<string, string>>;
  /** Run with an administrator's rights instead of the caller's (role grants and row filters do not apply). */
  elevated?: boolean;
}

/** What a call answered. An error status is thrown as a PorticoError instead (its status, message and context). */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

/** Parameters of a table read; `fields` narrows the record type to the fields named. */
export interface ListParams<R, F extends keyof R & string = keyof R & string> {
  filter?: string;
  fields?: readonly F[];
  order?: string;
  limit?: number;
  offset?: number;
  ids?: ReadonlyArray<string | number>;
  /** Other query parameters (`related`, `group`, `id_field`, ...), passed as they are. */
  query?: ApiQuery;
}

/** One table of a SQL service: its records typed by the generated types. */
export interface TableClient<R, I = R, U = Partial<R>> {
  /** `GET _table/{table}`: the records (`resource`). */
  list<F extends keyof R & string = keyof R & string>(params?: ListParams<R, F>): Promise<Array<Pick<R, F>>>;
  /** `GET _table/{table}?count_only=true`: how many records match the filter. */
  count(filter?: string): Promise<number>;
  /** `GET _table/{table}/{id}`: one record (a 404 is thrown as a NotFound PorticoError). */
  get<F extends keyof R & string = keyof R & string>(
    id: string | number,
    params?: Pick<ListParams<R, F>, 'fields' | 'query'>,
  ): Promise<Pick<R, F>>;
  /** `POST _table/{table}?fields=*`: creates the records and answers them as written. */
  create(records: I | readonly I[], params?: { query?: ApiQuery }): Promise<R[]>;
  /** `PATCH _table/{table}/{id}?fields=*`: changes one record and answers it as written. */
  update(id: string | number, changes: U, params?: { query?: ApiQuery }): Promise<R>;
  /** `DELETE _table/{table}/{id}`. */
  delete(id: string | number, params?: { query?: ApiQuery }): Promise<void>;
}

/** The client of table `K` of service `S` in `A`. */
type Table<A, S extends keyof A, K extends keyof A[S]> =
  A[S][K] extends TableTypes<infer R, infer I, infer U> ? TableClient<R, I, U> : never;

/** The in-process API, typed by `A` (`ApiTables<...>`) where given. */
export interface ServiceApi<A = UntypedTables> {
  /**
   * Any verb on any service path (`'_table/contact'`, `'stats/contacts'`, a file path), as an
   * HTTP client would call `/api/v2/{service}/{path}`. An error status is thrown as a PorticoError.
   */
  call<T = any>(service: string, verb: Verb, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** A table of a SQL service, typed by the generated types. */
  table<S extends keyof A & string, K extends keyof A[S] & string>(service: S, table: K): Table<A, S, K>;
  /** The same API with an administrator's rights: use it only where the caller's own rights must not apply. */
  asAdmin(): ServiceApi<A>;
}

/** The query of an in-process call as the services read a request's query. */
export function rawQuery(query: ApiQuery | undefined): RawQuery {
  const raw: RawQuery = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    raw[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return raw;
}
