/**
 * Decimal text (runtime/core/decimal-text.ts), the one normalisation behind exact SQL decimals read
 * back (value-codec decodeWideDecimal, isExactNumber) and xs:decimal in SOAP responses (response-json).
 */
import { describe, expect, it } from 'vitest';
import { decimalValue, isHeldByDouble, plainDecimal } from '#runtime/core/decimal-text.js';

describe('decimalValue', () => {
  it.each([
    ['leading and trailing zeros', '010.50', '105e2'],
    ['the same value plainly', '10.5', '105e2'],
    ['the same value with an exponent', '1.05e1', '105e2'],
    ['a fraction below one', '0.00123', '123e-2'],
    ['a negative value', '-12.5', '-125e2'],
    ['a plus sign', '+7', '7e1'],
    ['negative zero', '-0.00', '0'],
    ['a point with no fraction', '5.', '5e1'],
    ['a fraction with no whole part', '.5', '5e0'],
    ['no digits', '.', null],
    ['not a decimal', '0x1F', null],
    ['an empty text', '', null],
  ])('%s', (_name, given, want) => {
    expect(decimalValue(given)).toBe(want);
  });
});

describe('isHeldByDouble', () => {
  it.each([
    ['trailing zeros', '12.50', true],
    ['an exponent', '1.05e1', true],
    ['15 digits', '123456789012.345', true],
    ['a fraction no double has', '0.1000000000000000000001', false],
    ['an integer beyond 2^53', '9007199254740993', false],
    ['2^53 itself', '9007199254740992', true],
    ["beyond a double's range", '1e400', false],
    ['not a decimal', 'abc', false],
    ['hexadecimal, which Number reads', '0x1F', false],
  ])('%s', (_name, given, want) => {
    expect(isHeldByDouble(given)).toBe(want);
  });
});

describe('plainDecimal', () => {
  it.each([
    ['trailing zeros of the fraction', '12.50', '12.5'],
    ['leading zeros of the whole part', '007.25', '7.25'],
    ['a plus sign', '+3', '3'],
    ['negative zero', '-0.000', '0'],
    ['a negative fraction below one', '-0.50', '-0.5'],
    ['a large exponent written out', '1e+21', '1000000000000000000000'],
    ['a small exponent written out', '1e-7', '0.0000001'],
    ['an exponent within the digits', '1.2345e2', '123.45'],
    ['digits a double does not hold', '12345678901234567890.123456789', '12345678901234567890.123456789'],
    ['not a decimal', 'ten', null],
  ])('%s', (_name, given, want) => {
    expect(plainDecimal(given)).toBe(want);
  });
});
