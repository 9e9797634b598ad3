/**
 * `/system/service_report` (the reference's service reports): one record per service created,
 * changed or deleted through the API, who did it and how, written in the transaction of that
 * write (rolled back with it). Clients read them and may delete old ones; nothing else writes them.
 */
import type { Key, ResourceBehaviour, WriteContext } from '../record-resources/resource-handler.js';
import { serviceReportResource } from '../record-resources/system-records.js';

/** The reference's action texts. */
const ACTIONS = { create: 'Service created', update: 'Service modified', delete: 'Service deleted' } as const;

/** Records that the request of `w` created, changed or deleted the service. */
export async function reportServiceChange(w: WriteContext, verb: keyof typeof ACTIONS, service: { id: Key; name: string }): Promise<void> {
  await w.db
    .insertInto('service_report')
    .values({
      service_id: Number(service.id),
      service_name: service.name,
      user_email: w.call.auth.user?.email ?? null,
      action: ACTIONS[verb],
      request_verb: w.call.verb,
      created_date: w.now,
      last_modified_date: w.now,
    })
    .execute();
}

export const serviceReportBehaviour: ResourceBehaviour = { def: serviceReportResource };
