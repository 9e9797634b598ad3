/**
 * The PostgreSQL and MySQL golden scenarios build from recorded introspection (introspection.json),
 * so that the goldens need no server. This test keeps each recording true: it creates the
 * scenario's schema.sql in a fresh database on the local server, introspects it through the
 * pipeline and compares with the recording (`npm run test:update` re-records).
 */
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { serviceKindRegistry } from '#generator/config/kind-registry.js';
import { introspectServices } from '#generator/pipeline.js';
import { createTestDatabase, requireService, type ExternalDatabase } from '#test/helpers/require-service.js';
import { openScenario, SCENARIOS_DIR } from './scenario-build.js';

const recorded: Array<[folder: string, kind: ExternalDatabase, variable: string]> = [
  ['postgres-enums', 'postgres', 'GOLDEN_POSTGRES_URL'],
  ['mysql-types', 'mysql', 'GOLDEN_MYSQL_URL'],
];

async function runSql(kind: ExternalDatabase, url: string, sql: string): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  }
}

describe.each(recorded)('recorded introspection of %s', async (folder, kind, variable) => {
  const available = await requireService(kind);
  it.skipIf(!available)(`matches a live ${kind} database made from schema.sql`, async () => {
    const database = await createTestDatabase(kind);
    try {
      await runSql(kind, database.url, fs.readFileSync(path.join(SCENARIOS_DIR, folder, 'schema.sql'), 'utf8'));
      const env = { [variable]: database.url };
      const scenario = await openScenario(folder, env);
      try {
        const snapshot = await introspectServices(scenario.loaded, { env, kinds: serviceKindRegistry });
        const text = `${JSON.stringify(snapshot, null, 2).replaceAll(database.name, 'golden')}\n`;
        await expect(text).toMatchFileSnapshot(path.join(SCENARIOS_DIR, folder, 'introspection.json'));
      } finally {
        scenario.cleanup();
      }
    } finally {
      await database.drop();
    }
  });
});
