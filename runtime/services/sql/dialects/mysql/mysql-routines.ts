/**
 * MySQL/MariaDB procedures and functions of the current database, read from information_schema.
 * Procedures run on one connection: INOUT values go in through session variables, OUT and INOUT
 * values come back by selecting them after the CALL; every result set the CALL produces is kept.
 */
import { sql, type Kysely } from 'kysely';
import type { RoutineModel, RoutineParamModel } from '../../../../model/platform-model.js';
import type { RoutineOutcome, RoutineSupport } from '../sql-dialect.js';
import { routineCall } from '../unknown-outcome.js';
import { lostWhileRunning } from './mysql-errors.js';

interface RoutineRow {
  name: string;
  type: string;
  return_type: string | null;
}
interface ParamRow {
  routine: string;
  position: number;
  mode: string | null;
  name: string | null;
  db_type: string;
}

async function readRoutines(db: Kysely<any>): Promise<RoutineModel[]> {
  const routines = (
    await sql<RoutineRow>`
    select routine_name as name, routine_type as type, dtd_identifier as return_type
    from information_schema.routines where routine_schema = database() order by routine_name, routine_type`.execute(db)
  ).rows;
  const params = (
    await sql<ParamRow>`
    select specific_name as routine, ordinal_position as position, parameter_mode as mode, parameter_name as name, dtd_identifier as db_type
    from information_schema.parameters where specific_schema = database() and ordinal_position > 0
    order by specific_name, routine_type, ordinal_position`.execute(db)
  ).rows;
  const seen = new Set<string>();
  return routines.flatMap((row): RoutineModel[] => {
    // A procedure and a function may share a name; the API serves the first.
    if (seen.has(row.name)) return [];
    seen.add(row.name);
    const kind = row.type === 'PROCEDURE' ? 'procedure' : 'function';
    return [
      {
        name: row.name,
        sourceName: row.name,
        kind,
        returnType: kind === 'function' && row.return_type !== null ? row.return_type.toLowerCase() : null,
        params: params
          .filter((param) => param.routine === row.name)
          .map((param, index) => ({
            name: param.name ?? `param${index + 1}`,
            position: index + 1,
            mode: (param.mode ?? 'IN').toUpperCase() as RoutineParamModel['mode'],
            dbType: param.db_type.toLowerCase(),
          })),
      },
    ];
  });
}

/** What mysql2 gives for a CALL: one array per result set, then the status header. */
function resultSets(rows: unknown[]): Record<string, unknown>[][] {
  if (rows.length === 0 || !Array.isArray(rows[0])) return [];
  return rows.filter((item): item is Record<string, unknown>[] => Array.isArray(item));
}

const variable = (index: number) => sql.raw(`@portico_p${index}`);

/** MySQL's BOOLEAN is tinyint(1): its parameters take `true`/`false` as PostgreSQL's do, and its results are booleans. */
const BOOLEAN_TYPE = /^(tinyint\(1\)|bool|boolean)$/;
const FLAGS = new Map<unknown, number>([
  [true, 1],
  [false, 0],
  ['true', 1],
  ['false', 0],
]);

async function callRoutine(db: Kysely<any>, routine: RoutineModel, args: ReadonlyMap<string, unknown>): Promise<RoutineOutcome> {
  const value = (p: RoutineParamModel) => {
    const given = args.has(p.name) ? args.get(p.name) : null;
    const flag = BOOLEAN_TYPE.test(p.dbType) ? FLAGS.get(typeof given === 'string' ? given.trim().toLowerCase() : given) : undefined;
    return flag ?? given;
  };
  if (routine.kind === 'function') {
    const { rows } = await sql<{
      output: unknown;
    }>`select ${sql.id(routine.sourceName)}(${sql.join(routine.params.map((p) => sql`${value(p)}`))}) as output`.execute(db);
    const output = rows[0]?.output ?? null;
    return {
      resultSets: [],
      out: {},
      value: BOOLEAN_TYPE.test(routine.returnType ?? '') && output !== null ? Number(output) !== 0 : output,
    };
  }
  return db.connection().execute(async (conn) => {
    const outputs = routine.params.filter((p) => p.mode !== 'IN');
    for (const p of outputs) await sql`set ${variable(p.position)} = ${p.mode === 'INOUT' ? value(p) : null}`.execute(conn);
    const list = routine.params.map((p) => (p.mode === 'IN' ? sql`${value(p)}` : variable(p.position)));
    const called = await sql<unknown>`call ${sql.id(routine.sourceName)}(${sql.join(list)})`.execute(conn);
    const out: Record<string, unknown> = {};
    if (outputs.length > 0) {
      const { rows } = await sql<
        Record<string, unknown>
      >`select ${sql.join(outputs.map((p) => sql`${variable(p.position)} as ${sql.id(p.name)}`))}`.execute(conn);
      Object.assign(out, rows[0]);
    }
    return { resultSets: resultSets(called.rows as unknown[]), out };
  });
}

export const mysqlRoutines: RoutineSupport = {
  read: readRoutines,
  call: (db, routine, args) => routineCall(lostWhileRunning, () => callRoutine(db, routine, args)),
};
