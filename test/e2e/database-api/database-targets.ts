/**
 * The three databases the database-API suite runs against, each as a service config plus a raw
 * connection for setting up what the API cannot (routines, odd column types) and for checking
 * what reached the database: SQLite in a temp file, PostgreSQL and MariaDB/MySQL in a database
 * of their own with a random name (test/helpers/require-service.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { PlatformModel, ServiceModel, SqlDialect } from '#runtime/model/platform-model.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { createTestDatabase } from '#test/helpers/require-service.js';

export type TargetKind = SqlDialect;

export interface DatabaseTarget {
  kind: TargetKind;
  /** The service type (`sqlite`, `pgsql`, `mysql`). */
  type: string;
  /** The service config. */
  config: Record<string, unknown>;
  /** Runs SQL statements (separated by `;;` lines where one statement holds semicolons). */
  exec(text: string): Promise<void>;
  /** Rows of one query. */
  query(text: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const TYPES: Record<TargetKind, string> = { sqlite: 'sqlite', postgres: 'pgsql', mysql: 'mysql' };

/** Statements separated by a line holding `;;` only (routine bodies contain semicolons). */
function statements(text: string): string[] {
  return text
    .split(/^\s*;;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The target as the service `db` (id 5), its config overlaid with `config`. */
export function databaseServiceModel(target: DatabaseTarget, config: Record<string, unknown> = {}): ServiceModel {
  return {
    id: 5,
    name: 'db',
    label: 'Database',
    type: target.type,
    description: '',
    is_active: true,
    config: { ...target.config, ...config },
    origin: 'platform',
    kind: 'plain',
  };
}

/** The minimal platform plus the target as service `db`, services kept in id order. */
export function modelWithDatabase(target: DatabaseTarget, config: Record<string, unknown> = {}): PlatformModel {
  const base = minimalModel();
  return minimalModel({ services: [...base.services, databaseServiceModel(target, config)].sort((a, b) => a.id - b.id) });
}

export async function openDatabaseTarget(kind: TargetKind): Promise<DatabaseTarget> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-api-'));
    const file = path.join(dir, 'api.sqlite');
    const raw = new Database(file);
    return {
      kind,
      type: TYPES[kind],
      config: { database: file },
      async exec(text) {
        for (const statement of statements(text)) raw.exec(statement);
      },
      async query(text) {
        return raw.prepare(text).all() as Record<string, unknown>[];
      },
      async close() {
        raw.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createTestDatabase(kind);
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return {
      kind,
      type: TYPES[kind],
      config: { ...database.config },
      async exec(text) {
        for (const statement of statements(text)) await client.query(statement);
      },
      async query(text) {
        return (await client.query(text)).rows as Record<string, unknown>[];
      },
      async close() {
        await client.end();
        await database.drop();
      },
    };
  }
  const connection = await mysql.createConnection({ uri: database.url, multipleStatements: true, dateStrings: true });
  return {
    kind,
    type: TYPES[kind],
    config: { ...database.config },
    async exec(text) {
      for (const statement of statements(text)) await connection.query(statement);
    },
    async query(text) {
      return (await connection.query(text))[0] as Record<string, unknown>[];
    },
    async close() {
      await connection.end();
      await database.drop();
    },
  };
}
