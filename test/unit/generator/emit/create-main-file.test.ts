import { describe, expect, it } from 'vitest';
import { compileHookModule, createMainFile, endpointModulePath, hookModulePath } from '#generator/emit/create-main-file.js';
import { plain, platform, sqlService } from '#test/golden/fixtures/model-builders.js';

describe('createMainFile', () => {
  it.each([
    ['..', '"../"'],
    ['../', '"../"'],
    ['.', '"./"'],
    ['../../site', '"../../site/"'],
  ])('resolves the platform directory %s as %s', (dir, url) => {
    expect(createMainFile(platform('p', []), dir)).toContain(`baseUrl: new URL(${url}, import.meta.url),`);
  });

  it('names the route schema file of each database service', () => {
    const text = createMainFile(
      platform('p', [
        plain(1, 'system', 'System', 'system', ''),
        sqlService(2, 'run_server', 'sqlite', []),
        sqlService(3, 'run-server', 'sqlite', []),
      ]),
      '..',
    );
    expect(text).toContain(
      '  routeFiles: [\n    new URL("./services/run_server/routes.json", import.meta.url),\n    new URL("./services/run-server/routes.json", import.meta.url),\n  ],',
    );
  });

  it('is plain JavaScript importing only node:module and portico/runtime (after the compile cache is on)', () => {
    const text = createMainFile(platform('p', [plain(1, 'system', 'System', 'system', '')]), '..');
    expect(text).toContain('  routeFiles: [],');
    expectRuntimeImportOnly(text);
  });

  it('names the compiled hook modules for runServer to import, with their files, exports, timeouts and transaction choice', () => {
    const text = createMainFile(platform('p', []), '..', [
      { file: 'hooks/contacts.ts', source: '', export: 'default', timeoutMs: 10_000, transaction: false },
      { file: 'extra/audit.ts', source: '', export: 'auditHooks', timeoutMs: 500, transaction: true },
    ]);
    expect(hookModulePath('extra/audit.ts')).toBe('hooks/audit.mjs');
    // Not imported by main.mjs itself: runServer reports a module that fails to load in one line.
    expectRuntimeImportOnly(text);
    expect(text).toContain(
      [
        '  hooks: [',
        '    { file: "hooks/contacts.ts", module: new URL("./hooks/contacts.mjs", import.meta.url), timeoutMs: 10000 },',
        '    { file: "extra/audit.ts", module: new URL("./hooks/audit.mjs", import.meta.url), export: "auditHooks", timeoutMs: 500, transaction: true },',
        '  ],',
        '});',
      ].join('\n'),
    );
  });

  it('names the compiled endpoint modules for runServer to import, by service', () => {
    const text = createMainFile(
      platform('p', []),
      '..',
      [],
      [{ service: 'stats', file: 'endpoints/stats.ts', path: endpointModulePath('stats') }],
    );
    expectRuntimeImportOnly(text);
    expect(text).toContain(
      '  endpoints: {\n    "stats": { file: "endpoints/stats.ts", module: new URL("./endpoints/stats.mjs", import.meta.url) },\n  },\n});',
    );
  });

  it('compiles a hook module to JavaScript with its types erased', () => {
    const text = compileHookModule(
      'hooks/contacts.ts',
      "import { defineHooks } from 'portico/runtime';\nimport type { Tables } from '#test/unit/generator/server/services/db/types.js';\nconst n: number = 1;\nexport default defineHooks<Tables>({});\n",
      hookModulePath('hooks/contacts.ts'),
      '..',
    );
    expect(text).toContain("import { defineHooks } from 'portico/runtime';");
    expect(text).not.toContain('types.js');
    expect(text).toContain('const n = 1;');
    expect(text).toContain('export default defineHooks({});');
    // Its source map, inline, names the TypeScript relative to the copy (server/hooks/ -> hooks/).
    const map = JSON.parse(
      Buffer.from(/^\/\/# sourceMappingURL=data:application\/json;base64,(\S+)$/m.exec(text)![1]!, 'base64').toString(),
    );
    expect(map).toMatchObject({ file: 'contacts.mjs', sources: ['../../hooks/contacts.ts'] });
  });
});

/** main.mjs imports node:module statically and the runtime dynamically, once the compile cache is enabled. */
function expectRuntimeImportOnly(text: string): void {
  expect(text.match(/^import .*$/gm)).toEqual(["import module from 'node:module';"]);
  expect(text.match(/await import\(.*\)/g)).toEqual(['await import("portico/runtime")']);
  expect(text.indexOf('module.enableCompileCache?.();')).toBeLessThan(text.indexOf('await import('));
}
