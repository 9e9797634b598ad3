/** Establishes who is calling: the app of the API key and the user of the session token. */
import type { AppPrincipal, UserPrincipal } from '../auth/principals.js';
import type { SessionClaims } from '../auth/session-tokens.js';
import { PorticoError, UnauthorizedError } from '../core/errors.js';
import type { Credentials } from '../auth/credentials.js';
import type { PlatformContext } from './platform-context.js';

export interface Caller {
  apiKeyGiven: boolean;
  app: AppPrincipal | null;
  user: UserPrincipal | null;
  session: { token: string; claims: SessionClaims } | null;
  tokenError: PorticoError | null;
}

export async function identify(ctx: PlatformContext, credentials: Credentials): Promise<Caller> {
  const caller: Caller = {
    apiKeyGiven: credentials.apiKey !== null,
    app: credentials.apiKey === null ? null : ctx.directory.appsByKey.get(credentials.apiKey) ?? null,
    user: null,
    session: null,
    tokenError: null,
  };
  if (credentials.token === null) return caller;
  try {
    const claims = ctx.tokens.verify(credentials.token);
    const user = await ctx.directory.user(claims.user_id);
    if (!user) throw new UnauthorizedError('Invalid token: User verification failed.');
    if (!user.isActive) throw new UnauthorizedError('Invalid token: the user is not active.');
    if (ctx.directory.isRevoked(claims.jti) || claims.iat < user.tokensValidAfter) {
      throw new UnauthorizedError('Invalid token: Session terminated. Please re-login.');
    }
    caller.user = user;
    caller.session = { token: credentials.token, claims };
  } catch (error) {
    caller.tokenError = error instanceof PorticoError ? error : new UnauthorizedError('Invalid token.');
  }
  return caller;
}
