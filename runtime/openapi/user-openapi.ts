/** The OpenAPI fragment of the user service: sessions, registration, passwords and profiles of regular users. */
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation } from './operation-builder.js';
import { selfServicePaths } from './self-service-openapi.js';
import { componentRef } from './shared-components.js';
import { selfServiceSchemas } from './system-openapi.js';

export function userServiceOpenApi(): OpenApiFragment {
  const { session, password, profile } = selfServicePaths({
    idPart: 'User',
    owner: "user's",
    login: { summary: 'Log a user in (administrators log in at /system/admin/session).', body: 'Credentials.' },
    currentSession: 'Current session; refreshes the token.',
  });
  const success = { description: 'Success.', schema: componentRef('schemas', 'Success') };
  const login = {
    name: 'login',
    in: 'query' as const,
    required: false,
    description: 'Also log in: the response carries `session_token`.',
    schema: { type: 'boolean' as const },
  };
  return {
    paths: {
      '/': {
        get: jsonOperation({
          operationId: 'getUserResources',
          summary: 'List the user resources.',
          response: { description: 'The resources.', schema: componentRef('schemas', 'ResourceList') },
        }),
      },
      '/session': session,
      '/register': {
        post: jsonOperation({
          operationId: 'registerUser',
          summary: 'Open registration of a new user, when the platform allows it.',
          parameters: [login],
          body: { description: 'The new user.', schema: componentRef('schemas', 'RegisterRequest') },
          response: success,
        }),
      },
      '/password': password,
      '/profile': profile,
    },
    components: {
      schemas: {
        ...selfServiceSchemas(),
        RegisterRequest: {
          type: 'object',
          required: ['email'],
          properties: {
            email: { type: 'string' },
            first_name: { type: 'string' },
            last_name: { type: 'string' },
            name: { type: 'string' },
            username: { type: 'string' },
            phone: { type: 'string' },
            password: { type: 'string', format: 'password' },
            new_password: { type: 'string', format: 'password', description: 'Alias of password.' },
            password_confirmation: { type: 'string', format: 'password' },
          },
        },
      },
    },
  };
}
