/**
 * Session tokens: HS256 JWTs carrying the user id. Expiry is checked against the injected clock
 * (so tests can move time), revocation and password changes by the caller (runtime/http/identify.ts),
 * on every request: the cache here only spares the signature check.
 */
import { randomUUID } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { Clock } from './clock.js';
import { coreMessages } from '../core/messages.js';

export interface SessionClaims {
  user_id: number;
  /** Token id, used to revoke one token. */
  jti: string;
  /** Issued at / expires at, epoch seconds. */
  iat: number;
  exp: number;
}

export interface SessionTokens {
  /**
   * `notBefore` (epoch seconds) is the user's cut-off: a token is never issued before it, so that
   * one issued in the second of a password change outlives the cut-off that change set.
   */
  issue(userId: number, ttlMinutes: number, notBefore?: number): { token: string; claims: SessionClaims };
  /**
   * Verifies signature and expiry; throws UnauthorizedError otherwise. `graceSeconds` accepts a
   * token that expired at most that long ago (session refresh).
   */
  verify(token: string, graceSeconds?: number): SessionClaims;
}

/** Tokens whose signature was verified, kept so that a client's next requests skip the HMAC. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createSessionTokens(secret: string, clock: Clock): SessionTokens {
  const sign = createSigner({ key: secret, algorithm: 'HS256' });
  // Expiry is ours to check (injected clock). Verified tokens are remembered by their exact text
  // (fast-jwt's own cache would hash every token to look it up).
  const decode = createVerifier({ key: secret, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true });
  const verified = new Map<string, SessionClaims>();
  const signed = (token: string): SessionClaims => {
    const known = verified.get(token);
    if (known !== undefined) return known;
    let claims: SessionClaims;
    try {
      claims = decode(token) as SessionClaims;
    } catch (error) {
      const reason = error instanceof TokenError ? error.message : 'malformed token';
      throw coreMessages.tokenUnreadable.error(reason);
    }
    if (typeof claims.user_id !== 'number' || typeof claims.exp !== 'number' || typeof claims.jti !== 'string') {
      throw coreMessages.tokenClaimsMissing.error();
    }
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
    return claims;
  };
  return {
    issue(userId, ttlMinutes, notBefore = 0) {
      const iat = Math.max(Math.floor(clock.now() / 1000), notBefore);
      const claims: SessionClaims = { user_id: userId, jti: randomUUID(), iat, exp: iat + ttlMinutes * 60 };
      return { token: sign({ ...claims }), claims };
    },
    verify(token, graceSeconds = 0) {
      const claims = signed(token);
      if ((claims.exp + graceSeconds) * 1000 <= clock.now()) {
        throw coreMessages.tokenExpired.error();
      }
      return claims;
    },
  };
}
