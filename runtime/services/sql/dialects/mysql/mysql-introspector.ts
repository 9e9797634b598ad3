/**
 * Reads a MySQL/MariaDB catalog (information_schema, the connection's database): tables, views,
 * columns with their full types, defaults and extras, primary/unique/foreign keys. MariaDB's JSON
 * columns are longtext with a json_valid check, read back as json.
 */
import { sql, type Kysely } from 'kysely';
import type { AbstractType, FieldModel } from '../../../../model/platform-model.js';
import { groupByTable, referentialAction, type CatalogForeignKey, type CatalogTable } from '../../schema/catalog.js';

interface TableRow {
  name: string;
  type: string;
}
interface ColumnRow {
  table_name: string;
  name: string;
  column_type: string;
  data_type: string;
  nullable: string;
  default_sql: string | null;
  extra: string;
}
interface KeyRow {
  table_name: string;
  name: string;
  type: string;
  column_name: string;
  ref_schema_same: number | null;
  ref_table: string | null;
  ref_column: string | null;
  update_rule: string | null;
  delete_rule: string | null;
}
interface CheckRow {
  table_name: string;
  clause: string;
}

const TIME_EXPRESSION = /^(current_timestamp|now|localtimestamp|localtime|current_date|curdate|current_time|curtime)(\(\d*\))?$/i;

/**
 * A default as information_schema shows it: MariaDB quotes string literals (`'a''b'`) and writes
 * `NULL`; MySQL shows literals bare and marks expressions DEFAULT_GENERATED.
 */
export function parseMysqlDefault(text: string | null, extra: string): FieldModel['default'] {
  if (text === null || text === 'NULL') return null;
  const value = text.trim();
  const quoted = /^'((?:[^'\\]|''|\\.)*)'$/s.exec(value);
  if (quoted) return quoted[1].replace(/''/g, "'").replace(/\\(.)/g, '$1');
  if (TIME_EXPRESSION.test(value)) return { expression: 'CURRENT_TIMESTAMP' };
  if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (/DEFAULT_GENERATED/i.test(extra) || /\(/.test(value)) return { expression: value };
  return value;
}

function typeOverride(row: ColumnRow, jsonColumns: ReadonlySet<string>): AbstractType | undefined {
  if (jsonColumns.has(`${row.table_name}\u0000${row.name}`)) return 'json';
  const type = row.data_type.toLowerCase();
  if (/on update current_timestamp/i.test(row.extra) && (type === 'timestamp' || type === 'datetime')) return 'timestamp_on_update';
  // enum and set values are strings.
  if (type === 'enum' || type === 'set') return 'string';
  // bit(1) is a boolean; a wider bit field holds a number of up to 64 bits (read as true, it was lost).
  if (type === 'bit' && !/^bit\(1\)$/i.test(row.column_type)) return 'bigint';
  return undefined;
}

/** MariaDB column checks of the form json_valid(`column`). */
async function jsonColumns(db: Kysely<any>): Promise<Set<string>> {
  const { rows } = await sql<{ version: string }>`select version() as version`.execute(db);
  if (!/mariadb/i.test(rows[0]?.version ?? '')) return new Set();
  const checks = (
    await sql<CheckRow>`
    select table_name as table_name, check_clause as clause from information_schema.check_constraints
    where constraint_schema = database() order by table_name, constraint_name`.execute(db)
  ).rows;
  const found = new Set<string>();
  for (const check of checks) {
    const match = /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(check.clause.trim());
    if (match) found.add(`${check.table_name}\u0000${match[1].replace(/``/g, '`')}`);
  }
  return found;
}

/** Tables and views of the current database, sorted by name. */
/** The values of `enum('a','it''s')`, as declared (case kept, '' unescaped). */
function enumValues(columnType: string): string[] {
  return [...columnType.slice(columnType.indexOf('(') + 1, columnType.lastIndexOf(')')).matchAll(/'((?:[^']|'')*)'/g)].map((m) =>
    m[1].replace(/''/g, "'"),
  );
}

export async function readMysqlCatalog(db: Kysely<any>): Promise<CatalogTable[]> {
  const tables = (
    await sql<TableRow>`
    select table_name as name, table_type as type from information_schema.tables
    where table_schema = database() and table_type <> 'SEQUENCE' order by table_name`.execute(db)
  ).rows;
  const columns = (
    await sql<ColumnRow>`
    select table_name as table_name, column_name as name, column_type as column_type, data_type as data_type,
      is_nullable as nullable, column_default as default_sql, extra as extra
    from information_schema.columns where table_schema = database()
    order by table_name, ordinal_position`.execute(db)
  ).rows;
  const keys = (
    await sql<KeyRow>`
    select tc.table_name as table_name, tc.constraint_name as name, tc.constraint_type as type, k.column_name as column_name,
      k.referenced_table_schema = database() as ref_schema_same, k.referenced_table_name as ref_table,
      k.referenced_column_name as ref_column, rc.update_rule as update_rule, rc.delete_rule as delete_rule
    from information_schema.table_constraints tc
      join information_schema.key_column_usage k
        on k.constraint_schema = tc.constraint_schema and binary k.table_name = binary tc.table_name and k.constraint_name = tc.constraint_name
      left join information_schema.referential_constraints rc
        on rc.constraint_schema = tc.constraint_schema and binary rc.table_name = binary tc.table_name and rc.constraint_name = tc.constraint_name
    where tc.table_schema = database() and tc.constraint_type in ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')
    order by tc.table_name, tc.constraint_name, k.ordinal_position`.execute(db)
  ).rows;
  const json = await jsonColumns(db);

  const columnsOf = groupByTable(columns);
  const keysOf = groupByTable(keys);
  return tables.map((table): CatalogTable => {
    const byConstraint = new Map<string, KeyRow[]>();
    for (const row of keysOf.get(table.name) ?? []) {
      const list = byConstraint.get(`${row.type}\u0000${row.name}`);
      if (list === undefined) byConstraint.set(`${row.type}\u0000${row.name}`, [row]);
      else list.push(row);
    }
    const constraints = [...byConstraint.values()];
    const foreignKeys: CatalogForeignKey[] = constraints
      .filter((rows) => rows[0].type === 'FOREIGN KEY' && rows[0].ref_table !== null && Number(rows[0].ref_schema_same) === 1)
      .map((rows) => ({
        name: rows[0].name,
        columns: rows.map((row) => row.column_name),
        refTable: rows[0].ref_table as string,
        refColumns: rows.map((row) => row.ref_column as string),
        onUpdate: referentialAction(rows[0].update_rule),
        onDelete: referentialAction(rows[0].delete_rule),
      }));
    return {
      name: table.name,
      schema: null,
      isView: table.type === 'VIEW',
      columns: (columnsOf.get(table.name) ?? []).map((row) => ({
        name: row.name,
        dbType: row.column_type.toLowerCase(),
        nullable: row.nullable === 'YES',
        default: parseMysqlDefault(row.default_sql, row.extra),
        autoIncrement: /auto_increment/i.test(row.extra),
        type: typeOverride(row, json),
        ...(/^enum\(/i.test(row.column_type) ? { picklist: enumValues(row.column_type) } : {}),
        // VIRTUAL GENERATED, STORED GENERATED (MariaDB's PERSISTENT); not MySQL's DEFAULT_GENERATED.
        ...(/\b(virtual|stored) generated\b/i.test(row.extra) ? { computed: true as const } : {}),
      })),
      primaryKey: constraints.find((rows) => rows[0].type === 'PRIMARY KEY')?.map((row) => row.column_name) ?? [],
      foreignKeys,
      uniqueKeys: constraints.filter((rows) => rows[0].type === 'UNIQUE').map((rows) => rows.map((row) => row.column_name)),
    };
  });
}
