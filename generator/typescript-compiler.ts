/**
 * TypeScript's compiler API (the copy ts-morph bundles), loaded on first use: it takes about a
 * second to load, and only platforms with hook modules need it (hook-modules.ts checks them,
 * emit/create-main-file.ts compiles them to JavaScript).
 */
import { createRequire } from 'node:module';

const requireModule = createRequire(import.meta.url);

export function typescript(): typeof import('ts-morph').ts {
  return (requireModule('ts-morph') as typeof import('ts-morph')).ts;
}
