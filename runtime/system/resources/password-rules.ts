/** Password rules of the platform: the minimum length setting, bcrypt hashing, and token cut-off on change. */
import { sql, type RawBuilder } from 'kysely';
import { hashPassword } from '../../auth/passwords.js';
import type { PlatformContext } from '../../http/platform-context.js';
import { systemMessages } from '../system-messages.js';

/** A 400 naming `field` when the password is shorter than the platform's minimum. */
export function assertPasswordAllowed(ctx: PlatformContext, password: string, field: string): void {
  const min = ctx.settings.passwordMinLength;
  if (password.length < min) throw systemMessages.passwordTooShort.error(min, field);
}

/**
 * A new session cut-off for the user row it is set on (`tokens_valid_after`, epoch seconds), which
 * refuses every token issued so far. Tokens carry whole seconds and are issued no earlier than the
 * cut-off of their time (issueSessionToken), so the new cut-off is the second after both now and
 * the previous cut-off: tokens issued in this second, or after a change earlier in it, end too.
 */
export function sessionCutoff(ctx: PlatformContext): RawBuilder<number> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const previous = sql.ref('tokens_valid_after');
  return sql<number>`case when ${previous} >= ${now} then ${previous} + 1 else ${now + 1} end`;
}

/** The secret columns a new password sets: its hash, and the cut-off that ends every session issued before. */
export async function passwordSecrets(
  ctx: PlatformContext,
  password: string,
): Promise<{ password: string; tokens_valid_after: RawBuilder<number> }> {
  return { password: await hashPassword(password), tokens_valid_after: sessionCutoff(ctx) };
}
