/**
 * Prisma's schema engine (its wasm build) driven offline through driver adapters: `prisma db pull`
 * without the CLI, for SQLite and PostgreSQL (dependency-stack.md section 3). Used to cross-check
 * Portico's own introspection and Prisma emitter.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as runtime from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';

const require = createRequire(import.meta.url);
let loaded = false;

function load(): void {
  if (loaded) return;
  // Without a panic registry a wasm panic surfaces as "reading 'set_message'" only.
  (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      process.stderr.write(`[schema-engine panic] ${message}\n`);
    },
  };
  const wasmPath = require.resolve('@prisma/schema-engine-wasm').replace(/schema_engine\.js$/, 'schema_engine_bg.wasm');
  const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasmPath)), {
    './schema_engine_bg.js': runtime as unknown as WebAssembly.ModuleImports,
  });
  (runtime as unknown as { __wbg_set_wasm(exports: unknown): void }).__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  loaded = true;
}

/** adapter-pg 7.10 cannot read OID 18 ("char"), which the engine's catalog queries return: read it as text. */
function fixChar<T>(result: T): T {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const field of (r as { fields?: Array<{ dataTypeID: number }> })?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
  }
  return result;
}

function charAsText<T extends new (...args: any[]) => any>(Base: T): T {
  return class extends Base {
    query(...args: any[]): any {
      const callback = typeof args[args.length - 1] === 'function' ? args.pop() : null;
      if (callback) return super.query(...args, (error: unknown, result: unknown) => callback(error, error ? result : fixChar(result)));
      const result = super.query(...args);
      return result?.then ? result.then(fixChar) : result;
    }
  };
}

function adapterFor(provider: 'sqlite' | 'postgresql', url: string): SqlMigrationAwareDriverAdapterFactory {
  if (provider === 'sqlite') return new PrismaBetterSqlite3({ url });
  const Pool = charAsText(pg.Pool);
  return new PrismaPg(new Pool({ connectionString: url, Client: charAsText(pg.Client) }) as pg.Pool);
}

/** The schema `prisma db pull` would write for the database at `url` (a file path for SQLite). */
export async function prismaIntrospect(provider: 'sqlite' | 'postgresql', url: string): Promise<string> {
  load();
  const base = `datasource db {\n  provider = "${provider}"\n}\n`;
  const engine = await runtime.SchemaEngine.new(
    { datamodels: [['schema.prisma', base]] },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(adapterFor(provider, url)),
  );
  try {
    const result = await engine.introspect({
      schema: { files: [{ path: 'schema.prisma', content: base }] },
      baseDirectoryPath: process.cwd(),
      force: false,
      compositeTypeDepth: -1,
      namespaces: null,
    } as Parameters<typeof engine.introspect>[0]);
    return result.schema.files[0].content;
  } finally {
    engine.free?.();
  }
}
