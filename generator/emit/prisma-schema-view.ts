/**
 * The data the schema.prisma template renders for one SQL service: Prisma names for tables and
 * columns (with @@map/@map to the source names), types, keys, and relations derived from the
 * foreign keys with a back-relation field on the referenced model.
 */
import type {
  FieldModel,
  ForeignKeyModel,
  ReferentialAction,
  SqlDialect,
  SqlServiceModel,
  TableModel,
} from '../../runtime/model/platform-model.js';
import { pascalCase, uniqueNamer } from '../../runtime/openapi/code-identifiers.js';
import { prismaDefault, prismaScalar, type PrismaScalar } from './prisma-field-types.js';
import { isUnindexableMySqlNative } from './prisma-native-types.js';

export interface PrismaFieldView {
  name: string;
  /** Type with its modifier: `String?`, `ContactInfo[]`. */
  type: string;
  /** Field attributes, space-separated. */
  attributes: string;
}

export interface PrismaModelView {
  name: string;
  /** Documentation lines (`///`). */
  docs: string[];
  fields: PrismaFieldView[];
  /** `@@id(...)`, `@@unique(...)`, `@@map(...)`, `@@schema(...)`, `@@ignore`. */
  blockAttributes: string[];
}

export interface PrismaEnumView {
  name: string;
  /** Each value with its `@map` when the database's label is not a Prisma identifier. */
  values: Array<{ name: string; attributes: string }>;
  /** `@@map(...)` when the database's type name differs. */
  blockAttributes: string[];
}

export interface PrismaSchemaView {
  provider: string;
  /** `"public", "sales"` when models live in several PostgreSQL schemas, else null. */
  schemas: string | null;
  /** Views are left out: Prisma's `view` blocks are a preview feature. */
  skippedViews: string[];
  models: PrismaModelView[];
  enums: PrismaEnumView[];
}

const PROVIDER: Record<SqlDialect, string> = { sqlite: 'sqlite', postgres: 'postgresql', mysql: 'mysql' };

/** Scalar type names a model may not take. */
const RESERVED_MODEL_NAMES = ['String', 'Int', 'Float', 'Boolean', 'DateTime', 'Json', 'Bytes', 'Decimal', 'BigInt', 'Unsupported'];

const ACTION: Record<ReferentialAction, string> = {
  'no action': 'NoAction',
  restrict: 'Restrict',
  cascade: 'Cascade',
  'set null': 'SetNull',
  'set default': 'SetDefault',
};

/** A Prisma identifier: ASCII letters, digits and `_`, starting with a letter. */
function identifier(text: string, prefix: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z]/.test(cleaned) ? cleaned : `${prefix}${cleaned}`;
}

interface ScalarField {
  name: string;
  scalar: PrismaScalar;
  /** Prisma value names by database label, for a column of an enum type. */
  enumValues: Map<string, string> | null;
  optional: boolean;
  /** `@id` or `@unique`, or null. */
  key: string | null;
}

interface ModelBuild {
  table: TableModel;
  name: string;
  /** By API field name. */
  scalars: Map<string, ScalarField>;
  relations: PrismaFieldView[];
  fieldName: (wanted: string) => string;
  /** Unique criteria (API field names) Prisma accepts: the primary key first. */
  keys: string[][];
  ignored: boolean;
  blockAttributes: string[];
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((name) => b.includes(name));
const list = (names: string[]) => `[${names.join(', ')}]`;

/**
 * The enum types of a schema: PostgreSQL's by type name (shared by their columns), MySQL's one per
 * column, named `{model}_{field}` as `prisma db pull` names them. SQLite has none.
 */
class PrismaEnums {
  private readonly byKey = new Map<string, PrismaEnumView & { labels: Map<string, string>; schema: string }>();

  /** `typeName` is shared with the models: enums and models live in one namespace. */
  constructor(
    private readonly dialect: SqlDialect,
    private readonly typeName: (wanted: string) => string,
  ) {}

  /** The enum type of a column with a picklist, created on first use. */
  typeOf(field: FieldModel, table: TableModel, modelName: string, fieldName: string): { type: string; labels: Map<string, string> } | null {
    if (field.picklist === undefined || this.dialect === 'sqlite') return null;
    const dbName = this.dialect === 'postgres' ? field.dbType.replace(/^"(.*)"$/, '$1') : null;
    // A type of another schema (`other.mood`) is left as it was: Unsupported.
    if (dbName !== null && /[."]/.test(dbName)) return null;
    const key = dbName ?? `${modelName}.${fieldName}`;
    let found = this.byKey.get(key);
    if (found === undefined) {
      const name = this.typeName(identifier(dbName ?? `${modelName}_${fieldName}`, 'Enum'));
      const valueName = uniqueNamer();
      const labels = new Map(
        field.picklist.map((label) => [label, valueName(label === '' ? 'EMPTY_ENUM_VALUE' : identifier(label, 'value_'))]),
      );
      found = {
        name,
        labels,
        values: [...labels].map(([label, value]) => ({ name: value, attributes: value === label ? '' : `@map(${JSON.stringify(label)})` })),
        blockAttributes: dbName !== null && name !== dbName ? [`@@map(${JSON.stringify(dbName)})`] : [],
        // An unqualified type name is found in the schema of the table that uses it.
        schema: table.sourceSchema ?? 'public',
      };
      this.byKey.set(key, found);
    }
    return { type: found.name, labels: found.labels };
  }

  /** The enums; with several PostgreSQL schemas, each placed in its own. */
  list(multiSchema: boolean): PrismaEnumView[] {
    return [...this.byKey.values()].map(({ name, values, blockAttributes, schema }) => ({
      name,
      values,
      blockAttributes: multiSchema ? [...blockAttributes, `@@schema(${JSON.stringify(schema)})`] : blockAttributes,
    }));
  }
}

function buildModel(table: TableModel, name: string, dialect: SqlDialect, enums: PrismaEnums): ModelBuild {
  const fieldName = uniqueNamer();
  const scalars = new Map<string, ScalarField>();
  for (const field of table.fields) {
    const prismaName = fieldName(identifier(field.sourceName, 'field_'));
    const enumType = enums.typeOf(field, table, name, prismaName);
    const scalar: PrismaScalar =
      enumType === null ? prismaScalar(field, dialect) : { type: enumType.type, native: null, unsupported: false, list: false };
    scalars.set(field.name, {
      name: prismaName,
      scalar,
      enumValues: enumType?.labels ?? null,
      // Prisma lists cannot be optional (an empty list stands for none).
      optional: field.allowNull && !table.primaryKey.includes(field.name) && !scalar.list,
      key: null,
    });
  }
  const usable = (fields: string[]) =>
    fields.length > 0 && fields.every((f) => scalars.has(f) && !scalars.get(f)!.scalar.unsupported && !scalars.get(f)!.scalar.list);
  const prismaNames = (fields: string[]) => fields.map((f) => scalars.get(f)!.name);
  const blockAttributes: string[] = [];
  const keys: string[][] = [];
  if (usable(table.primaryKey)) {
    keys.push(table.primaryKey);
    if (table.primaryKey.length === 1) scalars.get(table.primaryKey[0])!.key = '@id';
    else blockAttributes.push(`@@id(${list(prismaNames(table.primaryKey))})`);
  }
  for (const unique of [...table.uniqueKeys, ...table.fields.filter((f) => f.isUnique).map((f) => [f.name])]) {
    if (!usable(unique) || keys.some((key) => sameSet(key, unique))) continue;
    keys.push(unique);
    if (unique.length === 1) scalars.get(unique[0])!.key = '@unique';
    else blockAttributes.push(`@@unique(${list(prismaNames(unique))})`);
  }
  if (dialect === 'mysql') {
    // MySQL indexes text and blob columns only by a prefix, which Prisma's key attributes cannot state: such key columns stay unannotated.
    for (const field of keys.flat()) {
      const scalar = scalars.get(field)!;
      if (isUnindexableMySqlNative(scalar.scalar.native)) scalar.scalar = { ...scalar.scalar, native: null };
    }
  }
  if (name !== table.sourceName) blockAttributes.push(`@@map(${JSON.stringify(table.sourceName)})`);
  // Prisma Client needs a unique criterion of required fields; without one the model is ignored, as `prisma db pull` does.
  const ignored = !keys.some((key) => key.every((f) => !scalars.get(f)!.optional));
  return { table, name, scalars, relations: [], fieldName, keys, ignored, blockAttributes };
}

/** Field attributes in Prisma's usual order: key, default, map, native type. */
function scalarAttributes(model: ModelBuild, apiName: string): string {
  const field = model.table.fields.find((f) => f.name === apiName)!;
  const scalar = model.scalars.get(apiName)!;
  // An enum column's default names one of the enum's values.
  const fallback =
    scalar.enumValues !== null
      ? typeof field.default === 'string'
        ? (scalar.enumValues.get(field.default) ?? null)
        : null
      : prismaDefault(field, scalar.scalar, scalar.key === '@id');
  return [
    scalar.key,
    fallback === null ? null : `@default(${fallback})`,
    scalar.name === field.sourceName ? null : `@map(${JSON.stringify(field.sourceName)})`,
    scalar.scalar.native,
  ]
    .filter((attribute) => attribute !== null)
    .join(' ');
}

/** Adds the relation field for a foreign key and its back-relation, when Prisma can express it. */
function addRelation(
  from: ModelBuild,
  fk: ForeignKeyModel,
  to: ModelBuild,
  relationName: string | null,
  names: { forward: string; back: string },
): void {
  const fromFields = fk.fields.map((f) => from.scalars.get(f)!);
  const optional = fromFields.some((f) => f.optional);
  const actions = (['onDelete', 'onUpdate'] as const).flatMap((key) => {
    const action = ACTION[key === 'onDelete' ? fk.onDelete : fk.onUpdate];
    // SetNull on a required column is refused by Prisma (and could never succeed).
    return action === 'SetNull' && !optional ? [] : [`${key}: ${action}`];
  });
  const nameArgument = relationName === null ? [] : [JSON.stringify(relationName)];
  const args = [
    ...nameArgument,
    `fields: ${list(fromFields.map((f) => f.name))}`,
    `references: ${list(fk.refFields.map((f) => to.scalars.get(f)!.name))}`,
    ...actions,
  ];
  from.relations.push({ name: names.forward, type: `${to.name}${optional ? '?' : ''}`, attributes: `@relation(${args.join(', ')})` });
  const oneToOne = from.keys.some((key) => sameSet(key, fk.fields));
  to.relations.push({
    name: names.back,
    type: `${from.name}${oneToOne ? '?' : '[]'}`,
    attributes: relationName === null ? '' : `@relation(${JSON.stringify(relationName)})`,
  });
}

/** Whether Prisma accepts the foreign key as a relation: known, typed alike, referencing a unique criterion. */
function isExpressible(from: ModelBuild, fk: ForeignKeyModel, to: ModelBuild | undefined): to is ModelBuild {
  if (to === undefined || from.ignored || to.ignored || fk.fields.length !== fk.refFields.length) return false;
  if (!to.keys.some((key) => sameSet(key, fk.refFields))) return false;
  return fk.fields.every((field, index) => {
    const own = from.scalars.get(field);
    const ref = to.scalars.get(fk.refFields[index]);
    return own !== undefined && ref !== undefined && !own.scalar.unsupported && own.scalar.type === ref.scalar.type;
  });
}

export function prismaSchemaView(service: SqlServiceModel): PrismaSchemaView {
  const { dialect } = service;
  const tables = service.schema.tables.filter((table) => !table.isView);
  const modelName = uniqueNamer(RESERVED_MODEL_NAMES);
  const enums = new PrismaEnums(dialect, modelName);
  const models = new Map(
    tables.map((table) => [table.name, buildModel(table, modelName(identifier(pascalCase(table.name), 'Model')), dialect, enums)]),
  );
  const expressible = tables.flatMap((table) =>
    table.foreignKeys.flatMap((fk) => {
      const from = models.get(table.name)!;
      const to = models.get(fk.refTable);
      return isExpressible(from, fk, to) ? [{ from, fk, to }] : [];
    }),
  );
  // Two relations between the same pair of models (or one from a model to itself) need a relation name.
  const pairKey = (a: ModelBuild, b: ModelBuild) => [a.name, b.name].sort().join('\u0000');
  const pairCount = new Map<string, number>();
  for (const { from, to } of expressible) pairCount.set(pairKey(from, to), (pairCount.get(pairKey(from, to)) ?? 0) + 1);
  for (const { from, fk, to } of expressible) {
    const suffix = fk.fields.join('_');
    const forward = from.fieldName(identifier(`${fk.refTable}_by_${suffix}`, 'relation_'));
    const back = to.fieldName(identifier(`${from.table.name}_by_${suffix}`, 'relation_'));
    const named = from === to || pairCount.get(pairKey(from, to))! > 1;
    addRelation(from, fk, to, named ? `${from.name}_${forward}` : null, { forward, back });
  }
  const schemaNames =
    dialect === 'postgres' && tables.some((t) => t.sourceSchema !== null)
      ? [...new Set(tables.map((t) => t.sourceSchema ?? 'public'))].sort()
      : null;
  return {
    provider: PROVIDER[dialect],
    schemas: schemaNames === null ? null : schemaNames.map((s) => JSON.stringify(s)).join(', '),
    skippedViews: service.schema.tables.filter((table) => table.isView).map((table) => table.name),
    models: [...models.values()].map((model) => ({
      name: model.name,
      docs: model.ignored
        ? [`Table "${model.table.sourceName}" has no primary key or unique key of required columns, so Prisma Client cannot use it.`]
        : [],
      fields: [
        ...[...model.scalars].map(([apiName, scalar]) => ({
          name: scalar.name,
          type: `${scalar.scalar.type}${scalar.optional ? '?' : ''}`,
          attributes: scalarAttributes(model, apiName),
        })),
        ...model.relations,
      ],
      blockAttributes: [
        ...model.blockAttributes,
        ...(schemaNames === null ? [] : [`@@schema(${JSON.stringify(model.table.sourceSchema ?? 'public')})`]),
        ...(model.ignored ? ['@@ignore'] : []),
      ],
    })),
    enums: enums.list(schemaNames !== null),
  };
}
