import { describe, expect, it } from 'vitest';
import { createSessionTokens } from '#runtime/auth/session-tokens.js';

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};

describe('session tokens', () => {
  const tokens = createSessionTokens('s'.repeat(64), clock);

  it('verifies its own tokens, the second time from memory, and checks expiry every time', () => {
    const { token, claims } = tokens.issue(7, 60);
    expect(tokens.verify(token)).toEqual(claims);
    expect(tokens.verify(token)).toEqual(claims);
    clock.time += 61 * 60_000;
    expect(() => tokens.verify(token)).toThrow(/expired/);
    expect(tokens.verify(token, 120)).toEqual(claims);
    clock.time -= 61 * 60_000;
  });

  it('refuses tampered, foreign and malformed tokens', () => {
    const { token } = tokens.issue(7, 60);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), user_id: 1 })).toString(
      'base64url',
    );
    expect(() => tokens.verify(`${header}.${forged}.${signature}`)).toThrow(/Invalid token/);
    expect(() => createSessionTokens('t'.repeat(64), clock).verify(token)).toThrow(/Invalid token/);
    expect(() => tokens.verify('not-a-token')).toThrow(/Invalid token/);
  });

  it("issues no token before the user's cut-off, keeping the lifetime", () => {
    const now = clock.time / 1000;
    expect(tokens.issue(7, 60, now + 2).claims).toMatchObject({ iat: now + 2, exp: now + 2 + 3600 });
    expect(tokens.issue(7, 60, now - 5).claims).toMatchObject({ iat: now, exp: now + 3600 });
  });
});
