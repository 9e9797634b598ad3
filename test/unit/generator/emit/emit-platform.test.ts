import { describe, expect, it } from 'vitest';
import { emitPlatform } from '#generator/emit/emit-platform.js';
import { GENERATED_NOTICE } from '#generator/emit/generated-notice.js';
import { isGeneratedContent } from '#generator/write/generated-files.js';
import type { PlatformModel } from '#runtime/model/platform-model.js';
import { addressBookModel } from '#test/golden/fixtures/address-book-model.js';
import { awkwardModel } from './awkward-model.js';
import { loadTemplates } from '#generator/load-templates.js';

const options = { platformDirFromOutput: '..', templates: loadTemplates() };

/** The same data with every object's keys in reverse order. */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, member]) => [key, reverseKeys(member)]),
  ) as T;
}

describe('emitPlatform', () => {
  it('lists every output file, in path order', () => {
    expect([...emitPlatform(addressBookModel, options).keys()]).toEqual([
      'README.md',
      'events.ts',
      'main.mjs',
      'model.json',
      'openapi/db.json',
      'prisma/db.prisma',
      'services/db/routes.json',
      'services/db/types.ts',
    ]);
  });

  it('writes the combined OpenAPI document only when asked to', () => {
    const files = emitPlatform(addressBookModel, { ...options, combinedOpenApi: true });
    expect([...files.keys()].filter((file) => file.startsWith('openapi'))).toEqual(['openapi.json', 'openapi/db.json']);
    expect(Object.keys(JSON.parse(files.get('openapi.json')!).paths)).toContain('/system/admin/session');
  });

  it.each([
    ['the address book', addressBookModel],
    ['awkward names and types', awkwardModel],
  ])('gives identical bytes twice, whatever the key order of the model: %s', (_, model: PlatformModel) => {
    const first = emitPlatform(model, options);
    expect(emitPlatform(model, options)).toEqual(first);
    expect(emitPlatform(reverseKeys(model), options)).toEqual(first);
  });

  it('marks every file generated, in its comment syntax', () => {
    for (const [path, text] of emitPlatform(awkwardModel, options)) {
      const firstLine = text.split('\n')[0];
      if (/\.(ts|mjs|prisma)$/.test(path)) expect(firstLine).toBe(`// ${GENERATED_NOTICE}`);
      else if (path.endsWith('.md')) expect(firstLine).toBe(`<!-- ${GENERATED_NOTICE} -->`);
      else expect(Object.values(JSON.parse(text) as object)).toContain(GENERATED_NOTICE);
      expect(text.endsWith('\n')).toBe(true);
      expect(isGeneratedContent(text)).toBe(true);
    }
  });

  it('writes no absolute paths, timestamps or versions', () => {
    for (const text of emitPlatform(addressBookModel, options).values()) {
      expect(text).not.toContain(process.cwd());
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/);
      expect(text).not.toMatch(/"version": "(?!2\.0")/);
    }
  });

  it('freezes the model into model.json with only the $comment added', () => {
    const { $comment, ...model } = JSON.parse(emitPlatform(addressBookModel, options).get('model.json')!) as { $comment: string };
    expect($comment).toBe(GENERATED_NOTICE);
    expect(model).toEqual(addressBookModel);
  });
});
