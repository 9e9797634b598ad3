/**
 * Establishes who is calling: the app of the API key and the user of the session token, or of
 * HTTP Basic credentials sent without a token. Answers at once when the token's user is in the
 * directory's cache (nearly every request); reads the user from the system database otherwise.
 */
import type { AppPrincipal, UserPrincipal } from '../auth/principals.js';
import type { SessionClaims } from '../auth/session-tokens.js';
import { PorticoError } from '../core/errors.js';
import type { BasicCredentials, Credentials } from '../auth/credentials.js';
import { authenticateBasic } from '../system/sessions.js';
import type { PlatformContext } from './platform-context.js';
import { coreMessages } from '../core/messages.js';
import { systemDatabaseUnavailable } from '../system/store/system-db.js';

export interface Caller {
  apiKeyGiven: boolean;
  app: AppPrincipal | null;
  user: UserPrincipal | null;
  session: { token: string; claims: SessionClaims } | null;
  tokenError: PorticoError | null;
}

const tokenError = (error: unknown) => (error instanceof PorticoError ? error : coreMessages.tokenInvalid.error());

/**
 * The session's user, checked: active, with the email the token was issued for (a changed email
 * ends the account's sessions, reference 6.2), and the token neither revoked nor older than a
 * password change.
 */
function admit(ctx: PlatformContext, caller: Caller, token: string, claims: SessionClaims, user: UserPrincipal | null): Caller {
  if (!user || !ctx.tokens.isHeldBy(claims, user)) caller.tokenError = coreMessages.tokenUserUnknown.error();
  else if (!user.isActive) caller.tokenError = coreMessages.tokenUserInactive.error();
  else if (ctx.directory.isRevoked(claims.jti) || claims.iat < user.tokensValidAfter) {
    caller.tokenError = coreMessages.sessionTerminated.error();
  } else {
    caller.user = user;
    caller.session = { token, claims };
  }
  return caller;
}

/**
 * `basic`: HTTP Basic credentials, used when no session token is sent; credentials that do not
 * match are a 401 at once (reference 6.1), wherever the request goes.
 */
export function identify(ctx: PlatformContext, credentials: Credentials, basic: BasicCredentials | null = null): Caller | Promise<Caller> {
  const caller: Caller = {
    apiKeyGiven: credentials.apiKey !== null,
    app: credentials.apiKey === null ? null : (ctx.directory.appsByKey.get(credentials.apiKey) ?? null),
    user: null,
    session: null,
    tokenError: null,
  };
  const token = credentials.token;
  if (token === null) {
    if (basic === null) return caller;
    return authenticateBasic(ctx, basic, caller.app).then((user) => {
      caller.user = user;
      return caller;
    });
  }
  let claims: SessionClaims;
  try {
    claims = ctx.tokens.verify(token);
  } catch (error) {
    caller.tokenError = tokenError(error);
    return caller;
  }
  const cached = ctx.directory.cachedUser(claims.user_id);
  if (cached !== undefined) return admit(ctx, caller, token, claims, cached);
  return ctx.directory.user(claims.user_id).then(
    (user) => admit(ctx, caller, token, claims, user),
    (error: unknown) => {
      // The system database down says nothing of the token: a 401 would make the client drop a good one.
      caller.tokenError = (error instanceof PorticoError ? null : systemDatabaseUnavailable(ctx.db, error)) ?? tokenError(error);
      return caller;
    },
  );
}
