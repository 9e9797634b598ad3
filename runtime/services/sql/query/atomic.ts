/**
 * All or nothing for a piece of work: a transaction of its own, or, when the connection is a
 * transaction already (a batch in rollback mode, a table write whose hooks run in its
 * transaction), a savepoint inside it. So a failed record leaves nothing of itself behind and the
 * enclosing transaction stays usable (PostgreSQL refuses every statement after a failed one until
 * a rollback to a savepoint).
 */
import { sql, type Kysely } from 'kysely';
import { inTransaction } from './run-compiled.js';

let savepoints = 0;

export async function atomically<T>(conn: Kysely<any>, work: (conn: Kysely<any>) => Promise<T>): Promise<T> {
  // A transaction of its own holds nothing but the work's statements: it may run again after a stale statement.
  if (!conn.isTransaction) return inTransaction(conn, work, true);
  const name = sql.id(`portico_${++savepoints}`);
  await sql`savepoint ${name}`.execute(conn);
  let result: T;
  try {
    result = await work(conn);
  } catch (error) {
    await sql`rollback to savepoint ${name}`.execute(conn).catch(() => undefined);
    throw error;
  }
  await sql`release savepoint ${name}`.execute(conn);
  return result;
}
