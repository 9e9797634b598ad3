/**
 * The generated TypeScript must compile: the emitted files are written into a temporary folder
 * inside the repository (so `portico/runtime` resolves through the package's self-reference) and
 * checked with the repository's tsc and compiler options.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { emitPlatform } from '#generator/emit/emit-platform.js';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';
import { awkwardModel, awkwardRoutinesModel } from './awkward-model.js';
import { loadTemplates } from '#generator/load-templates.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const folder = join(repo, `.tmp-typecheck-${randomBytes(6).toString('hex')}`);

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

const platforms: Array<[title: string, model: PlatformModel, subfolder: string]> = [
  ['the address book', addressBookModel, 'address-book'],
  ['awkward names and types', awkwardModel, 'awkward'],
  ['stored routines (their hook events)', awkwardRoutinesModel, 'awkward-routines'],
];

let checked: ReturnType<typeof typecheck> | undefined;

/**
 * Writes the TypeScript output of every platform, each in its own subfolder of
 * /work/main/.tmp-typecheck-<random>/, and runs tsc once over them all.
 */
async function typecheck() {
  for (const [, model, subfolder] of platforms) {
    for (const [path, text] of emitPlatform(model, { platformDirFromOutput: '..', templates: loadTemplates() })) {
      if (!path.endsWith('.ts')) continue;
      mkdirSync(dirname(join(folder, subfolder, path)), { recursive: true });
      writeFileSync(join(folder, subfolder, path), text);
    }
  }
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
  const result = await typecheckProject(join(folder, 'tsconfig.json'));
  return { output: result.stdout + result.stderr, exitCode: result.exitCode };
}

describe('generated TypeScript', () => {
  it.each(platforms)('type-checks: %s', { timeout: 300_000 }, async (_, _model, subfolder) => {
    checked ??= typecheck();
    const { output, exitCode } = await checked;
    // Its own errors first, so that a failure names the platform; then nothing at all (the runtime included).
    expect(output.split('\n').filter((line) => line.includes(`/${subfolder}/`))).toEqual([]);
    expect(output).toBe('');
    expect(exitCode).toBe(0);
  });
});
