/**
 * What `_schema` clients set about tables and fields (labels, plurals, descriptions, declared
 * types), laid over the schema read from the database catalog, and read from write requests.
 */
import type { AbstractType, DatabaseSchema, FieldModel, TableModel } from '../../../model/platform-model.js';
import type { TableExtras } from '../../service-kind.js';

/**
 * Declared types that stand for the same stored values as the type the catalog gives (`datetime` is
 * read back as `timestamp` on PostgreSQL; a `timestamp_on_update` as `timestamp_on_create` where
 * only MySQL's catalog tells them apart, and the declared one keeps its clock on updates; a uuid as
 * MySQL's char(36)).
 */
const SAME_VALUES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['datetime', 'timestamp']),
  new Set(['string', 'text']),
  new Set(['timestamp_on_create', 'timestamp_on_update']),
  // MySQL keeps a uuid in a char(36), read back as a string: declared, it is checked and compared as a uuid there too.
  new Set(['uuid', 'string']),
];

function declaredType(field: FieldModel, declared: string | null | undefined): AbstractType {
  if (!declared || declared === field.type) return field.type;
  return SAME_VALUES.some((family) => family.has(declared) && family.has(field.type)) ? (declared as AbstractType) : field.type;
}

/** The schema with the extras laid over it (tables and fields matched case-insensitively). */
export function withExtras(schema: DatabaseSchema, extras: readonly TableExtras[]): DatabaseSchema {
  if (extras.length === 0) return schema;
  const byTable = new Map(extras.map((entry) => [entry.table.toLowerCase(), entry]));
  return {
    ...schema,
    tables: schema.tables.map((table): TableModel => {
      const entry = byTable.get(table.name.toLowerCase());
      if (entry === undefined) return table;
      const fields = new Map(entry.fields.map((field) => [field.field.toLowerCase(), field]));
      return {
        ...table,
        label: entry.label || table.label,
        description: entry.description ?? table.description,
        ...(entry.plural ? { plural: entry.plural } : {}),
        fields: table.fields.map((field): FieldModel => {
          const extra = fields.get(field.name.toLowerCase());
          if (extra === undefined) return field;
          return {
            ...field,
            label: extra.label || field.label,
            type: declaredType(field, extra.type),
            ...(extra.description != null ? { description: extra.description } : {}),
          };
        }),
      };
    }),
  };
}

const text = (value: unknown): string | null | undefined => (value === undefined ? undefined : value === null ? null : String(value));

/** The extras a table definition of a `_schema` write carries (`label`, `plural`, `description`, and per field `label`, `description`, `type`). */
export function extrasOf(table: string, input: Record<string, unknown>, fields: readonly unknown[]): TableExtras {
  return {
    table,
    label: text(input.label),
    plural: text(input.plural),
    description: text(input.description),
    fields: fields.flatMap((raw) => {
      if (raw === null || typeof raw !== 'object') return [];
      const field = Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([key, value]) => [key.toLowerCase(), value]));
      if (typeof field.name !== 'string') return [];
      return [
        {
          field: field.name,
          label: text(field.label),
          description: text(field.description),
          type: typeof field.type === 'string' ? field.type.toLowerCase() : undefined,
        },
      ];
    }),
  };
}
