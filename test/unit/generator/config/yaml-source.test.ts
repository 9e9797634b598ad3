import { describe, expect, it } from 'vitest';
import { YamlSource } from '#generator/config/yaml-source.js';

const source = new YamlSource(
  'platform.yaml',
  [
    'platform:',
    '  name: demo',
    'services:',
    '  - name: db',
    '    config: { database: a.sqlite }',
    'roles:',
    'apps: &apps',
    '  - name: web',
    '',
  ].join('\n'),
);

describe('YamlSource.locate', () => {
  it.each([
    ['a nested value', ['platform', 'name'], {}, [2, 9]],
    ['a key', ['platform', 'name'], { key: true }, [2, 3]],
    ['a list item', ['services', 0], {}, [4, 5]],
    ['a value in a flow mapping', ['services', 0, 'config', 'database'], {}, [5, 25]],
    ['an empty value, at its key', ['roles'], {}, [6, 1]],
    ['a missing key, at the nearest enclosing node', ['services', 0, 'label'], {}, [4, 5]],
    ['a missing list item, at the list', ['services', 3], {}, [4, 3]],
    ['the top level', [], {}, [1, 1]],
  ] as const)('finds %s', (_name, valuePath, options, [line, col]) => {
    expect(source.locate(valuePath, options)).toEqual({ file: 'platform.yaml', line, col });
  });
});

describe('YamlSource', () => {
  it('gives plain data, an empty document as an empty object', () => {
    expect(source.toJS()).toEqual({
      platform: { name: 'demo' },
      services: [{ name: 'db', config: { database: 'a.sqlite' } }],
      roles: null,
      apps: [{ name: 'web' }],
    });
    expect(new YamlSource('empty.yaml', '').toJS()).toEqual({});
  });

  it('builds a diagnostic with a code frame', () => {
    expect(source.diagnosticAt(['services', 0, 'config', 'database'], 'PCO106', 'bad')).toEqual({
      code: 'PCO106',
      message: 'bad',
      file: 'platform.yaml',
      line: 5,
      col: 25,
      frame: '   5 |     config: { database: a.sqlite }\n     |                         ^',
    });
  });
});
