/**
 * The OpenAPI fragment of the system service's endpoints that clients need first: the admin
 * session (login, refresh, logout), the environment and the app list (where the admin app's API
 * key is read).
 */
import type { SchemaObject } from 'openapi3-ts/oas30';
import type { OpenApiFragment } from './fragment.js';
import { jsonOperation } from './operation-builder.js';
import { componentRef, parameterRefs } from './shared-components.js';

const app: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer', readOnly: true },
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    is_active: { type: 'boolean' },
    api_key: { type: 'string', readOnly: true, description: 'The value to send in `X-Service-API-Key`.' },
  },
};

export function systemServiceOpenApi(): OpenApiFragment {
  const session = { description: 'The session.', schema: componentRef('schemas', 'SessionResponse') };
  return {
    paths: {
      '/admin/session': {
        post: jsonOperation({
          operationId: 'createSystemAdminSession',
          summary: 'Log an administrator in.',
          description: 'Needs the API key only. Returns `session_token` for `X-Service-Session-Token`.',
          body: { description: 'Credentials, and the session lifetime in minutes.', schema: componentRef('schemas', 'SessionRequest') },
          response: session,
        }),
        get: jsonOperation({
          operationId: 'getSystemAdminSession',
          summary: 'Current administrator session; refreshes the token.',
          response: session,
        }),
        put: jsonOperation({
          operationId: 'refreshSystemAdminSession',
          summary: 'Refresh the session token.',
          parameters: [{ name: 'session_token', in: 'query', required: false, description: 'Token to refresh, if not sent in the session header.', schema: { type: 'string' } }],
          response: session,
        }),
        delete: jsonOperation({
          operationId: 'deleteSystemAdminSession',
          summary: 'Log out: end the session.',
          response: { description: 'Success.', schema: componentRef('schemas', 'Success') },
        }),
      },
      '/environment': {
        get: jsonOperation({
          operationId: 'getSystemEnvironment',
          summary: 'Platform information.',
          response: { description: 'The environment.', schema: componentRef('schemas', 'Environment') },
        }),
      },
      '/app': {
        get: jsonOperation({
          operationId: 'getSystemApps',
          summary: 'List the apps and their API keys.',
          parameters: parameterRefs('fields', 'filter', 'limit', 'offset', 'order', 'include_count', 'ids'),
          response: { description: 'The apps.', schema: componentRef('schemas', 'AppsResponse') },
        }),
      },
    },
    components: {
      schemas: {
        Environment: {
          type: 'object',
          properties: {
            platform: {
              type: 'object',
              properties: { version: { type: 'string' }, is_hosted: { type: 'boolean' } },
              additionalProperties: true,
            },
          },
          additionalProperties: true,
        },
        App: app,
        AppsResponse: {
          type: 'object',
          properties: {
            resource: { type: 'array', items: componentRef('schemas', 'App') },
            meta: componentRef('schemas', 'Metadata'),
          },
        },
      },
    },
  };
}
