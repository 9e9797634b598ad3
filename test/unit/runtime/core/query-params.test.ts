import { describe, expect, it } from 'vitest';
import { parseCommonParams, parseOrder, toBool } from '#runtime/core/query-params.js';

describe('parseCommonParams', () => {
  it('reads aliases and lenient forms real clients send', () => {
    const params = parseCommonParams({
      select: 'id, first_name',
      where: 'id>1',
      top: '10',
      skip: '20',
      sort: 'last_name+DESC,first_name asc',
      include_count: '1',
    });
    expect(params).toMatchObject({
      fields: ['id', 'first_name'],
      filter: 'id>1',
      limit: 10,
      offset: 20,
      includeCount: true,
      order: [
        { field: 'last_name', direction: 'desc' },
        { field: 'first_name', direction: 'asc' },
      ],
    });
  });
  it('treats empty values, limit=0 and fields=* as absent', () => {
    expect(parseCommonParams({ limit: '0', offset: '', fields: '*', related: '' })).toMatchObject({
      limit: null,
      offset: 0,
      fields: null,
      related: null,
    });
  });
  it('takes options from the body under the query', () => {
    expect(parseCommonParams({ limit: '5' }, { limit: 9, filter: 'a=1', ids: [1, 2] })).toMatchObject({
      limit: 5,
      filter: 'a=1',
      ids: ['1', '2'],
    });
  });
  it.each([
    [{ limit: 'ten' }, /'limit' must be an integer/],
    [{ offset: '-1' }, /must not be negative/],
    [{ order: 'name sideways' }, /Invalid order direction/],
    [{ order: 'name; drop table x' }, /Invalid order/],
    [{ continue: 'true', rollback: 'true' }, /can not be requested at the same time/],
  ])('rejects %o', (query, message) => {
    expect(() => parseCommonParams(query)).toThrow(message);
  });
});

describe('toBool and parseOrder', () => {
  it.each([
    ['true', true],
    ['1', true],
    ['YES', true],
    ['t', true],
    ['false', false],
    ['0', false],
    ['', false],
  ])('%s -> %s', (text, want) => {
    expect(toBool(text)).toBe(want);
  });
  it('parses several terms', () => {
    expect(parseOrder('a, b DESC')).toEqual([
      { field: 'a', direction: 'asc' },
      { field: 'b', direction: 'desc' },
    ]);
  });
  it('takes field names of any script, with digits first, dashes and dots (the caller checks the field)', () => {
    expect(parseOrder('größe desc, 1st, e-mail, a.b, ключ')).toEqual([
      { field: 'größe', direction: 'desc' },
      { field: '1st', direction: 'asc' },
      { field: 'e-mail', direction: 'asc' },
      { field: 'a.b', direction: 'asc' },
      { field: 'ключ', direction: 'asc' },
    ]);
    for (const bad of ['a;b', 'a)', "a'", 'a"b', 'first name desc']) expect(() => parseOrder(bad), bad).toThrow(/order/i);
  });
  it('takes NULLS FIRST / LAST after the direction, and nothing else', () => {
    expect(parseOrder('a nulls last, b DESC NULLS FIRST')).toEqual([
      { field: 'a', direction: 'asc', nulls: 'last' },
      { field: 'b', direction: 'desc', nulls: 'first' },
    ]);
    for (const bad of ['a nulls', 'a nulls middle', 'a desc nulls first x', 'a nulls first desc', 'nulls first']) {
      expect(() => parseOrder(bad), bad).toThrow(/order/i);
    }
  });
});
