/**
 * The generated TypeScript must compile: the emitted files are written into a temporary folder
 * inside the repository (so `portico/runtime` resolves through the package's self-reference) and
 * checked with the repository's tsc and compiler options.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { emitPlatform } from '#generator/emit/emit-platform.js';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';
import { awkwardModel, awkwardRoutinesModel } from './awkward-model.js';
import { loadTemplates } from '#generator/load-templates.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Writes the TypeScript output of a platform under /work/main/.tmp-typecheck-<random>/ and runs tsc on it. */
async function typecheck(model: PlatformModel) {
  const folder = join(repo, `.tmp-typecheck-${randomBytes(6).toString('hex')}`);
  folders.push(folder);
  for (const [path, text] of emitPlatform(model, { platformDirFromOutput: '..', templates: loadTemplates() })) {
    if (!path.endsWith('.ts')) continue;
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
  return execa(join(repo, 'node_modules/.bin/tsc'), ['--noEmit', '-p', join(folder, 'tsconfig.json')], { cwd: repo, reject: false });
}

describe('generated TypeScript', () => {
  it.each([
    ['the address book', addressBookModel],
    ['awkward names and types', awkwardModel],
    ['stored routines (their hook events)', awkwardRoutinesModel],
  ])('type-checks: %s', { timeout: 180_000 }, async (_, model) => {
    const result = await typecheck(model);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
