/** Starts a generated server: loads its frozen model, builds the app, listens on HOST:PORT. */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlatformModel } from '../model/platform-model.js';
import { StartupError } from '../system/store/system-db.js';
import { createServer } from './create-server.js';
import type { ServiceRoutes } from './generated-routes.js';

export interface RunServerOptions {
  /** URL of the generated model.json. */
  modelUrl: URL;
  /** URL of the platform directory (relative paths in configs resolve against it). */
  baseUrl: URL;
  /** Precompiled route schemas of the database services. */
  routes: ServiceRoutes[];
}

/** Reads a frozen model (ignoring the generator's `$comment`). */
export function loadModel(url: URL): PlatformModel {
  const { $comment: _comment, ...model } = JSON.parse(fs.readFileSync(url, 'utf8')) as PlatformModel & { $comment?: string };
  return model;
}

export async function runServer(options: RunServerOptions): Promise<void> {
  const model = loadModel(options.modelUrl);
  const app = await createServer(model, {
    baseDir: fileURLToPath(options.baseUrl),
    routes: options.routes,
    logger: process.env.PORTICO_LOG === 'true',
  }).catch((error: unknown) => {
    // A store the server cannot reach at start is the operator's to fix: one line, exit 1.
    if (!(error instanceof StartupError)) throw error;
    console.error(error.message);
    process.exit(1);
  });
  const port = Number(process.env.PORT ?? 8080);
  const host = process.env.HOST ?? '127.0.0.1';
  const address = await app.listen({ port, host });
  const ctx = app.portico;
  const adminApp = await ctx.db.selectFrom('app').select('api_key').where('name', '=', 'admin').executeTakeFirstOrThrow();
  const lines = [
    `Portico: ${model.platform.title} listening on ${address}/api/v2`,
    `  admin app API key: ${adminApp.api_key}`,
  ];
  if (ctx.createdAdmin) {
    lines.push(`  first administrator: ${ctx.createdAdmin.email}`);
    lines.push(ctx.createdAdmin.generatedPassword ? `  password (shown once): ${ctx.createdAdmin.generatedPassword}` : '  password: as set in PORTICO_ADMIN_PASSWORD or platform.yaml');
  } else {
    const admin = await ctx.db.selectFrom('user').select('email').where('is_sys_admin', '=', 1).orderBy('id').executeTakeFirst();
    if (admin) lines.push(`  administrator: ${admin.email} (password as set on first start)`);
  }
  lines.push(`  log in: curl -X POST ${address}/api/v2/system/admin/session -H 'Content-Type: application/json' -d '{"email":"...","password":"..."}'`);
  console.log(lines.join('\n'));
  const stop = () => { void app.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
