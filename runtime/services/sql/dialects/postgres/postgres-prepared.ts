/**
 * node-postgres clients that run parameterised statements as named prepared statements, so that
 * PostgreSQL parses and plans each statement text once per connection (as the SQLite dialect
 * caches its statements). Prepared statements live in a connection's session: each client keeps
 * its own bounded cache of statement names, most recently used last, and closes the least
 * recently used statement when the cache is full.
 */
import pg from 'pg';

/** Distinct statements one connection keeps prepared. */
export const DEFAULT_MAX_PREPARED = 200;
/** `cached plan must not change result type`: a prepared statement outlived a change of its table. */
const STALE_PLAN = '0A000';

/**
 * Counts the changes of the database's tables made through the service (`_schema` writes,
 * `refresh=true`), and those another client made that a statement found stale. A prepared
 * statement keeps the parameter types of its table as it was: an integer field widened to bigint
 * still took only 32-bit values ('out of range'), so statements prepared before a change are
 * prepared afresh, on every connection of the pool.
 */
export interface SchemaGeneration {
  value: number;
  /**
   * Statements found stale inside a transaction block, which cannot run again alone (PostgreSQL
   * refuses every statement after a failed one): the transaction failed, and its owner may run it
   * again (query/run-compiled.ts).
   */
  staleInTransaction?: number;
}

type Callback = (error: (Error & { code?: string }) | null, result?: unknown) => void;
interface Connection {
  parsedStatements: Record<string, string>;
  close(message: { type: 'S'; name: string }): void;
}

/**
 * A pg.Client class for a pool's `Client` option. Only `query(text, values[, callback])` with at
 * least one value is prepared (pg-pool calls it with a callback, Kysely without): statements
 * without values keep the simple protocol, which allows several statements in one text.
 */
export function preparingClient(maxPrepared = DEFAULT_MAX_PREPARED, schema: SchemaGeneration = { value: 0 }): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    /** Statement text -> name, least recently used first. */
    private readonly prepared = new Map<string, string>();
    /** Statements dropped from the cache, closed in the session just before the next statement. */
    private closing: string[] = [];
    private counter = 0;
    /** The schema generation the prepared statements were made for. */
    private generation = schema.value;

    // Three named parameters, not `...args`: no array per statement (pg's query takes no more than three).
    query(text?: any, values?: any, callback?: any): any {
      if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return (super.query as any)(text, values, callback);
      if (this.generation !== schema.value) {
        this.generation = schema.value;
        for (const statement of [...this.prepared.keys()]) this.forget(statement);
      }
      if (typeof callback !== 'function') {
        return new Promise((resolve, reject) =>
          this.query(text, values, ((error, result) => (error ? reject(error) : resolve(result))) satisfies Callback),
        );
      }
      const name = this.nameFor(text);
      // Made from the text and named after: pg's Query copies a config object it is given
      // (property descriptors and all, about 1 KB a statement), and takes `name` as a plain field.
      const query = new pg.Query(text, values, ((error, result) => {
        if (error && this.parsed[name] === undefined && this.prepared.get(text) === name) this.prepared.delete(text); // never prepared (e.g. a syntax error)
        if (error?.code !== STALE_PLAN) return callback(error, result);
        // Another client changed the table under the statement: every connection of the pool prepares its statements afresh.
        schema.value++;
        this.generation = schema.value;
        for (const statement of [...this.prepared.keys()]) this.forget(statement);
        // Outside a transaction block, run it unprepared now; inside one, the transaction has failed with it.
        if (this.getTransactionStatus() !== 'I') {
          schema.staleInTransaction = (schema.staleInTransaction ?? 0) + 1;
          return callback(error, result);
        }
        super.query(this.withClosing(new pg.Query(text, values, callback)));
      }) satisfies Callback as never);
      (query as pg.Query & { name: string }).name = name;
      return super.query(this.withClosing(query));
    }

    private get connectionState(): Connection {
      return (this as unknown as { connection: Connection }).connection;
    }

    /** The statement names node-postgres knows this connection's session has parsed. */
    private get parsed(): Record<string, string> {
      return this.connectionState.parsedStatements;
    }

    private nameFor(text: string): string {
      let name = this.prepared.get(text);
      if (name !== undefined) {
        // Most recently used last: Map keeps insertion order.
        this.prepared.delete(text);
        this.prepared.set(text, name);
        return name;
      }
      if (this.prepared.size >= maxPrepared) this.forget(this.prepared.keys().next().value!);
      name = `portico_${++this.counter}`;
      this.prepared.set(text, name);
      return name;
    }

    private forget(text: string): void {
      const name = this.prepared.get(text);
      if (name === undefined) return;
      this.prepared.delete(text);
      this.closing.push(name);
    }

    /**
     * Sends the Close messages of dropped statements in front of the query's own messages (no
     * extra round trip; closing a statement the session does not have is no error). Names are
     * never reused on a connection, so a Close cannot hit a newer statement.
     */
    private withClosing(query: pg.Query): pg.Query {
      if (this.closing.length === 0) return query;
      const names = this.closing;
      this.closing = [];
      const submit = (query as unknown as { submit(connection: Connection): unknown }).submit;
      Object.assign(query, {
        submit: (connection: Connection) => {
          for (const name of names) {
            connection.close({ type: 'S', name });
            delete connection.parsedStatements[name];
          }
          return submit.call(query, connection);
        },
      });
      return query;
    }
  } as typeof pg.Client;
}
