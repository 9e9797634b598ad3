import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#generator/config/load-config.js';
import { DiagnosticError, formatDiagnostic } from '#generator/diagnostics.js';
import { readHookModules, valueExports } from '#generator/hook-modules.js';
import { fixtureRegistry } from './config/fixture-kinds.js';

describe('valueExports', () => {
  it.each([
    ['export default defineHooks({});', ['default'], false],
    ['const hooks = {};\nexport { hooks as default };', ['default'], false],
    ['export default function hooks() {}', ['default'], false],
    [
      'export const audit = {}, other = 1;\nexport function helper() {}\nexport class Thing {}',
      ['audit', 'other', 'helper', 'Thing'],
      false,
    ],
    ['const a = {};\nexport { a as audit, type T };\nexport type { U } from "./u.js";', ['audit'], false],
    ['export interface Events {}\nexport type Hooks = {};\nexport declare const x: number;', [], false],
    ['export * from "./other.js";', [], true],
    ['export * as all from "./other.js";', ['all'], false],
  ])('%j exports %j', (source, names, exportsAll) => {
    expect(valueExports('hooks.ts', source)).toEqual({ names: new Set(names), exportsAll });
  });
});

describe('readHookModules', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portico-hook-modules-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the modules, and reports a missing module, a missing export, a syntax error and two modules compiling to one file at once', async () => {
    fs.mkdirSync(path.join(dir, 'hooks'));
    fs.mkdirSync(path.join(dir, 'more'));
    fs.writeFileSync(path.join(dir, 'hooks/good.ts'), 'export default {};\n');
    fs.writeFileSync(path.join(dir, 'hooks/named.ts'), 'export const auditHooks = {};\n');
    fs.writeFileSync(path.join(dir, 'hooks/plain.ts'), 'export const someHooks = {};\n');
    fs.writeFileSync(path.join(dir, 'hooks/broken.ts'), 'export default {\n  a: (x => ,\n};\n');
    fs.writeFileSync(path.join(dir, 'more/good.ts'), 'export default {};\n');
    const yaml = [
      'platform: { name: hooked }',
      'hooks:',
      '  - file: hooks/good.ts',
      '  - file: hooks/named.ts',
      '    export: auditHooks',
      '    timeout_ms: 250',
      '  - file: hooks/missing.ts',
      '  - file: hooks/plain.ts',
      '  - file: hooks/named.ts',
      '    export: otherHooks',
      '  - file: hooks/broken.ts',
      '  - file: more/good.ts',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'platform.yaml'), yaml);
    const loaded = await loadConfig('platform.yaml', { cwd: dir, env: {}, kinds: fixtureRegistry });
    const error = (() => {
      try {
        readHookModules(loaded);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(DiagnosticError);
    expect((error as DiagnosticError).diagnostics.map(formatDiagnostic)).toEqual([
      "hooks/broken.ts:2:12: Expression expected. (hook module 'hooks/broken.ts') [PCO115]",
      "platform.yaml:7:11: The hook module 'hooks/missing.ts' does not exist (relative to the directory of platform.yaml). [PCO113]",
      "platform.yaml:8:11: The hook module 'hooks/plain.ts' has no default export: platform.yaml `hooks` needs a default export. Write `export default defineHooks({...})`, or name its export with `export: someHooks`. [PCO114]",
      "platform.yaml:9:11: The hook module 'hooks/named.ts' compiles to hooks/named.mjs as hooks[1] does: rename one of them. [PCO107]",
      "platform.yaml:10:13: The hook module 'hooks/named.ts' has no export named 'otherHooks': platform.yaml `hooks` needs an export named 'otherHooks'. It exports 'auditHooks'. [PCO114]",
      "platform.yaml:12:11: The hook module 'more/good.ts' compiles to hooks/good.mjs as hooks[0] does: rename one of them. [PCO107]",
    ]);

    fs.writeFileSync(
      path.join(dir, 'platform.yaml'),
      [
        'platform: { name: hooked }',
        'hooks:',
        '  - file: hooks/good.ts',
        '  - file: hooks/named.ts',
        '    export: auditHooks',
        '    timeout_ms: 250',
        '    transaction: true',
        '',
      ].join('\n'),
    );
    const good = readHookModules(await loadConfig('platform.yaml', { cwd: dir, env: {}, kinds: fixtureRegistry }));
    expect(good.map(({ source: _source, ...hook }) => hook)).toEqual([
      { file: 'hooks/good.ts', export: 'default', timeoutMs: 10_000, transaction: false },
      { file: 'hooks/named.ts', export: 'auditHooks', timeoutMs: 250, transaction: true },
    ]);
  });
});
