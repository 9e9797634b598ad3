/**
 * Kinds listed but not served yet (files: their handler answers 501 for every request), and the
 * email kinds. The types the runtime serves itself (system, api_docs, user) are declared by
 * runtime/system/internal-service-types.ts.
 */
import { NotImplementedError } from '../../core/errors.js';
import { localEmailKind } from '../email/local-email-kind.js';
import type { ServiceGroup, ServiceHandler, ServiceKind } from '../service-kind.js';

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
  plainKind('local_file', 'Local File Storage', 'File', 'Files in a directory of the server.', {
    properties: { container: { type: 'string', description: 'Directory, relative to the platform directory.' } },
  }),
  localEmailKind,
];
