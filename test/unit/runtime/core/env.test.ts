import { describe, expect, it } from 'vitest';
import { findEnvRefs, hasEnvRef, resolveEnv } from '#runtime/core/env.js';
import { InternalServerError } from '#runtime/core/errors.js';

const env = { HOST: 'db.local', EMPTY: '', PASSWORD: 's3cret' };

describe('resolveEnv', () => {
  it.each([
    ['a whole value', '${env:HOST}', 'db.local'],
    ['a part of a value', 'postgres://app:${env:PASSWORD}@${env:HOST}/crm', 'postgres://app:s3cret@db.local/crm'],
    ['a default for an unset variable', '${env:PORT:-5432}', '5432'],
    ['a default for an empty variable', '${env:EMPTY:-x}', 'x'],
    ['a set variable over its default', '${env:HOST:-localhost}', 'db.local'],
    ['an empty default', '${env:UNSET:-}', ''],
    ['a set but empty variable', '${env:EMPTY}', ''],
    ['text without references', 'plain $HOST {env:HOST}', 'plain $HOST {env:HOST}'],
  ])('resolves %s', (_name, given, want) => {
    expect(resolveEnv(given, env)).toBe(want);
  });

  it('goes deep over objects and arrays and leaves other values alone', () => {
    const value = { a: ['${env:HOST}', 1, true, null], b: { c: '${env:PASSWORD}' } };
    expect(resolveEnv(value, env)).toEqual({ a: ['db.local', 1, true, null], b: { c: 's3cret' } });
    expect(value.b.c).toBe('${env:PASSWORD}');
  });

  it('throws a configuration error naming an unset required variable', () => {
    expect(() => resolveEnv({ password: '${env:UNSET}' }, env)).toThrow(InternalServerError);
    expect(() => resolveEnv('${env:UNSET}', env)).toThrow('Environment variable UNSET is not set (referenced as ${env:UNSET}).');
  });
});

describe('findEnvRefs', () => {
  it('lists references with their paths and defaults, in document order', () => {
    expect(findEnvRefs({ services: [{ config: { url: '${env:A}/${env:B:-b}' } }], key: '${env:C}', n: 3 })).toEqual([
      { name: 'A', fallback: null, path: ['services', 0, 'config', 'url'] },
      { name: 'B', fallback: 'b', path: ['services', 0, 'config', 'url'] },
      { name: 'C', fallback: null, path: ['key'] },
    ]);
  });

  it('tells strings with references from others', () => {
    expect(hasEnvRef('x${env:A}')).toBe(true);
    expect(hasEnvRef('${env:1A}')).toBe(false);
  });
});
