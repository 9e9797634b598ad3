/**
 * `services/<name>/types.ts`: a record interface per table (`Contact`), an insert interface per
 * table (`ContactInsert`: columns the database fills in are optional), and the maps `Tables` and
 * `TableInserts` keyed by table name, for hooks and clients.
 */
import { StructureKind, type InterfaceDeclarationStructure, type PropertySignatureStructure } from 'ts-morph';
import type { AbstractType, FieldModel, SqlServiceModel, TableModel } from '../../runtime/model/platform-model.js';
import { pascalCase, uniqueNamer } from '../../runtime/openapi/names.js';
import { docText, printTypeScript, propertyKey } from './typescript-printer.js';

/** TypeScript type of a value as the API returns it (matches runtime/openapi/record-schemas.ts). */
const TS_TYPE: Record<AbstractType, string> = {
  id: 'number', bigid: 'number', reference: 'number', user_id: 'number', user_id_on_create: 'number', user_id_on_update: 'number',
  integer: 'number', bigint: 'number', float: 'number', double: 'number', decimal: 'number',
  boolean: 'boolean',
  money: 'string', string: 'string', text: 'string', uuid: 'string', binary: 'string',
  date: 'string', time: 'string', datetime: 'string', timestamp: 'string', timestamp_on_create: 'string', timestamp_on_update: 'string',
  json: 'unknown',
  array: 'unknown[]',
};

/** Columns the server or the database fills in when a create leaves them out. */
function isFilledOnCreate(field: FieldModel): boolean {
  return field.allowNull || field.default !== null || field.autoIncrement || /_on_(create|update)$/.test(field.type);
}

function fieldDoc(field: FieldModel, table: TableModel): string {
  const notes = [`\`${field.dbType || field.type}\``];
  if (table.primaryKey.includes(field.name)) notes.push('primary key');
  if (field.autoIncrement) notes.push('auto-increment');
  if (field.isUnique) notes.push('unique');
  if (field.refTable !== null) notes.push(`references ${field.refTable}.${field.refField ?? ''}`);
  if (field.default !== null) {
    notes.push(`default ${typeof field.default === 'object' ? field.default.expression : JSON.stringify(field.default)}`);
  }
  return docText(notes.join(', '));
}

function property(field: FieldModel, table: TableModel, optional: boolean): PropertySignatureStructure {
  // An enumerated column takes one of its values.
  const type = field.picklist !== undefined && field.picklist.length > 0 ? field.picklist.map((value) => JSON.stringify(value)).join(' | ') : TS_TYPE[field.type];
  return {
    kind: StructureKind.PropertySignature,
    name: propertyKey(field.name),
    type: field.allowNull && type !== 'unknown' ? `${type} | null` : type,
    hasQuestionToken: optional,
    docs: [fieldDoc(field, table)],
  };
}

function tableInterface(name: string, docs: string, properties: PropertySignatureStructure[]): InterfaceDeclarationStructure {
  return { kind: StructureKind.Interface, name, isExported: true, docs: [docText(docs)], properties };
}

function mapInterface(name: string, docs: string, entries: Array<[string, string]>): InterfaceDeclarationStructure {
  return tableInterface(name, docs, entries.map(([table, type]) => ({ kind: StructureKind.PropertySignature, name: propertyKey(table), type })));
}

/** Global names a table type should not shadow, for the readers of the file. */
const GLOBAL_TYPE_NAMES = ['Array', 'BigInt', 'Boolean', 'Date', 'Error', 'Function', 'Map', 'Number', 'Object', 'Omit', 'Partial', 'Pick', 'Promise', 'Readonly', 'Record', 'RegExp', 'Set', 'String', 'Symbol'];

export function createTypesFile(service: SqlServiceModel): string {
  const name = uniqueNamer(['Tables', 'TableInserts', ...GLOBAL_TYPE_NAMES]);
  const tables = service.schema.tables.map((table) => {
    const base = pascalCase(table.name);
    const record = name(/^[A-Za-z]/.test(base) ? base : `Table${base}`);
    return { table, record, insert: table.isView ? null : name(`${record}Insert`) };
  });
  const statements = tables.flatMap(({ table, record, insert }) => {
    const kind = table.isView ? 'view' : 'table';
    const description = table.description ? ` ${table.description}` : '';
    const declarations = [
      tableInterface(record, `A record of the ${kind} \`${table.name}\` as the API returns it.${description}`, table.fields.map((field) => property(field, table, false))),
    ];
    if (insert !== null) {
      declarations.push(
        tableInterface(insert, `A new record of the table \`${table.name}\`: columns the database can fill in are optional.`, table.fields.map((field) => property(field, table, isFilledOnCreate(field)))),
      );
    }
    return declarations;
  });
  return printTypeScript([
    ...statements,
    mapInterface('Tables', `Record types of the \`${service.name}\` service, by table name.`, tables.map(({ table, record }) => [table.name, record])),
    mapInterface('TableInserts', `Insert types of the \`${service.name}\` service, by table name.`, tables.flatMap(({ table, insert }) => (insert === null ? [] : [[table.name, insert] as [string, string]]))),
  ]);
}
