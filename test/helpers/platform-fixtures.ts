/** Small PlatformModels and servers for tests that drive the runtime without the generator. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createServer, type ServerOptions } from '#runtime/http/create-server.js';
import type { PlatformModel, ServiceModel } from '#runtime/model/platform-model.js';
import { createTestDatabase, type ExternalDatabase, type TestDatabase } from './require-service.js';

const plain = (id: number, name: string, type: string, label: string): ServiceModel => ({
  id,
  name,
  type,
  label,
  description: '',
  is_active: true,
  config: {},
  origin: 'builtin',
  kind: 'plain',
});

/** A platform with only the built-in services, no roles and no apps of its own. */
export function minimalModel(change: Partial<PlatformModel> = {}): PlatformModel {
  return {
    modelVersion: 1,
    platform: { name: 'test', title: 'Test platform', description: 'A platform for tests.' },
    services: [
      plain(1, 'system', 'system', 'System Management'),
      plain(2, 'api_docs', 'swagger', 'Live API Docs'),
      plain(3, 'files', 'local_file', 'Local File Storage'),
      plain(4, 'logs', 'local_file', 'Local Log Storage'),
      plain(6, 'email', 'local_email', 'Local Email Service'),
      plain(7, 'user', 'user', 'User Management'),
    ],
    roles: [],
    apps: [],
    admins: [{ email: 'admin@test.local', password: 'admin-password-12345', name: 'Admin', first_name: 'Ada', last_name: 'Admin' }],
    settings: {
      systemDatabase: { type: 'sqlite', database: 'system.sqlite' },
      sessionTtlMinutes: 1440,
      jwtSecret: 'test-secret-test-secret-test-secret',
      passwordMinLength: 16,
      allowOpenRegistration: false,
      openRegistrationRole: null,
      openRegistrationAppRoles: {},
      maxRecords: 1000,
    },
    ...change,
  };
}

export interface TestServer {
  app: FastifyInstance;
  dir: string;
  apiKey: string;
  /** Logs in the seeded administrator and returns the session token. */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

let systemDatabaseKind: 'sqlite' | ExternalDatabase = 'sqlite';

/**
 * Puts the system database of the servers this test file starts from now on on the machine's
 * PostgreSQL or MariaDB (a random-named database per server, dropped on close) instead of
 * SQLite in memory: the system suites run once per kind (test/e2e/system-suite.*.test.ts).
 */
export function useSystemDatabase(kind: 'sqlite' | ExternalDatabase): void {
  systemDatabaseKind = kind;
}

/** The kind of system database the servers this test file starts get. */
export function systemDatabaseInUse(): 'sqlite' | ExternalDatabase {
  return systemDatabaseKind;
}

/** A new system database of the kind in use: its target for ServerOptions, and its cleanup. */
export async function testSystemDatabase(): Promise<{ target: string; drop(): Promise<void> }> {
  if (systemDatabaseKind === 'sqlite') return { target: ':memory:', drop: async () => undefined };
  const database: TestDatabase = await createTestDatabase(systemDatabaseKind);
  return { target: database.url, drop: () => database.drop() };
}

/** Starts a server (not listening: use app.inject) on a temp directory with a fresh system database (SQLite in memory unless useSystemDatabase chose another). */
export async function startTestServer(model: PlatformModel = minimalModel(), options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-test-'));
  const systemDb = await testSystemDatabase();
  const app = await createServer(model, { baseDir: dir, systemDatabase: systemDb.target, env: {}, ...options });
  const { api_key: apiKey } = await app.portico.db
    .selectFrom('app')
    .select('api_key')
    .where('name', '=', 'admin')
    .executeTakeFirstOrThrow();
  return {
    app,
    dir,
    apiKey,
    async adminToken() {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v2/system/admin/session',
        headers: { 'x-service-api-key': apiKey },
        payload: { email: model.admins[0].email, password: model.admins[0].password },
      });
      return (response.json() as { session_token: string }).session_token;
    },
    async close() {
      await app.close();
      await systemDb.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
