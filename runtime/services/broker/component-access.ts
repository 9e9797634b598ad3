/**
 * Role grants on a component named in a request body (a topic, a routing key, a cache key): the
 * HTTP layer checked the path; these check what the body adds, with the same matching rules.
 */
import { matchGrant } from '../../auth/access.js';
import type { AuthContext } from '../../auth/auth-context.js';
import { ForbiddenError } from '../../core/errors.js';
import type { Verb } from '../../model/platform-model.js';

/** Whether the caller's role allows `verb` on the component (administrators and internal calls always may). */
export function mayUse(auth: AuthContext, service: string, component: string, verb: Verb): boolean {
  if (auth.isAdmin || auth.grants === null) return true;
  return matchGrant(auth.grants, service.toLowerCase(), component.toLowerCase(), verb) !== null;
}

/** 403 unless the caller's role allows `verb` on the component. */
export function checkComponent(auth: AuthContext, service: string, component: string, verb: Verb): void {
  if (!mayUse(auth, service, component, verb)) {
    throw new ForbiddenError(
      `Access Forbidden. ${verb} access to component '${component}' of service '${service}' is not allowed by this user's role.`,
    );
  }
}
