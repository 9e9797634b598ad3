/** decodePercent (runtime/core/percent-decoding.ts): decoded text, or null for malformed escapes, never a thrown URIError. */
import { describe, expect, it } from 'vitest';
import { decodePercent } from '#runtime/core/percent-decoding.js';

describe('decodePercent', () => {
  it.each([
    ['plain', 'contact', 'contact'],
    ['an escaped space and slash', 'a%20b%2Fc', 'a b/c'],
    ['UTF-8', 'gr%C3%B6%C3%9Fe', 'größe'],
    ['a + (not a space in a path)', 'a+b', 'a+b'],
    ['a lone percent', '100%', null],
    ['a percent with no hex', 'a%zz.txt', null],
    ['bytes that are not UTF-8', '%FF%FE', null],
    ['a cut UTF-8 sequence', '%C3', null],
  ])('%s', (_name, given, want) => {
    expect(decodePercent(given)).toBe(want);
  });
});
