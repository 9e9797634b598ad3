/** The OpenAPI fragment of the user service: sessions, registration, passwords and profiles of regular users. */
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation } from './operation-builder.js';
import { componentRef } from './shared-components.js';
import { selfServiceSchemas } from './system-openapi.js';

export function userServiceOpenApi(): OpenApiFragment {
  const session = { description: 'The session.', schema: componentRef('schemas', 'SessionResponse') };
  const success = { description: 'Success.', schema: componentRef('schemas', 'Success') };
  const login = { name: 'login', in: 'query' as const, required: false, description: 'Also log in: the response carries `session_token`.', schema: { type: 'boolean' as const } };
  return {
    paths: {
      '/': { get: jsonOperation({ operationId: 'getUserResources', summary: 'List the user resources.', response: { description: 'The resources.', schema: componentRef('schemas', 'ResourceList') } }) },
      '/session': {
        post: jsonOperation({
          operationId: 'createUserSession',
          summary: 'Log a user in (administrators log in at /system/admin/session).',
          body: { description: 'Credentials.', schema: componentRef('schemas', 'SessionRequest') },
          response: session,
        }),
        get: jsonOperation({ operationId: 'getUserSession', summary: 'Current session; refreshes the token.', response: session }),
        put: jsonOperation({
          operationId: 'refreshUserSession',
          summary: 'Refresh the session token.',
          parameters: [{ name: 'session_token', in: 'query', required: false, description: 'Token to refresh, if not sent in the session header.', schema: { type: 'string' } }],
          response: session,
        }),
        delete: jsonOperation({ operationId: 'deleteUserSession', summary: 'Log out: end the session.', response: success }),
      },
      '/register': {
        post: jsonOperation({
          operationId: 'registerUser',
          summary: 'Open registration of a new user, when the platform allows it.',
          parameters: [login],
          body: { description: 'The new user.', schema: componentRef('schemas', 'RegisterRequest') },
          response: success,
        }),
      },
      '/password': {
        post: jsonOperation({
          operationId: 'changeUserPassword',
          summary: 'Change the password (with a session), request a reset code (`reset=true`), or reset with a code.',
          parameters: [{ name: 'reset', in: 'query', required: false, description: 'Send a reset code by email to `email`.', schema: { type: 'boolean' } }, login],
          body: { description: '`{old_password, new_password}`, `{email}` or `{email, code, new_password}`.', schema: componentRef('schemas', 'PasswordRequest') },
          response: success,
        }),
      },
      '/profile': {
        get: jsonOperation({ operationId: 'getUserProfile', summary: 'The user\'s own profile.', response: { description: 'The profile.', schema: componentRef('schemas', 'Profile') } }),
        post: jsonOperation({
          operationId: 'updateUserProfile',
          summary: 'Change the user\'s own profile; a new email needs `current_password`.',
          body: { description: 'The fields to change.', schema: componentRef('schemas', 'ProfileRequest') },
          response: success,
        }),
      },
    },
    components: {
      schemas: {
        ...selfServiceSchemas(),
        RegisterRequest: {
          type: 'object',
          required: ['email'],
          properties: {
            email: { type: 'string' }, first_name: { type: 'string' }, last_name: { type: 'string' }, name: { type: 'string' },
            username: { type: 'string' }, phone: { type: 'string' },
            password: { type: 'string', format: 'password' }, new_password: { type: 'string', format: 'password', description: 'Alias of password.' },
            password_confirmation: { type: 'string', format: 'password' },
          },
        },
      },
    },
  };
}
