import { describe, expect, it } from 'vitest';
import { camelCase, pascalCase, uniqueNamer } from '#runtime/openapi/code-identifiers.js';

describe('names', () => {
  it.each([
    ['contact_info', 'ContactInfo', 'contactInfo'],
    ['ContactInfo', 'ContactInfo', 'contactInfo'],
    ['2fa codes', '2faCodes', '2faCodes'],
    ['first-name.x', 'FirstNameX', 'firstNameX'],
    ['__', '', ''],
  ])('%s -> %s / %s', (text, pascal, camel) => {
    expect(pascalCase(text)).toBe(pascal);
    expect(camelCase(text)).toBe(camel);
  });

  it('hands out each name once, suffixing 2, 3, ... in call order', () => {
    const name = uniqueNamer(['Tables']);
    expect(['Contact', 'Contact', 'Tables', 'Contact', 'Contact2'].map(name)).toEqual([
      'Contact',
      'Contact2',
      'Tables2',
      'Contact3',
      'Contact22',
    ]);
  });
});
