/**
 * Node arguments that run Portico from its TypeScript sources in a child process: tsx compiles
 * them, and the `portico-source` condition makes `portico/runtime` (imported by generated servers)
 * resolve to runtime/index.ts instead of the built dist/. The built package is covered by
 * test/package/user-project.test.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repoRoot = path.resolve(import.meta.dirname, '../..');

export const SOURCE_NODE_ARGS: readonly string[] = [
  '--conditions=portico-source',
  '--import',
  pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href,
];
