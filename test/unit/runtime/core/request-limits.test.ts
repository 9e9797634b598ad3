import { describe, expect, it } from 'vitest';
import { checkListLength, findUnacceptableText, fitsInt64, limits, unacceptableText } from '#runtime/core/request-limits.js';

describe('fitsInt64', () => {
  it.each([
    ['0', true],
    ['-1', true],
    ['+7', true],
    ['9223372036854775807', true],
    ['-9223372036854775808', true],
    ['000000000000000000000001', true],
    ['9223372036854775808', false],
    ['-9223372036854775809', false],
    ['99999999999999999999', false],
    [`1${'0'.repeat(400)}`, false],
  ])('%s -> %s', (text, fits) => {
    expect(fitsInt64(text)).toBe(fits);
  });
});

describe('checkListLength', () => {
  it('allows the limit and refuses one more, naming the parameter', () => {
    expect(() => checkListLength('fields', Array(limits.listItems).fill('a'))).not.toThrow();
    expect(() => checkListLength('fields', Array(limits.listItems + 1).fill('a'))).toThrow(
      expect.objectContaining({
        status: 400,
        message: `Parameter 'fields' lists ${limits.listItems + 1} entries; at most ${limits.listItems} are allowed.`,
      }),
    );
    expect(() => checkListLength('ids', null)).not.toThrow();
  });
});

describe('unacceptable text', () => {
  it('finds NUL and lone surrogates, but not paired ones', () => {
    expect(unacceptableText('a\u0000b')).toBe('contains a NUL character (\\u0000)');
    expect(unacceptableText('\ud800')).toBe('contains an unpaired UTF-16 surrogate');
    expect(unacceptableText('x\udc00')).toBe('contains an unpaired UTF-16 surrogate');
    expect(unacceptableText('💥 ünï')).toBeNull();
  });

  it('names where in a JSON value it is, keys included', () => {
    expect(findUnacceptableText({ resource: [{ name: 'ok' }, { name: 'a\u0000' }] })).toEqual({
      path: 'resource[1].name',
      reason: 'contains a NUL character (\\u0000)',
    });
    expect(findUnacceptableText({ resource: [{ 'x\u0000': 1 }] })).toEqual({
      path: 'a key in resource[0]',
      reason: 'contains a NUL character (\\u0000)',
    });
    expect(findUnacceptableText({ a: [1, true, null, { b: 'fine' }] })).toBeNull();
  });

  it('walks a deeply nested value without overflowing the stack', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnacceptableText(deep)?.reason).toBe('contains a NUL character (\\u0000)');
  });
});
