/**
 * Session tokens: HS256 JWTs carrying the user id and a digest of the user's email. Expiry is
 * checked against the injected clock (so tests can move time), revocation, password and email
 * changes by the caller (runtime/http/identify.ts), on every request: the cache here only spares
 * the signature check.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { Clock } from './clock.js';
import { coreMessages } from '../core/messages.js';

export interface SessionClaims {
  user_id: number;
  /**
   * The user's email as it was at login, digested (the reference's `sub`, md5 of the email, here
   * keyed so that the token does not reveal it): a token outlives no change of its user's email.
   */
  sub: string;
  /** Token id, used to revoke one token. */
  jti: string;
  /** Issued at / expires at, epoch seconds. */
  iat: number;
  exp: number;
}

/** Who a token is issued to. */
export interface TokenHolder {
  id: number;
  email: string;
}

export interface SessionTokens {
  /**
   * `notBefore` (epoch seconds) is the user's cut-off: a token is never issued before it, so that
   * one issued in the second of a password change outlives the cut-off that change set. `at`
   * (epoch milliseconds, the clock's now by default) is when the session was granted: a session
   * granted on what the database said before a change must carry a time before that change.
   */
  issue(user: TokenHolder, ttlMinutes: number, notBefore?: number, at?: number): { token: string; claims: SessionClaims };
  /** Whether the token was issued to the user as they are now: same account, same email. */
  isHeldBy(claims: SessionClaims, user: TokenHolder): boolean;
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
  // Expiry is ours to check (injected clock). Verified tokens are remembered (fast-jwt's own cache
  // would hash every token to look it up), by their signature: a Map lookup hashes every character
  // of a key new with each request, and the signature is 43 of a token's 250-300. A token counts as
  // verified only when its whole text is the one remembered.
  const decode = createVerifier({ key: secret, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true });
  const verified = new Map<string, { token: string; claims: SessionClaims }>();
  const subject = (email: string) => createHmac('sha256', secret).update(`sub:${email}`).digest('base64url').slice(0, 22);
  // Per user object: the directory replaces a user's object when the account changes.
  const subjects = new WeakMap<TokenHolder, string>();
  const signed = (token: string): SessionClaims => {
    const signature = token.slice(token.lastIndexOf('.') + 1);
    const known = verified.get(signature);
    if (known !== undefined && known.token === token) return known.claims;
    let claims: SessionClaims;
    try {
      claims = decode(token) as SessionClaims;
    } catch (error) {
      const reason = error instanceof TokenError ? error.message : 'malformed token';
      throw coreMessages.tokenUnreadable.error(reason);
    }
    if (
      typeof claims.user_id !== 'number' ||
      typeof claims.exp !== 'number' ||
      typeof claims.jti !== 'string' ||
      typeof claims.sub !== 'string'
    ) {
      throw coreMessages.tokenClaimsMissing.error();
    }
    if (known === undefined && verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(signature, { token, claims });
    return claims;
  };
  return {
    issue(user, ttlMinutes, notBefore = 0, at = clock.now()) {
      const iat = Math.max(Math.floor(at / 1000), notBefore);
      const claims: SessionClaims = { user_id: user.id, sub: subject(user.email), jti: randomUUID(), iat, exp: iat + ttlMinutes * 60 };
      return { token: sign({ ...claims }), claims };
    },
    isHeldBy(claims, user) {
      let digest = subjects.get(user);
      if (digest === undefined) {
        digest = subject(user.email);
        subjects.set(user, digest);
      }
      return claims.user_id === user.id && claims.sub === digest;
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
