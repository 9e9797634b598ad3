/**
 * What an operator meets when the generated server cannot start: one line saying why, exit 1, no
 * stack. An unset variable that a platform setting names (system.database, system.redis.url,
 * system.jwt_secret, an app's api_key, an administrator's password), a system database that is a
 * directory, another kind of file, another application's database, or a URL of no kind Portico
 * has (it was taken for a SQLite path and the data went to a folder named after the scheme), a
 * model.json edited by hand into a shape Portico cannot serve, or not JSON at all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from '#runtime/http/create-server.js';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { StartupError } from '#runtime/system/store/system-db.js';
import { minimalModel } from '#test/helpers/platform-fixtures.js';
import { copyQuickstart } from '#test/helpers/quickstart-copy.js';
import { SOURCE_NODE_ARGS } from '#test/helpers/source-node.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The error createServer stops with (null when it started); the system database is the model's, in memory, unless env names another. */
async function startError(model: PlatformModel, env: Record<string, string> = {}): Promise<unknown> {
  try {
    const app = await createServer(model, { baseDir: dir, env });
    await app.close();
    return null;
  } catch (error) {
    return error;
  }
}

const inMemory = minimalModel().settings;
const base = minimalModel({ settings: { ...inMemory, systemDatabase: { type: 'sqlite', database: ':memory:' } } });

describe('an unset variable a platform setting names', () => {
  it.each<[string, PlatformModel, string]>([
    [
      'system.database',
      { ...base, settings: { ...base.settings, systemDatabase: { type: 'sqlite', database: '${env:SYSTEM_DB_FILE}' } } },
      "Portico: environment variable SYSTEM_DB_FILE is not set; platform.yaml's system.database refers to it (${env:SYSTEM_DB_FILE}). Set it and start again.",
    ],
    [
      'system.redis.url',
      { ...base, settings: { ...base.settings, redisUrl: '${env:SHARED_REDIS}' } },
      "Portico: environment variable SHARED_REDIS is not set; platform.yaml's system.redis.url refers to it (${env:SHARED_REDIS}). Set it and start again.",
    ],
    [
      'system.jwt_secret',
      { ...base, settings: { ...base.settings, jwtSecret: '${env:SIGNING_SECRET}' } },
      "Portico: environment variable SIGNING_SECRET is not set; platform.yaml's system.jwt_secret refers to it (${env:SIGNING_SECRET}). Set it and start again.",
    ],
    [
      'an app api_key',
      {
        ...base,
        apps: [{ name: 'web', label: 'Web', description: '', is_active: true, apiKey: '${env:WEB_KEY}', role: null, origin: 'platform' }],
      },
      "Portico: environment variable WEB_KEY is not set; platform.yaml's api_key of app 'web' refers to it (${env:WEB_KEY}). Set it and start again.",
    ],
    [
      'an administrator password',
      { ...base, admins: [{ ...base.admins[0]!, password: '${env:ADMIN_PW}' }] },
      "Portico: environment variable ADMIN_PW is not set; platform.yaml's admins[0].password refers to it (${env:ADMIN_PW}). Set it and start again.",
    ],
  ])('%s: one line naming the variable and the setting', async (_setting, model, line) => {
    const error = await startError(model);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(line);
  });

  it('starts once the variable is set', async () => {
    const model = {
      ...base,
      apps: [
        { name: 'web', label: 'Web', description: '', is_active: true, apiKey: '${env:WEB_KEY}', role: null, origin: 'platform' as const },
      ],
    };
    expect(await startError(model, { WEB_KEY: 'a-fixed-key-of-the-web-app' })).toBeNull();
  });
});

describe('a system database Portico cannot use', () => {
  it('refuses a URL of another kind rather than keeping the data in a folder named after its scheme', async () => {
    for (const target of ['postgress://portico@127.0.0.1/portico', 'sqlite://system.sqlite', 'redis://127.0.0.1:6379']) {
      const error = await startError(base, { PORTICO_SYSTEM_DATABASE_URL: target });
      expect(error, target).toBeInstanceOf(StartupError);
      expect((error as Error).message).toBe(
        `Portico: PORTICO_SYSTEM_DATABASE_URL: '${target.split('://')[0]}://' is not a system database URL: give a postgres://, postgresql://, mysql:// or mariadb:// URL, or the path of a SQLite file.`,
      );
    }
    expect(fs.readdirSync(dir).filter((name) => name.endsWith(':'))).toEqual([]);
  });
});

describe('a Redis URL of another kind', () => {
  it('says so, where it said "Connection is closed."', async () => {
    const error = await startError(base, { PORTICO_REDIS_URL: 'http://127.0.0.1:6379' });
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe('Portico: the Redis URL http://127.0.0.1:6379/ is not a redis:// or rediss:// URL.');
  });
});

describe('the generated server', () => {
  const entry = path.resolve(import.meta.dirname, '../../examples/quickstart/server/main.mjs');
  const run = (env: Record<string, string>) =>
    execa(process.execPath, [...SOURCE_NODE_ARGS, entry], { reject: false, timeout: 60_000, env: { PORT: '0', ...env } });

  it('stops with one line and exit 1 on a system database that is a directory, not a database, or not its own', {
    timeout: 240_000,
  }, async () => {
    const notDatabase = path.join(dir, 'notes.txt');
    fs.writeFileSync(notDatabase, 'these are notes, not a database\n'.repeat(100));
    const foreign = path.join(dir, 'foreign.sqlite');
    const db = new Database(foreign);
    db.exec('CREATE TABLE user (login TEXT)');
    db.close();
    const cases: Array<[string, string]> = [
      [dir, `Portico: cannot open the system database ${dir}: it is a directory.`],
      [notDatabase, `Portico: cannot open the system database ${notDatabase}: file is not a database.`],
      [
        foreign,
        `Portico: cannot set up the system database ${foreign}: migration 0001_initial failed: table "user" already exists. Give Portico a database of its own.`,
      ],
      [
        'postgress://portico@127.0.0.1/portico',
        "Portico: PORTICO_SYSTEM_DATABASE_URL: 'postgress://' is not a system database URL: give a postgres://, postgresql://, mysql:// or mariadb:// URL, or the path of a SQLite file.",
      ],
    ];
    for (const [target, line] of cases) {
      const result = await run({ PORTICO_SYSTEM_DATABASE_URL: target });
      expect([result.exitCode, result.stderr.trim().split('\n')], target).toEqual([1, [line]]);
    }
    // The foreign table is as it was.
    const after = new Database(foreign, { readonly: true });
    expect(after.prepare("SELECT sql FROM sqlite_master WHERE name = 'user'").get()).toEqual({ sql: 'CREATE TABLE user (login TEXT)' });
    after.close();
  });

  it('stops with one line naming model.json and what is wrong in it, and exit 1, on a model edited by hand', {
    timeout: 240_000,
  }, async () => {
    const platform = copyQuickstart();
    try {
      const file = path.join(platform, 'server/model.json');
      const original = fs.readFileSync(file, 'utf8');
      const edited = (edit: (model: any) => void) => {
        const model = JSON.parse(original);
        edit(model);
        return JSON.stringify(model, null, 2);
      };
      const db = (model: any) => model.services.find((s: { name: string }) => s.name === 'db');
      const at = (model: any) => model.services.indexOf(db(model));
      const index = at(JSON.parse(original));
      const rebuild = 'run `npx gen build` in the platform directory to generate it again.';
      const cases: Array<[string, string]> = [
        [edited((m) => delete db(m).type), `is not a model Portico can serve: services[${index}].type is missing; ${rebuild}`],
        [
          edited((m) => (db(m).schema.tables = {})),
          `is not a model Portico can serve: services[${index}].schema.tables must be an array, not an object; ${rebuild}`,
        ],
        [
          edited((m) => (db(m).schema.tables[0].fields[1].type = 'strnig')),
          `is not a model Portico can serve: services[${index}].schema.tables[0].fields[1].type is string "strnig", not a field type of Portico (string, integer, datetime, ...); ${rebuild}`,
        ],
        [
          edited((m) => (db(m).type = 'sqlite3')),
          `is not a model Portico can serve: services[${index}].type 'sqlite3' is not a service type of this Portico; ${rebuild}`,
        ],
        [edited((m) => (m.services = null)), `is not a model Portico can serve: services must be an array, not null; ${rebuild}`],
        [
          edited((m) => (m.modelVersion = 2)),
          `is not a model Portico can serve: modelVersion is number 2; this Portico serves models of version 1; ${rebuild}`,
        ],
      ];
      for (const [text, reason] of cases) {
        fs.writeFileSync(file, text);
        const result = await execa(process.execPath, [...SOURCE_NODE_ARGS, path.join(platform, 'server/main.mjs')], {
          reject: false,
          timeout: 60_000,
          env: { PORT: '0', PORTICO_SYSTEM_DATABASE_URL: path.join(dir, 'edited-model.sqlite') },
        });
        expect([result.exitCode, result.stderr.trim().split('\n')], reason).toEqual([1, [`Portico: ${file} ${reason}`]]);
      }
      // Not JSON at all: the parser's own words (they differ between Node.js versions).
      fs.writeFileSync(file, original.slice(0, 200));
      const result = await execa(process.execPath, [...SOURCE_NODE_ARGS, path.join(platform, 'server/main.mjs')], {
        reject: false,
        timeout: 60_000,
        env: { PORT: '0', PORTICO_SYSTEM_DATABASE_URL: path.join(dir, 'edited-model.sqlite') },
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^Portico: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON \\(.+\\); run`)),
      ]);
      // Nothing was started: no system database made.
      expect(fs.existsSync(path.join(dir, 'edited-model.sqlite'))).toBe(false);
    } finally {
      fs.rmSync(platform, { recursive: true, force: true });
    }
  });
});
