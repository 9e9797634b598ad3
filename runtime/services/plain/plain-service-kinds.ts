/**
 * Kinds whose requests the runtime routes itself (system, user, api_docs) or that are listed but
 * not served yet (files), and the email kinds. The plain handlers answer 501 for every request.
 */
import { NotImplementedError } from '../../core/errors.js';
import { localEmailKind } from '../email/local-email-kind.js';
import type { ServiceGroup, ServiceHandler, ServiceKind } from '../service-kind.js';
import { userConfigSchema } from '../user/user-config.js';

function plainKind(type: string, label: string, group: ServiceGroup, description: string, configSchema: Record<string, unknown> = {}): ServiceKind {
  return {
    type,
    label,
    group,
    description,
    configSchema: { type: 'object', additionalProperties: true, ...configSchema },
    async open(service): Promise<ServiceHandler> {
      return {
        async handle() {
          throw new NotImplementedError(`The '${service.name}' service (type ${type}) does not serve requests in this version.`);
        },
        openapi: () => ({ paths: {}, components: {} }),
        async close() {},
      };
    },
  };
}

export const plainServiceKinds: ServiceKind[] = [
  plainKind('system', 'System Management', 'System', 'Manages the platform: administrators, users, apps, services, roles and settings.'),
  plainKind('swagger', 'API Docs', 'API Doc', 'OpenAPI documents of every service.'),
  plainKind('user', 'User Management', 'User', 'Sessions, registration and passwords of regular users.', userConfigSchema),
  plainKind('local_file', 'Local File Storage', 'File', 'Files in a directory of the server.', {
    properties: { container: { type: 'string', description: 'Directory, relative to the platform directory.' } },
  }),
  localEmailKind,
];
