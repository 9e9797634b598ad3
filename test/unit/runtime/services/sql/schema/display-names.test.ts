import { describe, expect, it } from 'vitest';
import { apiName, humanize, pluralize } from '#runtime/services/sql/schema/display-names.js';

describe('humanize', () => {
  it.each([
    ['contact_info', 'Contact Info'],
    ['contact', 'Contact'],
    ['firstName', 'First Name'],
    ['FullName', 'Full Name'],
    ['ID', 'ID'],
    ['order-lines', 'Order Lines'],
    ['__x__', 'X'],
  ])('%s -> %s', (given, want) => expect(humanize(given)).toBe(want));
});

describe('pluralize', () => {
  it.each([
    ['Contact', 'Contacts'],
    ['Contact Info', 'Contact Infos'],
    ['Category', 'Categories'],
    ['Day', 'Days'],
    ['Box', 'Boxes'],
    ['Address', 'Addresses'],
    ['Branch', 'Branches'],
    ['Contacts', 'Contacts'],
    ['', ''],
  ])('%s -> %s', (given, want) => expect(pluralize(given)).toBe(want));
});

describe('apiName', () => {
  it('lower-cases unless the service keeps the case', () => {
    expect(apiName('FirstName', false)).toBe('firstname');
    expect(apiName('FirstName', true)).toBe('FirstName');
  });
});
