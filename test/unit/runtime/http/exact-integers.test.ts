import { describe, expect, it } from 'vitest';
import { quoteInexactIntegers } from '#runtime/http/exact-integers.js';

describe('quoteInexactIntegers', () => {
  it('quotes integer values a double would round, keeping their digits', () => {
    expect(JSON.parse(quoteInexactIntegers('{"resource":[{"big":9007199254740993,"n":1}]}'))).toEqual({
      resource: [{ big: '9007199254740993', n: 1 }],
    });
    expect(JSON.parse(quoteInexactIntegers('[9223372036854775807, -9223372036854775808]'))).toEqual([
      '9223372036854775807',
      '-9223372036854775808',
    ]);
  });

  it('leaves integers written as their double prints, other numbers, strings and member names alone', () => {
    for (const text of [
      JSON.stringify({ a: 2 ** 53, b: 1e20, c: 2 ** 63, d: -(2 ** 63), e: 123456789012345680000 }),
      '{"a":9007199254740993.5,"b":9007199254740993e0,"c":1.5e300}',
      '{"a":"9007199254740993","b":"x\\"9007199254740993"}',
      '{9007199254740993: 1}',
      '[09007199254740993]',
      '{"a": 1}',
    ]) {
      expect(quoteInexactIntegers(text)).toBe(text);
    }
  });
});
