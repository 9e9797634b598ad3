import { describe, expect, it } from 'vitest';
import { parseInterval } from '#generator/cli/dev-command.js';

describe('parseInterval (gen dev --poll)', () => {
  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['2m', 120_000],
    ['10', 10_000],
    ['1.5s', 1500],
    ['50ms', 100],
    ['off', null],
    ['0', null],
    ['none', null],
  ])('reads %s', (text, ms) => {
    expect(parseInterval(text)).toBe(ms);
  });

  it('refuses what is not an interval', () => {
    expect(() => parseInterval('soon')).toThrow("'soon' is not an interval: write 5s, 500ms, 2m or off.");
  });
});
