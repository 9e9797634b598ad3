/**
 * What a generated server hands the runtime besides its model: the precompiled JSON Schemas of
 * each database table's routes, so that those routes validate and serialise without building
 * schemas at start.
 */
import type { TableRouteSchemas } from '../openapi/record-schemas.js';

export interface ServiceRoutes {
  /** Service name. */
  service: string;
  /** Route schemas by table name. */
  tables: Record<string, TableRouteSchemas>;
}
