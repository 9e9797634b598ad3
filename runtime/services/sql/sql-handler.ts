/**
 * A SQL service's request handler: routes a ServiceCall to the service root listing, `_table`,
 * `_schema`, `_proc` or `_func`, and answers anything else with the reference's 400/404 messages.
 * With the data retrieval cache on, requests pass through it (sql-response-cache.ts).
 */
import { sql } from 'kysely';
import { answerOf, type Answer } from '../../core/answer.js';
import { InternalServerError, type PorticoError } from '../../core/errors.js';
import { wrapList } from '../../core/envelope.js';
import { parseCommonParams, pick, toBool } from '../../core/query-params.js';
import type { SqlServiceModel, TableModel } from '../../model/platform-model.js';
import { sqlServiceOpenApi } from '../../openapi/sql-openapi.js';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import type { HookRecords, ServiceCall, ServiceHandler, ServiceResult } from '../service-kind.js';
import { ROUTINE_RESOURCES } from './dialects/dialect-capabilities.js';
import type { SqlConnection } from './dialects/sql-dialect.js';
import { asListOption, batchMode, fieldsOption } from './request-options.js';
import { cleanListing } from './schema/table-description.js';
import { handleRoutines } from './routines/routine-resource.js';
import { listTables, readSchema } from './schema/schema-resource.js';
import { writeSchema } from './schema/schema-writes.js';
import type { SqlServiceContext } from './sql-service-context.js';
import { readDatabaseSchema } from './schema/database-schema-reader.js';
import { handleTableRecords } from './table/table-records.js';
import { inTransaction } from './query/run-compiled.js';
import { databaseError, isOutdatedSchema } from './dialects/driver-errors.js';
import { coreMessages } from '../../core/messages.js';
import type { SqlResponseCache } from './sql-response-cache.js';
import { sqlMessages } from './sql-messages.js';
import { promisedRecords } from './query/hook-values.js';

const ROOT_RESOURCES = [{ name: '_schema' }, { name: '_table' }];
/** Databases with stored routines also list these (reference 1.4). */
const ROUTINE_RESOURCE_NAMES = ROUTINE_RESOURCES.map((name) => ({ name }));

export class SqlServiceHandler implements ServiceHandler {
  constructor(
    private readonly ctx: SqlServiceContext,
    private readonly model: SqlServiceModel,
    private readonly connection: SqlConnection,
    /** The data retrieval cache, or null when it is off. */
    private readonly responses: SqlResponseCache | null = null,
  ) {}

  /** The catalog being read again after a table was found missing; requests wait for it. */
  #rereading: Promise<void> | null = null;

  /** The answer at once when the database gives it at once (SQLite), else a promise of it; an error is always a rejection. */
  handle(call: ServiceCall): Answer<ServiceResult> {
    return answerOf(SqlServiceHandler.serve, this, call, SqlServiceHandler.failed);
  }

  private static serve(handler: SqlServiceHandler, call: ServiceCall): Answer<ServiceResult> {
    if (handler.#rereading !== null) return handler.#rereading.then(() => SqlServiceHandler.serve(handler, call));
    // A catalog that could not be read after a change is read before anything is served from it (a failure answers this request).
    if (handler.ctx.schema.stale) return handler.refresh().then(() => SqlServiceHandler.serve(handler, call));
    handler.checkFile(call.verb !== 'GET');
    if (call.query.refresh !== undefined && toBool(pick(call.query, 'refresh'))) return handler.refresh().then(() => handler.respond(call));
    return handler.respond(call);
  }

  private static failed(error: unknown, handler: SqlServiceHandler): PorticoError {
    const translated = databaseError(error, handler.ctx.dialect, null, new InternalServerError());
    // A table or column dropped or renamed outside the service: the catalog is read again before
    // the next request is served, so `_table` and `_schema` stop listing it (this answer need not wait).
    if (isOutdatedSchema(translated)) handler.reread();
    return translated;
  }

  private reread(): void {
    this.#rereading ??= this.refresh()
      .catch(() => this.ctx.schema.markStale())
      .finally(() => {
        this.#rereading = null;
      });
  }

  private respond(call: ServiceCall): Answer<ServiceResult> {
    return this.responses === null ? this.route(call) : this.responses.through(call, async () => this.route(call));
  }

  /**
   * Calls on a handler of this service whose statements all go through one transaction. The
   * cached answers are forgotten again once it has ended: a read between a write in it and its
   * commit may have kept what the database held before.
   */
  async transaction<T>(work: (handler: Pick<ServiceHandler, 'handle'>) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.ctx.db, (trx) =>
        work(new SqlServiceHandler({ ...this.ctx, db: trx }, this.model, this.connection, this.responses)),
      );
    } finally {
      await this.responses?.clear();
    }
  }

  /** The records of a `_table` write as its hooks' types promise them (query/hook-values.ts); 404 for an unknown table. */
  hookRecords(call: ServiceCall, records: readonly unknown[]): HookRecords {
    return promisedRecords(
      this.ctx.schema.plan(call.resource[1] ?? ''),
      records,
      call.verb === 'POST' ? 'create' : call.verb === 'DELETE' ? 'delete' : 'update',
      continuesPastFailures(call),
    );
  }

  /** Re-reads the database catalog (`refresh=true`), forgetting cached answers. */
  async refresh(): Promise<void> {
    this.ctx.schema.replace(await readDatabaseSchema(this.ctx.db, this.ctx.dialect, this.ctx.options.keepCase));
    await this.responses?.clear();
  }

  /** The catalog and the cached answers are this service's cache (DELETE /system/cache/{service}): read and forget them. */
  clearCache(): Promise<void> {
    return this.refresh();
  }

  private route(call: ServiceCall): Answer<ServiceResult> {
    // Indexed, not destructured: no iterator and no array of the rest per request.
    const parts = call.resource;
    const resource = parts[0] as string | undefined;
    const table = parts[1] as string | undefined;
    const id = parts[2] as string | undefined;
    if (resource === undefined) {
      if (call.verb !== 'GET') throw this.unsupported(call, '');
      const resources = this.ctx.dialect.capabilities.routines ? [...ROOT_RESOURCES, ...ROUTINE_RESOURCE_NAMES] : ROOT_RESOURCES;
      return { body: wrapList(cleanListing(resources, fieldsOption(call.query, call.body), asListOption(call.query))) };
    }
    if (resource === '_table' && parts.length <= 3) {
      if (table !== undefined) return handleTableRecords(this.ctx, call, table, id);
      if (call.verb !== 'GET') throw this.unsupported(call, '_table');
      return listTables(this.ctx, call);
    }
    if (resource === '_schema') {
      return call.verb === 'GET' ? readSchema(this.ctx, call, call.resource.slice(1)) : writeSchema(this.ctx, call, call.resource.slice(1));
    }
    if (resource === '_proc' || resource === '_func') {
      return handleRoutines(this.ctx, call, resource === '_proc' ? 'procedure' : 'function', call.resource.slice(1));
    }
    throw coreMessages.resourceNotFound.error(call.resource.join('/'), this.ctx.serviceName);
  }

  private unsupported(call: ServiceCall, path: string): PorticoError {
    return coreMessages.verbNotSupported.error(call.verb, path, this.ctx.serviceName);
  }

  tables(): readonly TableModel[] {
    return this.ctx.schema.current.tables;
  }

  /** `_schema`, `_table` (and `_proc`, `_func`), each with its tables or routines: `{r}/`, `{r}/*`, `{r}/{name}/`, `{r}/{name}/*`. */
  accessComponents(): string[] {
    const { tables, routines } = this.ctx.schema.current;
    const members: Array<[string, string[]]> = [
      ['_schema', tables.map((t) => t.name)],
      ['_table', tables.map((t) => t.name)],
    ];
    if (this.ctx.dialect.capabilities.routines) {
      members.push(
        ['_proc', routines.filter((r) => r.kind === 'procedure').map((r) => r.name)],
        ['_func', routines.filter((r) => r.kind === 'function').map((r) => r.name)],
      );
    }
    return members.flatMap(([resource, names]) => [
      `${resource}/`,
      `${resource}/*`,
      ...names.flatMap((name) => [`${resource}/${name}/`, `${resource}/${name}/*`]),
    ]);
  }

  openapi(): OpenApiFragment {
    return sqlServiceOpenApi({ ...this.model, schema: this.ctx.schema.current });
  }

  stale(): boolean {
    return this.connection.fileState?.(false) === 'replaced';
  }

  async ping(): Promise<void> {
    this.checkFile(true);
    await sql`select 1`.execute(this.ctx.db);
  }

  /**
   * A database file removed from disk (or replaced, until the service reopens) is not used: its
   * writes would be lost. `strict` (writes, readiness) looks at the file now (see fileState).
   */
  private checkFile(strict: boolean): void {
    if ((this.connection.fileState?.(strict) ?? 'same') !== 'same') throw sqlMessages.databaseUnavailable.error();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** Whether a write goes on past a failed record (`continue`); options the write will refuse count as not. */
function continuesPastFailures(call: ServiceCall): boolean {
  try {
    return batchMode(parseCommonParams(call.query, call.body)) === 'continue';
  } catch {
    return false;
  }
}
