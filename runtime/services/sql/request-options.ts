/** What SQL requests read beyond parseCommonParams: the raw `fields` choice, filter `params`, body records. */
import { pick, toBool, toList, type CommonParams, type RawQuery } from '../../core/query-params.js';
import { checkListLength } from '../../core/request-limits.js';
import type { BatchMode } from './query/batch-runner.js';

function bodyObject(body: unknown): Record<string, unknown> | null {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

/**
 * The `fields` option (query first, then body): null when absent, `'*'` for all, else the names.
 * Writes need the difference between absent (identifiers only) and `*` (everything).
 */
export function fieldsOption(query: RawQuery, body: unknown): string[] | '*' | null {
  let raw = pick(query, 'fields');
  const object = raw === undefined ? bodyObject(body) : null;
  if (object !== null) {
    const value = object.fields ?? object.select;
    raw = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : undefined;
  }
  const list = toList(raw);
  if (list === null) return null;
  checkListLength('fields', list);
  return list.includes('*') ? '*' : list;
}

/** `as_list=true` on listings. */
export function asListOption(query: RawQuery): boolean {
  return toBool(pick(query, 'as_list'));
}

/** `force=true` on DELETE without criteria. */
export function forceOption(query: RawQuery): boolean {
  return toBool(pick(query, 'force'));
}

/** Values for the filter's `:name` placeholders: body `params` as an object or as `[{name, value}]`. */
export function filterParams(body: unknown): Record<string, unknown> | undefined {
  const params = bodyObject(body)?.params;
  if (Array.isArray(params)) {
    return Object.fromEntries(
      params
        .filter((p): p is { name: string; value: unknown } => bodyObject(p) !== null && typeof (p as { name?: unknown }).name === 'string')
        .map((p) => [p.name, p.value]),
    );
  }
  return bodyObject(params) ?? undefined;
}

/** Whether a body carries records (`[...]` or `{resource: ...}`), as GET/DELETE-by-records need. */
export function hasRecordBody(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0;
  const resource = bodyObject(body)?.resource;
  return Array.isArray(resource) ? resource.length > 0 : bodyObject(resource) !== null;
}

export function batchMode(params: CommonParams): BatchMode {
  return params.rollback ? 'rollback' : params.continue ? 'continue' : 'default';
}
