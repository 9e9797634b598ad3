import { describe, expect, it } from 'vitest';
import { canonicalJson } from '#runtime/openapi/canonical-json.js';

describe('canonicalJson', () => {
  it.each([
    ['sorts keys at every depth', { b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}'],
    ['sorts by code unit, not locale', { b: 1, B: 2, _: 3, $c: 4 }, '{"$c":4,"B":2,"_":3,"b":1}'],
    ['keeps array order', [3, 1, 2], '[3,1,2]'],
    ['drops undefined members', { a: undefined, b: 1 }, '{"b":1}'],
    [
      'keeps the order of JSON Schema properties',
      { type: 'object', properties: { z: { type: 'string', nullable: true }, a: {} } },
      '{"properties":{"z":{"nullable":true,"type":"string"},"a":{}},"type":"object"}',
    ],
    [
      'sorts the schema of a column named properties',
      { properties: { properties: { type: 'x', description: 'y' } } },
      '{"properties":{"properties":{"description":"y","type":"x"}}}',
    ],
    ['keeps __proto__ as data', JSON.parse('{"__proto__":{"b":1,"a":2}}'), '{"__proto__":{"a":2,"b":1}}'],
  ])('%s', (_, value, want) => {
    expect(JSON.stringify(JSON.parse(canonicalJson(value)))).toBe(want);
    expect(canonicalJson(value)).toBe(JSON.stringify(JSON.parse(canonicalJson(value)), null, 2));
  });

  it('gives the same text whatever the insertion order', () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: 3 } })).toBe(canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });
});
