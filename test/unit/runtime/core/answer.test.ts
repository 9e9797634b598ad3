import { describe, expect, it } from 'vitest';
import { answerOf } from '#runtime/core/answer.js';

const named = (error: unknown, a: string, b: number) => new Error(`${a}${b}: ${(error as Error).message}`);

describe('answerOf', () => {
  it('answers a value at once, not through a promise', () => {
    expect(answerOf((a: string, b: number) => `${a}${b}`, 'x', 1, named)).toBe('x1');
  });

  it('passes a promised value on', async () => {
    const answer = answerOf(async (a: string, b: number) => `${a}${b}`, 'x', 2, named);
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe('x2');
  });

  it('turns an error thrown at once into the same rejection as one rejected later, never thrown', async () => {
    const thrown = answerOf(
      (): string => {
        throw new Error('bad');
      },
      'x',
      3,
      named,
    );
    const rejected = answerOf(async (): Promise<string> => Promise.reject(new Error('bad')), 'x', 3, named);
    expect(thrown).toBeInstanceOf(Promise);
    await expect(thrown).rejects.toThrow(new Error('x3: bad'));
    await expect(rejected).rejects.toThrow(new Error('x3: bad'));
  });
});
