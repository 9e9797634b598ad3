import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '#generator/write/text-diff.js';

const lines = (...items: string[]) => `${items.join('\n')}\n`;
const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`);

describe('unifiedDiff', () => {
  it.each([
    ['a new file', null, lines('a', 'b'), ['--- /dev/null', '+++ b/f.ts', '@@ -0,0 +1,2 @@', '+a', '+b']],
    ['a removed file', lines('a'), null, ['--- a/f.ts', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-a']],
    [
      'a changed line with context',
      lines('a', 'b', 'c'),
      lines('a', 'B', 'c'),
      ['--- a/f.ts', '+++ b/f.ts', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c'],
    ],
    ['an insertion', lines('a', 'c'), lines('a', 'b', 'c'), ['--- a/f.ts', '+++ b/f.ts', '@@ -1,2 +1,3 @@', ' a', '+b', ' c']],
    ['identical texts', lines('a'), lines('a'), ['--- a/f.ts', '+++ b/f.ts']],
  ] as const)('shows %s', (_name, before, after, want) => {
    expect(unifiedDiff('f.ts', before, after)).toBe(`${want.join('\n')}\n`);
  });

  it('keeps three lines of context and splits distant changes into hunks', () => {
    const before = numbered(20);
    const after = [...before];
    after[1] = 'changed 2';
    after[17] = 'changed 18';
    expect(unifiedDiff('f.ts', lines(...before), lines(...after))).toBe(
      lines(
        '--- a/f.ts',
        '+++ b/f.ts',
        '@@ -1,5 +1,5 @@',
        ' line 1',
        '-line 2',
        '+changed 2',
        ' line 3',
        ' line 4',
        ' line 5',
        '@@ -15,6 +15,6 @@',
        ' line 15',
        ' line 16',
        ' line 17',
        '-line 18',
        '+changed 18',
        ' line 19',
        ' line 20',
      ),
    );
  });

  it('cuts long diffs after maxLines lines of hunks (hunk headers count)', () => {
    const diff = unifiedDiff('f.ts', null, lines(...numbered(50)), 10);
    expect(diff.split('\n').slice(-3)).toEqual(['+line 9', '... 41 more lines', '']);
  });
});
