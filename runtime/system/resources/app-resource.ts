/** GET /system/app and /system/app/{id}: the apps with their API keys (administrators only). */
import { BadRequestError, NotFoundError, messages } from '../../core/errors.js';
import { wrapList } from '../../core/envelope.js';
import { parseCommonParams, type RawQuery } from '../../core/query-params.js';
import type { PlatformContext } from '../../http/platform-context.js';

const APP_FIELDS = ['id', 'name', 'label', 'description', 'is_active', 'api_key', 'role_id', 'type', 'path', 'url', 'created_date', 'last_modified_date', 'created_by_id', 'last_modified_by_id'] as const;

function present(row: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = field === 'is_active' ? row[field] === 1 : row[field];
  return out;
}

export async function listApps(ctx: PlatformContext, query: RawQuery, id?: string): Promise<unknown> {
  const params = parseCommonParams(query);
  const fields = params.fields ?? APP_FIELDS;
  const unknown = fields.find((f) => !(APP_FIELDS as readonly string[]).includes(f));
  if (unknown) throw new BadRequestError(`Invalid field requested: ${unknown}`, { field: unknown });
  let select = ctx.db.selectFrom('app').selectAll().orderBy('id');
  if (id !== undefined) {
    const row = await select.where('id', '=', Number(id)).executeTakeFirst();
    if (!row || !/^\d+$/.test(id)) throw new NotFoundError(messages.recordNotFound(id));
    return present(row, fields);
  }
  if (params.ids) select = select.where('id', 'in', params.ids.map(Number));
  const rows = await select.execute();
  const page = rows.slice(params.offset, params.limit === null ? undefined : params.offset + params.limit);
  const records = page.map((row) => present(row, fields));
  return params.includeCount ? wrapList(records, { count: rows.length }) : wrapList(records);
}
