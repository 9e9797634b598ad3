/**
 * The quickstart's hooks: phone numbers written to contact_info are normalised (`(500) 555.0162`
 * becomes `500 555-0162`, as the seeded ones are written), and every write to contact_info leaves
 * an entry in the `audit` service's log. The entry is written through the in-process API with
 * elevated rights (`asAdmin()`): the caller may not write the audit log, and must not need to.
 */
import { BadRequestError, defineHooks, type HookContext } from 'portico/runtime';
import type { Api, Events } from '../server/events.js';

/** Ten digits (a leading 1 dropped) as `AAA PPP-NNNN`; other numbers as `+` and digits. A value with letters is refused. */
function normalisePhone(phone: string): string {
  if (/[^\d\s()+.-]/.test(phone)) {
    throw new BadRequestError(`Phone number '${phone}' is not valid: use digits, spaces, dashes, dots and parentheses.`);
  }
  const digits = phone.replace(/\D/g, '');
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
  if (national.length === 10) return `${national.slice(0, 3)} ${national.slice(3, 6)}-${national.slice(6)}`;
  return phone.trim().startsWith('+') ? `+${digits}` : digits;
}

/**
 * The records a write sends, their phone numbers normalised. A hook sees their values as the
 * types say (a number sent for the text column, as the reference's javascript-sdk sends
 * `parseInt(phone)`, arrives as its text); a phone left out, or null, which the table then
 * refuses, stays as it is.
 */
function normalised<R extends { phone?: string }>(records: R[]): R[] {
  return records.map((record) => (typeof record.phone === 'string' ? { ...record, phone: normalisePhone(record.phone) } : record));
}

/** Records one write: the event, the records it touched, who made it. */
async function audit(records: ReadonlyArray<{ id?: number }>, ctx: HookContext<Api>): Promise<void> {
  const { user, app } = ctx.auth;
  await ctx.api
    .asAdmin()
    .table('audit', 'entry')
    .create({
      event: ctx.event,
      record_ids: records.map((record) => record.id).join(','),
      actor: user?.email ?? (app ? `app ${app.name}` : null),
    });
}

export default defineHooks<Events, Api>({
  'db._table.contact_info.post.pre_process': normalised,
  'db._table.contact_info.put.pre_process': normalised,
  'db._table.contact_info.{id}.put.pre_process': normalised,
  'db._table.contact_info.patch.pre_process': normalised,
  'db._table.contact_info.{id}.patch.pre_process': normalised,
  'db._table.contact_info.post.post_process': audit,
  'db._table.contact_info.put.post_process': audit,
  'db._table.contact_info.{id}.put.post_process': audit,
  'db._table.contact_info.patch.post_process': audit,
  'db._table.contact_info.{id}.patch.post_process': audit,
  'db._table.contact_info.delete.post_process': audit,
  'db._table.contact_info.{id}.delete.post_process': audit,
});
