import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SQL_CAPABILITIES } from '#runtime/services/sql/dialects/dialect-capabilities.js';
import { mysqlDialect } from '#runtime/services/sql/dialects/mysql/mysql-dialect.js';
import { postgresDialect } from '#runtime/services/sql/dialects/postgres/postgres-dialect.js';
import type { SqlDialectModule } from '#runtime/services/sql/dialects/sql-dialect.js';
import { sqliteDialect } from '#runtime/services/sql/dialects/sqlite/sqlite-dialect.js';

const modules: SqlDialectModule[] = [sqliteDialect, postgresDialect, mysqlDialect];

describe('SQL capability table', () => {
  it('has a row for every dialect module, which carries that row', () => {
    expect(Object.keys(SQL_CAPABILITIES).sort()).toEqual(modules.map((m) => m.dialect).sort());
    for (const module of modules) expect(module.capabilities).toBe(SQL_CAPABILITIES[module.dialect]);
  });

  it('says a database has routines exactly where its dialect can read and call them', () => {
    for (const module of modules) expect(module.routines !== null, module.dialect).toBe(module.capabilities.routines);
  });

  it('loads no driver: it imports types of the model only', () => {
    const source = fs.readFileSync(
      new URL('../../../../../../runtime/services/sql/dialects/dialect-capabilities.ts', import.meta.url),
      'utf8',
    );
    const imports = [...source.matchAll(/^import\s.*from\s+'([^']+)';$/gm)];
    expect(imports.map((m) => m[0])).toEqual(["import type { SqlDialect } from '../../../model/platform-model.js';"]);
  });
});
