/** Shared fixtures of the SQL service tests: temp dirs, the address-book database, ServiceCalls. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminContext, type AuthContext } from '#runtime/auth/auth-context.js';
import { PorticoError } from '#runtime/core/errors.js';
import type { RawQuery } from '#runtime/core/query-params.js';
import type { PlainServiceModel, Verb } from '#runtime/model/platform-model.js';
import type { RuntimeContext, ServiceHandler } from '#runtime/services/service-kind.js';
import { seedDatabase } from '#runtime/services/sql/dialects/sqlite/sqlite-seed.js';
import { readSeedDirectory } from '#runtime/services/sql/schema/seed-tables.js';
import { sqlServiceKinds } from '#runtime/services/sql/sql-service-kinds.js';

import { ADDRESS_BOOK_DIR } from '#test/helpers/shared-dir.js';
export { ADDRESS_BOOK_DIR };

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-sql-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function runtimeContext(baseDir: string): RuntimeContext {
  return { baseDir, resolveEnv: <T>(value: T) => value };
}

/** A service model as the registry would hand it over before introspection. */
export function sqliteService(config: Record<string, unknown>, name = 'db'): PlainServiceModel {
  return { id: 5, name, label: 'Database', type: 'sqlite', description: '', is_active: true, config, origin: 'platform', kind: 'plain' };
}

export function sqliteKind() {
  const kind = sqlServiceKinds.find((k) => k.type === 'sqlite');
  if (kind === undefined) throw new Error('sqlite kind missing');
  return kind;
}

let template: string | null = null;

/** A seeded address-book file: seeded once per test file, copied for each caller. */
export async function addressBookFile(dir: string): Promise<string> {
  if (template === null || !fs.existsSync(template)) {
    template = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portico-sql-template-')), 'addressbook.sqlite');
    await seedDatabase(template, readSeedDirectory(ADDRESS_BOOK_DIR));
  }
  const file = path.join(dir, 'addressbook.sqlite');
  fs.copyFileSync(template, file);
  return file;
}

export interface CallResult {
  status: number;
  body: unknown;
}

/** Drives a handler: returns status and body, errors as their spec body (never throws a PorticoError). */
export function caller(handler: ServiceHandler) {
  return async (
    verb: Verb,
    resource: string,
    query: RawQuery = {},
    body?: unknown,
    auth: AuthContext = adminContext(),
  ): Promise<CallResult> => {
    try {
      const result = await handler.handle({
        verb,
        resource: resource.split('/').filter((s) => s !== ''),
        trailingSlash: false,
        query,
        body,
        headers: {},
        auth,
      });
      return { status: result.status ?? 200, body: result.body };
    } catch (error) {
      if (error instanceof PorticoError) return { status: error.status, body: error.toBody() };
      throw error;
    }
  };
}

/** Opens the sqlite kind on a copy of the address book. */
export async function openAddressBook(dir: string, config: Record<string, unknown> = {}) {
  await addressBookFile(dir);
  const handler = await sqliteKind().open(sqliteService({ database: 'addressbook.sqlite', ...config }), runtimeContext(dir));
  return { handler, call: caller(handler) };
}
