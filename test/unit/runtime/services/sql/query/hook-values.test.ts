import { describe, expect, it } from 'vitest';
import { BatchError, PorticoError } from '#runtime/core/errors.js';
import type { TableModel } from '#runtime/model/platform-model.js';
import { sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';
import { promisedRecords } from '#runtime/services/sql/query/hook-values.js';
import { buildTablePlan } from '#runtime/services/sql/query/table-plan.js';
import { bareField } from '#runtime/services/sql/query/value-codec.js';

const table: TableModel = {
  name: 'item',
  sourceName: 'item',
  sourceSchema: null,
  label: 'Item',
  description: '',
  isView: false,
  primaryKey: ['id'],
  fields: [
    { ...bareField('id', 'id'), isPrimaryKey: true, autoIncrement: true },
    { ...bareField('big', 'bigint'), dbType: 'bigint' },
    bareField('wide', 'decimal'),
    bareField('price', 'decimal', { length: null, precision: 10, scale: 2 }),
    bareField('ratio', 'double'),
    bareField('ref', 'uuid'),
    bareField('made', 'date'),
    bareField('doc', 'json'),
    bareField('name', 'string'),
  ],
  foreignKeys: [],
  uniqueKeys: [],
  relations: [],
};
const plan = buildTablePlan(table, sqliteDialect);

describe('promisedRecords', () => {
  it('converts values to the types the hooks are promised, keeping every digit', () => {
    const {
      records: [record],
    } = promisedRecords(
      plan,
      [
        {
          id: '3',
          big: '9007199254740993',
          wide: '0.1000000000000000000001',
          price: '12.505',
          ratio: '0.25',
          name: 12,
          made: '2024-02-29',
          doc: '{"a":1}',
          ref: '0B5E5F0E-5F9A-4A43-9E62-2A0A0C7E8A11',
          orders_by_item: [{ qty: '1' }],
        },
      ],
      'create',
    );
    expect(record).toEqual({
      id: 3,
      big: '9007199254740993',
      wide: '0.1000000000000000000001',
      price: 12.51,
      ratio: 0.25,
      name: '12',
      made: '2024-02-29',
      doc: '{"a":1}',
      ref: '0B5E5F0E-5F9A-4A43-9E62-2A0A0C7E8A11',
      // Related records are no column: as sent.
      orders_by_item: [{ qty: '1' }],
    });
  });

  it('gives back the records themselves when every value is of its type already', () => {
    const records = [{ id: 1, name: 'a', price: 2.5, made: null }, { ids: '1,2' }];
    const typed = promisedRecords(plan, records, 'update').records;
    expect(typed).toBe(records);
    expect(typed[0]).toBe(records[0]);
  });

  it('refuses a value that is none of its type with the write error, and names each failing record of a batch', () => {
    expect(() => promisedRecords(plan, [{ made: '2023-02-29' }], 'create')).toThrow(PorticoError);
    expect(() => promisedRecords(plan, [{ ref: 'not-a-uuid' }], 'create')).toThrow(/ref/);
    let thrown: unknown;
    try {
      promisedRecords(plan, [{ id: 1 }, { id: 'two' }, { ratio: 'half' }], 'update');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BatchError);
    expect((thrown as BatchError).context).toMatchObject({
      errors: [
        { index: 1, message: "Field 'id' must be a valid integer." },
        { index: 2, message: "Field 'ratio' must be a valid number." },
      ],
    });
  });

  it("of a continue batch, leaves the records it refuses out of the hooks' records and names them with their indexes", () => {
    const records = [{ id: 1 }, { id: 'two' }, { ratio: '0.5' }, { ratio: 'half' }];
    expect(promisedRecords(plan, records, 'update', true)).toEqual({
      records: [{ id: 1 }, { ratio: 0.5 }],
      refused: [
        { index: 1, record: { id: 'two' } },
        { index: 3, record: { ratio: 'half' } },
      ],
    });
    // A batch of one is that record's own error, continue or not.
    expect(() => promisedRecords(plan, [{ id: 'two' }], 'update', true)).toThrow("Field 'id' must be a valid integer.");
  });
});
