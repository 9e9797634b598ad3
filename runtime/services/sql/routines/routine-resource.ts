/**
 * `_proc` and `_func` (reference 4): list and describe a database's procedures and functions,
 * and call them with GET (query-string arguments) or POST (`{params:[{name, value}]}`).
 *
 * Results: a function returning one value returns that value as the body; one returning rows
 * returns `{"resource": rows}`. A procedure returns its result set (several: a list of them)
 * under `resource` (or the `wrapper` asked for), its OUT and INOUT values as top-level keys.
 * SQLite has no routines: 501.
 */
import { InternalServerError, NotImplementedError } from '../../../core/errors.js';
import { wrapList } from '../../../core/envelope.js';
import { parseCommonParams, pick, toBool } from '../../../core/query-params.js';
import type { RoutineModel } from '../../../model/platform-model.js';
import type { ServiceCall, ServiceResult } from '../../service-kind.js';
import type { RoutineOutcome } from '../dialects/sql-dialect.js';
import { asListOption, fieldsOption } from '../request-options.js';
import { nativeTypeInfo } from '../schema/native-types.js';
import { humanize } from '../schema/display-names.js';
import { cleanListing } from '../schema/table-description.js';
import type { SqlServiceContext } from '../sql-service-context.js';
import { encodedArguments, routineArguments, splitInlineCall } from './routine-arguments.js';
import { databaseError } from '../dialects/driver-errors.js';
import { coreMessages } from '../../../core/messages.js';
import { sqlMessages } from '../sql-messages.js';

export type RoutineKind = RoutineModel['kind'];

const LABEL: Record<RoutineKind, { text: string; title: 'Procedure' | 'Function'; plural: string }> = {
  procedure: { text: 'procedure', title: 'Procedure', plural: 'Stored procedures' },
  function: { text: 'function', title: 'Function', plural: 'Stored functions' },
};

/** A routine as `_proc?ids=` / `_func?ids=` describe it. */
function describeRoutine(routine: RoutineModel): Record<string, unknown> {
  return {
    name: routine.name,
    label: humanize(routine.name),
    description: null,
    native: null,
    return_type: routine.returnType,
    return_schema: null,
    params: routine.params.map((p) => {
      const info = nativeTypeInfo(p.dbType);
      return {
        name: p.name,
        position: p.position,
        param_type: p.mode,
        type: info.type,
        db_type: p.dbType,
        length: info.length,
        precision: info.precision,
        scale: info.scale,
        default: null,
      };
    }),
  };
}

/** `returns=int|float|bool|string|...`: the single value converted. */
function converted(value: unknown, returns: string | undefined): unknown {
  if (returns === undefined || value === null || value === undefined) return value;
  switch (returns.trim().toLowerCase()) {
    case 'int':
    case 'integer':
      return Math.trunc(Number(value));
    case 'float':
    case 'double':
    case 'decimal':
    case 'number':
      return Number(value);
    case 'bool':
    case 'boolean':
      return typeof value === 'boolean' ? value : toBool(String(value));
    case 'string':
      return String(value);
    default:
      return value;
  }
}

function resultBody(routine: RoutineModel, outcome: RoutineOutcome, wrapper: string | undefined, returns: string | undefined): unknown {
  if (outcome.value !== undefined) return converted(outcome.value, returns);
  const sets = outcome.resultSets;
  const rows = sets.length === 1 ? sets[0] : sets;
  const hasOut = routine.params.some((p) => p.mode !== 'IN');
  if (!hasOut) return { [wrapper ?? 'resource']: rows };
  return sets.length === 0 ? { ...outcome.out } : { [wrapper ?? 'resource']: rows, ...outcome.out };
}

function findRoutine(ctx: SqlServiceContext, kind: RoutineKind, name: string): RoutineModel {
  const lower = name.toLowerCase();
  const routine = ctx.schema.current.routines.find((r) => r.kind === kind && r.name.toLowerCase() === lower);
  if (routine === undefined) throw sqlMessages.routineNotFound.error(LABEL[kind].title, name);
  return routine;
}

async function callRoutine(ctx: SqlServiceContext, call: ServiceCall, kind: RoutineKind, segment: string): Promise<ServiceResult> {
  const routines = ctx.dialect.routines as NonNullable<SqlServiceContext['dialect']['routines']>;
  const { name, values } = splitInlineCall(segment);
  const routine = findRoutine(ctx, kind, name);
  const args = encodedArguments(routine, routineArguments(routine, LABEL[kind].text, call.body, values, call.query), ctx.dialect);
  const option = (key: string) =>
    pick(call.query, key) ??
    (typeof (call.body as Record<string, unknown> | undefined)?.[key] === 'string'
      ? (call.body as Record<string, string>)[key]
      : undefined);
  let outcome: RoutineOutcome;
  try {
    outcome = await routines.call(ctx.db, routine, args);
  } catch (error) {
    throw databaseError(error, ctx.dialect, null, new InternalServerError(`Failed to call database stored ${LABEL[kind].text}.`));
  }
  const body = resultBody(routine, outcome, option('wrapper'), option('returns'));
  // A string would go out as it is (not JSON): a function's text value is sent as the JSON string it is.
  if (typeof body === 'string') return { body: JSON.stringify(body), headers: { 'content-type': 'application/json; charset=utf-8' } };
  return { body };
}

/** Serves `_proc[/{name}]` and `_func[/{name}]`; `rest` are the segments after it. */
export async function handleRoutines(ctx: SqlServiceContext, call: ServiceCall, kind: RoutineKind, rest: string[]): Promise<ServiceResult> {
  const segment = kind === 'procedure' ? '_proc' : '_func';
  if (!ctx.dialect.capabilities.routines)
    throw new NotImplementedError(`${LABEL[kind].plural} are not supported by this database type (${ctx.dialect.dialect}).`);
  if (rest.length > 1) throw coreMessages.resourceNotFound.error(`${segment}/${rest.join('/')}`, ctx.serviceName);
  if (rest.length === 1) {
    if (call.verb !== 'GET' && call.verb !== 'POST')
      throw coreMessages.verbNotSupported.error(call.verb, `${segment}/${rest[0]}`, ctx.serviceName);
    return callRoutine(ctx, call, kind, rest[0]);
  }
  if (call.verb !== 'GET') throw coreMessages.verbNotSupported.error(call.verb, segment, ctx.serviceName);
  const routines = ctx.schema.current.routines.filter((r) => r.kind === kind);
  const ids = parseCommonParams(call.query, call.body).ids;
  if (ids !== null) return { body: wrapList(ids.map((id) => describeRoutine(findRoutine(ctx, kind, id)))) };
  return { body: wrapList(cleanListing(routines.map(describeRoutine), fieldsOption(call.query, call.body), asListOption(call.query))) };
}
