/** The PorticoErrors every dialect's driver-error translation produces, worded alike. */
import { BadRequestError, ConflictError } from '../../../core/errors.js';
import type { TableModel } from '../../../model/platform-model.js';

/** The API name of a database column, or the column itself when the table does not know it. */
export function fieldName(column: string, table: TableModel | null): string {
  return table?.fields.find((field) => field.sourceName === column)?.name ?? column;
}

/** 409: a duplicate primary or unique key. */
export function conflict(fields: string[]): ConflictError {
  const named = fields.length === 0 ? 'key' : fields.map((f) => `'${f}'`).join(', ');
  return new ConflictError(`Duplicate entry: a record with the same ${named} already exists.`, { fields });
}

/** 400: a value the column cannot take (type, range, length, format). */
export function valueError(detail: string, field: string | null): BadRequestError {
  const subject = field === null ? 'Invalid value' : `Invalid value for field '${field}'`;
  return new BadRequestError(`${subject}: ${detail}.`, field === null ? null : { field });
}
