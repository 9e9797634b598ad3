import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { FieldModel } from '../../../../runtime/model/platform-model.js';
import { fieldJsonSchema, recordJsonSchema, tableRouteSchemas } from '../../../../runtime/openapi/record-schemas.js';
import { field, table } from '../../../golden/fixtures/model-builders.js';
import { addressBookModel } from '../../../golden/fixtures/address-book-model.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Ajv as Fastify configures it (@fastify/ajv-compiler defaults), in strict mode. */
function fastifyAjv(): Ajv {
  return addFormats(new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: false, strict: true }));
}

describe('fieldJsonSchema', () => {
  it.each<[string, Partial<FieldModel>, Record<string, unknown>]>([
    ['auto-increment key', { type: 'id', dbType: 'integer', allowNull: false, autoIncrement: true }, { type: 'integer', description: 'integer', readOnly: true }],
    ['nullable varchar', { type: 'string', dbType: 'varchar(40)', length: 40 }, { type: 'string', description: 'varchar(40)', maxLength: 40, nullable: true }],
    ['text ignores length', { type: 'text', dbType: 'text', length: 65535, allowNull: false }, { type: 'string', description: 'text' }],
    ['boolean', { type: 'boolean', dbType: 'tinyint(1)', allowNull: false }, { type: 'boolean', description: 'tinyint(1)' }],
    ['decimal', { type: 'decimal', dbType: 'numeric(10,2)', allowNull: false }, { type: 'number', description: 'numeric(10,2)' }],
    ['money is text', { type: 'money', dbType: 'money', allowNull: false }, { type: 'string', description: 'money' }],
    ['json admits anything', { type: 'json', dbType: 'json' }, { description: 'json' }],
    ['array', { type: 'array', dbType: 'text[]', allowNull: false }, { type: 'array', items: {}, description: 'text[]' }],
    ['filled on create', { type: 'timestamp_on_create', dbType: 'timestamp', default: { expression: 'CURRENT_TIMESTAMP' } }, { type: 'string', description: 'timestamp', nullable: true, readOnly: true }],
    ['no description without db type', { type: 'integer', dbType: '', allowNull: false }, { type: 'integer' }],
    ['enumerated, nullable', { type: 'string', dbType: 'mood', picklist: ['happy', 'sad'] }, { type: 'string', description: 'mood', nullable: true, enum: ['happy', 'sad', null] }],
    ['enumerated', { type: 'string', dbType: "enum('a','b')", allowNull: false, picklist: ['a', 'b'] }, { type: 'string', description: "enum('a','b')", enum: ['a', 'b'] }],
  ])('%s', (_, given, want) => {
    expect(fieldJsonSchema(field('x', given))).toEqual(want);
  });
});

describe('route schemas', () => {
  const tables = addressBookModel.services.flatMap((service) => (service.kind === 'sql' ? service.schema.tables : []));

  it('compile in Fastify\'s ajv, strict', () => {
    const ajv = fastifyAjv();
    for (const schemas of tables.map(tableRouteSchemas)) {
      for (const schema of Object.values(schemas)) expect(() => ajv.compile(schema)).not.toThrow();
    }
  });

  it('keep columns in database order and allow related members', () => {
    const contact = tables.find((t) => t.name === 'contact')!;
    const schema = recordJsonSchema(contact);
    expect(Object.keys(schema.properties as object)).toEqual(contact.fields.map((f) => f.name));
    expect(schema.additionalProperties).toBe(true);
    expect(schema).not.toHaveProperty('required');
  });

});
