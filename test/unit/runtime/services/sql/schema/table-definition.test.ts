/**
 * The refusals of table definitions (runtime/services/sql/schema/table-definition.ts), pinned whole:
 * their texts come from the catalogue (schema/schema-messages.ts), each a 400 naming the field and table.
 */
import { describe, expect, it } from 'vitest';
import { PorticoError } from '#runtime/core/errors.js';
import { parseTableDefinitions } from '#runtime/services/sql/schema/table-definition.js';

/** The error body of a definition of table 't' with one field `field` beside its id. */
function refusal(field: Record<string, unknown>, table: Record<string, unknown> = {}): unknown {
  try {
    parseTableDefinitions([{ name: 't', field: [{ name: 'id', type: 'id' }, field], ...table }]);
  } catch (error) {
    if (error instanceof PorticoError) return error.toBody().error;
    throw error;
  }
  return 'taken';
}

describe('parseTableDefinitions refuses', () => {
  it.each([
    [
      'a length that is no integer',
      { name: 'a', type: 'string', length: 'long' },
      "Invalid 'length' for field 'a' of table 't': must be a non-negative integer.",
    ],
    [
      'a precision beyond any database',
      { name: 'a', type: 'decimal', precision: 1e12 },
      "Invalid 'precision' for field 'a' of table 't': at most 2147483647.",
    ],
    [
      'an unknown referential action',
      { name: 'a', type: 'integer', ref_table: 't', ref_on_delete: 'explode' },
      "Invalid 'ref_on_delete' for field 'a' of table 't': use one of NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT.",
    ],
    [
      'a default of another shape',
      { name: 'a', type: 'integer', default: [1] },
      `Invalid 'default' for field 'a' of table 't': use a scalar or {"expression": "SQL"}.`,
    ],
    ['no type', { name: 'a' }, "Invalid schema detected - no type or db_type element for field 'a' of table 't'."],
    [
      'a native type of odd text',
      { name: 'a', db_type: 'int; drop' },
      "Invalid schema detected - invalid type 'int; drop' for field 'a' of table 't'.",
    ],
    [
      'a reference without a table',
      { name: 'a', type: 'reference' },
      "Invalid schema detected - no table element for reference type of field 'a' of table 't'.",
    ],
  ])('%s', (_name, field, message) => {
    expect(refusal(field)).toEqual({ code: 400, message });
  });

  it('with the field (and the type) as context where the client may correct one value', () => {
    expect(refusal({ name: 'a', type: 'decimal', precision: 4, scale: 6 })).toEqual({
      code: 400,
      message: "Invalid 'scale' for field 'a' of table 't': at most the precision (4).",
      context: { field: 'a' },
    });
    expect(refusal({ name: 'a', type: 'whole number' })).toEqual({
      code: 400,
      message: expect.stringMatching(
        /^Invalid schema detected - invalid type 'whole number' for field 'a' of table 't': use one of id, .*, or 'db_type' for a native type\.$/,
      ),
      context: { field: 'a', type: 'whole number' },
    });
  });

  it('a table without fields or with two numbered keys', () => {
    expect(refusal({ name: 'n', type: 'id' })).toEqual({
      code: 400,
      message: "Invalid schema detected - table 't' has more than one auto-numbered primary key field (id, n).",
      context: { table: 't' },
    });
    expect(() => parseTableDefinitions([{ name: 't', field: [] }])).toThrow("There are no fields in the requested schema of table 't'.");
  });
});
