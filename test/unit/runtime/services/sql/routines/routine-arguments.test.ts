import { describe, expect, it } from 'vitest';
import type { RoutineModel } from '#runtime/model/platform-model.js';
import { routineArguments, splitInlineCall } from '#runtime/services/sql/routines/routine-arguments.js';

const bump: RoutineModel = {
  name: 'bump',
  sourceName: 'bump',
  kind: 'procedure',
  returnType: null,
  params: [
    { name: 'counter', position: 1, mode: 'INOUT', dbType: 'integer' },
    { name: 'step', position: 2, mode: 'IN', dbType: 'integer' },
    { name: 'label', position: 3, mode: 'OUT', dbType: 'text' },
  ],
};

const args = (body: unknown, inline: string[] | null = null, query: Record<string, string> = {}) =>
  Object.fromEntries(routineArguments(bump, 'procedure', body, inline, query));

describe('routineArguments', () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    [
      'params as name/value pairs, names in any case',
      {
        params: [
          { name: 'COUNTER', value: 5 },
          { name: 'step', value: 2 },
        ],
      },
      { counter: 5, step: 2 },
    ],
    ['params as values in declared order (OUT skipped)', { params: [5, 2] }, { counter: 5, step: 2 }],
    ['params as an object', { params: { step: 3, counter: { value: 1 } } }, { counter: 1, step: 3 }],
    [
      'objects travel as JSON text',
      {
        params: [
          { name: 'step', value: { a: 1 } },
          { name: 'counter', value: null },
        ],
      },
      { step: '{"a":1}', counter: null },
    ],
  ])('%s', (_name, body, want) => {
    expect(args(body)).toEqual(want);
  });

  it('takes the inline form, then the query string', () => {
    expect(args(undefined, ['7', '1'])).toEqual({ counter: '7', step: '1' });
    expect(args(undefined, null, { Counter: '4', wrapper: 'x', api_key: 'k', other: 'y', step: '1' })).toEqual({ counter: '4', step: '1' });
  });

  it('leaves out a parameter the routine has a default for', () => {
    const defaulted = { ...bump, params: bump.params.map((p) => (p.name === 'step' ? { ...p, defaulted: true } : p)) };
    expect(Object.fromEntries(routineArguments(defaulted, 'procedure', undefined, null, { counter: '4' }))).toEqual({ counter: '4' });
  });

  it.each<[unknown, string]>([
    [{ params: [{ name: 'label', value: 1 }] }, "Unknown parameter 'label' for procedure 'bump' (its input parameters: counter, step)."],
    [{ params: { nope: 1 } }, "Unknown parameter 'nope' for procedure 'bump' (its input parameters: counter, step)."],
    [{ params: [1, 2, 3] }, "The procedure 'bump' takes 2 input parameter(s); 3 given."],
    // It ran with NULL on MySQL; PostgreSQL found no function to call.
    [{}, "Missing parameter 'counter' for procedure 'bump': it has no default (its input parameters: counter, step)."],
    [{ params: [5] }, "Missing parameter 'step' for procedure 'bump': it has no default (its input parameters: counter, step)."],
  ])('refuses %j', (body, message) => {
    expect(() => args(body)).toThrow(message);
  });
});

describe('splitInlineCall', () => {
  it.each<[string, ReturnType<typeof splitInlineCall>]>([
    ['bump', { name: 'bump', values: null }],
    ['bump(1, 2)', { name: 'bump', values: ['1', '2'] }],
    ["greet('Ann')", { name: 'greet', values: ['Ann'] }],
    ['now()', { name: 'now', values: [] }],
  ])('%s', (segment, want) => {
    expect(splitInlineCall(segment)).toEqual(want);
  });
});
