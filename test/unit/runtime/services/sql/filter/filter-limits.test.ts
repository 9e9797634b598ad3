/** The request limits of filters: comparisons, bound values and pattern length, each a 400 before any SQL runs. */
import { describe, expect, it } from 'vitest';
import { limits } from '#runtime/core/request-limits.js';
import { compileFilter } from '#runtime/services/sql/filter/filter-compiler.js';
import { parseFilter } from '#runtime/services/sql/filter/filter-parser.js';
import { contact, schema } from './filter-fixtures.js';

const compile = (filter: string, params?: Record<string, unknown>) =>
  compileFilter(parseFilter(filter), { table: contact, schema, dialect: 'sqlite', params });
const terms = (n: number, term: (i: number) => string, joiner: string) => Array.from({ length: n }, (_, i) => term(i)).join(joiner);

describe('filter limits', () => {
  it(`takes ${limits.filterTerms} comparisons and refuses one more`, () => {
    expect(() => compile(terms(limits.filterTerms, (i) => `age = ${i}`, ' or '))).not.toThrow();
    expect(() => compile(terms(limits.filterTerms + 1, (i) => `age = ${i}`, ' and '))).toThrow(
      expect.objectContaining({
        status: 400,
        message: `Filter too large: more than ${limits.filterTerms} comparisons; at most ${limits.filterTerms} are allowed.`,
      }),
    );
  });

  it(`takes ${limits.filterValues} values and refuses more, whether written or from params`, () => {
    expect(() => compile(`id in (${terms(limits.filterValues, String, ',')})`)).not.toThrow();
    const tooMany = {
      status: 400,
      message: `Filter too large: more than ${limits.filterValues} values; at most ${limits.filterValues} are allowed.`,
    };
    expect(() => compile(`id in (${terms(limits.filterValues + 1, String, ',')})`)).toThrow(expect.objectContaining(tooMany));
    expect(() =>
      compile('id in (:ids) or age between 1 and 2', { ids: Array.from({ length: limits.filterValues - 1 }, (_, i) => i) }),
    ).toThrow(expect.objectContaining(tooMany));
  });

  it(`refuses like patterns and contains values beyond ${limits.patternLength} characters`, () => {
    expect(() => compile(`email like '${'%'.repeat(limits.patternLength)}'`)).not.toThrow();
    for (const filter of [
      `email like '${'%a'.repeat(limits.patternLength)}'`,
      `email contains '${'a'.repeat(limits.patternLength + 1)}'`,
    ]) {
      expect(() => compile(filter)).toThrow(
        expect.objectContaining({
          status: 400,
          message: `Filter pattern for field 'email' is too long: at most ${limits.patternLength} characters are allowed.`,
        }),
      );
    }
  });

  it('refuses integers beyond 64 bits and numbers beyond a double', () => {
    expect(() => compile('id = 9223372036854775807')).not.toThrow();
    expect(() => compile('id = 9223372036854775808')).toThrow(
      expect.objectContaining({ status: 400, message: "Field 'id' must be a valid integer." }),
    );
    expect(() => compile(`score = 1${'0'.repeat(400)}`)).toThrow(
      expect.objectContaining({ status: 400, message: "Field 'score' must be a valid number." }),
    );
  });
});
