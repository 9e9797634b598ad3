/**
 * The paths administrators (`/system/admin/...`) and users (`/user/...`) share: session, password
 * and profile. One builder for both; only the wording and operation ids differ.
 */
import type { PathItemObject } from 'openapi3-ts/oas30';
import { jsonOperation } from './operation-builder.js';
import { componentRef } from './shared-components.js';

export interface SelfServiceWording {
  /** Middle of the operation ids: `SystemAdmin`, `User`. */
  idPart: string;
  /** Whose profile: `administrator's`, `user's`. */
  owner: string;
  login: { summary: string; description?: string; body: string };
  currentSession: string;
}

export function selfServicePaths(w: SelfServiceWording): { session: PathItemObject; password: PathItemObject; profile: PathItemObject } {
  const session = { description: 'The session.', schema: componentRef('schemas', 'SessionResponse') };
  const success = { description: 'Success.', schema: componentRef('schemas', 'Success') };
  const flag = (name: string, description: string) => ({
    name,
    in: 'query' as const,
    required: false,
    description,
    schema: { type: 'boolean' as const },
  });
  const profileUpdate = (verb: 'update' | 'replace' | 'patch') =>
    jsonOperation({
      operationId: `${verb}${w.idPart}Profile`,
      summary: `Change the ${w.owner} own profile; a new email needs \`current_password\`.`,
      body: { description: 'The fields to change.', schema: componentRef('schemas', 'ProfileRequest') },
      response: success,
    });
  return {
    session: {
      post: jsonOperation({
        operationId: `create${w.idPart}Session`,
        summary: w.login.summary,
        ...(w.login.description === undefined ? {} : { description: w.login.description }),
        body: { description: w.login.body, schema: componentRef('schemas', 'SessionRequest') },
        response: session,
      }),
      get: jsonOperation({ operationId: `get${w.idPart}Session`, summary: w.currentSession, response: session }),
      put: jsonOperation({
        operationId: `refresh${w.idPart}Session`,
        summary: 'Refresh the session token.',
        parameters: [
          {
            name: 'session_token',
            in: 'query',
            required: false,
            description: 'Token to refresh, if not sent in the session header.',
            schema: { type: 'string' },
          },
        ],
        response: session,
      }),
      delete: jsonOperation({ operationId: `delete${w.idPart}Session`, summary: 'Log out: end the session.', response: success }),
    },
    password: {
      post: jsonOperation({
        operationId: `change${w.idPart}Password`,
        summary: 'Change the password (with a session), request a reset code (`{email}` alone, or `reset=true`), or reset with a code.',
        parameters: [
          flag('reset', 'Send a reset code by email to `email` (a body of `{email}` alone does too).'),
          flag('login', 'Also log in: the response carries `session_token`.'),
        ],
        body: {
          description: '`{old_password, new_password}`, `{email}` or `{email, code, new_password}`.',
          schema: componentRef('schemas', 'PasswordRequest'),
        },
        response: success,
      }),
    },
    profile: {
      get: jsonOperation({
        operationId: `get${w.idPart}Profile`,
        summary: `The ${w.owner} own profile.`,
        response: { description: 'The profile.', schema: componentRef('schemas', 'Profile') },
      }),
      post: profileUpdate('update'),
      // PUT and PATCH change it as POST does.
      put: profileUpdate('replace'),
      patch: profileUpdate('patch'),
    },
  };
}
