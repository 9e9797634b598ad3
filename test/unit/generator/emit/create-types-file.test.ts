import { describe, expect, it } from 'vitest';
import { createTypesFile } from '#generator/emit/create-types-file.js';
import { type AbstractType, type FieldModel, MODEL_FIELD_TYPES, type SqlServiceModel } from '#runtime/model/platform-model.js';
import { insertJsonSchema, recordJsonSchema, updateJsonSchema } from '#runtime/openapi/record-schemas.js';
import { bareField } from '#runtime/services/sql/query/value-codec.js';
import { awkwardModel } from './awkward-model.js';

const myDb = awkwardModel.services.find((service): service is SqlServiceModel => service.name === 'my_db')!;
const text = createTypesFile(myDb);

describe('createTypesFile', () => {
  it.each([
    ['a name starting with a digit', 'export interface Table2faCodes {'],
    ['a table named like a global type', 'export interface Error2 {'],
    ['a table named like an insert type', 'export interface ContactInsert2 {'],
    ['a table named like the map', 'export interface Tables2 {'],
    ['non-identifier column names, quoted', '"user id": number | null;'],
    ['a comment end inside a name, escaped in the doc', '"note */ end": string | null;'],
    ['json as unknown', 'data: unknown;'],
    ['arrays typed by element', 'tags: Array<string | null | unknown[]> | null;'],
    ['update types with every writable column optional', 'export interface Table2faCodesUpdate {'],
    ['the map of update types', '"2fa codes": Table2faCodesUpdate;'],
    ['optional insert columns', 'since?: string | null;'],
    ['required insert columns', '  person_id: number;'],
    ['the map by table name', '"2fa codes": Table2faCodes;'],
  ])('writes %s', (_, line) => {
    expect(text).toContain(line);
  });

  it('types an enumerated column as the union of its values', () => {
    const pg = awkwardModel.services.find((service): service is SqlServiceModel => service.name === 'pg')!;
    expect(createTypesFile(pg)).toContain('mood: "happy" | "so-so" | "" | null;');
  });

  it('leaves views out of the insert types', () => {
    expect(text).toContain('odd_view: OddView;');
    expect(text).not.toContain('OddViewInsert');
  });

  it('keeps JSDoc comments closed', () => {
    expect(text).toContain('/** `text /* odd *\\/`, default "it\'s \\"quoted\\"" */');
  });

  it('types a decimal wider than a double as number or its exact text, read and written, a narrower one as a number', () => {
    const [table] = myDb.schema.tables;
    const decimals = [
      { ...bareField('wide', 'decimal'), dbType: 'numeric' },
      { ...bareField('narrow', 'decimal', { length: null, precision: 10, scale: 2 }), dbType: 'decimal(10,2)' },
      { ...bareField('wides', 'array'), dbType: 'numeric[]' },
      { ...bareField('narrows', 'array'), dbType: 'numeric(10,2)[]' },
    ];
    const written = createTypesFile({
      ...myDb,
      schema: { ...myDb.schema, tables: [{ ...table, fields: [...table.fields, ...decimals] }] },
    });
    const [record, insert, update] = written.split(/^export interface /m).slice(1, 4);
    // Reads return the exact text when a double would lose digits (value-codec decodeWideDecimal).
    expect(record).toContain('wide: number | string | null;');
    expect(insert).toContain('wide?: number | string | null;');
    expect(update).toContain('wide?: number | string | null;');
    for (const part of [record, insert, update]) expect(part).toMatch(/narrow\??: number \| null;/);
    // An array's elements as the OpenAPI schemas say them (record-schemas.ts): the exact text of a wide decimal too, or null.
    expect(record).toContain('wides: Array<number | string | null | unknown[]> | null;');
    expect(insert).toContain('wides?: Array<number | string | null | unknown[]> | null;');
    expect(update).toContain('wides?: Array<number | string | null | unknown[]> | null;');
    for (const part of [record, insert, update]) expect(part).toMatch(/narrows\??: Array<number \| null \| unknown\[\]> \| null;/);
  });

  it("types a PostgreSQL float's or numeric's reads as NaN's and ±Infinity's texts too, not its writes", () => {
    const [table] = myDb.schema.tables;
    const floats = [
      { ...bareField('f', 'double'), dbType: 'double precision' },
      { ...bareField('c', 'decimal', { length: null, precision: 10, scale: 2 }), dbType: 'numeric(10,2)' },
    ];
    const postgres = { ...myDb, dialect: 'postgres' as const };
    const written = createTypesFile({
      ...postgres,
      schema: { ...myDb.schema, tables: [{ ...table, fields: [...table.fields, ...floats] }] },
    });
    const [record, insert, update] = written.split(/^export interface /m).slice(1, 4);
    expect(record).toContain("f: number | 'NaN' | 'Infinity' | '-Infinity' | null;");
    expect(record).toContain("c: number | 'NaN' | 'Infinity' | '-Infinity' | null;");
    for (const part of [insert, update]) expect(part).toMatch(/ f\?: number \| null;/);
  });
});

/** The JSON kinds a TypeScript type admits (`number | string` is number and string; `Array<...>` of its elements). */
function typeKinds(type: string): string[] {
  const parts = type.replace(/ \| null$/, '').trim();
  const array = /^Array<(.*)>$/.exec(parts) ?? /^(\w+)\[\]$/.exec(parts);
  if (array !== null) return [`array of ${typeKinds(array[1]).join('|')}`];
  return parts
    .split(' | ')
    .filter((part) => part !== 'null')
    .flatMap((part) => (part.endsWith('[]') ? typeKinds(part) : [part]))
    .sort();
}

/** The JSON kinds a JSON Schema admits, in the same words. */
function schemaKinds(schema: Record<string, any>): string[] {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap(schemaKinds).sort();
  if (schema.type === 'array') return [`array of ${schemaKinds(schema.items).join('|')}`];
  if (schema.type === undefined) return ['unknown'];
  return [schema.type === 'integer' ? 'number' : schema.type];
}

describe('the generated types and the OpenAPI record schemas', () => {
  // Each abstract type in a column of a usual native type, and the wide and narrow cases of exact numbers.
  const samples: Array<[AbstractType, string, number | null]> = [
    ...MODEL_FIELD_TYPES.filter((type) => type !== 'array').map((type): [AbstractType, string, number | null] => [type, '', null]),
    ['bigint', 'bigint', null],
    ['integer', 'int8', null],
    ['decimal', 'numeric', null],
    ['decimal', 'decimal(10,2)', 10],
    ['decimal', 'decimal(30,10)', 30],
    ['array', 'numeric[]', null],
    ['array', 'numeric(10,2)[]', null],
    ['array', 'bigint[]', null],
    ['array', 'text[]', null],
    ['array', 'jsonb', null],
  ];
  const fields: FieldModel[] = samples.map(([type, dbType, precision], i) => ({
    ...bareField(`c${i}`, type, { length: null, precision, scale: precision === null ? null : 2 }),
    dbType,
    allowNull: true,
  }));
  const [base] = myDb.schema.tables;
  const table = { ...base, name: 'sample', fields, primaryKey: [] };
  const types = createTypesFile({ ...myDb, schema: { ...myDb.schema, tables: [table] } });
  const [record, insert, update] = types.split(/^export interface /m).slice(1, 4);
  const typeOf = (part: string, name: string) => new RegExp(`^\\s*${name}\\??: (.*);$`, 'm').exec(part)?.[1];

  it.each(samples.map((sample, i) => [`${sample[0]} ${sample[1]}`, i]))('say the same of %s', (_, i) => {
    const name = `c${i}`;
    for (const [part, schema] of [
      [record, recordJsonSchema(table)],
      [insert, insertJsonSchema(table)],
      [update, updateJsonSchema(table)],
    ] as const) {
      const property = (schema.properties as Record<string, Record<string, unknown>>)[name];
      const type = typeOf(part, name);
      if (property === undefined || type === undefined) {
        // A column the server fills is in neither write.
        expect(property === undefined && type === undefined, `${name} in ${part.split(' ')[0]}`).toBe(true);
        continue;
      }
      expect(typeKinds(type), `${name} in ${part.split(' ')[0]}: ${type}`).toEqual(schemaKinds(property));
    }
  });
});
