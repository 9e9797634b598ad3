/** Password rules of the platform: the minimum length setting, bcrypt hashing, and token cut-off on change. */
import { hashPassword } from '../../auth/passwords.js';
import { BadRequestError } from '../../core/errors.js';
import type { PlatformContext } from '../../http/platform-context.js';

/** A 400 naming `field` when the password is shorter than the platform's minimum. */
export function assertPasswordAllowed(ctx: PlatformContext, password: string, field: string): void {
  const min = ctx.settings.passwordMinLength;
  if (password.length < min) throw new BadRequestError(`Invalid data supplied. The password must be at least ${min} characters.`, { field });
}

/**
 * The secret columns a new password sets: its hash, and the cut-off that refuses every session
 * token issued before now.
 */
export async function passwordSecrets(ctx: PlatformContext, password: string): Promise<{ password: string; tokens_valid_after: number }> {
  return { password: await hashPassword(password), tokens_valid_after: Math.floor(ctx.clock.now() / 1000) };
}
