/**
 * Builds a golden scenario the way `gen build` does: its folder under scenarios/ (platform.yaml,
 * `<service>.sql` for each SQLite service, WSDL files) is copied to a temporary folder, the SQLite
 * databases are made, and the pipeline's own stages load, introspect, model and emit it.
 * PostgreSQL and MySQL scenarios (schema.sql, one database) use their recorded introspection.json
 * (re-recorded against the live servers by scenario-introspection.test.ts), so the goldens need no
 * database server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { serviceKindRegistry } from '#generator/config/kind-registry.js';
import { loadConfig, type LoadedConfig } from '#generator/config/load-config.js';
import { emitPlatform, type FileMap } from '#generator/emit/emit-platform.js';
import { buildModel, type IntrospectionSnapshot } from '#generator/model/build-model.js';
import { introspectServices } from '#generator/pipeline.js';
import type { Env } from '#runtime/core/env.js';
import { loadTemplates } from '#generator/load-templates.js';

export const SCENARIOS_DIR = path.join(import.meta.dirname, 'scenarios');

/** Values for the `${env:...}` references of recorded scenarios (only validated: the model keeps the references). */
const RECORDED_ENV: Env = {
  GOLDEN_POSTGRES_URL: 'postgres://golden@127.0.0.1:5432/golden',
  GOLDEN_MYSQL_URL: 'mysql://golden@127.0.0.1:3306/golden',
};

export interface ScenarioFolder {
  /** The temporary copy, holding platform.yaml and the inputs. */
  dir: string;
  loaded: LoadedConfig;
  cleanup(): void;
}

/** Copies a scenario's inputs (everything but its expected server/ and introspection.json) and loads its platform.yaml. */
export async function openScenario(name: string, env: Env = RECORDED_ENV): Promise<ScenarioFolder> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `portico-golden-${name}-`));
  fs.cpSync(path.join(SCENARIOS_DIR, name), dir, {
    recursive: true,
    filter: (source) =>
      !['server', 'introspection.json'].includes(path.basename(source)) || path.dirname(source) !== path.join(SCENARIOS_DIR, name),
  });
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const loaded = await loadConfig(path.join(dir, 'platform.yaml'), { env, kinds: serviceKindRegistry, cwd: dir });
    createSqliteDatabases(loaded, dir);
    return { dir, loaded, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** The database file of each SQLite service that has a `<service>.sql` in the scenario. */
function createSqliteDatabases(loaded: LoadedConfig, dir: string): void {
  for (const service of loaded.config.services) {
    const schemaFile = path.join(dir, `${service.name}.sql`);
    if (service.type !== 'sqlite' || !fs.existsSync(schemaFile)) continue;
    const file = path.join(dir, String(service.config.database));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.exec(fs.readFileSync(schemaFile, 'utf8'));
    db.close();
  }
}

/** Whether a scenario's introspection is recorded (PostgreSQL and MySQL services). */
export function isRecorded(name: string): boolean {
  return fs.existsSync(path.join(SCENARIOS_DIR, name, 'schema.sql'));
}

/** The emitted files of a scenario, as `gen build` would write them to its server/ folder. */
export async function buildScenario(name: string): Promise<FileMap> {
  const scenario = await openScenario(name);
  try {
    const snapshot: IntrospectionSnapshot = isRecorded(name)
      ? (JSON.parse(fs.readFileSync(path.join(SCENARIOS_DIR, name, 'introspection.json'), 'utf8')) as IntrospectionSnapshot)
      : await introspectServices(scenario.loaded, { env: RECORDED_ENV, kinds: serviceKindRegistry });
    return emitPlatform(buildModel(scenario.loaded.config, snapshot), { platformDirFromOutput: '..', templates: loadTemplates() });
  } finally {
    scenario.cleanup();
  }
}
