#!/usr/bin/env node
// `npm run build` (also run by prepack): compiles bin/, generator/ and runtime/ to dist/ with tsc,
// then copies the files they read at run time (templates, XSDs, ...) to the same place under dist/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
