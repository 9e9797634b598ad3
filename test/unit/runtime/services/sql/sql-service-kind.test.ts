import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlServiceModel } from '#runtime/model/platform-model.js';
import { getServiceKind } from '#runtime/services/registry.js';
import { ADDRESS_BOOK_DIR, caller, runtimeContext, sqliteKind, sqliteService, tempDir } from './sql-test-helpers.js';

let env: ReturnType<typeof tempDir>;
beforeEach(() => {
  env = tempDir();
});
afterEach(() => env.cleanup());

const kind = sqliteKind();

describe('the sqlite service kind', () => {
  it('is registered with its label, group and a config schema with every default', () => {
    expect(getServiceKind('sqlite')).toBe(kind);
    expect([kind.type, kind.label, kind.group]).toEqual(['sqlite', 'SQLite', 'Database']);
    const validate = new Ajv({ useDefaults: true }).compile(kind.configSchema);
    const config: Record<string, unknown> = { database: 'db.sqlite' };
    expect(validate(config)).toBe(true);
    expect(config).toEqual({
      database: 'db.sqlite',
      wal: true,
      max_records: 1000,
      allow_upsert: false,
      keep_case: false,
      cache_enabled: false,
      cache_ttl: 0,
    });
    expect(validate({})).toBe(false);
    expect(validate({ database: 'x', max_records: 0 })).toBe(false);
  });

  it('introspects, seeding a missing database file from the seed directory once', async () => {
    fs.cpSync(ADDRESS_BOOK_DIR, path.join(env.dir, 'seed'), { recursive: true });
    const service = sqliteService({ database: 'data/book.sqlite', seed: 'seed' });
    const model = (await kind.introspect?.(service, runtimeContext(env.dir))) as SqlServiceModel;
    expect(model).toMatchObject({ kind: 'sql', dialect: 'sqlite', name: 'db', type: 'sqlite', config: service.config });
    expect(model.schema.tables.map((t) => t.name)).toEqual(['contact', 'contact_group', 'contact_group_relationship', 'contact_info']);

    const raw = new Database(path.join(env.dir, 'data/book.sqlite'));
    raw.exec("insert into contact_group (name) values ('Added')");
    raw.close();
    const handler = await kind.open(model, runtimeContext(env.dir));
    expect(((await caller(handler)('GET', '_table/contact_group')).body as { resource: unknown[] }).resource).toHaveLength(10);
    await handler.close();
  });

  it('seeds an in-memory database on every open', async () => {
    const handler = await kind.open(sqliteService({ database: ':memory:', seed: ADDRESS_BOOK_DIR }), runtimeContext(env.dir));
    expect((await caller(handler)('GET', '_table/contact', { count_only: 'true' })).body).toEqual({ meta: { count: 100 } });
    await handler.close();
    const empty = await kind.open(sqliteService({ database: ':memory:' }), runtimeContext(env.dir));
    expect((await caller(empty)('GET', '_table')).body).toEqual({ resource: [] });
    await empty.close();
  });

  it('serves the schema of the model it is given and re-reads it on refresh', async () => {
    const file = path.join(env.dir, 'two.sqlite');
    const raw = new Database(file);
    raw.exec('create table a (id integer primary key); create table b (id integer primary key)');
    raw.close();
    const service = sqliteService({ database: 'two.sqlite' });
    const model = (await kind.introspect?.(service, runtimeContext(env.dir))) as SqlServiceModel;
    const partial: SqlServiceModel = { ...model, schema: { ...model.schema, tables: model.schema.tables.filter((t) => t.name === 'a') } };
    const handler = await kind.open(partial, runtimeContext(env.dir));
    const call = caller(handler);
    expect((await call('GET', '_table/b')).status).toBe(404);
    expect((await call('GET', '_table/b', { refresh: 'true' })).status).toBe(200);
    await handler.close();
  });

  it('keeps the database case with keep_case', async () => {
    const raw = new Database(path.join(env.dir, 'case.sqlite'));
    raw.exec('create table "People" ("PersonId" integer primary key, "FullName" text not null)');
    raw.close();
    const handler = await kind.open(sqliteService({ database: 'case.sqlite', keep_case: true }), runtimeContext(env.dir));
    const call = caller(handler);
    expect((await call('POST', '_table/people', { fields: '*' }, { resource: [{ fullname: 'Ada' }] })).body).toEqual({
      resource: [{ PersonId: 1, FullName: 'Ada' }],
    });
    expect((await call('GET', '_table/People/1')).body).toEqual({ PersonId: 1, FullName: 'Ada' });
    expect((await call('GET', '_table')).body).toEqual({ resource: [{ name: 'People' }] });
    await handler.close();
    const lower = await kind.open(sqliteService({ database: 'case.sqlite' }), runtimeContext(env.dir));
    expect((await caller(lower)('GET', '_table/people/1')).body).toEqual({ personid: 1, fullname: 'Ada' });
    await lower.close();
  });

  it('switches the file to WAL unless wal is false', async () => {
    const journal = (file: string) => {
      const raw = new Database(path.join(env.dir, file), { readonly: true });
      const mode = raw.pragma('journal_mode', { simple: true });
      raw.close();
      return mode;
    };
    const wal = await kind.open(sqliteService({ database: 'wal.sqlite' }), runtimeContext(env.dir));
    await wal.close();
    expect(journal('wal.sqlite')).toBe('wal');
    const kept = await kind.open(sqliteService({ database: 'kept.sqlite', wal: false }), runtimeContext(env.dir));
    await kept.close();
    expect(journal('kept.sqlite')).toBe('delete');
  });

  it('reports configuration problems as 500s', async () => {
    await expect(kind.open(sqliteService({}), runtimeContext(env.dir))).rejects.toMatchObject({
      status: 500,
      message: "SQLite service config needs 'database': a file path or ':memory:'.",
    });
    await expect(kind.open(sqliteService({ database: 'x.sqlite', seed: 'missing' }), runtimeContext(env.dir))).rejects.toMatchObject({
      status: 500,
      message: `Seed directory '${path.join(env.dir, 'missing')}' has no schema.json.`,
    });
    expect(fs.existsSync(path.join(env.dir, 'x.sqlite'))).toBe(false);
  });
});
