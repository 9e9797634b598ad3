#!/usr/bin/env node
// `npm run build` (also run by prepack): compiles bin/, generator/ and runtime/ to dist/ with tsc,
// then copies the files they read at run time (templates, XSDs, ...) to the same place under dist/,
// and bundles the runtime for generated servers (dist/runtime-bundle/, what `portico/runtime` loads).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { lazyAsn1ForFastJwt } from './lazy-asn1-plugin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const ASSET_DIRS = ['templates', 'runtime', 'generator'];
const isAsset = (file) => !file.endsWith('.ts') && !file.endsWith('.md');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
for (const dir of ASSET_DIRS) {
  for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
    const from = path.join(root, dir, file);
    if (!fs.statSync(from).isFile() || !isAsset(file)) continue;
    fs.mkdirSync(path.dirname(path.join(dist, dir, file)), { recursive: true });
    fs.copyFileSync(from, path.join(dist, dir, file));
  }
}
// tsc copies the package.json that generator/cli/program.ts imports; the package's own one is read instead.
fs.rmSync(path.join(dist, 'package.json'));
fs.chmodSync(path.join(dist, 'bin/gen.js'), 0o755);

// A generated server loads the runtime as a few files instead of ~800 modules (ours, kysely's,
// Fastify's, ajv's...): half the start time and ~20 MB less memory. Code loaded on demand (a
// service kind's implementation) stays in chunks of its own, loaded when a platform uses it.
// Left out, loaded from node_modules as before: native addons, and the libraries of service kinds
// that only some platforms have (loaded when such a service opens, as their chunks are).
const NOT_BUNDLED = [
  'better-sqlite3',
  'pg-native',
  'mysql2',
  'soap',
  '@xmldom/xmldom',
  'ioredis',
  'rate-limiter-flexible',
  'amqplib',
  'mqtt',
  'webdav',
  'ssh2-sftp-client',
  'basic-ftp',
  'nodemailer',
  '@modelcontextprotocol/sdk',
  'yaml',
  'swagger-ui-dist',
];
const bundle = path.join(dist, 'runtime-bundle');
await esbuild.build({
  plugins: [lazyAsn1ForFastJwt(root)],
  entryPoints: [path.join(dist, 'runtime/index.js')],
  outdir: bundle,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: NOT_BUNDLED,
  // The CommonJS packages in the bundle (Fastify, ajv, pino...) call require().
  banner: {
    js: "import { createRequire as portico_createRequire } from 'node:module'; const require = portico_createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// The SOAP kind reads the standard XSDs beside its module, which in the bundle is a chunk at the top.
fs.cpSync(path.join(dist, 'runtime/services/soap/wsdl/standard-schemas'), path.join(bundle, 'standard-schemas'), { recursive: true });
