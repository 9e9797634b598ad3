/**
 * `services/<name>/types.ts`: per table a record interface (`Contact`, as reads return it), an
 * insert interface (`ContactInsert`: what a create may send, optional where the database fills
 * in a value) and an update interface (`ContactUpdate`: any writable column), and the maps
 * `Tables`, `TableInserts` and `TableUpdates` keyed by table name, for hooks and clients, and the
 * service's hook events (`Events`, create-events.ts). The types agree with the OpenAPI record
 * schemas (runtime/openapi/record-schemas.ts): both follow runtime/model/field-rules.ts.
 */
import { isBigInteger, isRequiredOnCreate, isServerFilled } from '../../runtime/model/field-rules.js';
import type { AbstractType, FieldModel, SqlServiceModel, TableModel } from '../../runtime/model/platform-model.js';
import { pascalCase, uniqueNamer } from '../../runtime/openapi/code-identifiers.js';
import { nativeTypeInfo } from '../../runtime/services/sql/schema/native-types.js';
import { databaseEvents, eventsInterface } from './create-events.js';
import {
  docText,
  GLOBAL_TYPE_NAMES,
  printTypeScript,
  propertyKey,
  RUNTIME_SPECIFIER,
  type Declaration,
  type InterfaceDeclaration,
  type PropertySignature,
} from './typescript-printer.js';

/** TypeScript type of a value as the API returns it (matches runtime/openapi/record-schemas.ts). */
const TS_TYPE: Record<AbstractType, string> = {
  id: 'number',
  bigid: 'number',
  reference: 'number',
  user_id: 'number',
  user_id_on_create: 'number',
  user_id_on_update: 'number',
  integer: 'number',
  bigint: 'number',
  float: 'number',
  double: 'number',
  decimal: 'number',
  boolean: 'boolean',
  money: 'string',
  string: 'string',
  text: 'string',
  uuid: 'string',
  binary: 'string',
  date: 'string',
  time: 'string',
  datetime: 'string',
  timestamp: 'string',
  timestamp_on_create: 'string',
  timestamp_on_update: 'string',
  json: 'unknown',
  array: 'unknown[]',
};

/** TypeScript type of a column's non-null value. */
function valueType(field: FieldModel): string {
  // An enumerated column takes one of its values.
  if (field.picklist !== undefined && field.picklist.length > 0) return field.picklist.map((value) => JSON.stringify(value)).join(' | ');
  // 64-bit integers beyond 2^53 travel as strings of digits.
  if (isBigInteger(field)) return 'number | string';
  if (field.type === 'array') {
    const element = field.dbType.trim().replace(/\[\]$/, '');
    const info = nativeTypeInfo(element);
    if (element === field.dbType.trim() || info.type === 'array') return 'unknown[]';
    const inner = valueType({ ...field, type: info.type, dbType: element, picklist: undefined });
    return inner.includes(' ') ? `Array<${inner}>` : `${inner}[]`;
  }
  return TS_TYPE[field.type];
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

function property(field: FieldModel, table: TableModel, optional: boolean): PropertySignature {
  const type = valueType(field);
  return {
    name: propertyKey(field.name),
    type: field.allowNull && type !== 'unknown' ? `${type} | null` : type,
    optional,
    doc: fieldDoc(field, table),
  };
}

function tableInterface(name: string, doc: string, properties: PropertySignature[]): InterfaceDeclaration {
  return { kind: 'interface', name, doc: docText(doc), properties };
}

function mapInterface(name: string, doc: string, entries: Array<[string, string]>): InterfaceDeclaration {
  return tableInterface(
    name,
    doc,
    entries.map(([table, type]) => ({ name: propertyKey(table), type })),
  );
}

export function createTypesFile(service: SqlServiceModel): string {
  const name = uniqueNamer(['Tables', 'TableInserts', 'TableUpdates', 'Events', 'RoutineRequest', ...GLOBAL_TYPE_NAMES]);
  const tables = service.schema.tables.map((table) => {
    const base = pascalCase(table.name);
    const record = name(/^[A-Za-z]/.test(base) ? base : `Table${base}`);
    return { table, record, insert: table.isView ? null : name(`${record}Insert`), update: table.isView ? null : name(`${record}Update`) };
  });
  const statements = tables.flatMap(({ table, record, insert, update }) => {
    const kind = table.isView ? 'view' : 'table';
    const description = table.description ? ` ${table.description}` : '';
    const declarations = [
      tableInterface(
        record,
        `A record of the ${kind} \`${table.name}\` as the API returns it.${description}`,
        table.fields.map((field) => property(field, table, false)),
      ),
    ];
    // Columns the server fills in itself are left out of writes: it ignores values sent for them.
    const writable = table.fields.filter((field) => !isServerFilled(field));
    if (insert !== null) {
      declarations.push(
        tableInterface(
          insert,
          `A new record of the table \`${table.name}\`: columns the database can fill in are optional.`,
          writable.map((field) => property(field, table, !isRequiredOnCreate(field))),
        ),
      );
    }
    if (update !== null) {
      declarations.push(
        tableInterface(
          update,
          `Changed fields of a record of the table \`${table.name}\`.`,
          writable.map((field) => property(field, table, true)),
        ),
      );
    }
    return declarations;
  });
  const events = databaseEvents(service, tables);
  const imports: Declaration[] = events.routineRequest ? [{ kind: 'typeImport', names: ['RoutineRequest'], from: RUNTIME_SPECIFIER }] : [];
  return printTypeScript([
    ...imports,
    ...statements,
    mapInterface(
      'Tables',
      `Record types of the \`${service.name}\` service, by table name.`,
      tables.map(({ table, record }) => [table.name, record]),
    ),
    mapInterface(
      'TableInserts',
      `Insert types of the \`${service.name}\` service, by table name.`,
      tables.flatMap(({ table, insert }) => (insert === null ? [] : [[table.name, insert] as [string, string]])),
    ),
    mapInterface(
      'TableUpdates',
      `Update types of the \`${service.name}\` service, by table name.`,
      tables.flatMap(({ table, update }) => (update === null ? [] : [[table.name, update] as [string, string]])),
    ),
    eventsInterface(service.name, events.entries),
  ]);
}
