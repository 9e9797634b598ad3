/**
 * Catalog facts -> the model's DatabaseSchema, the same way for every dialect: API names,
 * abstract types (reference "Reverse mapping"), labels, keys, relations, everything sorted.
 */
import type { DatabaseSchema, FieldModel, ForeignKeyModel, RoutineModel, TableModel } from '../../../model/platform-model.js';
import type { CatalogTable } from './catalog.js';
import { apiName, humanize } from './display-names.js';
import { servableTables } from './unservable-tables.js';
import { withoutNameCollisions } from './name-collisions.js';
import { nativeTypeInfo } from './native-types.js';
import { buildRelations, compareNames } from './relation-builder.js';

export interface AssembleOptions {
  /** Keep the database's case in API names instead of lower-casing them. */
  keepCase: boolean;
}

type TableWithoutRelations = Omit<TableModel, 'relations'>;

function isCurrentTimestamp(value: FieldModel['default']): boolean {
  return typeof value === 'object' && value !== null && /^current_timestamp(\(\))?$|^now\(\)$/i.test(value.expression);
}

function booleanDefault(value: FieldModel['default']): FieldModel['default'] {
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return value;
}

/** Builds the schema; `routines` come from dialects that have them (their API names are set here). */
export function assembleSchema(read: readonly CatalogTable[], options: AssembleOptions, routines: RoutineModel[] = []): DatabaseSchema {
  const name = (source: string) => apiName(source, options.keepCase);
  const servable = servableTables(read);
  const { catalog, warnings } = withoutNameCollisions(servable.catalog, name);
  warnings.unshift(...servable.warnings);
  const bySource = new Map(catalog.map((table) => [table.name.toLowerCase(), table]));
  const refTableName = (source: string) => name(bySource.get(source.toLowerCase())?.name ?? source);

  const tables: TableWithoutRelations[] = catalog.map((table) => {
    const foreignKeys: ForeignKeyModel[] = table.foreignKeys.map((fk) => {
      const target = bySource.get(fk.refTable.toLowerCase());
      const refColumns = fk.refColumns.length > 0 ? fk.refColumns : (target?.primaryKey ?? []);
      const fields = fk.columns.map(name);
      return {
        name: fk.name ?? `fk_${name(table.name)}_${fields.join('_')}`,
        fields,
        refTable: refTableName(fk.refTable),
        refFields: refColumns.map(name),
        onUpdate: fk.onUpdate,
        onDelete: fk.onDelete,
      };
    });
    const uniqueKeys = table.uniqueKeys
      .map((key) => key.map(name))
      .filter((key, index, all) => all.findIndex((other) => other.join(',') === key.join(',')) === index)
      .sort((a, b) => compareNames(a.join(','), b.join(',')));
    const primaryKey = table.primaryKey.map(name);

    const fields = table.columns.map((column): FieldModel => {
      const fieldName = name(column.name);
      const info = nativeTypeInfo(column.dbType);
      const isPrimaryKey = primaryKey.includes(fieldName);
      const fk = foreignKeys.find((key) => key.fields.includes(fieldName));
      const single = fk !== undefined && fk.fields.length === 1;
      let type = column.type ?? info.type;
      const integral = type === 'integer' || type === 'bigint';
      if (column.autoIncrement && isPrimaryKey && primaryKey.length === 1 && integral) type = type === 'bigint' ? 'bigid' : 'id';
      else if (single && integral) type = 'reference';
      else if (type === 'timestamp' && isCurrentTimestamp(column.default)) type = 'timestamp_on_create';
      return {
        name: fieldName,
        sourceName: column.name,
        label: humanize(column.name),
        type,
        dbType: column.dbType,
        length: info.length,
        precision: info.precision,
        scale: info.scale,
        default: type === 'boolean' ? booleanDefault(column.default) : column.default,
        allowNull: column.nullable && !isPrimaryKey,
        isPrimaryKey,
        autoIncrement: column.autoIncrement,
        isUnique: !isPrimaryKey && uniqueKeys.some((key) => key.length === 1 && key[0] === fieldName),
        isForeignKey: fk !== undefined,
        refTable: fk?.refTable ?? null,
        refField: fk ? (fk.refFields[fk.fields.indexOf(fieldName)] ?? null) : null,
        ...(column.picklist ? { picklist: column.picklist } : {}),
        ...(column.computed ? { computed: true } : {}),
      };
    });

    return {
      name: name(table.name),
      sourceName: table.name,
      sourceSchema: table.schema,
      label: humanize(table.name),
      description: '',
      isView: table.isView,
      primaryKey,
      fields,
      foreignKeys: foreignKeys.sort((a, b) => compareNames(a.name, b.name)),
      uniqueKeys,
    };
  });

  tables.sort((a, b) => compareNames(a.name, b.name));
  const namedRoutines = routines.map((routine) => ({ ...routine, name: name(routine.sourceName) }));
  return {
    tables: buildRelations(tables),
    routines: namedRoutines.sort((a, b) => compareNames(a.name, b.name)),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
