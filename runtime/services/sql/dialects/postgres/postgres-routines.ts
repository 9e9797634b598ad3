/**
 * PostgreSQL procedures and functions of the current schema: read from pg_proc (extension
 * members, trigger functions and aggregates left out; of overloads the oldest), and called with
 * named arguments cast to their declared types, so that defaults apply to those left out.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RoutineModel, RoutineParamModel } from '../../../../model/platform-model.js';
import type { RoutineOutcome, RoutineSupport } from '../sql-dialect.js';
import { routineCall } from '../unknown-outcome.js';
import { lostWhileRunning } from './postgres-errors.js';

interface RoutineRow {
  oid: number;
  name: string;
  kind: string;
  return_type: string | null;
  /** How many of the last input parameters have a default. */
  defaults: number;
}
interface ParamRow {
  oid: number;
  ord: number;
  name: string;
  mode: string;
  db_type: string;
}

const MODES: Record<string, RoutineParamModel['mode'] | undefined> = { i: 'IN', v: 'IN', o: 'OUT', b: 'INOUT' };

async function readRoutines(db: Kysely<any>): Promise<RoutineModel[]> {
  const rows = (
    await sql<RoutineRow>`
    select p.oid::int8 as oid, p.proname as name, p.prokind::text as kind, pg_catalog.pg_get_function_result(p.oid) as return_type,
      p.pronargdefaults::int as defaults
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prokind in ('f', 'p')
      and p.prorettype not in ('pg_catalog.trigger'::regtype, 'pg_catalog.event_trigger'::regtype)
      and not exists (select 1 from pg_catalog.pg_depend d where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    order by p.proname, p.oid`.execute(db)
  ).rows;
  // Table-function columns (mode t) are result columns, not parameters.
  const params = (
    await sql<ParamRow>`
    select p.oid::int8 as oid, a.ord::int as ord, coalesce(p.proargnames[a.ord], '') as name,
      coalesce(p.proargmodes[a.ord]::text, 'i') as mode, pg_catalog.format_type(a.type_oid, null) as db_type
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      cross join lateral unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality a(type_oid, ord)
    where n.nspname = current_schema() and p.prokind in ('f', 'p')
    order by p.oid, a.ord`.execute(db)
  ).rows;

  const seen = new Set<string>();
  const routines: RoutineModel[] = [];
  for (const row of rows) {
    if (seen.has(row.name)) continue;
    seen.add(row.name);
    const own = params.filter((param) => param.oid === row.oid && MODES[param.mode] !== undefined);
    // Defaults belong to the last input parameters (IN, INOUT, VARIADIC).
    const inputs = own.filter((param) => param.mode !== 'o');
    const defaulted = new Set(inputs.slice(inputs.length - row.defaults));
    routines.push({
      name: row.name,
      sourceName: row.name,
      kind: row.kind === 'p' ? 'procedure' : 'function',
      returnType: row.kind === 'p' || row.return_type === null ? null : row.return_type.toLowerCase(),
      params: own.map((param, index) => ({
        name: param.name === '' ? `param${index + 1}` : param.name,
        position: index + 1,
        mode: MODES[param.mode] as RoutineParamModel['mode'],
        dbType: param.db_type.toLowerCase(),
        ...(row.defaults > 0 && defaulted.has(param) ? { defaulted: true } : {}),
      })),
    });
  }
  return routines;
}

/** `setof x`, `table(...)`: the function returns rows. */
function returnsRows(routine: RoutineModel): boolean {
  return routine.returnType !== null && /^(setof |table\()/.test(routine.returnType);
}

/**
 * The argument list: named (`"a" => $1::integer`) when every parameter has a name, so that
 * defaults fill those not given; otherwise positional, up to the last one given (defaults fill
 * the rest), with NULL for a defaulted one before it. Procedures take NULL for OUT parameters;
 * functions leave them out. Each argument is one bound parameter: `bound[n - 1]` is the
 * parameter `$n` stands for (a driver error names it so).
 */
function argumentList(
  routine: RoutineModel,
  args: ReadonlyMap<string, unknown>,
): { list: RawBuilder<unknown>; bound: RoutineParamModel[] } {
  const wanted = routine.params.filter((p) => p.mode !== 'OUT' || routine.kind === 'procedure');
  const named = wanted.every((p) => !/^param\d+$/.test(p.name));
  const given = (p: RoutineParamModel) => p.mode !== 'OUT' && args.has(p.name);
  let last = wanted.length - 1;
  if (!named) while (last >= 0 && !(given(wanted[last]) || wanted[last].mode === 'OUT')) last--;
  const bound = wanted.filter((p, index) => (named ? given(p) || p.mode === 'OUT' : index <= last));
  const cast = (p: RoutineParamModel) => sql`cast(${given(p) ? args.get(p.name) : null} as ${sql.raw(p.dbType)})`;
  const list = sql.join(bound.map((p) => (named ? sql`${sql.id(p.name)} => ${cast(p)}` : cast(p))));
  return { list, bound };
}

/** A value a parameter's type refuses: PostgreSQL says which by its number (`unnamed portal parameter $2 = '...'`). */
function namingParameter(error: unknown, bound: RoutineParamModel[]): unknown {
  const code = (error as { code?: unknown }).code;
  const number = /\bparameter \$(\d+)\b/.exec(String((error as { where?: unknown }).where ?? ''))?.[1];
  if (typeof code !== 'string' || !code.startsWith('22') || number === undefined) return error;
  const param = bound[Number(number) - 1];
  if (param !== undefined && (error as { column?: string }).column === undefined) Object.assign(error as object, { column: param.name });
  return error;
}

async function callRoutine(db: Kysely<any>, routine: RoutineModel, args: ReadonlyMap<string, unknown>): Promise<RoutineOutcome> {
  const { list, bound } = argumentList(routine, args);
  try {
    return await run(db, routine, sql`${sql.id(routine.sourceName)}(${list})`);
  } catch (error) {
    throw namingParameter(error, bound);
  }
}

async function run(db: Kysely<any>, routine: RoutineModel, target: RawBuilder<unknown>): Promise<RoutineOutcome> {
  const hasOut = routine.params.some((p) => p.mode !== 'IN');
  if (routine.kind === 'procedure') {
    const { rows } = await sql<Record<string, unknown>>`call ${target}`.execute(db);
    return { resultSets: [], out: hasOut ? (rows[0] ?? {}) : {} };
  }
  if (routine.returnType === 'setof record' && !hasOut) {
    // Rows of no declared type: `select * from` would need a column list, each row as JSON names its columns.
    const { rows } = await sql<{ output: Record<string, unknown> }>`select to_json(${target}) as output`.execute(db);
    return { resultSets: [rows.map((row) => row.output)], out: {} };
  }
  if (returnsRows(routine)) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${target}`.execute(db);
    return { resultSets: [rows], out: {} };
  }
  if (hasOut) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${target}`.execute(db);
    return { resultSets: [], out: rows[0] ?? {} };
  }
  const { rows } = await sql<{ output: unknown }>`select ${target} as output`.execute(db);
  return { resultSets: [], out: {}, value: routine.returnType === 'void' ? null : (rows[0]?.output ?? null) };
}

export const postgresRoutines: RoutineSupport = {
  read: readRoutines,
  call: (db, routine, args) => routineCall(lostWhileRunning, () => callRoutine(db, routine, args)),
};
