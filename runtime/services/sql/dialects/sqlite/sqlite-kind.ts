/** The `sqlite` service kind: a database file relative to the platform directory, optionally seeded. */
import fs from 'node:fs';
import path from 'node:path';
import { InternalServerError } from '../../../../core/errors.js';
import type { RuntimeContext } from '../../../service-kind.js';
import { readSeedDirectory, seedTables } from '../../schema/seed-tables.js';
import { sqlConfigProperties } from '../../sql-config.js';
import type { SqlConnection, SqlKindDefinition } from '../sql-dialect.js';

const configSchema = {
  type: 'object',
  required: ['database'],
  additionalProperties: true,
  properties: {
    database: {
      type: 'string',
      minLength: 1,
      description: 'Database file, relative to the platform directory, or `:memory:`.',
    },
    wal: {
      type: 'boolean',
      default: true,
      description:
        "Switch the database file to write-ahead logging (WAL) when the service opens it: the server owns the file, and readers no longer wait for writers. false keeps the file's own journal mode.",
    },
    seed: {
      type: 'string',
      minLength: 1,
      description:
        'Directory (relative to the platform directory) holding schema.json and data.json, loaded when the database file does not exist yet.',
    },
    ...sqlConfigProperties,
  },
};

async function connect(config: Record<string, unknown>, ctx: RuntimeContext): Promise<SqlConnection> {
  const [{ openSqliteFile, sqliteDialect }, { seedDatabase }] = await Promise.all([
    import('./sqlite-dialect.js'),
    import('./sqlite-seed.js'),
  ]);
  if (typeof config.database !== 'string' || config.database === '') {
    throw new InternalServerError("SQLite service config needs 'database': a file path or ':memory:'.");
  }
  const file = config.database === ':memory:' ? ':memory:' : path.resolve(ctx.baseDir, config.database);
  const seedDir = typeof config.seed === 'string' && config.seed !== '' ? path.resolve(ctx.baseDir, config.seed) : null;
  if (seedDir !== null && file !== ':memory:' && !fs.existsSync(file)) await seedDatabase(file, readSeedDirectory(seedDir));
  else if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = await openSqliteFile(file, { wal: config.wal !== false });
  // An in-memory database is new on every open.
  if (seedDir !== null && file === ':memory:') {
    try {
      await seedTables(connection.db, sqliteDialect, readSeedDirectory(seedDir));
    } catch (error) {
      await connection.close();
      throw error;
    }
  }
  return connection;
}

export const sqliteKind: SqlKindDefinition = {
  type: 'sqlite',
  label: 'SQLite',
  description: 'A SQLite database file: tables, records and schema.',
  configSchema,
  async load() {
    const { sqliteDialect } = await import('./sqlite-dialect.js');
    return { dialect: sqliteDialect, connect };
  },
};
