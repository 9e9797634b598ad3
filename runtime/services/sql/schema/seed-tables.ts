/**
 * Creates tables and loads records from a seed: `schema` in `_schema` body form (the address-book
 * fixture's `{"service":[{"name","table":[...]}]}` included) and `data` as
 * `{"service":[{"table":[{"name","record":[...]}]}]}` (or `{"table":[...]}`, or a bare list).
 * Records go through the same validation as `POST _table/{table}`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { SqlDialectModule } from '../dialects/sql-dialect.js';
import { insertRow, insertValues, toPorticoError } from '../query/record-writer.js';
import { buildTablePlan } from '../query/table-plan.js';
import { schemaBodyTables } from './table-definition.js';
import { createTables } from './table-ddl.js';
import { assembleSchema } from './schema-assembler.js';
import { schemaMessages } from './schema-messages.js';

export interface SeedData {
  /** Parsed schema.json. */
  schema: unknown;
  /** Parsed data.json; may be absent. */
  data?: unknown;
}

interface SeedTable {
  name: string;
  records: Record<string, unknown>[];
}

function dataTables(data: unknown): SeedTable[] {
  if (data === undefined || data === null) return [];
  return schemaBodyTables(data).map((raw, index) => {
    const table = (raw ?? {}) as Record<string, unknown>;
    const records = table.record ?? table.records ?? table.resource;
    if (typeof table.name !== 'string' || !Array.isArray(records)) {
      throw schemaMessages.seedTableMalformed.error(index);
    }
    return { name: table.name, records: records as Record<string, unknown>[] };
  });
}

/** Reads `schema.json` and `data.json` (optional) of a seed directory. */
export function readSeedDirectory(dir: string): SeedData {
  const read = (file: string, required: boolean): unknown => {
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) {
      if (required) throw schemaMessages.seedFileMissing.error(dir, file);
      return undefined;
    }
    try {
      return JSON.parse(fs.readFileSync(full, 'utf8'));
    } catch (error) {
      throw schemaMessages.seedFileNotJson.error(full, (error as Error).message);
    }
  };
  return { schema: read('schema.json', true), data: read('data.json', false) };
}

/** Creates the seed's tables, then inserts its records in one transaction, referenced tables first. */
export async function seedTables(db: Kysely<any>, dialect: SqlDialectModule, seed: SeedData): Promise<void> {
  await createTables(db, dialect, schemaBodyTables(seed.schema));
  const schema = assembleSchema(await dialect.readCatalog(db), { keepCase: false });
  const tables = dataTables(seed.data);
  const rank = (name: string) => schema.tables.findIndex((table) => table.name === name.toLowerCase());
  // Tables a foreign key points at come before the tables pointing at them.
  const depth = new Map<string, number>();
  const depthOf = (name: string, seen: Set<string> = new Set()): number => {
    if (depth.has(name)) return depth.get(name) as number;
    const table = schema.tables[rank(name)];
    seen.add(name);
    const refs = (table?.foreignKeys ?? []).filter((fk) => !seen.has(fk.refTable)).map((fk) => depthOf(fk.refTable, new Set(seen)) + 1);
    const value = Math.max(0, ...refs);
    depth.set(name, value);
    return value;
  };
  const ordered = [...tables].sort((a, b) => depthOf(a.name.toLowerCase()) - depthOf(b.name.toLowerCase()));
  await db.transaction().execute(async (trx) => {
    for (const { name, records } of ordered) {
      const table = schema.tables[rank(name)];
      if (table === undefined) throw schemaMessages.seedTableUnknown.error(name);
      const plan = buildTablePlan(table, dialect);
      const target = { plan, dialect, output: plan.keys };
      for (const [index, record] of records.entries()) {
        try {
          await insertRow(trx, target, insertValues(plan, record));
        } catch (error) {
          const cause = toPorticoError(error, dialect, table, 'create');
          throw schemaMessages.seedRecordRefused.error(index, name, cause.message);
        }
      }
    }
  });
}
