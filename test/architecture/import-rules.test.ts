/**
 * The architecture as a test: every import of every source file is read with the TypeScript
 * compiler's own pre-processor and checked against the rules in import-rules.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

interface ImportRule {
  name: string;
  /** Folders relative to the repository; `*` matches one path segment. */
  from: string | string[];
  forbid?: string[];
  /** Like `forbid`, for relative specifiers only (the `#` aliases stay allowed). */
  forbidRelative?: string[];
  only?: string[];
}

const root = path.resolve(import.meta.dirname, '..', '..');
const { rules } = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'import-rules.json'), 'utf8')) as { rules: ImportRule[] };

/** package.json's subpath imports (`#runtime/*` -> `./runtime/*`), as [specifier prefix, folder]. */
const ALIASES = Object.entries(
  (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { imports: Record<string, string> }).imports,
).map(([alias, folder]) => [alias.replace(/\*$/, ''), path.posix.normalize(folder.replace(/\*$/, ''))] as const);

/** Source files (.ts) under a folder pattern, as repository-relative posix paths. */
function sourceFiles(folderPattern: string): string[] {
  const segments = folderPattern.split('/').filter(Boolean);
  let folders = [''];
  for (const segment of segments) {
    folders = folders.flatMap((folder) => {
      const base = path.join(root, folder);
      if (segment !== '*') return fs.existsSync(path.join(base, segment)) ? [path.posix.join(folder, segment)] : [];
      return fs
        .readdirSync(base, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => path.posix.join(folder, e.name));
    });
  }
  return folders.flatMap((folder) =>
    (fs.readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((file) => /\.(ts|mts|cts)$/.test(file) && !file.endsWith('.d.ts') && !file.split(path.sep).includes('node_modules'))
      .map((file) => path.posix.join(folder, file.split(path.sep).join('/'))),
  );
}

/** The import specifiers of a file: static imports, re-exports, dynamic imports and requires. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
  return info.importedFiles.map((ref) => ref.fileName);
}

/** What an import names: a repository-relative path for relative and `#` specifiers, else the bare specifier. */
function target(file: string, specifier: string): string {
  const alias = ALIASES.find(([prefix]) => specifier.startsWith(prefix));
  if (alias) return path.posix.join(alias[1], specifier.slice(alias[0].length));
  if (!specifier.startsWith('.')) return specifier;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
}

function matches(file: string, specifier: string, pattern: string): boolean {
  if (pattern.endsWith('*') && !pattern.includes('/')) return specifier.startsWith(pattern.slice(0, -1));
  if (pattern === './')
    return specifier.startsWith('./') || specifier.startsWith('../') ? !target(file, specifier).startsWith('..') : false;
  if (pattern.endsWith('/')) return `${target(file, specifier)}/`.startsWith(pattern) || target(file, specifier).startsWith(pattern);
  return specifier === pattern || specifier.startsWith(`${pattern}/`);
}

/** For `only` rules on generated trees, relative imports must stay inside the generated folder. */
function staysInside(file: string, specifier: string, folderPattern: string): boolean {
  const depth = folderPattern.split('/').filter(Boolean).length;
  const folder = file.split('/').slice(0, depth).join('/');
  return target(file, specifier).startsWith(`${folder}/`);
}

function violations(rule: ImportRule): string[] {
  const found: string[] = [];
  for (const from of [rule.from].flat()) {
    for (const file of sourceFiles(from)) {
      for (const specifier of importsOf(file)) {
        if (rule.forbid?.some((pattern) => matches(file, specifier, pattern))) found.push(`${file} imports ${specifier}`);
        if (specifier.startsWith('.') && rule.forbidRelative?.some((pattern) => matches(file, specifier, pattern)))
          found.push(`${file} imports ${specifier}`);
        if (rule.only !== undefined) {
          const allowed = rule.only.some((pattern) =>
            pattern === './' ? specifier.startsWith('.') && staysInside(file, specifier, from) : matches(file, specifier, pattern),
          );
          if (!allowed) found.push(`${file} imports ${specifier}`);
        }
      }
    }
  }
  return found;
}

describe('import rules (test/architecture/import-rules.json)', () => {
  it.each(rules.map((rule) => [rule.name, rule] as const))('%s', (_name, rule) => {
    expect(violations(rule)).toEqual([]);
  });

  it('reads imports of every kind', () => {
    const specifiers = ts
      .preProcessFile(
        "import a from './a.js';\nexport * from '../b.js';\nconst c = await import('node:fs');\nimport type { D } from 'd';",
        true,
        true,
      )
      .importedFiles.map((ref) => ref.fileName);
    expect(specifiers).toEqual(['./a.js', '../b.js', 'node:fs', 'd']);
  });

  it('finds a forbidden import', () => {
    expect(matches('runtime/http/x.ts', '../../generator/pipeline.js', 'generator/')).toBe(true);
    expect(matches('runtime/http/x.ts', '../core/errors.js', 'generator/')).toBe(false);
    expect(matches('generator/emit/x.ts', 'node:fs', 'node:fs')).toBe(true);
    expect(matches('generator/emit/x.ts', 'node:fs/promises', 'node:fs')).toBe(true);
    expect(matches('runtime/http/x.ts', '#runtime/core/errors.js', '#*')).toBe(true);
    expect(matches('runtime/http/x.ts', 'node:fs', '#*')).toBe(false);
  });

  it("resolves package.json's # aliases to the folders they name", () => {
    expect(target('test/unit/x.test.ts', '#runtime/core/errors.js')).toBe('runtime/core/errors.js');
    expect(target('bench/x.ts', '#test/helpers/require-service.js')).toBe('test/helpers/require-service.js');
    expect(matches('test/e2e/x.test.ts', '#generator/pipeline.js', 'generator/')).toBe(true);
  });
});
