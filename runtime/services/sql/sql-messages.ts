/** Texts of the SQL services' errors, worded as the reference platform words them (clients match some). */

export type RecordAction = 'create' | 'update' | 'delete' | 'retrieve';

const PAST: Record<RecordAction, string> = { create: 'created', update: 'updated', delete: 'deleted', retrieve: 'retrieved' };
const DRIVER: Record<RecordAction, string> = {
  create: 'Failed to create records in', update: 'Failed to update records in',
  delete: 'Failed to delete records from', retrieve: 'Failed to retrieve records from',
};

export const sqlMessages = {
  batch: (action: RecordAction, rolledBack: boolean) =>
    `Batch Error: Not all requested records could be ${PAST[action]}.${rolledBack ? ' All changes rolled back.' : ''}`,
  driverFailure: (action: RecordAction, table: string) => `${DRIVER[action]} '${table}'.`,
  notNull: (field: string) => `Field '${field}' can not be NULL.`,
  required: (field: string) => `Required field '${field}' can not be NULL.`,
  noFields: () => 'No valid fields were found in record.',
  noDeleteCriteria: () => 'No filter or records given for delete request.',
  createById: () => 'Create record by identifier not currently supported.',
  invalidOrderField: (field: string) => `Invalid field '${field}' in order by clause.`,
  readOnlyView: (table: string) => `Table '${table}' is a view; its records can not be written.`,
  unknownRelation: (name: string, table: string) => `Invalid relationship '${name}' requested for table '${table}'.`,
  compositeIds: (table: string) => `Table '${table}' has a composite identifier: address its records by record bodies, not 'ids'.`,
} as const;
