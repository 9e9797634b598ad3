import { describe, expect, it } from 'vitest';
import { DURATION_PATTERN, xsdPattern } from '#runtime/services/soap/wsdl/xsd-pattern.js';

const matches = (pattern: string | null, text: string) => new RegExp(pattern!, 'u').test(text);

describe('XSD patterns as JavaScript patterns', () => {
  it('anchors them, and reads ^ and $ as characters and \\d as any decimal digit', () => {
    const price = xsdPattern(['\\$\\d+\\.\\d{2}']);
    expect(matches(price, '$12.50')).toBe(true);
    expect(matches(price, 'x$12.50')).toBe(false);
    expect(matches(price, '$12.5')).toBe(false);
    expect(matches(xsdPattern(['^a$']), '^a$')).toBe(true);
    expect(matches(xsdPattern(['\\d+']), '١٢')).toBe(true);
    expect(matches(xsdPattern(['a.c']), 'a\nc')).toBe(false);
    expect(matches(xsdPattern(['\\-?\\d']), '-1')).toBe(true);
  });

  it("ORs the patterns of one restriction and ANDs them with the base type's", () => {
    const either = xsdPattern(['[A-Z]{3}', '\\d{3}']);
    expect([matches(either, 'EUR'), matches(either, '978'), matches(either, 'E7R')]).toEqual([true, true, false]);
    const both = xsdPattern(['.{3}'], either!);
    expect([matches(both, 'EUR'), matches(both, 'EURO')]).toEqual([true, false]);
  });

  it('leaves out what JavaScript cannot say: name classes, blocks, class subtraction, \\w in a class', () => {
    expect(xsdPattern(['\\i\\c*'])).toBeNull();
    expect(xsdPattern(['\\p{IsBasicLatin}+'])).toBeNull();
    expect(xsdPattern(['[a-z-[aeiou]]+'])).toBeNull();
    expect(xsdPattern(['[\\w.]+'])).toBeNull();
    expect(matches(xsdPattern(['\\p{Lu}\\w*']), 'Émile')).toBe(true);
  });

  it('checks xsd:duration', () => {
    const valid = ['P1Y2M3DT4H5M6.7S', '-P1D', 'PT1M', 'P0D', 'PT0.5S'].map((text) => new RegExp(DURATION_PATTERN, 'u').test(text));
    const invalid = ['P', 'PT', 'P1DT', '1 minute', 'P1H', 'PT1D'].map((text) => new RegExp(DURATION_PATTERN, 'u').test(text));
    expect(valid.every(Boolean)).toBe(true);
    expect(invalid.some(Boolean)).toBe(false);
  });
});
