/** `services/<name>/routes.json`: the precompiled JSON Schemas of each table's routes, as data. */
import type { SqlServiceModel } from '../../runtime/model/platform-model.js';
import type { ServiceRoutes } from '../../runtime/http/generated-routes.js';
import { canonicalJson } from '../../runtime/openapi/canonical-json.js';
import { tableRouteSchemas } from '../../runtime/openapi/record-schemas.js';
import { GENERATED_NOTICE } from './generated-notice.js';

export function createRoutesFile(service: SqlServiceModel): string {
  const routes: ServiceRoutes = {
    service: service.name,
    tables: Object.fromEntries(service.schema.tables.map((table) => [table.name, tableRouteSchemas(table, service.dialect)])),
  };
  // JSON has no comments: the notice goes in `$comment`, which the runtime ignores.
  return `${canonicalJson({ $comment: GENERATED_NOTICE, ...routes })}\n`;
}
