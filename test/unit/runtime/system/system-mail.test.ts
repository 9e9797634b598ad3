import { describe, expect, it } from 'vitest';
import { mailOrUndo } from '#runtime/system/system-mail.js';

describe('mailOrUndo: the mail step of a committed write', () => {
  it('leaves the write when the mail goes out', async () => {
    const steps: string[] = [];
    await mailOrUndo(
      async () => void steps.push('sent'),
      async () => void steps.push('undone'),
    );
    expect(steps).toEqual(['sent']);
  });

  it('undoes the write when the mail cannot go out, and answers the mail error', async () => {
    const steps: string[] = [];
    const refused = new Error('No email service');
    await expect(
      mailOrUndo(
        async () => {
          throw refused;
        },
        async () => void steps.push('undone'),
      ),
    ).rejects.toBe(refused);
    expect(steps).toEqual(['undone']);
  });
});
