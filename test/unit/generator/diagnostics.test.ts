import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  diagnosticCatalogue,
  DiagnosticError,
  didYouMean,
  formatDiagnostic,
  formatDiagnosticReport,
  isUserError,
  type Diagnostic,
} from '#generator/diagnostics.js';
import { NotFoundError, PorticoError } from '#runtime/core/errors.js';

describe('diagnostic catalogue', () => {
  it('groups codes by stage: 1xx config, 2xx introspect, 3xx emit, 4xx write, 5xx serve, 6xx init', () => {
    for (const code of Object.keys(diagnosticCatalogue)) expect(code).toMatch(/^PCO[1-6]\d\d$/);
  });

  it('is the table of generator/README.md, code for code', () => {
    const readme = fs.readFileSync(new URL('../../../generator/README.md', import.meta.url), 'utf8');
    const documented = [...readme.matchAll(/^\| (PCO\d{3}) \| ([^|]+) \|/gm)].map((match) => [match[1], match[2]!.trim()]);
    expect(documented).toEqual(Object.entries(diagnosticCatalogue));
  });
});

describe('formatting', () => {
  const at = (line: number, col: number, message: string): Diagnostic => ({ code: 'PCO102', file: 'platform.yaml', line, col, message });

  it('shows file:line:col: message [code], or as much of the place as is known', () => {
    expect(formatDiagnostic(at(3, 5, 'Unknown key.'))).toBe('platform.yaml:3:5: Unknown key. [PCO102]');
    expect(formatDiagnostic({ code: 'PCO100', file: 'platform.yaml', message: 'Cannot read.' })).toBe(
      'platform.yaml: Cannot read. [PCO100]',
    );
    expect(formatDiagnostic({ code: 'PCO401', message: 'Cannot write.' })).toBe('Cannot write. [PCO401]');
  });

  it('sorts by position and counts in the report', () => {
    const report = formatDiagnosticReport([at(9, 1, 'b'), { ...at(2, 7, 'a'), frame: '   2 | x\n     | ^' }]);
    expect(report).toBe('platform.yaml:2:7: a [PCO102]\n   2 | x\n     | ^\nplatform.yaml:9:1: b [PCO102]\n2 problems found.\n');
  });

  it('makes a DiagnosticError a PorticoError (400) carrying the sorted list', () => {
    const error = new DiagnosticError([at(9, 1, 'b'), at(2, 7, 'a')]);
    expect(error).toBeInstanceOf(PorticoError);
    expect(error.status).toBe(400);
    expect(error.diagnostics.map((diagnostic) => diagnostic.line)).toEqual([2, 9]);
    expect(error.message).toBe('platform.yaml:2:7: a [PCO102]\nplatform.yaml:9:1: b [PCO102]');
  });
});

describe('didYouMean', () => {
  it.each([
    ['a transposition', 'lable', ['name', 'label'], " Did you mean 'label'?"],
    ['another case', 'AND', ['and', 'or'], " Did you mean 'and'?"],
    ['a missing letter', 'servics', ['platform', 'services'], " Did you mean 'services'?"],
    ['nothing close', 'colour', ['name', 'label'], ''],
    ['a short word replaced whole', 'x', ['db'], ''],
    ['no candidates', 'x', [], ''],
  ])('handles %s', (_name, word, candidates, want) => {
    expect(didYouMean(word, candidates)).toBe(want);
  });
});

describe('isUserError', () => {
  it('tells errors a user can fix from bugs', () => {
    expect(isUserError(new NotFoundError('x'))).toBe(true);
    expect(isUserError(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }))).toBe(true);
    expect(isUserError(new TypeError('x is undefined'))).toBe(false);
    expect(isUserError('text')).toBe(false);
  });
});
