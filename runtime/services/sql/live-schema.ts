/**
 * The one place a SQL service keeps its current DatabaseSchema, with the per-table plans derived
 * from it. `_schema` writes and `refresh=true` replace the schema; plans are rebuilt lazily.
 */
import type { DatabaseSchema, TableModel } from '../../model/platform-model.js';
import type { SqlDialectModule } from './dialects/sql-dialect.js';
import { buildTablePlan, type TablePlan } from './query/table-plan.js';
import { withExtras } from './schema/table-extras.js';
import type { TableExtras } from '../service-kind.js';
import { coreMessages } from '../../core/messages.js';

export class LiveSchema {
  #schema!: DatabaseSchema;
  /** The schema as the catalog gives it, before extras. */
  #read!: DatabaseSchema;
  #extras: readonly TableExtras[] = [];
  #tables = new Map<string, TableModel>();
  #plans = new Map<string, TablePlan>();
  #stale = false;

  /** `changed` is told when the schema read from the database is replaced by another. */
  constructor(
    schema: DatabaseSchema,
    private readonly dialect: SqlDialectModule,
    private readonly changed: () => void = () => undefined,
  ) {
    this.replace(schema);
  }

  /**
   * Whether the database may hold another schema than this one, which could not be read (a
   * `_schema` write or a re-read whose connection was lost): the next request reads it first.
   */
  get stale(): boolean {
    return this.#stale;
  }

  markStale(): void {
    this.#stale = true;
  }

  get current(): DatabaseSchema {
    return this.#schema;
  }

  /** What `_schema` clients set (labels, plurals, descriptions, declared types), laid over every schema from now on. */
  setExtras(extras: readonly TableExtras[]): void {
    this.#extras = extras;
    this.replace(this.#read);
  }

  replace(read: DatabaseSchema): void {
    if (this.#read !== undefined && read !== this.#read) this.changed();
    this.#read = read;
    this.#stale = false;
    const schema = withExtras(read, this.#extras);
    this.#schema = schema;
    this.#tables = new Map(schema.tables.map((table) => [table.name.toLowerCase(), table]));
    this.#plans = new Map();
  }

  /** A table by name, case-insensitively; 404 when there is none. */
  table(name: string): TableModel {
    const table = this.#tables.get(name.toLowerCase());
    if (table === undefined) throw coreMessages.tableNotFound.error(name);
    return table;
  }

  /** The plan of a table by name, case-insensitively; 404 when there is none. */
  plan(name: string): TablePlan {
    const key = name.toLowerCase();
    let plan = this.#plans.get(key);
    if (plan === undefined) {
      plan = buildTablePlan(this.table(name), this.dialect, (other) => this.#tables.get(other.toLowerCase()));
      this.#plans.set(key, plan);
    }
    return plan;
  }
}
