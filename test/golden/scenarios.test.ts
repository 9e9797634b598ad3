/**
 * Golden scenarios: each platform under scenarios/ is built as `gen build` builds it and compared
 * file by file with its committed server/ folder, which mirrors the output tree. Every emitted
 * OpenAPI document and Prisma schema goes through its validator, and the TypeScript through tsc.
 * Review changes to server/ folders like source; update them with `npm run test:update`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitPlatform, isEmittedPathShape, type FileMap } from '#generator/emit/emit-platform.js';
import { repoRoot } from '#test/helpers/quickstart-copy.js';
import { addressBookModel } from './fixtures/address-book-model.js';
import { buildScenario, SCENARIOS_DIR } from './scenario-build.js';
import { openApiErrors, prismaSchemaError, unresolvedRefs } from './validators.js';
import { loadTemplates } from '#generator/load-templates.js';
import { typecheckProject } from '#test/helpers/typecheck.js';

const scenarios: Array<[title: string, folder: string, build: () => Promise<FileMap>]> = [
  [
    "the emitters' address-book model (hand-built)",
    'address-book-model',
    async () => emitPlatform(addressBookModel, { platformDirFromOutput: '..', templates: loadTemplates() }),
  ],
  ['the address book on SQLite', 'address-book-sqlite', () => buildScenario('address-book-sqlite')],
  ['a SOAP service from the corpus', 'soap-calculator', () => buildScenario('soap-calculator')],
  ['PostgreSQL with enums and two schemas', 'postgres-enums', () => buildScenario('postgres-enums')],
  ['MySQL column types', 'mysql-types', () => buildScenario('mysql-types')],
  ['awkward names on SQLite', 'awkward-names-sqlite', () => buildScenario('awkward-names-sqlite')],
];

const built = new Map<string, FileMap>();

/** The files of a scenario's committed server/ folder, as posix paths relative to it. */
function committedFiles(folder: string): string[] {
  const dir = path.join(SCENARIOS_DIR, folder, 'server');
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => fs.statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join('/'));
}

/** Whether vitest runs with -u (snapshots are being rewritten): then stale files are removed. */
function updating(): boolean {
  return (expect.getState().snapshotState as unknown as { _updateSnapshot: string })._updateSnapshot === 'all';
}
const typecheckFolders: string[] = [];
afterAll(() => {
  for (const folder of typecheckFolders) fs.rmSync(folder, { recursive: true, force: true });
});

describe.each(scenarios)('golden scenario: %s', (_title, folder, build) => {
  it('matches its server/ folder file by file, with no file missing or extra', async () => {
    const files = await build();
    built.set(folder, files);
    for (const [file, text] of files) await expect(text, file).toMatchFileSnapshot(path.join(SCENARIOS_DIR, folder, 'server', file));
    const stale = committedFiles(folder).filter((file) => !files.has(file));
    if (updating()) for (const file of stale) fs.rmSync(path.join(SCENARIOS_DIR, folder, 'server', file));
    else expect(stale, 'files in server/ that the build no longer makes').toEqual([]);
  });

  it('writes only at paths the write stage may prune when stale', async () => {
    const files = built.get(folder) ?? (await build());
    expect([...files.keys()].filter((file) => !isEmittedPathShape(file))).toEqual([]);
  });

  it('has valid OpenAPI documents whose $refs resolve', async () => {
    const files = built.get(folder) ?? (await build());
    const documents = [...files].filter(([file]) => file.startsWith('openapi') && file.endsWith('.json'));
    expect(documents.length).toBeGreaterThan(0);
    for (const [file, text] of documents) {
      const document = JSON.parse(text) as unknown;
      expect({ file, errors: await openApiErrors(document) }).toEqual({ file, errors: null });
      expect({ file, unresolved: unresolvedRefs(document) }).toEqual({ file, unresolved: [] });
    }
  });

  it('has Prisma schemas that pass prisma validate', async () => {
    const files = built.get(folder) ?? (await build());
    for (const [file, text] of files)
      if (file.endsWith('.prisma')) expect({ file, error: prismaSchemaError(text) }).toEqual({ file, error: null });
  });
});

it('the TypeScript of every scenario type-checks with tsc', { timeout: 180_000 }, async () => {
  // Inside the repository, so that `portico/runtime` resolves through the package's self-reference.
  const dir = path.join(repoRoot, `.tmp-golden-${randomBytes(4).toString('hex')}`);
  typecheckFolders.push(dir);
  for (const [, folder, build] of scenarios) {
    for (const [file, text] of built.get(folder) ?? (await build())) {
      if (!/\.(ts|mts|cts)$/.test(file)) continue;
      fs.mkdirSync(path.dirname(path.join(dir, folder, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, folder, file), text);
    }
  }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
  const result = await typecheckProject(path.join(dir, 'tsconfig.json'));
  expect(result.stdout + result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
});
