/**
 * Hand-built model of a small contact database (contact, contact_info, contact_group and the
 * contact_group_relationship junction), its SQLite DDL and rows, and a query-only Kysely per dialect.
 */
import {
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type Expression,
  type SqlBool,
} from 'kysely';
import type { AbstractType, DatabaseSchema, FieldModel, RelationModel, SqlDialect, TableModel } from '#runtime/model/platform-model.js';

export function field(name: string, type: AbstractType, extra: Partial<FieldModel> = {}): FieldModel {
  return {
    name,
    sourceName: name,
    label: name,
    type,
    dbType: type,
    length: null,
    precision: null,
    scale: null,
    default: null,
    allowNull: true,
    isPrimaryKey: type === 'id',
    autoIncrement: type === 'id',
    isUnique: type === 'id',
    isForeignKey: type === 'reference',
    refTable: null,
    refField: null,
    ...extra,
  };
}

function relation(
  name: string,
  type: RelationModel['type'],
  fieldName: string,
  refTable: string,
  refField: string,
  junction: [table: string, field: string, refField: string] | null = null,
): RelationModel {
  return {
    name,
    type,
    field: [fieldName],
    refTable,
    refField: [refField],
    junctionTable: junction?.[0] ?? null,
    junctionField: junction?.[1] ?? null,
    junctionRefField: junction?.[2] ?? null,
  };
}

function table(name: string, fields: FieldModel[], relations: RelationModel[], sourceName = name): TableModel {
  return {
    name,
    sourceName,
    sourceSchema: null,
    label: name,
    description: '',
    isView: false,
    primaryKey: ['id'],
    fields,
    foreignKeys: [],
    uniqueKeys: [],
    relations,
  };
}

const junction: [string, string, string] = ['contact_group_relationship', 'contact_id', 'contact_group_id'];

export const contact = table(
  'contact',
  [
    field('id', 'id'),
    field('first_name', 'string'),
    // The API name differs from the column's own name: compiled SQL must use the source name.
    field('last_name', 'string', { sourceName: 'Last_Name' }),
    field('email', 'string'),
    field('age', 'integer'),
    field('score', 'float'),
    field('is_active', 'boolean'),
    field('birthday', 'date'),
  ],
  [
    relation('contact_group_by_contact_group_relationship', 'many_many', 'id', 'contact_group', 'id', junction),
    relation('contact_group_relationship_by_contact_id', 'has_many', 'id', 'contact_group_relationship', 'contact_id'),
    relation('contact_info_by_contact_id', 'has_many', 'id', 'contact_info', 'contact_id'),
  ],
);

export const contactInfo = table(
  'contact_info',
  [
    field('id', 'id'),
    field('contact_id', 'reference', { refTable: 'contact', refField: 'id' }),
    field('info_type', 'string'),
    field('city', 'string'),
  ],
  [relation('contact_by_contact_id', 'belongs_to', 'contact_id', 'contact', 'id')],
);

export const contactGroup = table(
  'contact_group',
  [field('id', 'id'), field('name', 'string')],
  [
    relation('contact_by_contact_group_relationship', 'many_many', 'id', 'contact', 'id', [
      'contact_group_relationship',
      'contact_group_id',
      'contact_id',
    ]),
    relation('contact_group_relationship_by_contact_group_id', 'has_many', 'id', 'contact_group_relationship', 'contact_group_id'),
  ],
);

export const contactGroupRelationship = table(
  'contact_group_relationship',
  [
    field('id', 'id'),
    field('contact_id', 'reference', { refTable: 'contact', refField: 'id' }),
    field('contact_group_id', 'reference', { refTable: 'contact_group', refField: 'id' }),
  ],
  [
    relation('contact_by_contact_id', 'belongs_to', 'contact_id', 'contact', 'id'),
    relation('contact_group_by_contact_group_id', 'belongs_to', 'contact_group_id', 'contact_group', 'id'),
  ],
);

export const schema: DatabaseSchema = {
  tables: [contact, contactGroup, contactGroupRelationship, contactInfo],
  routines: [],
};

/** Column types that differ per dialect: booleans and dates are native where the database has them. */
const COLUMN_TYPES: Record<SqlDialect, { boolean: string; date: string; float: string; yes: string; no: string; lastName: string }> = {
  sqlite: { boolean: 'integer', date: 'text', float: 'real', yes: '1', no: '0', lastName: 'Last_Name' },
  // PostgreSQL folds unquoted names to lower case: the mixed-case column needs quotes.
  postgres: { boolean: 'boolean', date: 'date', float: 'real', yes: 'true', no: 'false', lastName: '"Last_Name"' },
  mysql: { boolean: 'tinyint(1)', date: 'date', float: 'double', yes: '1', no: '0', lastName: 'Last_Name' },
};

/** The model's tables and rows in a dialect's DDL. */
export function ddlFor(dialect: SqlDialect): string[] {
  const t = COLUMN_TYPES[dialect];
  return [
    `create table contact (id integer primary key, first_name varchar(40), ${t.lastName} varchar(40), email varchar(80), age integer,
      score ${t.float}, is_active ${t.boolean}, birthday ${t.date})`,
    `create table contact_group (id integer primary key, name varchar(40))`,
    `create table contact_info (id integer primary key, contact_id integer references contact(id), info_type varchar(20), city varchar(40))`,
    `create table contact_group_relationship (id integer primary key, contact_id integer references contact(id),
      contact_group_id integer references contact_group(id))`,
    `insert into contact values
      (1, 'Jon', 'Doe', 'jon@example.com', 30, 4.5, ${t.yes}, '1994-01-31'),
      (2, 'Jane', 'Doe', 'jane@example.com', 41, 3.0, ${t.no}, '1983-07-02'),
      (3, 'Ann', 'O''Neil', null, 25, null, ${t.yes}, null),
      (4, 'Bob', 'Smith_100%', 'bob@example.org', null, 2.25, ${t.no}, '2000-12-12'),
      (5, 'Eve', 'x'' OR 1=1 --', 'eve@example.com', 52, 5.0, ${t.yes}, '1972-03-03')`,
    `insert into contact_info values
      (1, 1, 'home', 'Boston'), (2, 1, 'work', 'Chicago'), (3, 2, 'home', 'Boston'), (4, 4, 'home', 'Denver')`,
    `insert into contact_group values (1, 'Friends'), (2, 'Work'), (3, 'Empty')`,
    `insert into contact_group_relationship values (1, 1, 1), (2, 2, 1), (3, 2, 2), (4, 5, 2)`,
  ];
}

/** SQLite's DDL of the model (the dialect the compile-only tests name). */
export const ddl = ddlFor('sqlite');

function queryOnly(dialect: SqlDialect): Kysely<unknown> {
  const parts = {
    sqlite: [() => new SqliteAdapter(), (db: Kysely<unknown>) => new SqliteIntrospector(db), () => new SqliteQueryCompiler()],
    postgres: [() => new PostgresAdapter(), (db: Kysely<unknown>) => new PostgresIntrospector(db), () => new PostgresQueryCompiler()],
    mysql: [() => new MysqlAdapter(), (db: Kysely<unknown>) => new MysqlIntrospector(db), () => new MysqlQueryCompiler()],
  } as const;
  const [createAdapter, createIntrospector, createQueryCompiler] = parts[dialect];
  return new Kysely<unknown>({
    dialect: { createAdapter, createDriver: () => new DummyDriver(), createIntrospector, createQueryCompiler },
  });
}

const builders = { sqlite: queryOnly('sqlite'), postgres: queryOnly('postgres'), mysql: queryOnly('mysql') };

/** The SQL text and parameters of an expression in a dialect, compiled without a server. */
export function toSql(expression: Expression<SqlBool>, dialect: SqlDialect): { sql: string; parameters: readonly unknown[] } {
  const { sql: text, parameters } = sql`${expression}`.compile(builders[dialect]);
  return { sql: text, parameters };
}
