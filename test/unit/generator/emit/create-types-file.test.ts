import { describe, expect, it } from 'vitest';
import { createTypesFile } from '#generator/emit/create-types-file.js';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
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
    ['arrays typed by element', 'tags: string[] | null;'],
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

  it('types a decimal wider than a double as number or its exact text where writes send it, a narrower one as a number', () => {
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
    expect(record).toContain('wide: number | null;');
    expect(insert).toContain('wide?: number | string | null;');
    expect(update).toContain('wide?: number | string | null;');
    for (const part of [record, insert, update]) expect(part).toMatch(/narrow\??: number \| null;/);
    // An array's elements as the OpenAPI request schemas take them (record-schemas.ts): the exact text of a wide decimal too.
    expect(record).toContain('wides: number[] | null;');
    expect(insert).toContain('wides?: Array<number | string> | null;');
    expect(update).toContain('wides?: Array<number | string> | null;');
    for (const part of [record, insert, update]) expect(part).toMatch(/narrows\??: number\[\] \| null;/);
  });
});
