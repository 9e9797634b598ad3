/**
 * The common query parameters of list and write operations, with the spec's aliases and the
 * lenient forms real clients send (spaces after commas, `+` in order, empty values, `1`/`yes`
 * booleans). Values may also come from the body of a request (GET-over-POST).
 */
import { checkListLength, limits } from './request-limits.js';
import { coreMessages } from './messages.js';

export type RawQuery = Record<string, string | string[] | undefined>;

export interface OrderTerm {
  field: string;
  direction: 'asc' | 'desc';
  /** `NULLS FIRST` / `NULLS LAST` when given; absent: nulls sort as the smallest values. */
  nulls?: 'first' | 'last';
}

export interface CommonParams {
  /** null means all fields (`*` or absent). */
  fields: string[] | null;
  /** Names listed next to `*` (`*,name`): all fields are selected, but each must still name one. */
  fieldsBesideAll: string[];
  filter: string | null;
  /** null means "the service default"; 0 from the client also means no explicit limit. */
  limit: number | null;
  offset: number;
  order: OrderTerm[];
  includeCount: boolean;
  /** `include_schema`: the table's description in `meta.schema` (reference 2.4). */
  includeSchema: boolean;
  countOnly: boolean;
  ids: string[] | null;
  idField: string[] | null;
  /** null: none; ['*']: all. */
  related: string[] | null;
  group: string[] | null;
  having: string | null;
  continue: boolean;
  rollback: boolean;
  refresh: boolean;
}

const ALIASES: Record<string, string> = {
  select: 'fields',
  where: 'filter',
  top: 'limit',
  skip: 'offset',
  sort: 'order',
  order_by: 'order',
  group_by: 'group',
};

/** Aliases by canonical name, built once. */
const ALIASES_OF = new Map<string, string[]>();
for (const [alias, canonical] of Object.entries(ALIASES)) ALIASES_OF.set(canonical, [...(ALIASES_OF.get(canonical) ?? []), alias]);

/** The last value of a query parameter (clients may repeat one), with aliases applied. */
export function pick(query: RawQuery, name: string): string | undefined {
  let value = given(query, name);
  if (value === undefined) {
    for (const alias of ALIASES_OF.get(name) ?? []) {
      value = given(query, alias);
      if (value !== undefined) break;
    }
  }
  if (Array.isArray(value)) value = value[value.length - 1];
  // A hook may have put a number or a boolean there (`context.query.limit = 10`: gen build compiles it without type checks).
  return typeof value === 'string' || value === undefined ? value : value === null ? undefined : String(value);
}

function given(query: RawQuery, name: string): string | string[] | undefined {
  const value = query[name];
  if (value !== undefined) return value;
  // PHP reads `name[]=a&name[]=b` (jQuery's $.param in the javascript-sdk) as the list a,b: so does the reference.
  const listed = query[`${name}[]`];
  return Array.isArray(listed) ? listed.join(',') : listed;
}

const TRUE = new Set(['true', '1', 'yes', 'on', 'y', 't']);

/** Lenient boolean: true, 1, yes, on, y, t (any case); everything else false. */
export function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return typeof value === 'string' && TRUE.has(value.trim().toLowerCase());
}

/** A comma-separated list; blanks dropped; null when empty. */
export function toList(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? null : items;
}

function toInteger(name: string, value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  if (!/^-?\d+$/.test(text)) throw coreMessages.parameterNotInteger.error(name);
  const number = Number(text);
  if (Math.abs(number) > limits.maxPaging) {
    throw coreMessages.parameterTooLarge.error(name, limits.maxPaging);
  }
  return number;
}

const ORDER_NAME = /^[\p{L}\p{M}\p{N}_$.#-]+$/u;

/** Parses `name ASC, other desc` (also `name+ASC`). Field names are checked by the caller. */
export function parseOrder(value: string | undefined): OrderTerm[] {
  const terms: OrderTerm[] = [];
  const parts = toList(value?.replace(/\+/g, ' '));
  checkListLength('order', parts);
  for (const part of parts ?? []) {
    const words = part.split(/\s+/);
    // `name [asc|desc] [nulls first|last]` (reference 2.4).
    const nullsAt = words.findIndex((word, index) => index > 0 && word.toLowerCase() === 'nulls');
    const nulls = nullsAt === -1 ? undefined : words[nullsAt + 1]?.toLowerCase();
    if (nullsAt !== -1 && (nullsAt !== words.length - 2 || (nulls !== 'first' && nulls !== 'last'))) {
      throw coreMessages.invalidOrderClause.error(part);
    }
    const plain = nullsAt === -1 ? words : words.slice(0, nullsAt);
    // A name of letters and digits of any script, `_ $ . - #` (`größe`, `1st`, `e-mail`): the caller checks it names a field.
    if (plain.length > 2 || !ORDER_NAME.test(plain[0])) {
      throw coreMessages.invalidOrderClause.error(part);
    }
    const direction = (plain[1] ?? 'asc').toLowerCase();
    if (direction !== 'asc' && direction !== 'desc') {
      throw coreMessages.invalidOrderDirection.error(plain[1], part);
    }
    terms.push(nulls === undefined ? { field: plain[0], direction } : { field: plain[0], direction, nulls: nulls as 'first' | 'last' });
  }
  return terms;
}

const NAMES = new Set([
  'fields',
  'filter',
  'limit',
  'offset',
  'order',
  'include_count',
  'include_schema',
  'count_only',
  'ids',
  'id_field',
  'related',
  'group',
  'having',
  'continue',
  'rollback',
  'refresh',
  ...Object.keys(ALIASES),
]);
for (const name of [...NAMES]) NAMES.add(`${name}[]`);

function namesNone(object: object): boolean {
  for (const key in object) if (NAMES.has(key)) return false;
  return true;
}

let defaults: CommonParams | undefined;

/** Merges body options (GET-over-POST) under query parameters and parses them. */
export function parseCommonParams(query: RawQuery, body?: unknown): CommonParams {
  // Most requests name none of these: their (frozen) defaults are parsed once.
  if (namesNone(query) && (body === null || typeof body !== 'object' || Array.isArray(body) || namesNone(body))) {
    defaults ??= Object.freeze(parseMerged({}));
    return defaults;
  }
  const merged: RawQuery = {};
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') merged[key] = String(value);
      else if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) merged[key] = value.join(',');
    }
  }
  Object.assign(merged, query);
  return parseMerged(merged);
}

/** A list parameter within its length limit. */
function listParam(merged: RawQuery, name: string, max: number = limits.listItems): string[] | null {
  const items = toList(pick(merged, name));
  checkListLength(name, items, max);
  return items;
}

function parseMerged(merged: RawQuery): CommonParams {
  const fields = listParam(merged, 'fields');
  const limit = toInteger('limit', pick(merged, 'limit'));
  const offset = toInteger('offset', pick(merged, 'offset')) ?? 0;
  if (offset < 0) throw coreMessages.negativeOffset.error();
  const filter = pick(merged, 'filter')?.trim();
  const having = pick(merged, 'having')?.trim();
  const params: CommonParams = {
    fields: fields === null || fields.includes('*') ? null : fields,
    fieldsBesideAll: fields?.includes('*') ? fields.filter((name) => name !== '*') : [],
    filter: filter ? filter : null,
    limit: limit === null || limit <= 0 ? null : limit,
    offset,
    order: parseOrder(pick(merged, 'order')),
    includeCount: toBool(pick(merged, 'include_count')),
    includeSchema: toBool(pick(merged, 'include_schema')),
    countOnly: toBool(pick(merged, 'count_only')),
    ids: listParam(merged, 'ids', limits.ids),
    idField: listParam(merged, 'id_field'),
    related: listParam(merged, 'related'),
    group: listParam(merged, 'group'),
    having: having ? having : null,
    continue: toBool(pick(merged, 'continue')),
    rollback: toBool(pick(merged, 'rollback')),
    refresh: toBool(pick(merged, 'refresh')),
  };
  if (params.continue && params.rollback) {
    throw coreMessages.rollbackAndContinue.error();
  }
  return params;
}
