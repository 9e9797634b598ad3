/**
 * Reads a PostgreSQL catalog (pg_catalog, the current schema): tables, views, columns with their
 * formatted types, defaults and identity, primary/unique/foreign keys and unique indexes.
 * Four queries for the whole schema, each ordered.
 */
import { sql, type Kysely } from 'kysely';
import type { AbstractType, FieldModel } from '../../../../model/platform-model.js';
import { groupByTable, referentialAction, type CatalogForeignKey, type CatalogTable } from '../../schema/catalog.js';

interface RelationRow {
  name: string;
  kind: string;
}
interface ColumnRow {
  table_name: string;
  name: string;
  db_type: string;
  not_null: boolean;
  default_sql: string | null;
  identity: string;
  /** pg_attribute.attgenerated: 's' for a stored generated column, '' otherwise. */
  generated: string;
  type_kind: string;
  enum_labels: string[] | null;
}
interface ConstraintRow {
  table_name: string;
  name: string;
  type: string;
  columns: string[];
  ref_table: string | null;
  same_schema: boolean | number | null;
  ref_columns: string[] | null;
  on_update: string;
  on_delete: string;
}
interface IndexRow {
  table_name: string;
  columns: string[];
}

/** pg_constraint's action codes. */
const ACTIONS: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

const TIME_EXPRESSION = /^(current_timestamp|current_date|current_time|localtimestamp|localtime|now\(\))$/i;

/**
 * A default's SQL text as a value: `'abc'::character varying` -> 'abc', `(-1)` -> -1, booleans,
 * NULL casts -> null; sequences and anything else stay expressions.
 */
export function parsePostgresDefault(text: string | null): FieldModel['default'] {
  if (text === null) return null;
  // `'x'::type`, `'x'::type[]`, `(x)::type`: the literal before the cast.
  let value = text.trim().replace(/^\((.*)\)$/s, '$1');
  const cast = /^('(?:[^']|'')*'|[^:']+?)::[\w\s."[\]()]+$/s.exec(value);
  if (cast) value = cast[1].trim().replace(/^\((.*)\)$/s, '$1');
  if (/^null$/i.test(value)) return null;
  const quoted = /^'((?:[^']|'')*)'$/s.exec(value);
  if (quoted) return quoted[1].replace(/''/g, "'");
  if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  if (TIME_EXPRESSION.test(value)) return { expression: /^now\(\)$/i.test(value) ? 'now()' : value.toUpperCase() };
  return { expression: text.trim() };
}

/** Abstract types the formatted type alone does not tell: enums and bit strings hold strings. */
function typeOverride(row: ColumnRow): AbstractType | undefined {
  return row.type_kind === 'e' || /^bit( varying)?\b/.test(row.db_type) ? 'string' : undefined;
}

/** Tables and views of the connection's current schema (the service's `schema`), sorted by name. */
export async function readPostgresCatalog(db: Kysely<any>): Promise<CatalogTable[]> {
  const relations = (
    await sql<RelationRow>`
    select c.relname as name, c.relkind::text as kind
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition
    order by c.relname`.execute(db)
  ).rows;

  // Domains are read as their base type, as Prisma does.
  const columns = (
    await sql<ColumnRow>`
    select c.relname as table_name, a.attname as name,
      pg_catalog.format_type(coalesce(nullif(t.typbasetype, 0), a.atttypid), case when t.typbasetype <> 0 then t.typtypmod else a.atttypmod end) as db_type,
      a.attnotnull as not_null, pg_catalog.pg_get_expr(d.adbin, d.adrelid) as default_sql,
      a.attidentity::text as identity, a.attgenerated::text as generated, coalesce(bt.typtype, t.typtype)::text as type_kind,
      (select array_agg(e.enumlabel::text order by e.enumsortorder) from pg_catalog.pg_enum e
        where e.enumtypid = coalesce(nullif(t.typbasetype, 0), a.atttypid)) as enum_labels
    from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_type t on t.oid = a.atttypid
      left join pg_catalog.pg_type bt on bt.oid = nullif(t.typbasetype, 0)
      left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f') and a.attnum > 0 and not a.attisdropped
    order by c.relname, a.attnum`.execute(db)
  ).rows;

  const constraints = (
    await sql<ConstraintRow>`
    select c.relname as table_name, con.conname as name, con.contype::text as type,
      array(select a.attname from unnest(con.conkey) with ordinality k(num, ord)
        join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.num order by k.ord)::text[] as columns,
      fc.relname as ref_table, fn.nspname = current_schema() as same_schema,
      array(select a.attname from unnest(con.confkey) with ordinality k(num, ord)
        join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.num order by k.ord)::text[] as ref_columns,
      con.confupdtype::text as on_update, con.confdeltype::text as on_delete
    from pg_catalog.pg_constraint con
      join pg_catalog.pg_class c on c.oid = con.conrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      left join pg_catalog.pg_class fc on fc.oid = con.confrelid
      left join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
    where n.nspname = current_schema() and con.contype in ('p', 'u', 'f')
    order by c.relname, con.conname`.execute(db)
  ).rows;

  // Unique indexes on plain columns that no constraint owns (CREATE UNIQUE INDEX).
  const indexes = (
    await sql<IndexRow>`
    select c.relname as table_name,
      array(select a.attname from unnest(ix.indkey::int2[]) with ordinality k(num, ord)
        join pg_catalog.pg_attribute a on a.attrelid = ix.indrelid and a.attnum = k.num order by k.ord)::text[] as columns
    from pg_catalog.pg_index ix
      join pg_catalog.pg_class i on i.oid = ix.indexrelid
      join pg_catalog.pg_class c on c.oid = ix.indrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and ix.indisunique and not ix.indisprimary
      and ix.indexprs is null and ix.indpred is null
      and not exists (select 1 from pg_catalog.pg_constraint con where con.conindid = ix.indexrelid)
    order by c.relname, i.relname`.execute(db)
  ).rows;

  const columnsOf = groupByTable(columns);
  const constraintsOf = groupByTable(constraints);
  const indexesOf = groupByTable(indexes);
  return relations.map((relation): CatalogTable => {
    const own = constraintsOf.get(relation.name) ?? [];
    const foreignKeys: CatalogForeignKey[] = own
      // A key into another schema points at a table this service does not serve. (The system database's pool reads
      // booleans as 1 and 0.)
      .filter((row) => row.type === 'f' && row.ref_table !== null && Boolean(row.same_schema))
      .map((row) => ({
        name: row.name,
        columns: row.columns,
        refTable: row.ref_table as string,
        refColumns: row.ref_columns ?? [],
        onUpdate: referentialAction(ACTIONS[row.on_update]),
        onDelete: referentialAction(ACTIONS[row.on_delete]),
      }));
    return {
      name: relation.name,
      schema: null,
      isView: relation.kind === 'v' || relation.kind === 'm',
      columns: (columnsOf.get(relation.name) ?? []).map((row) => {
        const sequence = row.default_sql !== null && /^nextval\(/i.test(row.default_sql);
        return {
          name: row.name,
          // format_type quotes a type name that needs it ("Priority"): its case is part of the name.
          dbType: row.db_type.includes('"') ? row.db_type : row.db_type.toLowerCase(),
          nullable: !row.not_null,
          default: sequence ? null : parsePostgresDefault(row.default_sql),
          autoIncrement: sequence || row.identity === 'a' || row.identity === 'd',
          type: typeOverride(row),
          ...(row.enum_labels ? { picklist: row.enum_labels } : {}),
          ...(row.generated === 's' ? { computed: true as const } : {}),
        };
      }),
      primaryKey: own.find((row) => row.type === 'p')?.columns ?? [],
      foreignKeys,
      uniqueKeys: [
        ...own.filter((row) => row.type === 'u').map((row) => row.columns),
        ...(indexesOf.get(relation.name) ?? []).map((row) => row.columns),
      ],
    };
  });
}
