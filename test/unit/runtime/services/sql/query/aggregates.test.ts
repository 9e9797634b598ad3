import { describe, expect, it } from 'vitest';
import { aggregateAlias, aggregateField, parseAggregate } from '#runtime/services/sql/query/aggregates.js';
import { field } from '../filter/filter-fixtures.js';

describe('parseAggregate', () => {
  it.each<[string, ReturnType<typeof parseAggregate>]>([
    ['COUNT(*)', { fn: 'count', field: null }],
    ['count( id )', { fn: 'count', field: 'id' }],
    ['Sum(price)', { fn: 'sum', field: 'price' }],
    ['avg(score)', { fn: 'avg', field: 'score' }],
    ['min(birthday)', { fn: 'min', field: 'birthday' }],
    ['MAX(id)', { fn: 'max', field: 'id' }],
    ['sum(*)', null],
    ['median(x)', null],
    ['count(a.b)', null],
    ['count(id); drop table x', null],
    ['last_name', null],
  ])('%s', (text, want) => {
    expect(parseAggregate(text)).toEqual(want);
  });
});

describe('aggregate aliases and types', () => {
  it('names them as the reference does and types their values', () => {
    expect(aggregateAlias('count', null)).toBe('COUNT_ALL');
    expect(aggregateAlias('sum', field('price', 'decimal'))).toBe('SUM_price');
    expect(aggregateField('count', null)).toMatchObject({ name: 'COUNT(*)', type: 'integer' });
    expect(aggregateField('avg', field('age', 'integer'))).toMatchObject({ name: 'AVG(age)', type: 'double' });
    expect(aggregateField('max', field('birthday', 'date'))).toMatchObject({ name: 'MAX(birthday)', type: 'date' });
  });
});
