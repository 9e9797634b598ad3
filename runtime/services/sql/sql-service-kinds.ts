// STUB: replaced by the SQL service work.
import type { ServiceKind } from '../service-kind.js';

/** The SQL database kinds (sqlite now; pgsql and mysql later). */
export const sqlServiceKinds: ServiceKind[] = [];
