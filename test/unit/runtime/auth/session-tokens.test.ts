import { describe, expect, it } from 'vitest';
import { createSigner } from 'fast-jwt';
import { createSessionTokens } from '#runtime/auth/session-tokens.js';

const clock = {
  time: Date.UTC(2026, 0, 1),
  now() {
    return this.time;
  },
};

describe('session tokens', () => {
  const tokens = createSessionTokens('s'.repeat(64), clock);
  const una = { id: 7, email: 'una@x.io' };

  it('verifies its own tokens, the second time from memory, and checks expiry every time', () => {
    const { token, claims } = tokens.issue(una, 60);
    expect(tokens.verify(token)).toEqual(claims);
    expect(tokens.verify(token)).toEqual(claims);
    clock.time += 61 * 60_000;
    expect(() => tokens.verify(token)).toThrow(/expired/);
    expect(tokens.verify(token, 120)).toEqual(claims);
    clock.time -= 61 * 60_000;
  });

  it('refuses tampered, foreign and malformed tokens', () => {
    const { token } = tokens.issue(una, 60);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), user_id: 1 })).toString(
      'base64url',
    );
    expect(() => tokens.verify(`${header}.${forged}.${signature}`)).toThrow(/Invalid token/);
    expect(() => createSessionTokens('t'.repeat(64), clock).verify(token)).toThrow(/Invalid token/);
    expect(() => tokens.verify('not-a-token')).toThrow(/Invalid token/);
  });

  it('refuses a payload changed under the signature of a token it verified already (remembered by signature, matched by the whole text)', () => {
    const { token, claims } = tokens.issue(una, 60);
    expect(tokens.verify(token)).toEqual(claims);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), user_id: 1 })).toString(
      'base64url',
    );
    expect(() => tokens.verify(`${header}.${forged}.${signature}`)).toThrow(/Invalid token/);
    expect(tokens.verify(token)).toEqual(claims);
  });

  it('is held by its user only while their email is the one it was issued for (reference 6.2)', () => {
    const { token, claims } = tokens.issue(una, 60);
    expect(tokens.isHeldBy(claims, { id: 7, email: 'una@x.io' })).toBe(true);
    expect(tokens.isHeldBy(claims, { id: 7, email: 'una@y.io' })).toBe(false);
    expect(tokens.isHeldBy(claims, { id: 7, email: 'Una@x.io' })).toBe(false);
    expect(tokens.isHeldBy(claims, { id: 8, email: 'una@x.io' })).toBe(false);
    // The email is digested with the secret: the token does not carry it, nor a plain hash of it.
    const payload = Buffer.from(token.split('.')[1], 'base64url').toString();
    expect(payload).not.toContain('una@x.io');
    expect(claims.sub).toMatch(/^[\w-]{22}$/);
    expect(createSessionTokens('t'.repeat(64), clock).issue(una, 60).claims.sub).not.toBe(claims.sub);
  });

  it('refuses a token without the email digest (issued before it was a claim)', () => {
    const { token } = tokens.issue(una, 60);
    const { sub: _sub, ...rest } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    const sign = createSigner({ key: 's'.repeat(64), algorithm: 'HS256' });
    expect(() => tokens.verify(sign(rest))).toThrow(/required claims are missing/);
  });

  it("issues no token before the user's cut-off, keeping the lifetime", () => {
    const now = clock.time / 1000;
    expect(tokens.issue(una, 60, now + 2).claims).toMatchObject({ iat: now + 2, exp: now + 2 + 3600 });
    expect(tokens.issue(una, 60, now - 5).claims).toMatchObject({ iat: now, exp: now + 3600 });
  });
});
