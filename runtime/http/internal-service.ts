/**
 * Services the runtime implements itself (system, user, api_docs): besides handling calls they
 * say which of their endpoints are open without a role and which only administrators may use.
 */
import type { PorticoError } from '../core/errors.js';
import type { SessionClaims } from '../auth/session-tokens.js';
import type { Verb } from '../model/platform-model.js';
import type { ServiceCall, ServiceResult } from '../services/service-kind.js';

export interface AccessRule {
  /** Reachable without a role or session (logins, password reset, environment). */
  exception: boolean;
  adminOnly: boolean;
  /** A login (POST to a session endpoint): any session token or Basic credentials sent are ignored (reference 6.1). */
  login?: boolean;
}

export interface InternalCall extends ServiceCall {
  /** The verified session of the request, if any. */
  session: { token: string; claims: SessionClaims } | null;
  /** Why the session token was refused, if one was sent and refused. */
  tokenError: PorticoError | null;
  /** Host name the client used (for session responses). */
  host: string;
  /** The client's address (for the environment resource). */
  clientIp: string;
}

export interface InternalService {
  access(verb: Verb, resource: readonly string[]): AccessRule;
  handle(call: InternalCall): Promise<ServiceResult>;
  /** As ServiceHandler.accessComponents. */
  accessComponents?(): Promise<string[]> | string[];
}
