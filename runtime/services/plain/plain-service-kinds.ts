/**
 * Kinds listed but not served yet (their handler answers 501 for every request), and the email
 * kinds. The types the runtime serves itself (system, api_docs, user) are declared by
 * runtime/system/internal-service-types.ts.
 */
import { NotImplementedError } from '../../core/errors.js';
import { localEmailKind } from '../email/local-email-kind.js';
import { smtpEmailKind } from '../email/smtp-email-kind.js';
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

/** MQTT and AMQP clients and the MCP server (reference service-types.md §4, §5): listed and configurable, not served yet. */
export const plainServiceKinds: ServiceKind[] = [
  plainKind('mqtt', 'MQTT Client', 'IoT', 'MQTT Client based on Mosquitto', {
    required: ['host', 'client_id'],
    properties: {
      host: { type: 'string', title: 'Broker Host', description: 'MQTT broker host name or address.' },
      port: { type: 'integer', title: 'Broker Port', description: 'Broker port (1883 unless TLS).' },
      client_id: { type: 'string', description: 'Client id; make sure this is unique.' },
      username: { type: 'string' }, password: { type: 'string', format: 'password' },
      use_tls: { type: 'boolean', description: 'Connect with TLS.' },
      capath: { type: 'string', title: 'CA Certificate Path', description: 'Folder of CA certificates for TLS (default /etc/ssl/certs).' },
    },
  }),
  plainKind('amqp', 'AMQP Client', 'IoT', 'AMQP Client service for the platform', {
    required: ['host'],
    properties: {
      host: { type: 'string', description: 'AMQP 0-9-1 broker host name or address.' },
      port: { type: 'integer', description: 'Broker port (5672).' },
      username: { type: 'string' }, password: { type: 'string', format: 'password' },
      vhost: { type: 'string', description: 'Virtual host (default /).' },
    },
  }),
  plainKind('mcp', 'MCP Server Service', 'MCP', 'MCP Server service for Model Context Protocol.', {
    properties: {
      exposed_services: { type: 'array', items: { type: 'string' }, description: 'Database and file services whose tools are offered.' },
      redirect_uris: { type: 'array', items: { type: 'string' }, description: 'Allowed OAuth redirect URIs.' },
      allow_writes: { type: 'boolean', description: 'Offer tools that write (default true).' },
    },
  }),
  localEmailKind,
  smtpEmailKind,
];
