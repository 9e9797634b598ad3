import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import type { FieldModel } from '#runtime/model/platform-model.js';
import {
  fieldJsonSchema,
  insertJsonSchema,
  type JsonSchema,
  recordJsonSchema,
  tableRouteSchemas,
  updateJsonSchema,
} from '#runtime/openapi/record-schemas.js';
import { field, table } from '#test/golden/fixtures/model-builders.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Ajv as Fastify configures it (@fastify/ajv-compiler defaults), in strict mode. */
function fastifyAjv(): Ajv {
  return addFormats(new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: false, strict: true }));
}

describe('fieldJsonSchema', () => {
  it.each<[string, Partial<FieldModel>, Record<string, unknown>]>([
    [
      'auto-increment key',
      { type: 'id', dbType: 'integer', allowNull: false, autoIncrement: true },
      { type: 'integer', description: 'integer', readOnly: true },
    ],
    [
      'nullable varchar',
      { type: 'string', dbType: 'varchar(40)', length: 40 },
      { type: 'string', description: 'varchar(40)', maxLength: 40, nullable: true },
    ],
    ['text ignores length', { type: 'text', dbType: 'text', length: 65535, allowNull: false }, { type: 'string', description: 'text' }],
    ['boolean', { type: 'boolean', dbType: 'tinyint(1)', allowNull: false }, { type: 'boolean', description: 'tinyint(1)' }],
    [
      'decimal',
      { type: 'decimal', dbType: 'numeric(10,2)', precision: 10, scale: 2, allowNull: false },
      { type: 'number', description: 'numeric(10,2)' },
    ],
    ['money is text', { type: 'money', dbType: 'money', allowNull: false }, { type: 'string', description: 'money' }],
    ['json admits anything', { type: 'json', dbType: 'json' }, { description: 'json' }],
    [
      'array typed by element',
      { type: 'array', dbType: 'text[]', allowNull: false },
      // Or a sub-array: PostgreSQL's text[] may hold a two-dimensional array.
      {
        type: 'array',
        items: {
          anyOf: [
            { type: 'string', nullable: true },
            { type: 'array', items: {}, nullable: true },
          ],
        },
        description: 'text[]',
      },
    ],
    [
      'array of an unknown element',
      { type: 'array', dbType: 'anyarray', allowNull: false },
      { type: 'array', items: {}, description: 'anyarray' },
    ],
    [
      'bigint: number or digits',
      { type: 'bigint', dbType: 'bigint', allowNull: false },
      { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }], description: 'bigint: a number, or a string beyond 2^53' },
    ],
    [
      'bigserial key, nullable branches',
      { type: 'id', dbType: 'bigint', allowNull: true, autoIncrement: true },
      {
        anyOf: [
          { type: 'integer', nullable: true },
          { type: 'string', pattern: '^-?[0-9]+$', nullable: true },
        ],
        description: 'bigint: a number, or a string beyond 2^53',
        readOnly: true,
      },
    ],
    [
      'filled on create',
      { type: 'timestamp_on_create', dbType: 'timestamp', default: { expression: 'CURRENT_TIMESTAMP' } },
      { type: 'string', description: 'timestamp', nullable: true, readOnly: true },
    ],
    ['no description without db type', { type: 'integer', dbType: '', allowNull: false }, { type: 'integer' }],
    [
      'enumerated, nullable',
      { type: 'string', dbType: 'mood', picklist: ['happy', 'sad'] },
      { type: 'string', description: 'mood', nullable: true, enum: ['happy', 'sad', null] },
    ],
    [
      'enumerated',
      { type: 'string', dbType: "enum('a','b')", allowNull: false, picklist: ['a', 'b'] },
      { type: 'string', description: "enum('a','b')", enum: ['a', 'b'] },
    ],
  ])('%s', (_, given, want) => {
    expect(fieldJsonSchema(field('x', given))).toEqual(want);
  });
});

describe('route schemas', () => {
  const tables = addressBookModel.services.flatMap((service) => (service.kind === 'sql' ? service.schema.tables : []));

  it("compile in Fastify's ajv, strict", () => {
    const ajv = fastifyAjv();
    for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
      for (const schemas of tables.map((t) => tableRouteSchemas(t, dialect))) {
        for (const schema of Object.values(schemas)) expect(() => ajv.compile(schema)).not.toThrow();
      }
    }
  });

  it('keep columns in database order and allow related members', () => {
    const contact = tables.find((t) => t.name === 'contact')!;
    const schema = recordJsonSchema(contact);
    expect(Object.keys(schema.properties as object)).toEqual(contact.fields.map((f) => f.name));
    expect(schema.additionalProperties).toBe(true);
    expect(schema).not.toHaveProperty('required');
  });

  it('serialise a 64-bit key beyond 2^53 without losing a digit, and a safe one as a number', () => {
    const orders = table('orders', {
      fields: [
        field('id', { type: 'id', dbType: 'bigint', allowNull: false, autoIncrement: true }),
        field('total', { type: 'bigint', dbType: 'bigint' }),
      ],
    });
    const schema = tableRouteSchemas(orders, 'postgres').record;
    expect(() => fastifyAjv().compile(schema)).not.toThrow();
    const serialise = fastJson(schema as unknown as Parameters<typeof fastJson>[0]);
    expect(serialise({ id: '9007199254740993', total: null })).toBe('{"id":"9007199254740993","total":null}');
    expect(serialise({ id: 42, total: 7 })).toBe('{"id":42,"total":7}');
  });

  const odd = table('odd', {
    fields: [
      field('f', { type: 'double', dbType: 'double precision' }),
      field('n', { type: 'decimal', dbType: 'numeric' }),
      field('c', { type: 'decimal', dbType: 'numeric(10,2)', precision: 10, scale: 2 }),
      field('ns', { type: 'array', dbType: 'bigint[]' }),
    ],
  });

  it("serialise PostgreSQL's NaN and ±Infinity texts as lists write them, and numbers as numbers", () => {
    const schema = tableRouteSchemas(odd, 'postgres').record;
    expect(() => fastifyAjv().compile(schema)).not.toThrow();
    const serialise = fastJson(schema as unknown as Parameters<typeof fastJson>[0]);
    for (const record of [
      { f: 'NaN', n: 'Infinity', c: '-Infinity' },
      { f: 1.5, n: '12345678901234567890.5', c: 2.25 },
    ]) {
      expect(serialise(record)).toBe(JSON.stringify(record));
    }
    // Other databases hold no such values: their schemas stay numbers.
    expect((tableRouteSchemas(odd, 'mysql').record.properties as Record<string, JsonSchema>).f).toMatchObject({ type: 'number' });
  });

  it('serialise a multi-dimensional array as lists write it', () => {
    const serialise = fastJson(tableRouteSchemas(odd, 'postgres').record as unknown as Parameters<typeof fastJson>[0]);
    for (const ns of [
      [1, '9007199254740993', null],
      [
        ['-9223372036854775808', 2],
        [3, null],
      ],
      [[[1]]],
    ]) {
      expect(serialise({ ns })).toBe(JSON.stringify({ ns }));
    }
  });
});

describe('documented record, insert and update schemas', () => {
  const contact = table('contact', {
    fields: [
      field('id', { type: 'id', dbType: 'integer', allowNull: false, autoIncrement: true }),
      field('first_name', { allowNull: false }),
      field('nick', {}),
      field('rank', { type: 'integer', dbType: 'integer', allowNull: false, default: 0 }),
      field('created', { type: 'timestamp_on_create', dbType: 'timestamp', allowNull: false }),
    ],
  });

  it('require every column of a record as read', () => {
    expect(recordJsonSchema(contact, { required: true }).required).toEqual(['id', 'first_name', 'nick', 'rank', 'created']);
  });

  it('require on create exactly the columns the database needs a value for, and leave out what the server fills', () => {
    const insert = insertJsonSchema(contact);
    expect(insert.required).toEqual(['first_name']);
    expect(Object.keys(insert.properties as object)).toEqual(['id', 'first_name', 'nick', 'rank']);
    expect((insert.properties as Record<string, object>).id).not.toHaveProperty('readOnly');
  });

  it('require nothing on update', () => {
    const update = updateJsonSchema(contact);
    expect(update).not.toHaveProperty('required');
    expect(Object.keys(update.properties as object)).toEqual(['id', 'first_name', 'nick', 'rank']);
  });
});

describe('write schemas of exact decimals', () => {
  const ledger = table('ledger', {
    fields: [
      field('id', { type: 'id', dbType: 'integer', allowNull: false, autoIncrement: true }),
      field('exact', { type: 'decimal', dbType: 'numeric', allowNull: true }),
      field('cents', { type: 'decimal', dbType: 'decimal(10,2)', precision: 10, scale: 2, allowNull: false }),
      field('wide', { type: 'decimal', dbType: 'decimal(30,10)', precision: 30, scale: 10, allowNull: false }),
      field('exacts', { type: 'array', dbType: 'numeric[]', allowNull: true }),
    ],
  });
  const ajv = new Ajv({ strict: false });

  it('take a decimal wider than a double as a number or its exact text, as the insert and update types do', () => {
    for (const schema of [insertJsonSchema(ledger), updateJsonSchema(ledger)]) {
      const properties = schema.properties as Record<string, Record<string, unknown>>;
      expect(properties.exact).toEqual({
        anyOf: [
          { type: 'number', nullable: true },
          { type: 'string', pattern: '^[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?$', nullable: true },
        ],
        description: 'numeric: a number, or a string of the exact digits',
      });
      expect(properties.cents).toEqual({ type: 'number', description: 'decimal(10,2)' });
      const validate = ajv.compile(schema);
      expect(validate({ exact: '12345678901234567890.0123456789', wide: '1.5e3', cents: 1.5, exacts: ['1.5', 2] })).toBe(true);
      expect(validate({ exact: '12,5' })).toBe(false);
      expect(validate({ exacts: ['x'] })).toBe(false);
    }
  });

  it('give reads the same number or exact digits, as the server returns them (value-codec decodeWideDecimal)', () => {
    const properties = recordJsonSchema(ledger).properties as Record<string, Record<string, unknown>>;
    const digits = '^-?[0-9]+(\\.[0-9]+)?$';
    expect(properties.exact).toEqual({
      anyOf: [
        { type: 'number', nullable: true },
        { type: 'string', pattern: digits, nullable: true },
      ],
      description: 'numeric: a number, or a string of the exact digits',
    });
    expect(properties.exacts).toEqual({
      type: 'array',
      // An element may be NULL whatever the column says.
      items: {
        anyOf: [
          { type: 'number', nullable: true },
          { type: 'string', pattern: digits, nullable: true },
          { type: 'array', items: {}, nullable: true },
        ],
      },
      description: 'numeric[]',
      nullable: true,
    });
    expect(properties.cents).toEqual({ type: 'number', description: 'decimal(10,2)' });
    const validate = ajv.compile(recordJsonSchema(ledger));
    expect(
      validate({ id: 1, exact: '12345678901234567890.0123456789', wide: 1.5, cents: 1.5, exacts: ['12345678901234567890.5', 2] }),
    ).toBe(true);
    // Reads write no exponent.
    expect(validate({ id: 1, exact: '1.5e3', wide: 1.5, cents: 1.5, exacts: null })).toBe(false);
  });
});
