/**
 * Golden files: the address-book platform emitted and compared with test/golden/quickstart/,
 * which mirrors the output tree. Review changes there like source; update with `vitest -u`.
 */
import { describe, expect, it } from 'vitest';
import { emitPlatform } from '../../generator/emit/emit-platform.js';
import { addressBookModel } from './fixtures/address-book-model.js';
import { openApiErrors, prismaSchemaError, unresolvedRefs } from './validators.js';

const files = emitPlatform(addressBookModel, { platformDirFromOutput: '..' });

describe('quickstart golden files', () => {
  it.each([...files.keys()])('%s', async (path) => {
    await expect(files.get(path)).toMatchFileSnapshot(`./quickstart/${path}`);
  });

  it('every OpenAPI document is valid and its $refs resolve', async () => {
    const documents = [...files].filter(([path]) => path.endsWith('.json') && path.startsWith('openapi'));
    expect(documents.map(([path]) => path)).toContain('openapi.json');
    for (const [path, text] of documents) {
      const document = JSON.parse(text) as unknown;
      expect({ path, errors: await openApiErrors(document) }).toEqual({ path, errors: null });
      expect({ path, unresolved: unresolvedRefs(document) }).toEqual({ path, unresolved: [] });
    }
  });

  it('every Prisma schema passes prisma validate', () => {
    const schemas = [...files].filter(([path]) => path.endsWith('.prisma'));
    expect(schemas.length).toBe(1);
    for (const [path, text] of schemas) expect({ path, error: prismaSchemaError(text) }).toEqual({ path, error: null });
  });
});
