/**
 * The texts of the SQL services' `_schema` resource and of what feeds it: schema writes and the
 * DDL they run, table and field definitions (checked before any DDL runs), names, seeds. Each with
 * its status, worded as the reference platform words them where it has a text (clients match some:
 * test/unit/runtime/messages.test.ts). The dialects' driver-error translations name some of them
 * (a table or field that exists, dependent objects). The records, values, filter and routine texts
 * are in ../sql-messages.ts.
 */
import { message } from '../../../core/errors.js';

/** A field of a table definition, as the definition refusals name it. */
const fieldOf = (name: string, table: string) => `field '${name}' of table '${table}'`;
const tableField = (name: string, table: string) => ({ table, field: name });

/** The name as messages show it: long names cut short. */
export function shownName(name: string): string {
  return name.length > 80 ? `${name.slice(0, 80)}...` : name;
}

export const schemaMessages = {
  // Schema (`_schema`).
  noSchemaData: message(400, (what: 'create' | 'update' | 'delete') => `No data in schema ${what} request.`),
  invalidSchemaPath: message(400, (what: 'describe' | 'update' | 'delete') => `Invalid schema path in ${what} request.`),
  tableNameMissing: message(400, () => 'Table schema received does not have a valid name.'),
  fieldNameMissing: message(
    400,
    (index: number, table: string) => `Invalid schema detected - no name element for field ${index} of table '${table}'.`,
  ),
  /** A table or field name given that no database keeps alike, or that dot notation would read as `<table>.<field>`. */
  invalidName: message(
    400,
    (what: string, name: string) =>
      `Invalid schema detected - invalid name '${name}' for ${what}: a name may not contain '.' (it joins a related table to its field) nor begin or end with a space.`,
    (_what, name) => ({ name }),
  ),
  fieldExists: message(400, (name: string, table: string) => `Field '${name}' already exists in table '${table}'.`),
  /** `kind`: table, view, index, ... */
  alreadyExists: message(409, (kind: string, name: string) => `A ${kind} with name '${name}' already exist in the database.`),
  /** Dropping what another table's foreign key references. */
  tableReferenced: message(
    409,
    (table: string, by: string) =>
      `Table '${table}' is referenced by a foreign key of table '${by}': drop that relationship or table first.`,
    (table, by) => ({ table, referenced_by: by }),
  ),
  primaryKeyKept: message(
    400,
    (name: string, table: string) => `Field '${name}' is the primary key of table '${table}': a table keeps its primary key.`,
    (name: string) => ({ field: name }),
  ),
  numberedKeyKept: message(
    400,
    (name: string, table: string) =>
      `Field '${name}' is the auto-numbered primary key of table '${table}': it keeps its numbering and an integer type.`,
    (name: string) => ({ field: name }),
  ),
  fieldReferenced: message(
    409,
    (name: string, table: string, by: string) =>
      `Field '${name}' of table '${table}' is referenced by a foreign key of table '${by}': drop that relationship first.`,
    (name, table, by) => ({ field: name, table, referenced_by: by }),
  ),
  /** A schema change the database refuses because other objects (views, keys) depend on what it drops. */
  dependentObjects: message(409, () => 'Other database objects (views, foreign keys) depend on what the change drops: drop them first.'),
  /** DELETE of a table (GET and field or relationship writes say coreMessages.tableNotFound). */
  tableToDropNotFound: message(404, (table: string) => `Table '${table}' not found.`),
  partNotFound: message(
    404,
    (kind: 'Field' | 'Relationship', name: string, table: string) => `${kind} '${name}' not found in table '${table}'.`,
  ),
  /** The DDL of a schema write failed for a reason the driver-error translation does not name; `table` null: the tables of a create. */
  schemaChangeFailed: message(400, (action: 'create' | 'update' | 'drop', table: string | null) =>
    table === null ? `Failed to ${action} tables.` : `Failed to ${action} table '${table}'.`,
  ),
  fieldListNotList: message(400, () => "A table definition's 'field' must be a list of field definitions."),
  tableGivenTwice: message(
    400,
    (table: string) => `Table '${shownName(table)}' is given more than once in the request.`,
    (table: string) => ({ table }),
  ),
  /** A request on `_schema/{table}` whose body defines another table (`other`: its name) or several (`other`: "3 tables"). */
  otherTableDefinition: message(
    400,
    (table: string, other: string, _named: boolean) =>
      `The body of a request on '_schema/${table}' is one definition of table '${table}'; '${other}' given.`,
    (_table, other, named) => (named ? { table: other } : null),
  ),
  /** `new_name`: the reference renames a field; Portico does not. */
  renameUnsupported: message(
    400,
    (name: string, table: string) =>
      `Field '${shownName(name)}' of table '${table}' can not be renamed: renaming fields ('new_name') is not supported.`,
    (name: string, table: string) => ({ table, field: name }),
  ),
  /** A type change the values already stored do not fit; `problem`: the value encoder's message. */
  storedValuesUnfit: message(
    400,
    (name: string, table: string, type: string, problem: string) =>
      `Field '${name}' of table '${table}' holds values that type '${type}' does not take: ${problem}`,
    (name: string) => ({ field: name }),
  ),
  secondPrimaryKey: message(
    400,
    (table: string, key: readonly string[], name: string) =>
      `Table '${table}' already has a primary key (${key.join(', ')}): field '${name}' can not be one too.`,
    (_table, _key, name) => ({ field: name }),
  ),
  /** POST `_schema/{table}/_field/{name}`: a field by name is changed (PUT, PATCH), fields are added on `_field`. */
  fieldAddressedByName: message(
    400,
    (name: string) => `Field '${name}' is addressed by name: use PUT or PATCH to change it, or POST to '_field' to add fields.`,
  ),
  virtualRelation: message(400, () => 'Virtual relationships are not supported: relationships come from foreign keys.'),
  refTableMissing: message(400, () => "Relationship needs an existing 'ref_table'."),
  relationTypeInvalid: message(
    400,
    () => "Relationship 'type' must be belongs_to, has_many or has_one; many_many comes from a junction table with two foreign keys.",
  ),
  junctionRelation: message(
    400,
    (name: string, junction: string) =>
      `Relationship '${name}' comes from junction table '${junction}': drop that table or its foreign keys.`,
  ),
  noForeignKeyToDrop: message(404, (name: string) => `Relationship '${name}' has no foreign key to drop.`),

  // Table and field definitions (`_schema` bodies and seeds), before any DDL runs.
  /** `what`: "table 'x'", "field 'y' of table 'x'"; a name the database would not keep alike. */
  nameCharacters: message(
    400,
    (what: string, _context: Record<string, unknown>) =>
      `Invalid name for ${what}: use letters, digits, '_' and '$', starting with a letter or '_'.`,
    (_what, context) => context,
  ),
  /** A name longer than the database keeps (PostgreSQL would cut it short silently). */
  nameTooLong: message(
    400,
    (what: string, length: number, unit: 'bytes' | 'characters', _context: Record<string, unknown>) =>
      `Invalid name for ${what}: at most ${length} ${unit} on this database.`,
    (_what, _length, _unit, context) => context,
  ),
  /** `key`: length, precision or scale. */
  sizeNotInteger: message(
    400,
    (key: string, name: string, table: string) => `Invalid '${key}' for ${fieldOf(name, table)}: must be a non-negative integer.`,
  ),
  sizeTooLarge: message(
    400,
    (key: string, name: string, table: string, max: number) => `Invalid '${key}' for ${fieldOf(name, table)}: at most ${max}.`,
  ),
  /** A string field's 'length' beyond what the database's string type holds. */
  stringLengthTooLarge: message(
    400,
    (field: string, max: number) =>
      `Invalid 'length' for field '${field}': at most ${max} characters on this database; use type text for longer values.`,
    (field: string) => ({ field }),
  ),
  scaleBeyondPrecision: message(
    400,
    (name: string, table: string, precision: number) =>
      `Invalid 'scale' for ${fieldOf(name, table)}: at most the precision (${precision}).`,
    (name: string) => ({ field: name }),
  ),
  /** `key`: ref_on_update or ref_on_delete. */
  referentialActionInvalid: message(
    400,
    (key: string, name: string, table: string) =>
      `Invalid '${key}' for ${fieldOf(name, table)}: use one of NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT.`,
  ),
  defaultShapeInvalid: message(
    400,
    (name: string, table: string) => `Invalid 'default' for ${fieldOf(name, table)}: use a scalar or {"expression": "SQL"}.`,
  ),
  /** A JSON field's default that is no JSON text. */
  defaultNotJson: message(
    400,
    (name: string, table: string) => `Invalid 'default' for ${fieldOf(name, table)}: it must be JSON text.`,
    tableField,
  ),
  /** A default the field could not hold; `problem`: the value encoder's message. */
  defaultUnfit: message(
    400,
    (name: string, table: string, problem: string) => `Invalid 'default' for ${fieldOf(name, table)}: ${problem}`,
    tableField,
  ),
  /** A `type` outside the abstract vocabulary (`types`); native types go in `db_type`. */
  typeNotAbstract: message(
    400,
    (type: string, name: string, table: string, types: readonly string[]) =>
      `Invalid schema detected - invalid type '${shownName(type)}' for ${fieldOf(name, table)}: use one of ${types.join(', ')}, or 'db_type' for a native type.`,
    (type, name) => ({ field: name, type }),
  ),
  typeMissing: message(
    400,
    (name: string, table: string) => `Invalid schema detected - no type or db_type element for ${fieldOf(name, table)}.`,
  ),
  nativeTypeInvalid: message(
    400,
    (type: string, name: string, table: string) => `Invalid schema detected - invalid type '${type}' for ${fieldOf(name, table)}.`,
  ),
  referenceWithoutTable: message(
    400,
    (name: string, table: string) => `Invalid schema detected - no table element for reference type of ${fieldOf(name, table)}.`,
  ),
  tableWithoutFields: message(400, (table: string) => `There are no fields in the requested schema of table '${table}'.`),
  /** Two auto-numbered primary key fields: SQLite and MySQL made a composite key that numbered neither. */
  numberedKeysTwice: message(
    400,
    (table: string, fields: readonly string[]) =>
      `Invalid schema detected - table '${table}' has more than one auto-numbered primary key field (${fields.join(', ')}).`,
    (table) => ({ table }),
  ),
  /** A foreign key to a table neither created with it nor in the database. */
  referencedTableMissing: message(
    400,
    (name: string, table: string, refTable: string) =>
      `Invalid schema detected - ${fieldOf(name, table)} references table '${refTable}', which does not exist.`,
    tableField,
  ),
  referencedFieldMissing: message(
    400,
    (name: string, table: string, refTable: string, refField: string | null) =>
      `Invalid schema detected - ${fieldOf(name, table)} references field '${refField}' of table '${refTable}', which does not exist.`,
    tableField,
  ),
  /** Only a key can be referenced (SQLite created the table, then failed every write to it). */
  referencedFieldNotKey: message(
    400,
    (name: string, table: string, refTable: string, refField: string) =>
      `Invalid schema detected - ${fieldOf(name, table)} references field '${refField}' of table '${refTable}', which is neither its primary key nor unique.`,
    tableField,
  ),
  /** A foreign key between fields of other kinds (a string referencing an integer key). */
  referenceTypeMismatch: message(
    400,
    (name: string, table: string, type: string, refTable: string, refField: string | undefined, refType: string) =>
      `Invalid schema detected - ${fieldOf(name, table)} of type '${type}' can not reference field '${refField}' of table '${refTable}', of type '${refType}'.`,
    tableField,
  ),

  // Seeds (a service's seed directory, loaded at start).
  seedTableMalformed: message(400, (index: number) => `Seed data table ${index} needs a 'name' and a 'record' list.`),
  seedTableUnknown: message(400, (table: string) => `Seed data names table '${table}', which the seed schema does not create.`),
  /** `problem`: why the record was refused, as a `_table` write says it. */
  seedRecordRefused: message(
    400,
    (index: number, table: string, problem: string) => `Seed record ${index} of table '${table}': ${problem}`,
  ),
  seedFileMissing: message(500, (dir: string, file: string) => `Seed directory '${dir}' has no ${file}.`),
  /** `detail`: the JSON parser's words (the platform's own file: its owner reads them, no client does). */
  seedFileNotJson: message(500, (file: string, detail: string) => `Seed file '${file}' is not valid JSON: ${detail}`),
} as const;
