/**
 * The values a client gives a routine's IN and INOUT parameters (reference 4), first source that
 * has any: the body's `params` (`[{name, value}]`, a list of values in declared order, or an
 * object `{name: value}` / `{name: {value}}`), the inline form `name(v1,v2)`, the query string.
 * Names match case-insensitively; direction and types come from the database, never the client.
 * Values of number, boolean and date-time parameters are checked and converted as a record's are.
 */
import { BadRequestError } from '../../../core/errors.js';
import type { RawQuery } from '../../../core/query-params.js';
import type { AbstractType, RoutineModel, RoutineParamModel } from '../../../model/platform-model.js';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { bareField, type Encoder, encoderFor } from '../query/value-codec.js';
import { INTEGER_TYPES, nativeTypeInfo } from '../schema/native-types.js';

type Input = Record<string, unknown>;

/** Query parameters that are request options, never routine arguments. */
const OPTIONS = new Set(['wrapper', 'returns', 'api_key', 'session_token', 'method', 'refresh']);

function isObject(value: unknown): value is Input {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function inputs(routine: RoutineModel): RoutineParamModel[] {
  return routine.params.filter((p) => p.mode !== 'OUT');
}

function names(routine: RoutineModel): string {
  return (
    inputs(routine)
      .map((p) => p.name)
      .join(', ') || 'none'
  );
}

function byName(routine: RoutineModel, name: string, label: string): RoutineParamModel {
  const param = inputs(routine).find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (param === undefined) {
    throw new BadRequestError(`Unknown parameter '${name}' for ${label} '${routine.name}' (its input parameters: ${names(routine)}).`, {
      parameter: name,
    });
  }
  return param;
}

function positional(routine: RoutineModel, values: unknown[], label: string): Map<string, unknown> {
  const params = inputs(routine);
  if (values.length > params.length)
    throw new BadRequestError(`The ${label} '${routine.name}' takes ${params.length} input parameter(s); ${values.length} given.`);
  return new Map(values.map((value, index) => [params[index].name, value]));
}

/** A JSON value as a bound parameter: objects and arrays as JSON text. */
function bindable(value: unknown): unknown {
  if (isObject(value) && 'value' in value && Object.keys(value).length <= 3) return bindable(value.value);
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

/** `proc(1, 'a')` -> ['proc', ['1', 'a']]; a plain name -> [name, null]. */
export function splitInlineCall(segment: string): { name: string; values: string[] | null } {
  const match = /^([^()]+)\((.*)\)$/s.exec(segment);
  if (match === null) return { name: segment, values: null };
  const inner = match[2].trim();
  return { name: match[1].trim(), values: inner === '' ? [] : inner.split(',').map((v) => v.trim().replace(/^'(.*)'$/s, '$1')) };
}

/**
 * The arguments by parameter name. An input parameter left out takes the routine's default
 * (reference 4); one without a default is a 400 naming it, on every database (PostgreSQL found
 * no function to call, MySQL ran the routine with NULL).
 */
export function routineArguments(
  routine: RoutineModel,
  label: string,
  body: unknown,
  inline: string[] | null,
  query: RawQuery,
): Map<string, unknown> {
  const args = given(routine, label, body, inline, query);
  const missing = inputs(routine).find((p) => !args.has(p.name) && p.defaulted !== true);
  if (missing !== undefined) {
    throw new BadRequestError(
      `Missing parameter '${missing.name}' for ${label} '${routine.name}': it has no default (its input parameters: ${names(routine)}).`,
      { parameter: missing.name },
    );
  }
  return args;
}

/**
 * Types whose values each database would otherwise take its own way (MariaDB rounded 1.5 into an
 * int and took true and 2 as booleans, PostgreSQL refused them and took 'yes'); text, json and
 * types the model does not know go to the database as given.
 */
const CHECKED: ReadonlySet<AbstractType> = new Set<AbstractType>([
  ...INTEGER_TYPES,
  'boolean',
  'float',
  'double',
  'decimal',
  'date',
  'time',
  'datetime',
  'timestamp',
]);

/**
 * The record encoder of each checked parameter, built once per routine and dialect: a call only
 * looks them up (a routine's parameters come from the schema, so they do not change between calls).
 */
const encoderCache = new WeakMap<RoutineModel, WeakMap<SqlDialectModule, ReadonlyMap<string, Encoder>>>();

function parameterEncoders(routine: RoutineModel, dialect: SqlDialectModule): ReadonlyMap<string, Encoder> {
  let byDialect = encoderCache.get(routine);
  if (byDialect === undefined) {
    byDialect = new WeakMap();
    encoderCache.set(routine, byDialect);
  }
  let encoders = byDialect.get(dialect);
  if (encoders === undefined) {
    const built = new Map<string, Encoder>();
    for (const param of routine.params) {
      const { type, ...sizes } = nativeTypeInfo(param.dbType);
      if (CHECKED.has(type)) built.set(param.name, encoderFor({ ...bareField(param.name, type, sizes), dbType: param.dbType }, dialect));
    }
    encoders = built;
    byDialect.set(dialect, encoders);
  }
  return encoders;
}

/** The arguments checked and converted by the record encoder of each parameter's declared type (400 naming it). */
export function encodedArguments(routine: RoutineModel, args: Map<string, unknown>, dialect: SqlDialectModule): Map<string, unknown> {
  const encoded = new Map(args);
  for (const [name, encode] of parameterEncoders(routine, dialect)) {
    const value = args.get(name);
    if (value !== null && value !== undefined) encoded.set(name, encode(value));
  }
  return encoded;
}

function given(routine: RoutineModel, label: string, body: unknown, inline: string[] | null, query: RawQuery): Map<string, unknown> {
  const params = isObject(body) ? body.params : undefined;
  if (Array.isArray(params) && params.length > 0) {
    if (params.every((item) => isObject(item) && typeof item.name === 'string')) {
      return new Map((params as Input[]).map((item) => [byName(routine, item.name as string, label).name, bindable(item.value)]));
    }
    return positional(routine, params.map(bindable), label);
  }
  if (isObject(params) && Object.keys(params).length > 0) {
    return new Map(Object.entries(params).map(([name, value]) => [byName(routine, name, label).name, bindable(value)]));
  }
  if (inline !== null) return positional(routine, inline, label);
  const args = new Map<string, unknown>();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || OPTIONS.has(key.toLowerCase())) continue;
    const param = inputs(routine).find((p) => p.name.toLowerCase() === key.toLowerCase());
    if (param !== undefined) args.set(param.name, Array.isArray(value) ? value[value.length - 1] : value);
  }
  return args;
}
