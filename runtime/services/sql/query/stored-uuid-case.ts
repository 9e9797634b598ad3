/**
 * Writes of SQLite uuid columns whose uuids another program may have stored in upper case
 * (value-codec.ts, uuidForms). This server writes uuids in lower case, so a new row pointing at
 * such a parent was refused by the foreign key, and an update naming the uuid a row already holds
 * rewrote it in lower case (breaking the other program's references to it). Such a value is
 * written as SQL that keeps the stored text: a foreign key takes its parent's
 * (`coalesce((select id from parent where id in (lower, UPPER)), lower)`: no parent, no match, and
 * the foreign key refuses as before), an update keeps the row's own when it is the same uuid
 * (`case when col in (lower, UPPER) then col else lower end`). Both compare the plain column with
 * `in`, which an index on it still serves.
 */
import { sql, type RawBuilder } from 'kysely';
import type { FieldModel, TableModel } from '../../../model/platform-model.js';

/** A uuid value (canonical, lower case) as written: the text itself, or SQL keeping a stored text. */
export type StoredCase = (lower: string, update: boolean) => unknown;

/** The bound parameters of each value written as SQL, in the order the SQL binds them. */
const PARAMETERS = new WeakMap<object, readonly unknown[]>();

function kept(expression: RawBuilder<unknown>, lower: string): RawBuilder<unknown> {
  PARAMETERS.set(expression, [lower, lower.toUpperCase(), lower]);
  return expression;
}

/** How a SQLite uuid field's values are written; `tables` finds the table its foreign key points at. */
export function storedUuidCase(field: FieldModel, tables: (name: string) => TableModel | undefined): StoredCase {
  const column = sql.id(field.sourceName);
  const parent = field.refTable === null ? undefined : tables(field.refTable);
  const parentField = parent?.fields.find((f) => f.name === field.refField);
  if (parent !== undefined && parentField !== undefined) {
    const parentTable = sql.id(parent.sourceName);
    const parentColumn = sql.id(parentField.sourceName);
    return (lower) =>
      kept(
        sql`coalesce((select ${parentColumn} from ${parentTable} where ${parentColumn} in (${lower}, ${lower.toUpperCase()})), ${lower})`,
        lower,
      );
  }
  return (lower, update) =>
    update ? kept(sql`case when ${column} in (${lower}, ${lower.toUpperCase()}) then ${column} else ${lower} end`, lower) : lower;
}

/** The bound parameters of a value written as such SQL; undefined for a plain value. */
export function storedCaseParameters(value: unknown): readonly unknown[] | undefined {
  return typeof value === 'object' && value !== null ? PARAMETERS.get(value) : undefined;
}

/** The uuid a value written as such SQL stands for (the value itself when plain). */
export function plainValue(value: unknown): unknown {
  const parameters = storedCaseParameters(value);
  return parameters === undefined ? value : parameters[0];
}
