/** The config keys every SQL service kind shares, their JSON Schema and their normalised values. */

export interface SqlServiceOptions {
  /** Default and maximum number of records a list returns. */
  maxRecords: number;
  /** PUT/PATCH by id create missing records; POST with an existing key updates it. */
  allowUpsert: boolean;
  /** Record keys and table names in the database's case instead of lower case. */
  keepCase: boolean;
}

export const DEFAULT_MAX_RECORDS = 1000;

/** JSON Schema properties of the shared keys. */
export const sqlConfigProperties: Record<string, unknown> = {
  max_records: {
    type: 'integer',
    minimum: 1,
    default: DEFAULT_MAX_RECORDS,
    description: 'Default and maximum number of records a table list returns; larger client limits are clamped.',
  },
  allow_upsert: {
    type: 'boolean',
    default: false,
    description: 'PUT/PATCH by identifier create records that do not exist; POST with an existing key updates it.',
  },
  keep_case: {
    type: 'boolean',
    default: false,
    description: "Keep the database's case in table and field names instead of lower-casing them.",
  },
};

/** Options from a (resolved) service config; invalid or non-positive max_records means the default. */
export function sqlServiceOptions(config: Record<string, unknown>): SqlServiceOptions {
  const max = Number(config.max_records);
  return {
    maxRecords: Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_RECORDS,
    allowUpsert: config.allow_upsert === true,
    keepCase: config.keep_case === true,
  };
}
